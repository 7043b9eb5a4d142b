/**
 * Importer for OpenHands trajectories and event streams.
 *
 * V0 events (test/fixtures/agent-session-logs/SCHEMAS.md §4; OpenHands `openhands/events`
 * serialization and the frontend's `OpenHandsEventType`): `{id, timestamp, source, message}` plus
 * either an action (`action`, `args`) or an observation (`observation`, `content`, `extras`,
 * `cause` = the id of the action it answers). Actions made by a function call carry
 * `tool_call_metadata {function_name, tool_call_id, model_response, total_calls_in_response}`, where
 * `model_response` is the whole chat completion that produced them — the exact assistant message,
 * raw tool-call arguments, model and usage. `agent_state_changed` observations mark where the agent
 * stopped (`awaiting_user_input`, `finished`, `error`, `stopped`).
 *
 * SDK events (OpenHands software-agent-sdk `openhands/sdk/event`): `{kind, id, timestamp, source}`
 * — `MessageEvent {llm_message}`, `ActionEvent {thought, reasoning_content, tool_call, tool_call_id,
 * llm_response_id}`, `ObservationEvent {observation, tool_call_id}`, `AgentErrorEvent`,
 * `UserRejectObservation`, `SystemPromptEvent`, `ConversationStateUpdateEvent`, condensation events.
 *
 * Mapping: a user message starts a turn (or steers the running one); one model response is one
 * step (`assistant/message` with its text, reasoning and every tool call of the response); each
 * action with a tool call is a `tool/call`; an observation linked to it (by tool call id or
 * `cause`) its `tool/result` (exit code in `meta`). A call with no observation (`finish`) gets an
 * outcome-unknown result so the history stays valid. The agent stopping ends the turn. Everything
 * else — state changes, null observations, recall context, actions without a tool call — is kept
 * whole as a raw row. Times are the events' own timestamps (read as UTC when they carry no offset).
 */
