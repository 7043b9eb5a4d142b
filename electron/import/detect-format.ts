/**
 * Which agent wrote a session log, decided by content — never by file name (issue 12).
 *
 * Each rule looks at one parsed record and answers with a format when the record is decisive:
 *
 * - `forkline` / `deepseek-harness`: a header line `{type:"session", version, id, …}` (DESIGN §7;
 *   reference runtime `packages/session/session-persistence-jsonl/src/format.ts`). Our exports
 *   always carry `origin` in the header; the reference runtime's never do.
 * - `claude-code`: records `{type:"user"|"assistant"|"system", uuid, parentUuid, sessionId, …}`,
 *   or the bookkeeping records `summary {leafUuid}`, `queue-operation {operation, sessionId}`,
 *   `file-history-snapshot {messageId, snapshot}` (Claude Code transcripts,
 *   `~/.claude/projects/<project>/<session>.jsonl`; fields as in test/fixtures/agent-session-logs/SCHEMAS.md §2).
 * - `codex`: rollout lines `{timestamp, type:"session_meta"|"turn_context"|"response_item"|"event_msg"|"compacted", payload}`
 *   (Codex CLI `codex-rs/protocol` RolloutLine; SCHEMAS.md §3).
 * - `openhands`: events `{id, timestamp, source, action|observation, …}` (OpenHands V0 event
 *   stream / trajectory export, `openhands/events/serialization`) or SDK events `{kind:"MessageEvent"|…, id, source}`
 *   (OpenHands software-agent-sdk `openhands/sdk/event`), as array elements or one per line.
 *
 * - `gemini-cli`: a chat's metadata `{sessionId, projectHash, …}` (the first JSONL line, or the whole
 *   JSON document with its `messages`), or a message `{id, timestamp, type:"gemini"}` (gemini-cli
 *   `packages/core/src/services/chatRecordingTypes.ts`; see gemini-cli.ts).
 * - `cline`, `opencode`: a folder's files as `forkline/folder-entry` records (folder-entry.ts); also
 *   a Cline / Roo Code `api_conversation_history.json` on its own, by its first message (`<task>…`).
 *
 * A record no rule recognises is not decisive; detection reads on (bounded by the caller).
 */
import type { JsonObject, JsonValue } from '../../shared/json.js';
import type { ImportFormatId } from '../../shared/import-summary.js';
import { folderEntryFormat } from './folder-entry.js';

const CODEX_LINE_TYPES: ReadonlySet<string> = new Set(['session_meta', 'turn_context', 'response_item', 'event_msg', 'compacted']);
const CLAUDE_MESSAGE_TYPES: ReadonlySet<string> = new Set(['user', 'assistant', 'system', 'attachment', 'progress']);
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

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The format a single record proves, or undefined when it proves nothing. */
export function formatOfRecord(value: JsonValue, inArray: boolean): ImportFormatId | undefined {
  if (!isObject(value)) return undefined;
  const type = value['type'];
  if (!inArray && type === 'session' && typeof value['version'] === 'number' && 'id' in value) {
    return 'origin' in value ? 'forkline' : 'deepseek-harness';
  }
  if (typeof type === 'string' && CODEX_LINE_TYPES.has(type) && 'payload' in value && typeof value['timestamp'] === 'string') return 'codex';
  if (typeof type === 'string' && CLAUDE_MESSAGE_TYPES.has(type) && typeof value['uuid'] === 'string' && ('parentUuid' in value || 'sessionId' in value)) return 'claude-code';
  if (type === 'summary' && typeof value['leafUuid'] === 'string') return 'claude-code';
  if (type === 'queue-operation' && typeof value['operation'] === 'string' && typeof value['sessionId'] === 'string') return 'claude-code';
  if (type === 'file-history-snapshot' && 'messageId' in value && 'snapshot' in value) return 'claude-code';
  if ((type === 'custom-title' || type === 'last-prompt') && typeof value['sessionId'] === 'string') return 'claude-code';
  if (typeof value['id'] === 'number' && typeof value['source'] === 'string' && (typeof value['action'] === 'string' || typeof value['observation'] === 'string')) return 'openhands';
  if (typeof value['kind'] === 'string' && OPENHANDS_SDK_KINDS.has(value['kind']) && 'id' in value) return 'openhands';
  if (!inArray && typeof value['sessionId'] === 'string' && typeof value['projectHash'] === 'string') return 'gemini-cli';
  if (!inArray && type === 'gemini' && typeof value['id'] === 'string' && typeof value['timestamp'] === 'string') return 'gemini-cli';
  if (inArray && value['role'] === 'user' && startsClineTask(value['content'])) return 'cline';
  const folder = folderEntryFormat(value);
  if (folder !== undefined) return folder;
  return undefined;
}

/**
 * A Cline / Roo Code `api_conversation_history.json` opened on its own (a JSON array of Anthropic
 * messages): its first message is the task, whose text starts with `<task>` (Cline's prompt
 * wrapping). A bare array of chat messages proves nothing without it.
 */
function startsClineTask(content: JsonValue | undefined): boolean {
  const first = typeof content === 'string' ? content : Array.isArray(content) && isObject(content[0]) ? content[0]['text'] : undefined;
  return typeof first === 'string' && first.trimStart().startsWith('<task>');
}

/** How many leading records detection reads before giving up. */
export const DETECTION_RECORD_LIMIT = 64;
