/**
 * Importer for Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl`).
 *
 * Format (test/fixtures/agent-session-logs/SCHEMAS.md §3; openai/codex `codex-rs/protocol`
 * `RolloutLine` / `ResponseItem` / `EventMsg`): every line is `{timestamp, type, payload}`:
 * `session_meta` (id, cwd, cli_version, model_provider, base_instructions), `turn_context` (model,
 * effort, policies per turn), `response_item` (Responses-API items sent to or received from the
 * model: `message` with role user/assistant/developer, `reasoning`, `function_call` answered by
 * `function_call_output` through `call_id`, `custom_tool_call` / `custom_tool_call_output`,
 * `local_shell_call`, `web_search_call`, …), `event_msg` (UI and telemetry: `task_started`,
 * `task_complete`, `turn_aborted`, `token_count`, `exec_command_end`, duplicates of messages) and
 * `compacted` (a summary that replaces the history before it).
 *
 * Mapping: turns follow `task_started` … `task_complete` / `turn_aborted` when the rollout has
 * them, else each typed user prompt after the model's final answer starts one. Consecutive model
 * output items (reasoning, assistant text, calls) are one step's `assistant/message`; outputs answer
 * the step's calls. Developer messages and environment context become user-role context messages
 * (`source.plugin: codex`). `token_count.info.last_token_usage` gives the step's tokens
 * (`input_tokens` includes cached input, so uncached = input − cached). `exec_command_end` gives a
 * call's exit code and duration. Every `event_msg` and any item we do not map is kept whole as a
 * raw row. Times are the lines' own `timestamp`s.
 */
import type { TokenUsage } from '../../shared/chunks.js';
import type { ForeignFacts } from '../../shared/events.js';
import type { JsonObject, JsonValue } from '../../shared/json.js';
import type { AssistantBlock, TextBlock } from '../../shared/messages.js';
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

/** Model output items that make up one step's answer. */
const OUTPUT_ITEMS: ReadonlySet<string> = new Set(['reasoning', 'function_call', 'custom_tool_call', 'local_shell_call']);
/** Items that answer a call. */
const CALL_OUTPUTS: ReadonlySet<string> = new Set(['function_call_output', 'custom_tool_call_output', 'local_shell_call_output']);

/** Context Codex injects as user messages (not typed by a person). */
const CONTEXT_PREFIXES = ['<environment_context>', '<user_instructions>', '# AGENTS.md instructions', '<user_shell_command>', '<turn_aborted>'];

interface PendingAnswer {
  readonly blocks: AssistantBlock[];
  readonly calls: string[];
  readonly items: JsonValue[];
  firstTime: number | undefined;
  lastTime: number | undefined;
  usage: TokenUsage | undefined;
}

export class CodexImporter implements RecordImporter {
  readonly format = 'codex' as const;
  readonly tolerateDamagedTail = false;
  readonly warnings: string[] = [];
  private readonly b: ConversationBuilder;
  private readonly fact: { id?: string; createdAt?: number; cwd?: string; formatVersion?: string } = {};
  private provider = 'openai';
  private model = 'unknown';
  private effort: string | undefined;
  private system: string | undefined;
  private headerLogged: string | undefined;
  private contextWindow: number | undefined;
  /** The rollout marks turns itself (`task_started`). */
  private explicitTurns = false;
  private answer: PendingAnswer | undefined;
  /** The last step ended with the model's final answer (no calls pending). */
  private answered = false;
  /** Shell facts per call id from `exec_command_end`, used by the matching output. */
  private readonly execFacts = new Map<string, JsonObject>();
  private lastUsage: TokenUsage | undefined;
  /**
   * `event_msg` `user_message` / `agent_message` not (yet) matched by a `response_item` message of
   * the same text. Rollouts write both for one message, in either order; some write only the event.
   * An event is held until a matching item makes it a duplicate, or until a record after which no
   * item for it can come (see {@link flushEventMessages}) makes it the message.
   */
  private eventMessages: { readonly role: 'user' | 'assistant'; readonly text: string; readonly time: number | undefined; readonly line: JsonObject }[] = [];
  /** Text of the typed prompts and answers items gave since the last prompt (events repeating them are duplicates). */
  private itemTexts = { user: new Set<string>(), assistant: new Set<string>() };
  /** Text of the messages made from events since the last prompt (a late item repeating one is a duplicate). */
  private fromEvents = { user: new Set<string>(), assistant: new Set<string>() };

