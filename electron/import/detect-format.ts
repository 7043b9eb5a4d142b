/**
 * Which agent wrote a session log, decided by content — never by file name (docs/importing.md).
 *
 * Detection is a table. Each entry names a format and says which fields one record must carry for
 * the record to prove that format (`proves`); a record that proves nothing is not decisive, and
 * detection reads on (bounded by the caller). A file is taken for a format only when one of its
 * records carries the fields that format needs — an envelope that merely looks alike (Qwen Code's
 * Claude-like `uuid`/`parentUuid` records with `message.parts`) proves nothing for it.
 *
 * - {@link READ_FORMATS}: the formats we import. Adding one is one entry here (its `proves`
 *   predicate), one importer factory in `session-import.ts` and one line in
 *   `shared/import-summary.ts` (`IMPORT_FORMATS`).
 * - {@link UNREAD_FORMATS}: other agents' logs we recognise but do not read; a file that matches
 *   one is refused naming it, so the user is not told the file is damaged.
 *
 * Each rule says which record shapes it applies to: a JSONL `line`, an `element` of a top-level
 * JSON array, or a whole JSON `document` (a pretty-printed object; a one-line document is also a
 * `line`). A `header` rule proves its format only as a file's first decisive record (a second one
 * later starts another log); a `body` rule never starts a detection and serves only to notice that
 * a later record belongs to another format (two logs concatenated: an error naming the line).
 *
 * Sources of the fields (summaries in test/fixtures/agent-session-logs/SCHEMAS.md):
 * - `forkline` / `deepseek-harness`: a header `{type:"session", id, createdAt?, version?, cwd?}`
 *   (docs/architecture.md §7; reference runtime `packages/session/session-persistence-jsonl/src/format.ts`; older
 *   snapshots omit `version`). Our exports always carry `origin`; the reference runtime's never do.
 *   Event lines `{type, seq, time, data}` or packed rows `{type, seq0, time0, data}`.
 * - `claude-code`: `{type:"user"|"assistant", uuid, parentUuid|sessionId, message:{content}}`, and
 *   bookkeeping records (`summary {leafUuid}`, `queue-operation`, `file-history-snapshot`,
 *   `custom-title`, `system`, `attachment`, `progress`) (SCHEMAS.md §2).
 * - `codex`: `{timestamp, type:"session_meta"|"turn_context"|"response_item"|"event_msg"|"compacted", payload}` (§3).
 * - `openhands`: V0 events `{id:number, source, action|observation}` or SDK events
 *   `{kind:"MessageEvent"|…, id}` (§4), one per line, as array elements, or one per document.
 * - `gemini-cli`: a chat's metadata `{sessionId, projectHash, …}` (the first JSONL line — a header —
 *   or the whole JSON document with its `messages`), or a model message `{id, timestamp,
 *   type:"gemini"}` (gemini-cli `packages/core/src/services/chatRecordingTypes.ts`; see gemini-cli.ts).
 * - `cline`, `opencode`: a folder's files as `forkline/folder-entry` JSONL lines (folder-entry.ts);
 *   also a Cline / Roo Code `api_conversation_history.json` on its own (a JSON array), by its first
 *   message: `role:"user"` with text opening `<task>` (Cline's prompt wrapping).
 */
import type { JsonObject, JsonValue } from '../../shared/json.js';
import type { ImportFormatId } from '../../shared/import-summary.js';
import { folderEntryFormat } from './folder-entry.js';

/** How a record reached detection. */
export type RecordShape = 'line' | 'element' | 'document';

/** One entry of the detection table. */
export interface FormatRule {
  /** The shapes this rule applies to. */
  readonly shapes: readonly RecordShape[];
  /** True when the record carries the fields this format needs. */
  readonly proves: (record: JsonObject) => boolean;
  /** `header`: decisive only as the first decisive record; `body`: never decisive, only a format-change witness. */
  readonly role?: 'header' | 'body';
}

