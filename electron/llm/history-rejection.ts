/**
 * Rejections of a history's *shape* that the adapter knows how to fix (issue 20 item 1): the
 * endpoint refused the request because of how past messages were written, not because of what
 * they say. The agent corrects such a rejection once — logs `llm/warning{HISTORY_CORRECTED}` with
 * the hints below, whose next `request/header.dialect` carries them — and never retries blindly.
 *
 * | rejection | sent by | fix |
 * |---|---|---|
 * | 400 `Missing \`reasoning_content\` field in the assistant message at message index N` | DeepSeek thinking mode (https://api-docs.deepseek.com/guides/thinking_mode: the `reasoning_content` of a turn with tool calls must be passed back), and servers that copy it | `reasoning_content` on every assistant message with tool calls (`""` when none is known), reasoning of unknown origin sent in that field |
 * | 400 `… reasoning_content … must be passed back / is required …` | the same rule worded by proxies and newer API versions | the same |
 *
 * Tool results out of call order (issue 20 item 3) need no correction: the serializer always
 * sends results in call order (request-serializer.ts `orderToolResults`).
 */
import type { LlmFailure } from '../../shared/chunks.js';
import type { WireHints } from '../../shared/events.js';

const MISSING_REASONING_CONTENT: readonly RegExp[] = [
  /missing\s+[`'"]?reasoning_content[`'"]?\s+field/i,
  /reasoning_content\b[^.]{0,60}?\b(?:is\s+required|must\s+be\s+(?:passed|provided|sent|included))/i,
];

/**
 * The hints that fix `failure`, or undefined when it is not a history-shape rejection we know
 * (only 400/422 answers, code INVALID_REQUEST, qualify; the message is matched as the provider
 * worded it, see the table above).
 */
export function historyFixFor(failure: LlmFailure): WireHints | undefined {
  if (failure.code !== 'INVALID_REQUEST') return undefined;
  if (failure.status !== undefined && failure.status !== 400 && failure.status !== 422) return undefined;
  if (MISSING_REASONING_CONTENT.some((pattern) => pattern.test(failure.message))) return { reasoningContent: 'tool-calls', reasoningField: 'reasoning_content' };
  return undefined;
}
