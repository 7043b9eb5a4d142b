/**
 * Importer for Claude Code transcripts (`~/.claude/projects/<project>/<session>.jsonl`).
 *
 * Format (test/fixtures/agent-session-logs/SCHEMAS.md §2; microsoft/amplifier
 * `ai_working/claude_code_logging/session_format_specification.md`): one record per line; message
 * records `{type:"user"|"assistant", uuid, parentUuid, sessionId, timestamp, cwd, version,
 * isSidechain, message}` form a tree through `parentUuid`; an Anthropic API response is often split
 * over several `assistant` records sharing `message.id`, one content block each (`text`, `thinking`,
 * `tool_use`); tool results come back as `user` records with `tool_result` blocks (`tool_use_id`,
 * `content`, `is_error`) and the tool's structured `toolUseResult`. Other records: `system`
 * (`compact_boundary` with the summary in the next `user` record marked `isCompactSummary`,
 * `api_error`, `local_command`, …), `summary {summary, leafUuid}`, `custom-title`,
 * `file-history-snapshot`, `queue-operation`, `progress`, `attachment`.
 *
 * Mapping:
 * - a typed prompt (a `user` record with text, not `isMeta`, not tool results) starts a turn; one
 *   API response (all records of one `message.id`) is one step: `assistant/message` (text,
 *   reasoning from `thinking`, tool calls with `input` as their JSON arguments), a `tool/call` per
 *   `tool_use`, a `tool/result` per `tool_result`;
 * - `isMeta` user text (hook feedback, injected context) enters the open turn as a new step's input;
 *   `[Request interrupted by user…]` ends the turn as cancelled by the user;
 * - a prompt whose `parentUuid` points back before the latest messages (a rewind or an edited
 *   prompt) replaces the abandoned messages on the surface — they stay in the log, shadowed;
 * - a compaction boundary plus its summary become a compaction transaction;
 * - sub-agent (`isSidechain`) records inside a parent's log and every other record are kept whole
 *   as raw rows; a sub-agent's own file (Claude Code ≥ 2.1: `<parent-session-id>/subagents/agent-<id>.jsonl`,
 *   every message a sidechain, often sharing the parent's `sessionId`) is imported as its own
 *   session `agent-<id>`, titled "Sub-agent: …", linked to its parent (`origin.spawnedBy`) by the
 *   parent's session id (its records' `sessionId` when that is not the agent's own, else the
 *   file's folder name);
 * - usage → tokens (`input_tokens` uncached input, `cache_read_input_tokens`,
 *   `cache_creation_input_tokens`, `output_tokens`), `message.model` → the model;
 * - every field of a record with no place of its own is kept in the event's `foreign` facts.
 * Times are the records' own `timestamp`s.
 */
import type { TokenUsage } from '../../shared/chunks.js';
import type { ForeignFacts, TurnEndReason } from '../../shared/events.js';
import type { JsonObject, JsonValue } from '../../shared/json.js';
import type { AssistantBlock, TextBlock, UserMessageSource } from '../../shared/messages.js';
import { ConversationBuilder } from './conversation-builder.js';
import type { ImportedLogWriter } from './log-writer.js';
import { isoTime, type HeaderFacts, type RecordImporter } from './record-importer.js';
import { RecordIdIndex } from './record-id-index.js';