/** A format we read. */
export interface ReadFormatRule extends FormatRule {
  readonly id: ImportFormatId;
  /**
   * For a JSON document that wraps this format's records in one array (Claude Code web `loglines`,
   * an OpenHands `events` list): that array, else undefined.
   */
  readonly recordsOf?: (document: JsonObject) => readonly JsonValue[] | undefined;
}

/** A known agent's log that we do not read (refused, naming it). */
export interface UnreadFormatRule extends FormatRule {
  /** What a person calls it ("a Qwen Code chat log"). */
  readonly name: string;
  /** The fields that gave it away, for the message. */
  readonly evidence: string;
}

/** What one record says about the file's format. */
export type FormatVerdict = { readonly kind: 'read'; readonly id: ImportFormatId; readonly rule: ReadFormatRule } | { readonly kind: 'unread'; readonly rule: UnreadFormatRule };

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
function has(record: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(record, key);
}
function isStr(value: JsonValue | undefined): value is string {
  return typeof value === 'string';
}

const CODEX_LINE_TYPES: ReadonlySet<string> = new Set(['session_meta', 'turn_context', 'response_item', 'event_msg', 'compacted']);
const OPENHANDS_SDK_KINDS: ReadonlySet<string> = new Set([
  'MessageEvent',
  'ActionEvent',
  'ObservationEvent',
  'SystemPromptEvent',
  'AgentErrorEvent',
  'UserRejectObservation',
  'PauseEvent',
  'ConversationStateUpdateEvent',
  'Condensation',
  'CondensationRequest',
  'CondensationSummaryEvent',
]);
const PI_ENTRY_TYPES: ReadonlySet<string> = new Set(['message', 'model_change', 'thinking_level_change', 'compaction', 'branch_summary', 'custom', 'label']);

/** `{type:"session", id, …}` of ours / the reference runtime: `createdAt` (ms) where it has a time; never Pi's ISO `timestamp`. */
function isReferenceHeader(r: JsonObject): boolean {
  if (r['type'] !== 'session' || !has(r, 'id')) return false;
  const version = r['version'];
  if (version !== undefined && typeof version !== 'number') return false;
  if (typeof r['createdAt'] === 'number') return true;
  return !has(r, 'timestamp') && !has(r, 'createdAt');
}

/** A Claude Code envelope: `uuid` plus the tree or session link. */
function claudeEnvelope(r: JsonObject): boolean {
  return isStr(r['uuid']) && (has(r, 'parentUuid') || isStr(r['sessionId']));
}

function claudeRecord(r: JsonObject): boolean {
  const type = r['type'];
  if (type === 'user' || type === 'assistant') {
    // The message Claude Code logs is an Anthropic API message: `content` is a string or a block list.
    const message = r['message'];
    return claudeEnvelope(r) && isObject(message) && (isStr(message['content']) || Array.isArray(message['content']));
  }
  if (type === 'system') return claudeEnvelope(r) && !has(r, 'systemPayload') && (isStr(r['content']) || isStr(r['subtype']));
  if (type === 'attachment') return claudeEnvelope(r) && isObject(r['attachment']);
  if (type === 'progress') return claudeEnvelope(r) && isObject(r['data']);
  if (type === 'summary') return isStr(r['leafUuid']);
  if (type === 'queue-operation') return isStr(r['operation']) && isStr(r['sessionId']);
  if (type === 'file-history-snapshot') return has(r, 'messageId') && has(r, 'snapshot');
  if (type === 'custom-title' || type === 'last-prompt') return isStr(r['sessionId']);
  return false;
}

function openHandsEvent(r: JsonObject): boolean {
  if (typeof r['id'] === 'number' && isStr(r['source']) && (isStr(r['action']) || isStr(r['observation']))) return true;
  return isStr(r['kind']) && OPENHANDS_SDK_KINDS.has(r['kind']) && has(r, 'id');
}

