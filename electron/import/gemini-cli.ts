/**
 * Importer for Gemini CLI chats (`~/.gemini/tmp/<project>/chats/session-*.json` and `.jsonl`).
 *
 * Learned from google-gemini/gemini-cli @5411f113 (0.56 nightly):
 * `packages/core/src/services/chatRecordingTypes.ts` (the record types),
 * `chatRecordingService.ts` (`loadConversationRecord`, the writer) and
 * `packages/core/src/utils/sessionUtils.ts` (`convertSessionToClientHistory`, how a resumed chat's
 * model history is rebuilt), and from the fixtures in test/fixtures/agent-session-logs/gemini-cli.
 *
 * Two shapes:
 * - **JSON** (before 0.40): one document `{sessionId, projectHash, startTime, lastUpdated, summary?,
 *   kind?, messages[]}` — pretty-printed, so the pipeline reads it whole and hands it over as its only record (session-import.ts).
 * - **JSONL** (0.40 on): line 1 the metadata without `messages`; then message records
 *   `{id, timestamp, type, content, …}` — a record whose `id` was seen before *replaces* that
 *   message in place (the writer re-appends a message when its tool calls or tokens change);
 *   `{"$set":{…}}` updates metadata (a `$set.messages` is a checkpoint that replaces every message);
 *   `{"$rewindTo": id}` drops that message and every later one.
 *
 * The chat records no CLI version, so the summary's format version is the shape: `json` or `jsonl`.
 * The session id is `sessionId`, the title `summary`, the creation time `startTime`; no working
 * folder is recorded (only `projectHash`).
 *
 * Because later lines rewrite earlier messages, the conversation is known only at the end of the
 * file: the importer keeps the messages (one entry per id) and writes them in `finish()`. Messages
 * a rewind or a checkpoint dropped, and the `$set`/`$rewindTo` records, are kept as raw rows.
 *
 * Mapping (as `convertSessionToClientHistory` rebuilds the model's view):
 * - `user`: a prompt; it starts a turn. Text parts are the message; other parts (inline data, files)
 *   cannot be replayed and are noted in the model view. Slash commands, `?` queries and empty
 *   messages never reached the model (`isIgnoredUserContent`) and are raw rows; `<session_context>`
 *   / `<hook_context>` messages are context the CLI added: they join the turn of the next prompt.
 * - `gemini`: one model response = one step. Text parts → text, `thought` parts or `thoughts[]`
 *   summaries (`**subject** description`) → reasoning, `functionCall` parts in `content` (newer
 *   writers) or else `toolCalls[]` → tool calls (`args` as JSON arguments). Each `toolCalls[].result`
 *   (`functionResponse.response.output` / `.error`) is the call's result, right after the response;
 *   status `error`/`cancelled` marks it an error. A call without a result is outcome unknown.
 * - `tokens {input, output, cached, thoughts}` → usage: `input` (promptTokenCount) includes cached
 *   input; `output` (candidatesTokenCount) excludes thoughts, so output = output + thoughts.
 * - `info` / `error` / `warning`: display-only (the CLI never sends them) → raw rows.
 */
import type { TokenUsage } from '../../shared/chunks.js';
import type { ForeignFacts } from '../../shared/events.js';
import type { JsonObject, JsonValue } from '../../shared/json.js';
import type { AssistantBlock, TextBlock } from '../../shared/messages.js';
import { ConversationBuilder } from './conversation-builder.js';
import { isObject, num, str, withoutKeys } from './json-read.js';
import type { ImportedLogWriter } from './log-writer.js';
import { isoTime, type HeaderFacts, type RecordImporter } from './record-importer.js';

/** Provider name for Gemini CLI's model (it talks only to Google's Gemini API). */
const PROVIDER = 'google';

