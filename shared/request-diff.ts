/**
 * What changed between two Chat Completions request bodies of a session: the envelope fields
 * (model, tools, limits, thinking), and the messages — how many leading messages are byte-equal,
 * what was appended, changed or removed — and whether the previous request is a byte prefix of
 * this one in the fields providers cache on (tools, then messages), so the provider's prompt cache
 * could hold (DeepSeek context caching, https://api-docs.deepseek.com/guides/kv_cache; OpenAI
 * prompt caching, https://platform.openai.com/docs/guides/prompt-caching: both match on an exact
 * prompt prefix).
 *
 * Pure: no Node, no DOM.
 */
import { asArray, asObject, asString, type Loose } from './event-read.js';
import { headPreview } from './preview.js';

/** One wire message, summarised. */
export interface WireMessageSummary {
  /** Position in the request's `messages`. */
  readonly index: number;
  readonly role: string;
  /** The start of its text (content, else tool calls), one line. */
  readonly preview: string;
  /** Size of its JSON, bytes (UTF-8). */
  readonly bytes: number;
}

export interface ChangedMessage {
  readonly index: number;
  readonly before: WireMessageSummary;
  readonly after: WireMessageSummary;
}

export interface RequestDiff {
  /** Top-level body fields whose value changed (`model`, `tools`, `max_tokens`, …), in body order. */
  readonly envelopeChanges: readonly string[];
  readonly previousMessages: number;
  readonly messages: number;
  /** Leading messages that are byte-equal in both requests. */
  readonly commonPrefix: number;
  /** Messages past the previous request's last one. */
  readonly appended: readonly WireMessageSummary[];
  /** Messages at the same position that differ. */
  readonly changed: readonly ChangedMessage[];
  /** The previous request's messages past this one's end. */
  readonly removed: readonly WireMessageSummary[];
  /** The previous request (tools, then every message) is an exact prefix of this one. */
  readonly prefixHeld: boolean;
  /** Why the prefix did not hold, in words (absent when it held). */
  readonly prefixBrokenBy?: string;
}

const PREVIEW_CHARS = 140;
const encoder = new TextEncoder();

function messageText(m: Loose): string {
  const content = m['content'];
  if (typeof content === 'string' && content.trim() !== '') return content;
  const calls = asArray(m['tool_calls'])
    .map((c) => {
      const fn = asObject(asObject(c)?.['function']);
      return `${asString(fn?.['name']) ?? '?'}(${asString(fn?.['arguments']) ?? ''})`;
    })
    .join(', ');
  if (calls !== '') return calls;
  const reasoning = asString(m['reasoning_content']);
  return reasoning !== undefined && reasoning !== '' ? `(reasoning) ${reasoning}` : '';
}

/** A summary of message `index` of a body's `messages`. */
export function summarizeWireMessage(message: unknown, index: number, json = JSON.stringify(message) ?? ''): WireMessageSummary {
  const m = asObject(message) ?? {};
  return { index, role: asString(m['role']) ?? '?', preview: headPreview(messageText(m), PREVIEW_CHARS, { oneLine: true }), bytes: encoder.encode(json).length };
}

/** Compares two request bodies (parsed JSON objects). */
export function diffRequestBodies(previous: unknown, current: unknown): RequestDiff {
  const prev = asObject(previous) ?? {};
  const cur = asObject(current) ?? {};
  const keys = [...new Set([...Object.keys(cur), ...Object.keys(prev)])].filter((k) => k !== 'messages');
  const envelopeChanges = keys.filter((k) => JSON.stringify(prev[k]) !== JSON.stringify(cur[k]));
  const before = asArray(prev['messages']);
  const after = asArray(cur['messages']);
  const beforeJson = before.map((m) => JSON.stringify(m) ?? '');
  const afterJson = after.map((m) => JSON.stringify(m) ?? '');
  let commonPrefix = 0;
  while (commonPrefix < before.length && commonPrefix < after.length && beforeJson[commonPrefix] === afterJson[commonPrefix]) commonPrefix++;
  const changed: ChangedMessage[] = [];
  const overlap = Math.min(before.length, after.length);
  for (let i = commonPrefix; i < overlap; i++) {
    if (beforeJson[i] !== afterJson[i]) changed.push({ index: i, before: summarizeWireMessage(before[i], i, beforeJson[i]), after: summarizeWireMessage(after[i], i, afterJson[i]) });
  }
  const appended = after.slice(before.length).map((m, k) => summarizeWireMessage(m, before.length + k, afterJson[before.length + k]));
  const removed = before.slice(after.length).map((m, k) => summarizeWireMessage(m, after.length + k, beforeJson[after.length + k]));
  const cacheKeys = ['model', 'tools'].filter((k) => envelopeChanges.includes(k));
  let prefixBrokenBy: string | undefined;
  if (cacheKeys.length > 0) prefixBrokenBy = `${cacheKeys.join(' and ')} changed`;
  else if (commonPrefix < before.length) {
    const at = commonPrefix;
    prefixBrokenBy = at < after.length ? `message #${at} (${asString(asObject(before[at])?.['role']) ?? '?'}) changed` : `messages from #${at} were dropped`;
  }
  return {
    envelopeChanges,
    previousMessages: before.length,
    messages: after.length,
    commonPrefix,
    appended,
    changed,
    removed,
    prefixHeld: prefixBrokenBy === undefined,
    ...(prefixBrokenBy !== undefined ? { prefixBrokenBy } : {}),
  };
}