  constructor(private readonly writer: ImportedLogWriter) {
    this.b = new ConversationBuilder(writer, 'codex', 'codex');
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
    const type = str(value['type']) ?? '';
    const payload = isObject(value['payload']) ? value['payload'] : {};
    if (this.eventMessages.length > 0 && !this.keepsEventMessages(type, payload)) this.flushEventMessages();
    switch (type) {
      case 'session_meta':
        return this.onSessionMeta(value, payload, time);
      case 'turn_context':
        this.model = str(payload['model']) ?? this.model;
        this.effort =
          str(payload['effort']) ??
          (isObject(payload['collaboration_mode']) ? str((payload['collaboration_mode']['settings'] as JsonObject | undefined)?.['reasoning_effort']) : undefined) ??
          this.effort;
        if (this.fact.cwd === undefined && typeof payload['cwd'] === 'string') this.fact.cwd = payload['cwd'];
        return this.raw(time, 'turn_context', value);
      case 'response_item':
        return this.onItem(value, payload, time);
      case 'event_msg':
        return this.onEvent(value, payload, time);
      case 'compacted': {
        this.flushAnswer();
        const history = Array.isArray(payload['replacement_history']) ? payload['replacement_history'] : undefined;
        const text =
          str(payload['message']) ||
          (history
            ? history
                .map((i) => (isObject(i) ? itemText(i['content']) : ''))
                .filter(Boolean)
                .join('\n\n')
            : '');
        this.b.compaction(time, `codex-compacted-${this.writer.nextSeq}`, text, value);
        return;
      }
      default:
        return this.raw(time, type || 'line', value);
    }
  }

  private raw(time: number | undefined, type: string, value: JsonValue, modelVisible = false, note?: string): void {
    this.b.foreign(time, type, value, { ...(modelVisible ? { modelVisible } : {}), ...(note ? { note } : {}) });
  }

  private onSessionMeta(line: JsonObject, p: JsonObject, time: number | undefined): void {
    if (this.fact.id === undefined && typeof p['id'] === 'string') this.fact.id = p['id'];
    if (typeof p['cwd'] === 'string') this.fact.cwd = p['cwd'];
    if (typeof p['cli_version'] === 'string') this.fact.formatVersion = p['cli_version'];
    const ts = isoTime(p['timestamp']);
    if (ts !== undefined) this.fact.createdAt = ts;
    if (typeof p['model_provider'] === 'string') this.provider = p['model_provider'];
    const instructions = p['base_instructions'] ?? p['instructions'];
    this.system = isObject(instructions) ? str(instructions['text']) : str(instructions);
    this.raw(time, 'session_meta', line);
  }

  /** Opens a turn for the next item when the rollout does not mark turns itself. */
  private ensureTurn(time: number | undefined): void {
    if (!this.b.inTurn) this.b.startTurn(time);
  }

  /** Logs the request envelope (model, effort, base instructions) at a step's start when it changed. */
  private logHeader(time: number | undefined): void {
    const key = `${this.provider}/${this.model}/${this.effort ?? ''}`;
    if (this.headerLogged === key) return;
    const reason = this.headerLogged === undefined ? 'initial' : 'change';
    this.b.requestHeader(time, { provider: this.provider, model: this.model, ...(this.effort ? { reasoningEffort: this.effort } : {}), ...(this.system ? { system: this.system } : {}) }, reason);
    this.writer.append({
      type: 'request/context',
      time: this.b.time(time),
      data: { provider: this.provider, model: this.model, ...(this.contextWindow !== undefined ? { contextWindow: this.contextWindow } : {}) },
    });
    this.headerLogged = key;
  }

  /** Whether a record may still be followed by the item an unmatched event message repeats. */
  private keepsEventMessages(type: string, p: JsonObject): boolean {
    if (type === 'event_msg') return !['task_started', 'task_complete', 'turn_aborted', 'user_message'].includes(str(p['type']) ?? '');
    if (type === 'response_item') return isMessageItem(p) || str(p['type']) === 'reasoning';
    return type === 'turn_context';
  }

  /** Unmatched event messages become the conversation's messages (the rollout has no item for them). */
  private flushEventMessages(): void {
    const pending = this.eventMessages;
    this.eventMessages = [];
    for (const m of pending) {
      this.fromEvents[m.role].add(m.text.trim());
      const content = [{ type: m.role === 'user' ? 'input_text' : 'output_text', text: m.text }];
      if (m.role === 'user') this.onInput(m.line, { type: 'message', role: 'user', content }, m.time);
      else this.addOutput(m.line, {}, m.time, [{ type: 'text', text: m.text }]);
    }
  }

