/**
 * Rejections of a history's *shape* that the adapter knows how to fix (docs/providers.md "A history any endpoint accepts"): the
 * endpoint refused the request because of how past messages were written, not because of what
 * they say. The agent corrects such a rejection once — logs `llm/warning{HISTORY_CORRECTED}` with
 * the hints below, whose next `request/header.dialect` carries them — and never retries blindly.
 *
 * | rejection | sent by | fix |
 * |---|---|---|
 * | 400 `Missing \`reasoning_content\` field in the assistant message at message index N` | DeepSeek thinking mode (https://api-docs.deepseek.com/guides/thinking_mode: the `reasoning_content` of a turn with tool calls must be passed back; text as in continuedev/continue#9831), and servers that copy it | `reasoning_content` on every assistant message with tool calls (`""` when none is known), reasoning of unknown origin sent in that field |
 * | 400 `The reasoning_content in the thinking mode must be passed back to the API.` / `messages[N]: assistant message with tool_calls must include reasoning_content` | the same rule worded by DeepSeek's newer API and by proxies (smallmain/vscode-unify-chat-provider#286; LiteLLM, esengine/DeepSeek-Reasonix#6173) | the same |
 * | 400 `messages.2.assistant.reasoning_content: property 'messages.2.assistant.reasoning_content' is unsupported` | Cerebras (Kilo-Org/kilocode#10375, anomalyco/opencode#33413) | `reasoning_content` never sent (`reasoningContent: 'omit'`) |
 * | 422 `extra_forbidden` … `reasoning_content` … `Extra inputs are not permitted` | pydantic `extra="forbid"` schemas: Mistral (BerriAI/litellm#30835), vLLM-style FastAPI servers (the message lists `{'type': 'extra_forbidden', 'loc': (…), 'msg': 'Extra inputs are not permitted'}`, RUC-NLPIR/WebThinker#7) | the same |
 * | 422 `unexpected property` at `body.messages[3].reasoning_content` | Huma-validated Go gateways (earendil-works/pi#5476) | the same |
 * | 400 `Additional properties are not allowed ('reasoning_content' was unexpected)`, `Unrecognized … reasoning_content`, `Unknown name "reasoning_content"` | JSON-schema validators, OpenAI-style and protobuf-JSON front ends | the same |
 *
 * The refusal of the field is only recognised when the message names `reasoning_content` and is
 * not a "missing / must be passed back" text (those ask for the opposite).
 *
 * Tool results out of call order (docs/providers.md "A history any endpoint accepts") need no correction: the serializer always
 * sends results in call order (request-serializer.ts `orderToolResults`).
 */
import type { LlmFailure } from '../../shared/chunks.js';
import type { WireHints } from '../../shared/events.js';
import { dialectOf } from './providers.js';

const MISSING_REASONING_CONTENT: readonly RegExp[] = [
  /missing\s+[`'"]?reasoning_content[`'"]?\s+field/i,
  /reasoning_content\b[^.]{0,60}?\b(?:is\s+required|must\s+be\s+(?:passed|provided|sent|included))/i,
  /must\s+(?:include|contain|have)\s+[`'"]?reasoning_content\b/i,
];

/** Wordings of "this field is not part of the schema" (see the table above). */
const UNKNOWN_FIELD =
  /\b(?:is\s+unsupported|not\s+supported|unsupported\s+(?:field|property|parameter)|unexpected\s+(?:property|field|key|parameter)|was\s+unexpected|extra\s+inputs?\s+(?:are|is)\s+not\s+permitted|extra_forbidden|additional\s+propert(?:y|ies)|unrecogni[sz]ed|unknown\s+(?:field|name|property|parameter|key)|not\s+(?:allowed|permitted))\b/i;

/**
 * The hints that fix `failure`, or undefined when it is not a history-shape rejection we know
 * (only 400/422 answers, code INVALID_REQUEST, qualify; the message is matched as the provider
 * worded it, see the table above).
 */
export function historyFixFor(failure: LlmFailure): WireHints | undefined {
  if (failure.code !== 'INVALID_REQUEST') return undefined;
  if (failure.status !== undefined && failure.status !== 400 && failure.status !== 422) return undefined;
  if (MISSING_REASONING_CONTENT.some((pattern) => pattern.test(failure.message))) return { reasoningContent: 'tool-calls', reasoningField: 'reasoning_content' };
  if (/reasoning_content/i.test(failure.message) && UNKNOWN_FIELD.test(failure.message)) return { reasoningContent: 'omit' };
  return undefined;
}

/** What a correction changes, in words, for the `HISTORY_CORRECTED` warning. */
export function describeHistoryFix(fix: WireHints): string {
  return fix.reasoningContent === 'omit'
    ? 'sending it again without reasoning_content (this endpoint refuses the field)'
    : 'sending it again with reasoning_content on every assistant message with tool calls';
}

/**
 * The dialect a request states in `request/header.dialect`: what the log taught (`known`, from
 * wire-hints.ts), else — for an `as-received` preset with `assumeReasoningContent` (custom and
 * local endpoints) whose `reasoning_content` wish the log does not know and which is not known to
 * stream `reasoning` — `reasoningContent: 'tool-calls'`, so a thinking endpoint accepts the first
 * request (docs/providers.md "A history any endpoint accepts": `""` when none is known). Logged like a learned fact, so the request is
 * rebuildable from the log; a refusal of the field is corrected once ({@link historyFixFor}).
 */
export function requestDialect(provider: string, known: WireHints | undefined): WireHints | undefined {
  const dialect = dialectOf({ provider });
  if (dialect.echo !== 'as-received' || dialect.assumeReasoningContent !== true) return known;
  if (known?.reasoningContent !== undefined || known?.reasoningField === 'reasoning') return known;
  return { reasoningContent: 'tool-calls', ...(known?.reasoningField !== undefined ? { reasoningField: known.reasoningField } : {}) };
}