/** The first array among `keys` whose elements are objects. */
function arrayField(document: JsonObject, keys: readonly string[]): readonly JsonValue[] | undefined {
  for (const key of keys) {
    const v = document[key];
    if (Array.isArray(v) && v.length > 0 && v.some(isObject)) return v;
  }
  return undefined;
}

/** Gemini CLI chat metadata: the JSONL header line, or the whole JSON document (with its `messages`). */
function geminiMetadata(r: JsonObject): boolean {
  return isStr(r['sessionId']) && isStr(r['projectHash']);
}

/**
 * A Gemini CLI model message `{id, timestamp, type:"gemini"}`. Its `user` / `info` messages
 * (`{id, timestamp, type, content}`) are too plain to prove the format on their own.
 */
function geminiMessage(r: JsonObject): boolean {
  return r['type'] === 'gemini' && isStr(r['id']) && isStr(r['timestamp']) && !has(r, 'uuid');
}

/**
 * A Cline / Roo Code `api_conversation_history.json` element that opens a task: the first user
 * message, whose text starts with `<task>`. A bare array of chat messages proves nothing without it.
 */
function clineTaskOpening(r: JsonObject): boolean {
  if (r['role'] !== 'user') return false;
  const content = r['content'];
  const first = isStr(content) ? content : Array.isArray(content) && isObject(content[0]) ? content[0]['text'] : undefined;
  return isStr(first) && first.trimStart().startsWith('<task>');
}

/** The formats we read, in the order detection tries them. */
export const READ_FORMATS: readonly ReadFormatRule[] = [
  { id: 'forkline', shapes: ['line'], role: 'header', proves: (r) => isReferenceHeader(r) && has(r, 'origin') },
  { id: 'deepseek-harness', shapes: ['line'], role: 'header', proves: (r) => isReferenceHeader(r) && !has(r, 'origin') },
  {
    // An event line of either event log (ours or the reference runtime's): only witnesses a format change.
    id: 'deepseek-harness',
    shapes: ['line'],
    role: 'body',
    proves: (r) => isStr(r['type']) && r['type'].includes('/') && (typeof r['seq'] === 'number' || typeof r['seq0'] === 'number') && isObject(r['data']),
  },
  { id: 'claude-code', shapes: ['line', 'element'], proves: claudeRecord, recordsOf: (d) => arrayField(d, ['loglines']) },
  { id: 'codex', shapes: ['line', 'element'], proves: (r) => isStr(r['type']) && CODEX_LINE_TYPES.has(r['type']) && has(r, 'payload') && isStr(r['timestamp']) },
  { id: 'openhands', shapes: ['line', 'element', 'document'], proves: openHandsEvent, recordsOf: (d) => arrayField(d, ['events', 'history', 'trajectory']) },
  // The JSON document (before 0.40) is itself the chat: its only record, `messages` inside.
  { id: 'gemini-cli', shapes: ['document'], proves: (r) => geminiMetadata(r) && Array.isArray(r['messages']) },
  // JSONL (0.40 on): the metadata line starts a chat (a second one starts another chat).
  { id: 'gemini-cli', shapes: ['line'], role: 'header', proves: geminiMetadata },
  { id: 'gemini-cli', shapes: ['line'], proves: geminiMessage },
  { id: 'cline', shapes: ['element'], proves: clineTaskOpening },
  { id: 'cline', shapes: ['line'], proves: (r) => folderEntryFormat(r) === 'cline' },
  { id: 'opencode', shapes: ['line'], proves: (r) => folderEntryFormat(r) === 'opencode' },
];