  /** `event_msg` `user_message` / `agent_message`: a duplicate of an item, or the only record of the message. */
  private onEventMessage(line: JsonObject, p: JsonObject, time: number | undefined, role: 'user' | 'assistant'): void {
    this.raw(time, `event_msg/${str(p['type'])}`, line);
    const text = str(p['message']) ?? '';
    if (text.trim() === '' || this.itemTexts[role].has(text.trim())) return;
    this.eventMessages.push({ role, text, time, line });
  }

  /** An item message arrived: an event message with its text was its duplicate. */
  private matchEventMessage(role: string, text: string): void {
    if (role !== 'user' && role !== 'assistant') return;
    const key = text.trim();
    this.itemTexts[role].add(key);
    const i = this.eventMessages.findIndex((m) => m.role === role && m.text.trim() === key);
    if (i >= 0) this.eventMessages.splice(i, 1);
  }

  private onItem(line: JsonObject, p: JsonObject, time: number | undefined): void {
    // Older rollouts write user messages as `{role, content}` with no `type`.
    if (isMessageItem(p) && p['type'] === undefined) p = { ...p, type: 'message' };
    const type = str(p['type']) ?? '';
    if (type === 'message') {
      const role = str(p['role']) ?? '';
      const text = itemText(p['content']).trim();
      if ((role === 'user' || role === 'assistant') && this.fromEvents[role].has(text)) {
        // The event gave this message already (the item came after what made the event the message).
        this.fromEvents[role].delete(text);
        return this.raw(time, `response_item/message`, line, false, "a repeat of a message the rollout's event_msg already gave");
      }
      this.matchEventMessage(role, text);
    }
    if (type === 'message' && p['role'] === 'assistant') return this.addOutput(line, p, time, [{ type: 'text', text: itemText(p['content']) }]);
    if (OUTPUT_ITEMS.has(type)) {
      if (type === 'reasoning') {
        const text = reasoningText(p);
        return this.addOutput(line, p, time, text === undefined ? [] : [{ type: 'reasoning', text }]);
      }
      const callId = str(p['call_id']) ?? str(p['id']) ?? `codex-call-${this.writer.nextSeq}`;
      const name = type === 'local_shell_call' ? 'local_shell' : (str(p['name']) ?? '(unknown)');
      const args = type === 'function_call' ? (str(p['arguments']) ?? '') : type === 'custom_tool_call' ? (str(p['input']) ?? '') : JSON.stringify(p['action'] ?? {});
      return this.addOutput(line, p, time, [{ type: 'tool-call', id: callId, name, arguments: args }], callId);
    }
    if (CALL_OUTPUTS.has(type)) return this.onOutput(line, p, time);
    if (type === 'message') return this.onInput(line, p, time);
    // web_search_call, image_generation_call, ghost_snapshot, tool_search_*, …
    this.flushAnswer();
    const visible = type === 'web_search_call' || type === 'image_generation_call';
    if (visible) this.b.noteModelView(`${type} items (server-side tools) are kept as raw rows and not replayed when continuing`);
    this.raw(time, `response_item/${type || 'item'}`, line, visible);
  }

  private addOutput(line: JsonObject, _p: JsonObject, time: number | undefined, blocks: AssistantBlock[], callId?: string): void {
    if (!this.answer) {
      this.ensureTurn(time);
      if (this.b.stepHasAssistant || !this.b.inStep) this.b.startStep(time);
      this.logHeader(time);
      this.answer = { blocks: [], calls: [], items: [], firstTime: time, lastTime: time, usage: undefined };
    }
    this.answer.blocks.push(...blocks);
    if (callId) this.answer.calls.push(callId);
    this.answer.items.push(line);
    if (time !== undefined) this.answer.lastTime = time;
  }

  /** Writes the open answer: the message, then its calls. */
  private flushAnswer(): void {
    const a = this.answer;
    if (!a) return;
    this.answer = undefined;
    const blocks = mergeText(a.blocks);
    this.b.assistantMessage(a.lastTime, blocks, { provider: this.provider, model: this.model }, a.usage, { format: 'codex', items: a.items });
    for (const id of a.calls) this.b.toolCall(a.lastTime, id);
    this.answered = a.calls.length === 0;
  }