export class GeminiCliImporter implements RecordImporter {
  readonly format = 'gemini-cli' as const;
  readonly tolerateDamagedTail = false;
  readonly warnings: string[] = [];
  private readonly b: ConversationBuilder;
  private readonly fact: { id?: string; createdAt?: number; title?: string; formatVersion?: string } = {};
  /** The conversation as the file finally states it: message id → its last record (first-seen order). */
  private readonly messages = new Map<string, JsonObject>();
  /** Records that are not messages of the final conversation, kept as raw rows. */
  private readonly rawRecords: { type: string; record: JsonValue; time: number | undefined }[] = [];
  private dropped = 0;

  constructor(writer: ImportedLogWriter) {
    this.b = new ConversationBuilder(writer, 'gemini-cli', 'gemini-cli');
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
    if (!isObject(value)) {
      this.rawRecords.push({ type: 'record', record: value, time: undefined });
      return;
    }
    if (typeof value['$rewindTo'] === 'string') {
      this.rewind(value['$rewindTo']);
      this.rawRecords.push({ type: '$rewindTo', record: value, time: undefined });
      return;
    }
    if (isObject(value['$set'])) {
      const set = value['$set'];
      this.metadata(set);
      if (Array.isArray(set['messages'])) {
        this.dropAll('replaced by a checkpoint');
        for (const m of set['messages']) this.message(m);
      }
      this.rawRecords.push({ type: '$set', record: Array.isArray(set['messages']) ? { $set: withoutKeys(set, 'messages') } : value, time: isoTime(set['lastUpdated']) });
      return;
    }
    if (typeof value['id'] === 'string' && typeof value['type'] === 'string') {
      this.message(value);
      return;
    }
    if (typeof value['sessionId'] === 'string') {
      this.metadata(value);
      this.fact.formatVersion ??= Array.isArray(value['messages']) ? 'json' : 'jsonl';
      if (Array.isArray(value['messages'])) for (const m of value['messages']) this.message(m);
      this.rawRecords.push({ type: 'metadata', record: withoutKeys(value, 'messages'), time: isoTime(value['startTime']) });
      return;
    }
    this.rawRecords.push({ type: 'record', record: value, time: undefined });
  }

  private metadata(o: JsonObject): void {
    if (typeof o['sessionId'] === 'string') this.fact.id = o['sessionId'];
    const start = isoTime(o['startTime']);
    if (start !== undefined) this.fact.createdAt ??= start;
    if (typeof o['summary'] === 'string' && o['summary'].trim() !== '') this.fact.title = o['summary'].trim();
  }

  private message(m: JsonValue): void {
    if (!isObject(m) || typeof m['id'] !== 'string') return;
    // Map.set on a known id keeps its place: a rewritten message stays where it first appeared (as upstream).
    this.messages.set(m['id'], m);
  }

  /** `$rewindTo`: the message and everything after it leave the conversation (all of it when the id is unknown, as upstream). */
  private rewind(id: string): void {
    if (!this.messages.has(id)) return this.dropAll(`rewound (to ${id}, which the file does not hold)`);
    let found = false;
    for (const [key, m] of [...this.messages]) {
      if (key === id) found = true;
      if (!found) continue;
      this.messages.delete(key);
      this.drop(m, `rewound to ${id}`);
    }
  }

  private dropAll(why: string): void {
    for (const m of this.messages.values()) this.drop(m, why);
    this.messages.clear();
  }

  private drop(m: JsonObject, why: string): void {
    this.dropped++;
    this.rawRecords.push({ type: 'dropped-message', record: { why, message: m }, time: isoTime(m['timestamp']) });
  }