import type { TokenUsage } from '../../shared/chunks.js';
import type { ForeignFacts } from '../../shared/events.js';
import type { JsonObject, JsonValue } from '../../shared/json.js';
import type { AssistantBlock, ToolSchema } from '../../shared/messages.js';
import { ConversationBuilder } from './conversation-builder.js';
import type { ImportedLogWriter } from './log-writer.js';
import { isoTime, type HeaderFacts, type RecordImporter } from './record-importer.js';

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
function str(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
function num(value: JsonValue | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Agent states after which the agent waits: its turn is over. */
const TURN_ENDING_STATES: ReadonlySet<string> = new Set(['awaiting_user_input', 'finished', 'error', 'stopped', 'rejected', 'paused']);

export class OpenHandsImporter implements RecordImporter {
  readonly format = 'openhands' as const;
  readonly tolerateDamagedTail = false;
  readonly warnings: string[] = [];
  private readonly b: ConversationBuilder;
  private readonly fact: { createdAt?: number; formatVersion?: string; id?: string } = {};
  private system: string | undefined;
  private tools: ToolSchema[] | undefined;
  private headerLogged = false;
  private model = 'unknown';
  private provider = 'unknown';
  /** The model response whose assistant message was written last (V0 `model_response.id`, SDK `llm_response_id`). */
  private responseId: string | undefined;
  /** V0 action id → tool call id, for observations that link by `cause`. */
  private readonly actionCalls = new Map<number | string, string>();
  /** The agent gave a final answer (no open calls) or stopped. */
  private answered = false;
  private untooled = 0;

  constructor(private readonly writer: ImportedLogWriter) {
    this.b = new ConversationBuilder(writer, 'openhands', 'openhands');
  }

  get modelViewNotes(): readonly string[] {
    return this.b.modelViewNotes;
  }
  closesTurn(): boolean {
    return false;
  }
  facts(): HeaderFacts {
    return { ...this.fact };
  }

  record(value: JsonValue): void {
    if (!isObject(value)) return this.b.foreign(undefined, 'non-object', value);
    const time = isoTime(value['timestamp']);
    if (this.fact.createdAt === undefined && time !== undefined) this.fact.createdAt = time;
    if (typeof value['kind'] === 'string') return this.onSdkEvent(value, value['kind'], time);
    if (typeof value['action'] === 'string') return this.onAction(value, value['action'], time);
    if (typeof value['observation'] === 'string') return this.onObservation(value, value['observation'], time);
    this.raw(time, 'event', value);
  }

  private raw(time: number | undefined, type: string, value: JsonValue, modelVisible = false, note?: string): void {
    this.b.foreign(time, type, value, { ...(modelVisible ? { modelVisible } : {}), ...(note ? { note } : {}) });
  }

  private setModel(model: string | undefined): void {
    if (!model) return;
    const slash = model.indexOf('/');
    if (slash > 0) {
      this.provider = model.slice(0, slash);
      this.model = model.slice(slash + 1);
    } else this.model = model;
  }

  /** A user prompt: ends a finished turn, else steers the running one. */
  private prompt(time: number | undefined, text: string, facts: ForeignFacts): void {
    if (this.b.inTurn && this.answered) this.b.endTurn(this.b.time(undefined), { kind: 'completed' });
    if (!this.b.inTurn) {
      this.b.startTurn(time);
      this.headerLogged = false;
    }
    this.answered = false;
    this.b.userMessage(time, [{ type: 'text', text }], { kind: 'user', foreign: facts });
  }

  private logHeader(time: number | undefined): void {
    if (this.headerLogged || (this.system === undefined && this.tools === undefined)) return;
    this.headerLogged = true;
    this.b.requestHeader(time, { provider: this.provider, model: this.model, ...(this.system !== undefined ? { system: this.system } : {}), ...(this.tools ? { tools: this.tools } : {}) }, 'initial');
  }

  /** Writes a model response's assistant message once (the first of its actions brings it). */
  private response(time: number | undefined, id: string, blocks: AssistantBlock[], usage: TokenUsage | undefined, foreign: ForeignFacts): void {
    if (this.responseId === id && this.b.stepHasAssistant) return;
    this.responseId = id;
    if (!this.b.inTurn) this.b.startTurn(time);
    if (!this.b.inStep || this.b.stepHasAssistant) this.b.startStep(time);
    this.logHeader(time);
    this.b.assistantMessage(time, blocks, { provider: this.provider, model: this.model }, usage, foreign);
    this.answered = !blocks.some((b) => b.type === 'tool-call');
  }

  // ---- V0 ---------------------------------------------------------------------------------

  private onAction(e: JsonObject, action: string, time: number | undefined): void {
    const args = isObject(e['args']) ? e['args'] : {};
    const source = str(e['source']) ?? '';
    const tcm = isObject(e['tool_call_metadata']) ? e['tool_call_metadata'] : undefined;
    if (action === 'system') {
      this.system = str(args['content']) ?? this.system;
      this.tools = toolSchemas(args['tools']) ?? this.tools;
      this.fact.formatVersion ??= str(args['openhands_version']);
      return this.raw(time, 'action/system', e);
    }
    if (action === 'message' && source === 'user') {
      return this.prompt(time, str(args['content']) ?? str(e['message']) ?? '', { format: 'openhands', event: withoutKeys(e, 'args'), args: withoutKeys(args, 'content') });
    }
    if (tcm) {
      const mr = isObject(tcm['model_response']) ? tcm['model_response'] : undefined;
      const callId = str(tcm['tool_call_id']) ?? `openhands-call-${String(e['id'])}`;
      const choice = mr && Array.isArray(mr['choices']) && isObject(mr['choices'][0]) ? mr['choices'][0] : undefined;
      const message = choice && isObject(choice['message']) ? choice['message'] : undefined;
      this.setModel(str(mr?.['model']));
      const blocks: AssistantBlock[] = [];
      const reasoning = str(message?.['reasoning_content']);
      if (reasoning) blocks.push({ type: 'reasoning', text: reasoning });
      const text = message ? contentText(message['content']) : (str(args['thought']) ?? '');
      if (text) blocks.push({ type: 'text', text });
      const calls = message && Array.isArray(message['tool_calls']) ? message['tool_calls'] : [];
      for (const c of calls) {
        if (!isObject(c) || !isObject(c['function'])) continue;
        blocks.push({ type: 'tool-call', id: str(c['id']) ?? callId, name: str(c['function']['name']) ?? '(unknown)', arguments: str(c['function']['arguments']) ?? '{}' });
      }
      if (!blocks.some((b) => b.type === 'tool-call' && b.id === callId)) {
        blocks.push({ type: 'tool-call', id: callId, name: str(tcm['function_name']) ?? action, arguments: JSON.stringify(withoutKeys(args, 'thought')) });
      }
      const responseId = str(mr?.['id']) ?? `openhands-response-${String(e['id'])}`;
      const { model_response: _mr, ...tcmRest } = tcm;
      void _mr;
      this.response(time, responseId, blocks, readUsage(mr?.['usage']), { format: 'openhands', modelResponse: mr ?? null });
      this.actionCalls.set(e['id'] as number, callId);
      if (!this.b.toolCall(time, callId, { format: 'openhands', event: withoutKeys(e, 'tool_call_metadata'), toolCallMetadata: tcmRest })) {
        this.raw(time, `action/${action}`, e, true, `a call ${callId} that its model response does not list`);
      }
      return;
    }
    if (action === 'message' && source === 'agent') {
      const text = str(args['content']) ?? str(e['message']) ?? '';
      this.response(time, `openhands-message-${String(e['id'])}`, [{ type: 'text', text }], undefined, { format: 'openhands', event: withoutKeys(e, 'args'), args: withoutKeys(args, 'content') });
      return;
    }
    if (source === 'agent' && action !== 'change_agent_state' && action !== 'recall') {
      this.untooled++;
      this.b.noteModelView('agent actions without tool-call metadata (older prompt-based actions) are kept as raw rows, not replayed');
      return this.raw(time, `action/${action}`, e, true);
    }
    this.raw(time, `action/${action}`, e);
  }

  private onObservation(e: JsonObject, observation: string, time: number | undefined): void {
    const tcm = isObject(e['tool_call_metadata']) ? e['tool_call_metadata'] : undefined;
    const cause = e['cause'];
    const callId = str(tcm?.['tool_call_id']) ?? (typeof cause === 'number' || typeof cause === 'string' ? this.actionCalls.get(cause) : undefined);
    const extras = isObject(e['extras']) ? e['extras'] : {};
    if (observation === 'agent_state_changed') {
      this.raw(time, 'observation/agent_state_changed', e);
      const state = str(extras['agent_state']) ?? '';
      if (TURN_ENDING_STATES.has(state) && this.b.inTurn) {
        const reason =
          state === 'error'
            ? ({ kind: 'error', failure: { code: 'UNKNOWN', message: str(extras['reason']) ?? 'the agent stopped with an error' } } as const)
            : state === 'stopped' || state === 'rejected' || state === 'paused'
              ? ({ kind: 'aborted', cause: { kind: 'user' } } as const)
              : ({ kind: 'completed' } as const);
        this.b.endTurn(time, reason, { format: 'openhands', agentState: state });
        this.answered = false;
      }
      return;
    }
    if (callId !== undefined && this.b.isPending(callId)) {
      const metadata = isObject(extras['metadata']) ? extras['metadata'] : {};
      const exitCode = num(metadata['exit_code']) ?? num(extras['exit_code']);
      const meta = exitCode !== undefined ? { exitCode } : undefined;
      const { tool_call_metadata: _t, content: _c, ...rest } = e;
      void _t;
      void _c;
      this.b.toolResult(time, callId, [{ type: 'text', text: str(e['content']) ?? '' }], observation === 'error', meta, { format: 'openhands', event: rest });
      return;
    }
    if (observation === 'recall') {
      this.b.noteModelView('recall observations (repository and microagent context) changed what the model saw; this import cannot rebuild that text');
      return this.raw(time, 'observation/recall', e, true);
    }
    this.raw(time, `observation/${observation}`, e);
  }

  // ---- SDK events -------------------------------------------------------------------------

  private onSdkEvent(e: JsonObject, kind: string, time: number | undefined): void {
    switch (kind) {
      case 'SystemPromptEvent': {
        const sp = e['system_prompt'];
        this.system = isObject(sp) ? str(sp['text']) : str(sp);
        this.tools = toolSchemas(e['tools']) ?? this.tools;
        return this.raw(time, kind, e);
      }
      case 'MessageEvent': {
        const m = isObject(e['llm_message']) ? e['llm_message'] : {};
        const text = contentText(m['content']);
        if (str(e['source']) === 'user' || m['role'] === 'user') return this.prompt(time, text, { format: 'openhands', event: withoutKeys(e, 'llm_message') });
        const blocks: AssistantBlock[] = [];
        const reasoning = str(m['reasoning_content']);
        if (reasoning) blocks.push({ type: 'reasoning', text: reasoning });
        blocks.push({ type: 'text', text });
        this.response(time, `message-${str(e['id']) ?? this.writer.nextSeq}`, blocks, undefined, { format: 'openhands', event: withoutKeys(e, 'llm_message') });
        return;
      }
      case 'ActionEvent': {
        const call = isObject(e['tool_call']) ? e['tool_call'] : {};
        const callId = str(e['tool_call_id']) ?? str(call['id']) ?? `openhands-call-${str(e['id']) ?? this.writer.nextSeq}`;
        const fn = isObject(call['function']) ? call['function'] : call;
        const args = str(fn['arguments']) ?? JSON.stringify(e['action'] ?? {});
        const name = str(e['tool_name']) ?? str(fn['name']) ?? '(unknown)';
        const responseId = str(e['llm_response_id']) ?? `response-${str(e['id'])}`;
        if (this.responseId === responseId && this.b.stepHasAssistant) {
          // A further call of a response already written: the SDK writes one event per call.
          this.b.noteModelView('a model response with several tool calls is split over events; later calls are kept as their own steps');
        }
        const blocks: AssistantBlock[] = [];
        const reasoning = str(e['reasoning_content']);
        if (reasoning) blocks.push({ type: 'reasoning', text: reasoning });
        const thought = contentText(e['thought']);
        if (thought) blocks.push({ type: 'text', text: thought });
        blocks.push({ type: 'tool-call', id: callId, name, arguments: args });
        this.responseId = undefined;
        this.response(time, `${responseId}:${callId}`, blocks, undefined, { format: 'openhands', event: withoutKeys(e, 'tool_call') });
        this.b.toolCall(time, callId);
        return;
      }
      case 'ObservationEvent':
      case 'AgentErrorEvent':
      case 'UserRejectObservation': {
        const callId = str(e['tool_call_id']) ?? '';
        const obs = isObject(e['observation']) ? e['observation'] : {};
        const text = kind === 'ObservationEvent' ? contentText(obs['content']) || str(obs['output']) || '' : (str(e['error']) ?? str(e['rejection_reason']) ?? '');
        const isError = kind !== 'ObservationEvent' || obs['is_error'] === true;
        if (!this.b.toolResult(time, callId, [{ type: 'text', text }], isError, undefined, { format: 'openhands', event: withoutKeys(e, 'observation') })) {
          this.raw(time, kind, e, true, `a result for ${callId}, which is not an open call`);
        }
        return;
      }
      case 'ConversationStateUpdateEvent': {
        this.raw(time, kind, e);
        const status = e['key'] === 'agent_status' ? str(e['value']) : undefined;
        if (status && TURN_ENDING_STATES.has(status) && this.b.inTurn)
          this.b.endTurn(time, status === 'error' ? { kind: 'error', failure: { code: 'UNKNOWN', message: 'the agent stopped with an error' } } : { kind: 'completed' });
        return;
      }
      case 'CondensationSummaryEvent':
      case 'Condensation':
        this.b.noteModelView('condensation events changed what the model saw; they are kept as raw rows, not replayed');
        return this.raw(time, kind, e, true);
      default:
        return this.raw(time, kind, e);
    }
  }

  finish(): void {
    const last = this.b.time(undefined);
    if (this.b.inTurn) this.b.endTurn(last, this.answered ? { kind: 'completed' } : { kind: 'source-ended' });
    if (this.untooled > 0) this.warnings.push(`${this.untooled} agent action(s) without tool-call metadata kept as raw rows`);
    const raw = this.b.rawRowsWarning();
    if (raw !== undefined) this.warnings.push(raw);
  }
}

function withoutKeys(o: JsonObject, ...keys: string[]): { [key: string]: JsonValue } {
  const out: { [key: string]: JsonValue } = {};
  for (const [k, v] of Object.entries(o)) if (!keys.includes(k)) out[k] = v;
  return out;
}

/** Text of chat-completion content: a string, or a list of `{type:'text', text}` parts. */
function contentText(content: JsonValue | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((c) => (isObject(c) && typeof c['text'] === 'string' ? c['text'] : '')).join('');
}

/** OpenAI-style `[{type:'function', function:{name, description, parameters}}]` → our tool schemas. */
function toolSchemas(value: JsonValue | undefined): ToolSchema[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: ToolSchema[] = [];
  for (const t of value) {
    const fn = isObject(t) && isObject(t['function']) ? t['function'] : isObject(t) ? t : undefined;
    if (!fn || typeof fn['name'] !== 'string') continue;
    out.push({ name: fn['name'], description: str(fn['description']) ?? '', parameters: isObject(fn['parameters']) ? fn['parameters'] : {} });
  }
  return out;
}

/**
 * LiteLLM usage → our disjoint counts: `prompt_tokens` includes cached input (and, for Anthropic
 * models, cache writes reported as `cache_creation_input_tokens`).
 */
function readUsage(value: JsonValue | undefined): TokenUsage | undefined {
  if (!isObject(value)) return undefined;
  const prompt = num(value['prompt_tokens']);
  const completion = num(value['completion_tokens']);
  if (prompt === undefined || completion === undefined) return undefined;
  const details = isObject(value['prompt_tokens_details']) ? value['prompt_tokens_details'] : {};
  const cached = num(details['cached_tokens']) ?? num(value['cache_read_input_tokens']) ?? 0;
  const written = num(value['cache_creation_input_tokens']);
  const completionDetails = isObject(value['completion_tokens_details']) ? value['completion_tokens_details'] : {};
  const reasoning = num(completionDetails['reasoning_tokens']);
  return {
    inputTokens: Math.max(0, prompt - cached - (written ?? 0)),
    outputTokens: completion,
    cacheReadTokens: cached,
    ...(written !== undefined ? { cacheWriteTokens: written } : {}),
    ...(reasoning !== undefined ? { reasoningTokens: reasoning } : {}),
  };
}