  private onOutput(line: JsonObject, p: JsonObject, time: number | undefined): void {
    this.flushAnswer();
    const callId = str(p['call_id']) ?? '';
    const { text, meta } = outputText(p['output']);
    const exec = this.execFacts.get(callId);
    const facts: ForeignFacts = { format: 'codex', item: line, ...(exec ? { exec } : {}) };
    const execMeta = exec
      ? { ...(num(exec['exit_code']) !== undefined ? { exitCode: num(exec['exit_code'])! } : {}), ...(durationMs(exec['duration']) !== undefined ? { durationMs: durationMs(exec['duration'])! } : {}) }
      : {};
    const mergedMeta = { ...(meta ?? {}), ...execMeta };
    const isError = meta?.['success'] === false;
    if (!this.b.toolResult(time, callId, [{ type: 'text', text }], isError, Object.keys(mergedMeta).length > 0 ? mergedMeta : undefined, facts)) {
      this.raw(time, `response_item/${str(p['type'])}`, line, true, `an output for call ${callId}, which this rollout does not show as open`);
      this.b.noteModelView(`an output for ${callId} answers no open call and is kept as a raw row`);
    }
  }

  private onInput(line: JsonObject, p: JsonObject, time: number | undefined): void {
    this.flushAnswer();
    const role = str(p['role']) ?? 'user';
    const text = itemText(p['content']);
    if (Array.isArray(p['content']) && p['content'].some((c) => isObject(c) && typeof c['text'] !== 'string')) {
      this.b.noteModelView("images in messages are not replayed when continuing (kept in the event's foreign facts)");
    }
    const blocks: TextBlock[] = [{ type: 'text', text }];
    const facts: ForeignFacts = { format: 'codex', item: line };
    if (role !== 'user' || CONTEXT_PREFIXES.some((prefix) => text.trimStart().startsWith(prefix))) {
      // Instructions and context the model saw with the prompt.
      this.ensureTurn(time);
      this.b.userMessage(time, blocks, { kind: 'plugin', plugin: 'codex', form: role === 'user' ? 'context' : role, foreign: facts });
      return;
    }
    this.itemTexts = { user: new Set([text.trim()]), assistant: new Set() };
    if (!this.fromEvents.user.has(text.trim())) this.fromEvents = { user: new Set(), assistant: new Set() };
    if (!this.explicitTurns && this.b.inTurn && (this.answered || this.b.pendingCalls.length > 0 || this.b.stepHasAssistant)) {
      // A typed prompt after the model answered (or while calls were still open) starts the next turn.
      this.b.endTurn(this.b.time(undefined), this.b.pendingCalls.length > 0 ? { kind: 'interrupted' } : { kind: 'completed' });
    }
    this.ensureTurn(time);
    this.answered = false;
    this.b.userMessage(time, blocks, { kind: 'user', foreign: facts });
  }

  private onEvent(line: JsonObject, p: JsonObject, time: number | undefined): void {
    const type = str(p['type']) ?? '';
    switch (type) {
      case 'task_started': {
        this.flushAnswer();
        this.explicitTurns = true;
        this.contextWindow = num(p['model_context_window']) ?? this.contextWindow;
        if (this.b.inTurn) this.b.endTurn(time, { kind: 'interrupted' });
        this.b.startTurn(time, { format: 'codex', event: line });
        this.answered = false;
        return;
      }
      case 'task_complete':
        this.flushAnswer();
        this.raw(time, 'event_msg/task_complete', line);
        this.b.endTurn(time, { kind: 'completed' }, { format: 'codex', event: line });
        return;
      case 'turn_aborted':
        this.flushAnswer();
        this.raw(time, 'event_msg/turn_aborted', line);
        this.b.endTurn(
          time,
          { kind: 'aborted', cause: str(p['reason']) === 'interrupted' || str(p['reason']) === 'user_cancelled' || p['reason'] === undefined ? { kind: 'user' } : { kind: 'legacy' } },
          { format: 'codex', event: line },
        );
        return;
      case 'token_count': {
        const info = isObject(p['info']) ? p['info'] : undefined;
        const usage = readUsage(info?.['last_token_usage']);
        this.contextWindow = num(info?.['model_context_window']) ?? this.contextWindow;
        if (usage && this.answer) this.answer.usage = usage;
        else if (usage) this.lastUsage = usage;
        this.raw(time, 'event_msg/token_count', line);
        return;
      }
      case 'user_message':
        return this.onEventMessage(line, p, time, 'user');
      case 'agent_message':
        return this.onEventMessage(line, p, time, 'assistant');
      case 'exec_command_end': {
        const callId = str(p['call_id']);
        if (callId) this.execFacts.set(callId, p);
        this.raw(time, 'event_msg/exec_command_end', line);
        return;
      }
      default:
        this.raw(time, `event_msg/${type || 'event'}`, line);
        return;
    }
  }