  finish(): void {
    for (const r of this.rawRecords) this.b.foreign(r.time, r.type, r.record);
    let answered = false;
    /** The open turn holds only CLI-added context so far (the next prompt joins it). */
    let contextOnly = false;
    for (const m of this.messages.values()) {
      const time = isoTime(m['timestamp']);
      const type = str(m['type']);
      if (type === 'user') {
        const { blocks, other } = textParts(m['content']);
        const text = blocks
          .map((b) => b.text)
          .join('')
          .trim();
        if (other === 0 && (text === '' || text.startsWith('/') || text.startsWith('?'))) {
          // A slash command or help query: handled by the CLI, never sent to the model (upstream `isIgnoredUserContent`).
          this.b.foreign(time, 'message/user-command', m);
          continue;
        }
        if (other > 0) this.b.noteModelView('user messages with non-text parts (images, files): only their text is replayed');
        const facts = { format: 'gemini-cli', ...withoutKeys(m, 'content') };
        if (text.startsWith('<session_context>') || text.startsWith('<hook_context>')) {
          // Context the CLI added for the model: it joins the turn of the prompt it goes with.
          if (!this.b.inTurn || answered) {
            if (this.b.inTurn) this.b.endTurn(time, { kind: 'completed' });
            this.b.startTurn(time);
            contextOnly = true;
          }
          this.b.userMessage(time, blocks, { kind: 'inject', foreign: facts });
          answered = false;
          continue;
        }
        if (this.b.inTurn && !contextOnly) this.b.endTurn(time, answered ? { kind: 'completed' } : { kind: 'interrupted' });
        if (!this.b.inTurn) this.b.startTurn(time);
        contextOnly = false;
        this.b.userMessage(time, blocks.length > 0 ? blocks : [{ type: 'text', text: '' }], { kind: 'user', foreign: facts });
        answered = false;
      } else if (type === 'gemini') {
        contextOnly = false;
        answered = this.response(m, time);
      } else {
        this.b.foreign(time, `message/${type ?? 'unknown'}`, m);
      }
    }
    // A log that simply ends inside a turn ended with its source, not in a crash (as in every importer).
    if (this.b.inTurn) this.b.endTurn(this.b.time(undefined), answered ? { kind: 'completed' } : { kind: 'source-ended' });
    if (this.dropped > 0) this.warnings.push(`${this.dropped} message(s) that a rewind or a checkpoint removed from the chat are kept as raw rows, not replayed`);
    const raw = this.b.rawRowsWarning();
    if (raw !== undefined) this.warnings.push(raw);
  }

  /** One model response: its step, its calls and their results. Returns true when it is a final answer (no calls). */
  private response(m: JsonObject, time: number | undefined): boolean {
    const blocks: AssistantBlock[] = [];
    const content = m['content'];
    const parts = Array.isArray(content) ? content : isObject(content) ? [content] : [];
    const callsInContent = parts.some((p) => isObject(p) && isObject(p['functionCall']));
    const thoughtsInContent = parts.some((p) => isObject(p) && p['thought'] === true);
    if (!thoughtsInContent && Array.isArray(m['thoughts'])) {
      for (const t of m['thoughts']) {
        if (!isObject(t)) continue;
        const subject = str(t['subject']);
        const description = str(t['description']) ?? '';
        const text = subject ? `**${subject}** ${description}` : description;
        if (text !== '') blocks.push({ type: 'reasoning', text });
      }
    }
    const toolCalls = (Array.isArray(m['toolCalls']) ? m['toolCalls'] : []).filter(isObject);
    if (typeof content === 'string') {
      if (content !== '') blocks.push({ type: 'text', text: content });
    } else {
      for (const [i, p] of parts.entries()) {
        if (!isObject(p)) continue;
        if (isObject(p['functionCall'])) {
          const fc = p['functionCall'];
          blocks.push({ type: 'tool-call', id: str(fc['id']) ?? `${String(m['id'])}:call:${i}`, name: str(fc['name']) ?? '(unknown)', arguments: JSON.stringify(fc['args'] ?? {}) });
        } else if (typeof p['text'] === 'string' && p['text'] !== '') {
          blocks.push(p['thought'] === true ? { type: 'reasoning', text: p['text'] } : { type: 'text', text: p['text'] });
        }
      }
    }
    if (!callsInContent) {
      for (const [i, tc] of toolCalls.entries()) {
        blocks.push({ type: 'tool-call', id: str(tc['id']) ?? `${String(m['id'])}:call:${i}`, name: str(tc['name']) ?? '(unknown)', arguments: JSON.stringify(tc['args'] ?? {}) });
      }
    }
    if (blocks.length === 0) {
      // Nothing the model would see again (upstream skips such a message when it rebuilds history).
      this.b.foreign(time, 'message/gemini-empty', m);
      return false;
    }
    if (!this.b.inTurn) this.b.startTurn(time);
    const foreign: ForeignFacts = { format: 'gemini-cli', ...withoutKeys(m, 'content', 'toolCalls') };
    this.b.assistantMessage(time, blocks, { provider: PROVIDER, model: str(m['model']) ?? 'unknown' }, readUsage(m['tokens']), foreign);
    const callIds = blocks.filter((b) => b.type === 'tool-call').map((b) => b.id);
    for (const [i, id] of callIds.entries()) {
      const tc = toolCalls.find((t) => t['id'] === id) ?? (callsInContent ? undefined : toolCalls[i]);
      if (!tc) continue;
      const t = isoTime(tc['timestamp']) ?? time;
      const facts: ForeignFacts = { format: 'gemini-cli', ...withoutKeys(tc, 'args', 'result') };
      this.b.toolCall(t, id, facts);
      if (tc['result'] === undefined || tc['result'] === null) continue;
      const { text, error } = resultText(tc['result']);
      const status = str(tc['status']);
      this.b.toolResult(t, id, [{ type: 'text', text }], error || status === 'error' || status === 'cancelled', undefined, { format: 'gemini-cli', status: status ?? null });
    }
    return callIds.length === 0;
  }
}