type Rec = JsonObject;

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
function str(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
function num(value: JsonValue | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A record without some keys (the rest are the source's facts we keep). */
function without(record: Rec, ...keys: string[]): { [key: string]: JsonValue } {
  const out: { [key: string]: JsonValue } = {};
  for (const [k, v] of Object.entries(record)) if (!keys.includes(k)) out[k] = v;
  return out;
}

/**
 * `{ ...head, ...without(record, omit), ...tail }` in one copy (the hot path: every message record's
 * facts). Same keys, order and values: a `__proto__` key is left out, as assigning it in
 * {@link without} set the copy's prototype, which the spread then did not copy.
 */
function factsOf(record: Rec, omit: string, head?: { readonly [key: string]: JsonValue }, tail?: { readonly [key: string]: JsonValue }): { [key: string]: JsonValue } {
  // Not `{ ...head }`: adding keys to a spread copy of a constant object is ~10x slower in V8 11.
  const out: { [key: string]: JsonValue } = {};
  if (head) for (const k of Object.keys(head)) out[k] = head[k]!;
  for (const k of Object.keys(record)) if (k !== omit && k !== '__proto__') out[k] = record[k]!;
  if (tail) Object.assign(out, tail);
  return out;
}

const CLAUDE_CODE_FORMAT = { format: 'claude-code' } as const;

const INTERRUPT = /^\[Request interrupted by user[^\]]*\]$/;

/** `…/<parent-session-id>/subagents/agent-<agentId>.jsonl` (either slash). */
const SUBAGENT_PATH = /([^/\\]+)[/\\]subagents[/\\]agent-([^/\\]+?)\.jsonl$/;

interface BufferedResponse {
  readonly messageId: string;
  model: string;
  readonly blocks: AssistantBlock[];
  readonly toolUses: string[];
  readonly records: JsonValue[];
  readonly uuids: string[];
  usage: TokenUsage | undefined;
  lastTime: number | undefined;
  /** Records that arrived while the response was still open, replayed after it (in order). */
  readonly deferred: (() => void)[];
}

export class ClaudeCodeImporter implements RecordImporter {
  readonly format = 'claude-code' as const;
  readonly tolerateDamagedTail = false;
  readonly warnings: string[] = [];
  private readonly b: ConversationBuilder;
  private readonly fact: { id?: string; createdAt?: number; cwd?: string; formatVersion?: string; title?: string } = {};
  private response: BufferedResponse | undefined;
  /** Main-chain record uuid → surface length right after it (for rewinds); compact, it holds every record of the log. */
  private readonly surfaceAfter = new RecordIdIndex();
  private lastMainUuid: string | undefined;
  /** What the open turn's last model-side event was, for its end reason. */
  private turnTail: 'input' | 'answer' | 'calls' | 'error' = 'input';
  private lastError: string | undefined;
  private compactionBoundary: { readonly id: string; readonly time: number | undefined } | undefined;
  private readonly summaries: { readonly leafUuid: string; readonly summary: string }[] = [];
  private rewinds = 0;
  private sidechainRecords = 0;
  /**
   * Whether this file is a sub-agent's own transcript (`subagents/agent-<id>.jsonl`: every message
   * record is a sidechain) — then its sidechain records are the conversation. Decided by the first
   * message record.
   */
  private subAgentFile: boolean | undefined;
  /** A sub-agent file's own facts: its `agentId`, its kind (`attributionAgent`), the `sessionId` its records carry. */
  private readonly subAgent: { agentId?: string; agentType?: string; sessionId?: string } = {};
  /** Calls answered by results that named no `tool_use_id` (paired in order). */
  private readonly idlessAnswered = new Set<string>();

  /** @param fileName the file's name as given (a sub-agent file's folder names its parent session). */
  constructor(
    private readonly writer: ImportedLogWriter,
    private readonly fileName?: string,
  ) {
    this.b = new ConversationBuilder(writer, 'claude-code', 'claude-code');
  }

  get modelViewNotes(): readonly string[] {
    return this.b.modelViewNotes;
  }

  closesTurn(): boolean {
    return false;
  }

  facts(): HeaderFacts {
    if (!this.subAgentFile) return { ...this.fact };
    const fromPath = SUBAGENT_PATH.exec(this.fileName ?? '');
    const agentId = this.subAgent.agentId ?? fromPath?.[2];
    const own = this.subAgent.sessionId;
    // Its records carry the parent's session id, or (older layouts) an `agent-<id>` of their own.
    const parent = own !== undefined && !own.startsWith('agent-') ? own : fromPath?.[1];
    // Never the parent's id (that would make the child a copy of its parent): with no id of its own, the import makes one.
    const id = agentId !== undefined ? `agent-${agentId}` : own !== undefined && own.startsWith('agent-') ? own : this.fact.id !== parent ? this.fact.id : undefined;
    const prompt = this.writer.titleCandidate;
    const title = this.fact.title ?? `Sub-agent${this.subAgent.agentType ? ` (${this.subAgent.agentType})` : ''}${prompt ? `: ${prompt}` : ''}`;
    const { id: _sourceId, ...rest } = this.fact;
    void _sourceId;
    return {
      ...rest,
      ...(id !== undefined ? { id } : {}),
      title,
      ...(parent !== undefined && parent !== id ? { spawnedBy: { sessionId: parent, ...(agentId !== undefined ? { agentId } : {}) } } : {}),
    };
  }

  record(value: JsonValue, line: number): void {
    if (!isObject(value)) {
      this.b.foreign(undefined, 'non-object', value, { note: `line ${line} is not a record` });
      return;
    }
    const r = value;
    const time = isoTime(r['timestamp']);
    this.noteFacts(r, time);
    if (this.subAgentFile === undefined && (r['type'] === 'user' || r['type'] === 'assistant')) this.subAgentFile = r['isSidechain'] === true;
    if (this.subAgentFile && r['isSidechain'] === true) {
      this.subAgent.agentId ??= str(r['agentId']);
      this.subAgent.agentType ??= str(r['attributionAgent']);
      this.subAgent.sessionId ??= str(r['sessionId']);
    }
    if (r['isSidechain'] === true && !this.subAgentFile) {
      // A sub-agent's own conversation: the parent sees only its Task result.
      this.sidechainRecords++;
      this.defer(() => this.b.foreign(time, `sidechain/${str(r['type']) ?? 'record'}`, r, { note: 'a sub-agent (sidechain) record' }));
      return;
    }
    const type = str(r['type']) ?? '';
    switch (type) {
      case 'assistant':
        this.onAssistant(r, time);
        break;
      case 'user':
        this.onUser(r, time);
        break;
      case 'system':
        if (r['subtype'] === 'compact_boundary') {
          this.flush();
          this.b.foreign(time, 'system/compact_boundary', r);
          this.compactionBoundary = { id: str(r['uuid']) ?? `line-${line}`, time };
        } else {
          this.raw(time, `system/${str(r['subtype']) ?? 'message'}`, r);
          if (r['subtype'] === 'api_error' || r['level'] === 'error') this.lastError = str(r['content']) ?? this.lastError;
        }
        break;
      case 'custom-title': {
        const title = str(r['customTitle']) ?? str(r['title']);
        if (title) {
          this.flush();
          this.fact.title = title;
          this.writer.append({ type: 'session/title', time: this.b.time(time), data: { title, source: { kind: 'claude-code', ...without(r, 'customTitle', 'title') } } });
        } else this.raw(time, type, r);
        break;
      }
      case 'summary': {
        const leafUuid = str(r['leafUuid']);
        const summary = str(r['summary']);
        if (leafUuid && summary) this.summaries.push({ leafUuid, summary });
        this.raw(time, type, r);
        break;
      }
      default:
        this.raw(time, type || 'record', r);
        break;
    }
    const uuid = str(r['uuid']);
    if (uuid && (type === 'user' || type === 'assistant' || type === 'system')) this.lastMainUuid = uuid;
  }

  private raw(time: number | undefined, type: string, r: Rec): void {
    this.defer(() => this.b.foreign(time, type, r));
  }

  /** Runs `fn` now, or after the open response when one is being assembled (keeps log order). */
  private defer(fn: () => void): void {
    if (this.response) this.response.deferred.push(fn);
    else fn();
  }

  private noteFacts(r: Rec, time: number | undefined): void {
    const f = this.fact;
    if (f.id === undefined && typeof r['sessionId'] === 'string') f.id = r['sessionId'];
    if (f.createdAt === undefined && time !== undefined) f.createdAt = time;
    if (f.cwd === undefined && typeof r['cwd'] === 'string') f.cwd = r['cwd'];
    if (f.formatVersion === undefined && typeof r['version'] === 'string') f.formatVersion = r['version'];
  }

  // ---- assistant records ----------------------------------------------------------------

  private onAssistant(r: Rec, time: number | undefined): void {
    const message = isObject(r['message']) ? r['message'] : {};
    if (r['isApiErrorMessage'] === true || message['model'] === '<synthetic>') {
      // Claude Code's own placeholder (an API error or a canned reply), not a model response.
      this.flush();
      const text = joinText(message['content']);
      this.b.foreign(time, 'assistant/synthetic', r, { note: r['isApiErrorMessage'] === true ? `API error: ${text.slice(0, 200)}` : 'a message Claude Code wrote itself, not the model' });
      if (r['isApiErrorMessage'] === true) {
        this.turnTail = 'error';
        this.lastError = text;
      }
      this.markSurface(r);
      return;
    }
    const messageId = str(message['id']) ?? str(r['uuid']) ?? `record-${this.writer.nextSeq}`;
    if (!this.response || this.response.messageId !== messageId) {
      this.flush();
      this.response = {
        messageId,
        model: str(message['model']) ?? 'unknown',
        blocks: [],
        toolUses: [],
        records: [],
        uuids: [],
        usage: undefined,
        lastTime: undefined,
        deferred: [],
      };
    }
    const resp = this.response;
    const { content: _content, ...messageFacts } = message;
    void _content;
    resp.records.push(factsOf(r, 'message', undefined, { message: messageFacts }));
    const uuid = str(r['uuid']);
    if (uuid) resp.uuids.push(uuid);
    if (time !== undefined) resp.lastTime = time;
    if (typeof message['model'] === 'string') resp.model = message['model'];
    const usage = readUsage(message['usage']);
    if (usage) resp.usage = usage;
    const content = message['content'];
    const blocks = typeof content === 'string' ? [{ type: 'text', text: content } as JsonValue] : Array.isArray(content) ? content : [];
    for (const block of blocks) {
      if (!isObject(block)) continue;
      switch (block['type']) {
        case 'text':
          resp.blocks.push({ type: 'text', text: str(block['text']) ?? '' });
          break;
        case 'thinking':
          resp.blocks.push({ type: 'reasoning', text: str(block['thinking']) ?? '' });
          break;
        case 'tool_use': {
          const id = str(block['id']) ?? `tool-use-${this.writer.nextSeq}-${resp.toolUses.length}`;
          resp.blocks.push({ type: 'tool-call', id, name: str(block['name']) ?? '(unknown)', arguments: JSON.stringify(block['input'] ?? {}) });
          resp.toolUses.push(id);
          break;
        }
        case 'redacted_thinking':
          break; // kept in the response's records (foreign facts); providers do not take it back
        default:
          this.b.noteModelView(`assistant ${String(block['type'])} blocks are not replayed when continuing (kept in the event's foreign facts)`);
          break;
      }
    }
  }

  /** Writes the assembled response: message, then its calls, then what arrived meanwhile. */
  private flush(): void {
    const resp = this.response;
    if (!resp) return;
    this.response = undefined;
    if (!this.b.inTurn) this.b.startTurn(resp.lastTime);
    const foreign: ForeignFacts = { format: 'claude-code', messageId: resp.messageId, records: resp.records };
    this.b.assistantMessage(resp.lastTime, resp.blocks, { provider: 'anthropic', model: resp.model }, resp.usage, foreign);
    for (const id of resp.toolUses) this.b.toolCall(resp.lastTime, id);
    this.turnTail = resp.toolUses.length > 0 ? 'calls' : 'answer';
    const after = this.writer.surfaceNodes.length;
    for (const uuid of resp.uuids) this.surfaceAfter.set(uuid, after);
    for (const fn of resp.deferred) fn();
  }

  // ---- user records -----------------------------------------------------------------------

  private onUser(r: Rec, time: number | undefined): void {
    const message = isObject(r['message']) ? r['message'] : {};
    const content = message['content'];
    const facts = (): ForeignFacts => factsOf(r, 'message', CLAUDE_CODE_FORMAT) as ForeignFacts;
    if (r['isCompactSummary'] === true || (this.compactionBoundary && r['parentUuid'] === this.compactionBoundary.id)) {
      this.flush();
      const boundary = this.compactionBoundary;
      this.compactionBoundary = undefined;
      this.b.compaction(time, boundary?.id ?? str(r['uuid']) ?? `compaction-${this.writer.nextSeq}`, joinText(content), facts());
      this.markSurface(r);
      return;
    }
    const parts = Array.isArray(content) ? content : typeof content === 'string' ? [{ type: 'text', text: content } as JsonValue] : [];
    const results = parts.filter((p) => isObject(p) && p['type'] === 'tool_result') as JsonObject[];
    const { text, images } = userContent(parts.filter((p) => !(isObject(p) && p['type'] === 'tool_result')));
    if (images > 0) this.b.noteModelView("images and documents in the conversation are not replayed when continuing (kept in the event's foreign facts)");

    if (results.length > 0) {
      for (const result of results) this.onToolResult(r, result, time, facts());
      if (text.length > 0) this.defer(() => this.b.userMessage(time, text, { kind: 'plugin', plugin: 'claude-code', form: 'with-tool-result' }));
      this.defer(() => this.markSurface(r));
      return;
    }
    this.flush();
    const joined = text.map((t) => t.text).join('');
    if (text.length === 0 && images === 0) {
      this.b.foreign(time, 'user/empty', r, { note: 'a user record with no text' });
      return;
    }
    if (INTERRUPT.test(joined.trim())) {
      this.b.userMessage(time, text, { kind: 'plugin', plugin: 'claude-code', form: 'interrupt', foreign: facts() });
      this.b.endTurn(time, { kind: 'aborted', cause: { kind: 'user' } });
      this.turnTail = 'input';
      this.markSurface(r);
      return;
    }
    if (r['isMeta'] === true) {
      const source: UserMessageSource = { kind: 'plugin', plugin: 'claude-code', form: 'meta', foreign: facts() };
      this.b.userMessage(time, text, source);
      this.turnTail = 'input';
      this.markSurface(r);
      return;
    }
    // A typed prompt: ends the open turn, starts the next (possibly from an earlier point).
    this.b.endTurn(this.b.time(undefined), this.turnEnd());
    const source: UserMessageSource = { kind: 'user', foreign: facts() };
    const parent = str(r['parentUuid']);
    const keep = parent !== undefined && parent !== this.lastMainUuid ? this.surfaceAfter.get(parent) : undefined;
    if (keep !== undefined && keep < this.writer.surfaceNodes.length) {
      this.rewinds++;
      this.b.branch(time, keep, text, source);
    } else {
      this.b.startTurn(time);
      this.b.userMessage(time, text, source);
    }
    this.turnTail = 'input';
    this.lastError = undefined;
    this.markSurface(r);
  }

  /**
   * The call a `tool_result` answers: its `tool_use_id`, or — for a result that names none — the
   * first open call of the response no earlier id-less result took (results come in call order).
   */
  private answeredCall(result: JsonObject): string {
    const id = str(result['tool_use_id']);
    if (id !== undefined) return id;
    const open = this.response ? this.response.toolUses : this.b.pendingCalls;
    const next = open.find((c) => !this.idlessAnswered.has(c));
    if (next === undefined) return '';
    this.idlessAnswered.add(next);
    return next;
  }

  private onToolResult(r: Rec, result: JsonObject, time: number | undefined, facts: ForeignFacts): void {
    const callId = this.answeredCall(result);
    const { text, images } = userContent(Array.isArray(result['content']) ? result['content'] : typeof result['content'] === 'string' ? [{ type: 'text', text: result['content'] }] : []);
    if (images > 0) this.b.noteModelView("images in tool results are not replayed when continuing (kept in the event's foreign facts)");
    const isError = result['is_error'] === true;
    const write = (): void => {
      if (!this.b.toolResult(time, callId, text, isError, undefined, facts)) {
        this.b.foreign(time, 'user/tool_result', r, { modelVisible: true, note: `a result for call ${callId}, which this log does not show as open` });
        this.b.noteModelView(`a tool result for ${callId} answers no open call of its step and is kept as a raw row`);
      }
    };
    if (this.response && this.response.toolUses.includes(callId)) this.response.deferred.push(write);
    else {
      this.flush();
      write();
    }
  }

  private markSurface(r: Rec): void {
    const uuid = str(r['uuid']);
    if (uuid) this.surfaceAfter.set(uuid, this.writer.surfaceNodes.length);
  }

  /** @param atEnd the source ends here: a turn without its answer ends with the log (`source-ended`), not in a crash. */
  private turnEnd(atEnd = false): TurnEndReason {
    switch (this.turnTail) {
      case 'answer':
        return { kind: 'completed' };
      case 'error':
        return { kind: 'error', failure: { code: 'UNKNOWN', message: this.lastError ?? 'the request failed' } };
      default:
        return atEnd ? { kind: 'source-ended' } : { kind: 'interrupted' };
    }
  }

  finish(): void {
    this.flush();
    if (this.compactionBoundary) this.warnings.push('the log ends after a compaction boundary without its summary');
    const last = this.b.time(undefined);
    if (this.b.inTurn && this.turnEnd(true).kind === 'source-ended')
      this.warnings.push('the log ends inside a turn (no answer after its last input); the turn is closed as ending with the source log');
    this.b.endTurn(last, this.turnEnd(true));
    const summary = [...this.summaries].reverse().find((s) => this.surfaceAfter.has(s.leafUuid));
    if (summary && this.fact.title === undefined) {
      this.writer.append({ type: 'session/title', time: last, data: { title: summary.summary, source: { kind: 'claude-code-summary', leafUuid: summary.leafUuid } } });
    }
    if (this.rewinds > 0) this.warnings.push(`${this.rewinds} prompt(s) continue from an earlier point (a rewind or an edited prompt): the abandoned messages are kept, shown as replaced`);
    if (this.sidechainRecords > 0) this.warnings.push(`${this.sidechainRecords} sub-agent (sidechain) record(s) kept as raw rows`);
    const raw = this.b.rawRowsWarning();
    if (raw !== undefined) this.warnings.push(raw);
  }
}

function joinText(content: JsonValue | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b) => (isObject(b) && typeof b['text'] === 'string' ? b['text'] : '')).join('');
}

/** Text blocks of a content list; other blocks (images, documents) are counted, not invented as text. */
function userContent(parts: readonly JsonValue[]): { text: TextBlock[]; images: number } {
  const text: TextBlock[] = [];
  let images = 0;
  for (const p of parts) {
    if (typeof p === 'string') text.push({ type: 'text', text: p });
    else if (isObject(p) && p['type'] === 'text' && typeof p['text'] === 'string') text.push({ type: 'text', text: p['text'] });
    else images++;
  }
  return { text, images };
}

/** Anthropic usage → our disjoint counts (`input_tokens` excludes cache reads and writes). */
function readUsage(value: JsonValue | undefined): TokenUsage | undefined {
  if (!isObject(value)) return undefined;
  const input = num(value['input_tokens']);
  const output = num(value['output_tokens']);
  if (input === undefined || output === undefined) return undefined;
  const cacheRead = num(value['cache_read_input_tokens']);
  const cacheWrite = num(value['cache_creation_input_tokens']);
  return {
    inputTokens: input,
    outputTokens: output,
    ...(cacheRead !== undefined ? { cacheReadTokens: cacheRead } : {}),
    ...(cacheWrite !== undefined ? { cacheWriteTokens: cacheWrite } : {}),
  };
}