/** Other agents' logs we recognise but do not read. */
export const UNREAD_FORMATS: readonly UnreadFormatRule[] = [
  {
    name: 'a Qwen Code chat log',
    evidence: 'Claude-like uuid/parentUuid records whose messages hold `parts` instead of `content`',
    shapes: ['line', 'element'],
    proves: (r) => claudeEnvelope(r) && ((isObject(r['message']) && Array.isArray(r['message']['parts'])) || isObject(r['systemPayload'])),
  },
  {
    name: 'a Pi agent session',
    evidence: 'a `{"type":"session","version":…,"timestamp":…}` header or `{type, id, parentId, timestamp}` entries',
    shapes: ['line'],
    proves: (r) =>
      (r['type'] === 'session' && typeof r['version'] === 'number' && isStr(r['timestamp']) && !has(r, 'createdAt')) ||
      (isStr(r['type']) && PI_ENTRY_TYPES.has(r['type']) && isStr(r['id']) && has(r, 'parentId') && isStr(r['timestamp'])),
  },
  {
    name: 'a claude.ai conversation export',
    evidence: 'conversations with `chat_messages`',
    shapes: ['line', 'element', 'document'],
    proves: (r) => Array.isArray(r['chat_messages']) || (Array.isArray(r['conversations']) && r['conversations'].some((c) => isObject(c) && Array.isArray(c['chat_messages']))),
  },
];

/**
 * What one record proves, or undefined when it proves nothing. Rules we read are tried first; a
 * known format we do not read answers only for a record no read rule takes.
 * @param opening true while detection looks for the file's format (body rules do not count then;
 *   after that, header rules witness the start of another log)
 */
export function formatOfRecord(value: JsonValue, shape: RecordShape, opening: boolean): FormatVerdict | undefined {
  if (!isObject(value)) return undefined;
  for (const rule of READ_FORMATS) {
    if (!applies(rule, shape, opening)) continue;
    if (rule.proves(value)) return { kind: 'read', id: rule.id, rule };
  }
  for (const rule of UNREAD_FORMATS) {
    if (applies(rule, shape, opening) && rule.proves(value)) return { kind: 'unread', rule };
  }
  return undefined;
}

function applies(rule: FormatRule, shape: RecordShape, opening: boolean): boolean {
  if (opening && rule.role === 'body') return false;
  // A one-line JSON document is a line too.
  return rule.shapes.includes(shape) || (shape === 'line' && rule.shapes.includes('document'));
}

/**
 * For a JSON document: the format it is in and the records to import, or what we recognise it
 * as. A document that is itself a record of a format (one OpenHands event) is its only record; a
 * document that wraps a format's records in an array (Claude Code web `loglines`, an OpenHands
 * `events` list) yields that array when its first decisive element proves the format.
 */
export function formatOfDocument(document: JsonValue): { readonly verdict: FormatVerdict; readonly records: readonly JsonValue[] } | undefined {
  const whole = formatOfRecord(document, 'document', true);
  if (whole?.kind === 'read') return { verdict: whole, records: [document] };
  if (isObject(document)) {
    for (const rule of READ_FORMATS) {
      const records = rule.recordsOf?.(document);
      if (!records) continue;
      const first = records.slice(0, DETECTION_RECORD_LIMIT).find((r) => isObject(r) && rule.proves(r));
      if (first !== undefined) return { verdict: { kind: 'read', id: rule.id, rule }, records };
    }
  }
  if (whole) return { verdict: whole, records: [] };
  return undefined;
}

/** Formats that share one record vocabulary (a record of one is no format change in the other). */
export function sameFamily(a: ImportFormatId, b: ImportFormatId): boolean {
  return familyOf(a) === familyOf(b);
}

function familyOf(id: ImportFormatId): string {
  return id === 'forkline' || id === 'deepseek-harness' ? 'event-log' : id;
}

/** The label a person knows a format by ("Claude Code transcript"), for messages. */
export function verdictName(verdict: FormatVerdict, labelOf: (id: ImportFormatId) => string): string {
  return verdict.kind === 'read' ? labelOf(verdict.id) : verdict.rule.name;
}

/** How many leading records detection reads before giving up. */
export const DETECTION_RECORD_LIMIT = 64;