  finish(): void {
    this.flushEventMessages();
    this.flushAnswer();
    const last = this.b.time(undefined);
    if (this.b.inTurn) {
      if (this.explicitTurns) this.warnings.push('the rollout ends inside a task (no task_complete); its turn was closed as ending with the source log');
      this.b.endTurn(last, this.explicitTurns || this.b.pendingCalls.length > 0 || !this.answered ? { kind: 'source-ended' } : { kind: 'completed' });
    }
    void this.lastUsage;
    const raw = this.b.rawRowsWarning();
    if (raw !== undefined) this.warnings.push(raw);
  }
}

/** A message item: `type:"message"`, or (older rollouts) a `role` and `content` with no `type`. */
function isMessageItem(p: JsonObject): boolean {
  return p['type'] === 'message' || (p['type'] === undefined && typeof p['role'] === 'string' && (Array.isArray(p['content']) || typeof p['content'] === 'string'));
}

/** Text of a message item's content (`input_text` / `output_text` parts, or a plain string). */
function itemText(content: JsonValue | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((c) => (isObject(c) && typeof c['text'] === 'string' ? c['text'] : '')).join('');
}

/** Reasoning text: the raw reasoning when recorded, else the summaries; undefined when only encrypted. */
function reasoningText(p: JsonObject): string | undefined {
  const raw = Array.isArray(p['content']) ? itemText(p['content']) : '';
  if (raw !== '') return raw;
  const summary = Array.isArray(p['summary'])
    ? p['summary']
        .map((s) => (isObject(s) && typeof s['text'] === 'string' ? s['text'] : ''))
        .filter(Boolean)
        .join('\n\n')
    : '';
  return summary === '' ? undefined : summary;
}

/** Adjacent text blocks of one answer joined (Codex writes one item per output message). */
function mergeText(blocks: readonly AssistantBlock[]): AssistantBlock[] {
  const out: AssistantBlock[] = [];
  for (const block of blocks) {
    const prev = out[out.length - 1];
    if (block.type === 'text' && prev?.type === 'text') out[out.length - 1] = { type: 'text', text: `${prev.text}\n\n${block.text}` };
    else out.push(block);
  }
  return out;
}

/**
 * A call output's text: a plain string; older rollouts store `{"output": "...", "metadata": {...}}`
 * as a JSON string; newer ones a list of content items.
 */
function outputText(output: JsonValue | undefined): { text: string; meta?: { [key: string]: JsonValue } } {
  if (typeof output === 'string') {
    if (output.startsWith('{')) {
      try {
        const parsed = JSON.parse(output) as JsonValue;
        if (isObject(parsed) && typeof parsed['output'] === 'string') {
          const metadata = isObject(parsed['metadata']) ? parsed['metadata'] : undefined;
          const meta: { [key: string]: JsonValue } = {};
          if (metadata && num(metadata['exit_code']) !== undefined) meta['exitCode'] = num(metadata['exit_code'])!;
          if (metadata && num(metadata['duration_seconds']) !== undefined) meta['durationMs'] = Math.round(num(metadata['duration_seconds'])! * 1000);
          return { text: parsed['output'], ...(Object.keys(meta).length > 0 ? { meta } : {}) };
        }
      } catch {
        // Plain text that happens to start with a brace.
      }
    }
    return { text: output };
  }
  if (Array.isArray(output)) return { text: itemText(output) };
  if (isObject(output)) {
    const text = str(output['content']) ?? str(output['output']) ?? itemText(output['content']);
    return { text, ...(output['success'] === false ? { meta: { success: false } } : {}) };
  }
  return { text: '' };
}

/** Codex `{secs, nanos}` or seconds → ms. */
function durationMs(value: JsonValue | undefined): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return Math.round(value * 1000);
  if (isObject(value) && typeof value['secs'] === 'number') return Math.round(value['secs'] * 1000 + (num(value['nanos']) ?? 0) / 1e6);
  return undefined;
}

/** OpenAI usage → our disjoint counts: `input_tokens` includes the cached input. */
function readUsage(value: JsonValue | undefined): TokenUsage | undefined {
  if (!isObject(value)) return undefined;
  const input = num(value['input_tokens']);
  const output = num(value['output_tokens']);
  if (input === undefined || output === undefined) return undefined;
  const cached = num(value['cached_input_tokens']) ?? 0;
  const reasoning = num(value['reasoning_output_tokens']);
  return {
    inputTokens: Math.max(0, input - cached),
    outputTokens: output,
    cacheReadTokens: cached,
    ...(reasoning !== undefined ? { reasoningTokens: reasoning } : {}),
  };
}