/** Text blocks of a `PartListUnion` (string, part, or parts) and how many parts were not text. */
function textParts(content: JsonValue | undefined): { blocks: TextBlock[]; other: number } {
  if (typeof content === 'string') return { blocks: [{ type: 'text', text: content }], other: 0 };
  const parts = Array.isArray(content) ? content : isObject(content) ? [content] : [];
  const blocks: TextBlock[] = [];
  let other = 0;
  for (const p of parts) {
    if (typeof p === 'string') blocks.push({ type: 'text', text: p });
    else if (isObject(p) && typeof p['text'] === 'string') blocks.push({ type: 'text', text: p['text'] });
    else other++;
  }
  return { blocks, other };
}

/**
 * A tool call's recorded `result` as text: each `functionResponse.response` gives its `output` (or
 * `error`, which marks the result an error), else the response as JSON; text parts as they are.
 */
function resultText(result: JsonValue): { text: string; error: boolean } {
  if (typeof result === 'string') return { text: result, error: false };
  const parts = Array.isArray(result) ? result : [result];
  const texts: string[] = [];
  let error = false;
  for (const p of parts) {
    if (typeof p === 'string') texts.push(p);
    else if (isObject(p) && isObject(p['functionResponse'])) {
      const response = p['functionResponse']['response'];
      if (isObject(response) && typeof response['output'] === 'string') texts.push(response['output']);
      else if (isObject(response) && typeof response['error'] === 'string') {
        texts.push(response['error']);
        error = true;
      } else texts.push(JSON.stringify(response ?? null));
    } else if (isObject(p) && typeof p['text'] === 'string') texts.push(p['text']);
    else texts.push(JSON.stringify(p));
  }
  return { text: texts.join('\n'), error };
}

/** Gemini `TokensSummary` → our disjoint counts (see the module comment). */
function readUsage(value: JsonValue | undefined): TokenUsage | undefined {
  if (!isObject(value)) return undefined;
  const input = num(value['input']);
  const output = num(value['output']);
  if (input === undefined || output === undefined) return undefined;
  const cached = num(value['cached']) ?? 0;
  const thoughts = num(value['thoughts']) ?? 0;
  return {
    inputTokens: Math.max(0, input - cached),
    outputTokens: output + thoughts,
    cacheReadTokens: cached,
    ...(thoughts > 0 ? { reasoningTokens: thoughts } : {}),
  };
}
