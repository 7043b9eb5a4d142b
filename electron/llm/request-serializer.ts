/**
 * Our {@link ModelRequest} (logged header + derived messages) → the OpenAI Chat Completions
 * request body (https://platform.openai.com/docs/api-reference/chat/create).
 *
 * Deterministic: the same request gives the same bytes under `JSON.stringify`, whatever the key
 * order of the input objects — every output object is built field by field in a fixed order, tools
 * keep header order, and nothing reads a clock or randomness. Providers cache by prompt prefix
 * (DeepSeek context caching, https://api-docs.deepseek.com/guides/kv_cache), so a byte that moves
 * between two requests costs a cache miss.
 *
 * What goes back on assistant history messages follows the dialect's `echo` (see
 * {@link WireDialect}), i.e. what the wire taught us and was logged in the message's blocks:
 * - DeepSeek thinking mode (https://api-docs.deepseek.com/guides/thinking_mode): the
 *   `reasoning_content` of an assistant turn that made tool calls must be sent back in every later
 *   request, else HTTP 400 "Missing reasoning_content field" (FIELD-NOTES fault class 4). Once the
 *   wire has shown `reasoning_content` (or under the `deepseek` preset), every assistant message with
 *   tool calls carries it — `""` when it had no reasoning — and so does every assistant message with
 *   reasoning (uniform for cache stability).
 * - `reasoning` (Ollama, vLLM ≥ 0.10, OpenRouter) goes back as `reasoning`; OpenRouter
 *   `reasoning_details` go back unchanged (https://openrouter.ai/docs/use-cases/reasoning-tokens#preserving-reasoning-blocks).
 * - A tool call's provider extras (Gemini `extra_content.google.thought_signature`, required back on
 *   function calls by Gemini 3: https://ai.google.dev/gemini-api/docs/thought-signatures) go back on
 *   that call.
 * - `strict` dialects (OpenAI) get none of these: OpenAI answers 400 to unknown message fields.
 * - The header's `dialect` (what the log taught about this endpoint, `electron/session/wire-hints.ts`)
 *   adds to that: `reasoningContent: 'tool-calls'` turns the `reasoning_content` echo on even when no
 *   message of this request shows the field (after compaction, for imported history; also the
 *   logged default of custom and local endpoints, history-rejection.ts `requestDialect`);
 *   `reasoningContent: 'omit'` (the endpoint refused the field) turns it off, also under `deepseek`;
 *   `reasoningField` is where reasoning of unknown origin (imported logs) goes back.
 * Zero-argument calls streamed as `""` (or whitespace) go back as `"{}"`: strict servers reject an
 * empty arguments string (the log keeps the raw string; this mapping is deterministic).
 *
 * The history is always one an OpenAI-compatible server accepts, whatever order the log holds it
 * in (docs/providers.md "A history any endpoint accepts"; FIELD-NOTES fault class 7): every assistant message with tool calls is
 * followed at once by one tool message per call, in call order ({@link orderToolResults}). And no
 * string goes out with a lone surrogate: each is replaced by U+FFFD (a request that is not valid
 * UTF-8 is refused by servers that check, and imported logs may hold them).
 */
import type { WireHints } from '../../shared/events.js';
import { isSystemRoleMessage, type AssistantMessage, type Message, type ToolCallBlock, type ToolResultMessage, type ToolSchema, type UserMessage } from '../../shared/messages.js';
import { isWellFormedText, toWellFormedText } from '../../shared/well-formed-text.js';
import type { JsonValue } from '../../shared/json.js';
import type { ModelRequest } from './model-client.js';
import type { WireDialect } from './providers.js';
import { thinkingFields } from './reasoning-effort.js';

/** One tool call as sent back in an assistant history message. */
export interface WireToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
  /** Provider extras as the server sent them on this call (never under a strict dialect). */
  readonly [extra: string]: JsonValue;
}

/** A Chat Completions message as we send it. */
export type WireMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string }
  | {
      readonly role: 'assistant';
      readonly content: string;
      readonly tool_calls?: readonly WireToolCall[];
      readonly reasoning_content?: string;
      readonly reasoning?: string;
      readonly reasoning_details?: readonly JsonValue[];
    }
  | { readonly role: 'tool'; readonly tool_call_id: string; readonly content: string };

/** A function tool as sent in `tools`. */
export interface WireTool {
  readonly type: 'function';
  readonly function: { readonly name: string; readonly description: string; readonly parameters: JsonValue };
}

/**
 * The request body, keys in serialisation order. Exactly one of `max_tokens` /
 * `max_completion_tokens` appears when a limit is set (per dialect); `thinking` /
 * `reasoning_effort` per dialect (see `thinkingFields`).
 */
export interface ChatCompletionBody {
  readonly model: string;
  readonly messages: readonly WireMessage[];
  readonly tools?: readonly WireTool[];
  readonly stream: true;
  readonly stream_options: { readonly include_usage: true };
  readonly max_tokens?: number;
  readonly max_completion_tokens?: number;
  readonly temperature?: number;
  readonly thinking?: { readonly type: 'enabled' | 'disabled' };
  readonly reasoning_effort?: string;
}

/**
 * How to serialise: the provider's dialect plus fallbacks for what the header's config leaves out
 * (the header wins; the agent should log the effective values, see `callConfigFor`).
 */
export interface SerializeOptions {
  readonly dialect: WireDialect;
  readonly fallbackModel?: string;
  readonly fallbackReasoningEffort?: string;
  readonly fallbackMaxTokens?: number;
}

/**
 * Builds the body. Pure and deterministic.
 * @throws LlmConfigurationError UNSUPPORTED_REASONING_EFFORT (validated before anything else).
 */
export function serializeChatRequest(request: ModelRequest, options: SerializeOptions): ChatCompletionBody {
  const { config, system, tools } = request.header;
  const thinking = thinkingFields(options.dialect, config.reasoningEffort ?? options.fallbackReasoningEffort);
  const model = config.model !== '' ? config.model : (options.fallbackModel ?? '');
  const maxTokens = config.maxTokens ?? options.fallbackMaxTokens;

  // Keys are added in serialisation order; the object is complete at `return`.
  const body: { -readonly [K in keyof ChatCompletionBody]?: ChatCompletionBody[K] } = {
    model,
    messages: serializeMessages(request.messages, options.dialect, system, request.header.dialect),
  };
  if (tools !== undefined && tools.length > 0) body.tools = tools.map(serializeTool);
  body.stream = true;
  body.stream_options = { include_usage: true };
  if (maxTokens !== undefined) body[options.dialect.maxTokensField] = maxTokens;
  if (config.temperature !== undefined) body.temperature = config.temperature;
  if (thinking.thinking !== undefined) body.thinking = { type: thinking.thinking.type };
  if (thinking.reasoning_effort !== undefined) body.reasoning_effort = thinking.reasoning_effort;
  wellFormedInPlace(body);
  return body as ChatCompletionBody;
}

/**
 * Replaces lone surrogates by U+FFFD in every string (values and keys) of a freshly built body,
 * in place. Strings that are well formed (nearly all) are left as they are.
 */
function wellFormedInPlace(value: unknown): void {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'string') {
        if (!isWellFormedText(item)) value[i] = toWellFormedText(item);
      } else wellFormedInPlace(item);
    }
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const item = record[key];
    if (!isWellFormedText(key)) {
      // A key with a lone surrogate (a tool schema property, a provider extra): rebuild the object so key order is kept.
      const entries = Object.entries(record).map(([k, v]) => [toWellFormedText(k), v] as const);
      for (const k of Object.keys(record)) delete record[k];
      for (const [k, v] of entries) record[k] = v;
      wellFormedInPlace(record);
      return;
    }
    if (typeof item === 'string') {
      if (!isWellFormedText(item)) record[key] = toWellFormedText(item);
    } else wellFormedInPlace(item);
  }
}

/** One tool in header order; `parameters` is copied keeping its own key order. */
export function serializeTool(tool: ToolSchema): WireTool {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: copyJson(tool.parameters) },
  };
}

/**
 * The messages: a system message first when `system` is non-empty, then one wire message per
 * message. User text blocks are joined with a blank line; tool results become `role:'tool'`;
 * a system message the request playground added ({@link isSystemRoleMessage}) `role:'system'`;
 * assistant messages per {@link serializeAssistant}.
 */
export function serializeMessages(messages: readonly Message[], dialect: WireDialect, system?: string, hints?: WireHints): WireMessage[] {
  const out: WireMessage[] = [];
  if (system !== undefined && system !== '') out.push({ role: 'system', content: system });
  const omitContent = dialect.echo !== 'strict' && hints?.reasoningContent === 'omit';
  const echoContent = !omitContent && (dialect.echo === 'deepseek' || (dialect.echo === 'as-received' && (hints?.reasoningContent === 'tool-calls' || messages.some(hasReasoningContent))));
  const unknownField = dialect.echo === 'as-received' ? hints?.reasoningField : undefined;
  for (const message of orderToolResults(messages)) {
    if (message.role === 'assistant') {
      out.push(serializeAssistant(message, dialect, echoContent, unknownField, omitContent));
    } else if (message.source.kind === 'tool') {
      const block = message.content[0];
      if (block === undefined || block.type !== 'tool-result') continue;
      out.push({ role: 'tool', tool_call_id: block.toolCallId, content: block.content.map((t) => t.text).join('') });
    } else {
      const texts: string[] = [];
      for (const block of message.content) if (block.type === 'text') texts.push(block.text);
      // A system message the request playground added goes out as one, where it stands.
      out.push({ role: isSystemRoleMessage(message) ? 'system' : 'user', content: texts.join('\n\n') });
    }
  }
  return out;
}

/** The text of the tool message sent for a call the history holds no result for. */
export const MISSING_RESULT_TEXT = 'No result was recorded for this tool call; its outcome is unknown. Check its effects before relying on them.';

/**
 * The messages in an order every OpenAI-compatible server accepts (docs/providers.md "A history any endpoint accepts"): each
 * assistant message with tool calls is followed at once by exactly one result per call, in the
 * order of the calls — whatever order the results sit in (parallel results arrive, and Claude Code
 * logs them, in completion order). A result pairs with the latest assistant message that has an
 * unanswered call with its id. Messages that sit between a call and its results (a hook's note, an
 * injected context message) follow the results. A call with no result gets a tool message saying
 * so ({@link MISSING_RESULT_TEXT}); a result with no open call becomes a user message that names
 * the call id. Pure and deterministic; the input is returned unchanged when it is already in order.
 */
export function orderToolResults(messages: readonly Message[]): readonly Message[] {
  if (inCallOrder(messages)) return messages;
  const out: Message[] = [];
  let open: { calls: readonly ToolCallBlock[]; results: (ToolResultMessage | undefined)[]; deferred: Message[]; answered: number } | undefined;
  const flush = (): void => {
    if (open === undefined) return;
    const group = open;
    group.calls.forEach((call, i) => out.push(group.results[i] ?? missingResult(call)));
    out.push(...group.deferred);
    open = undefined;
  };
  for (const message of messages) {
    if (message.role === 'assistant') {
      flush();
      out.push(message);
      const calls = message.content.filter((b): b is ToolCallBlock => b.type === 'tool-call');
      if (calls.length > 0) open = { calls, results: calls.map(() => undefined), deferred: [], answered: 0 };
      continue;
    }
    if (message.source.kind === 'tool') {
      const result = message as ToolResultMessage;
      const id = result.content[0]?.toolCallId;
      const slot = open === undefined ? -1 : open.calls.findIndex((call, i) => call.id === id && open!.results[i] === undefined);
      if (open !== undefined && slot >= 0) {
        open.results[slot] = result;
        open.answered++;
      } else if (open !== undefined) open.deferred.push(orphanResult(result));
      else out.push(orphanResult(result));
      continue;
    }
    if (open !== undefined && open.answered < open.calls.length) {
      open.deferred.push(message);
      continue;
    }
    flush();
    out.push(message);
  }
  flush();
  return out;
}

/** True when every call is answered right after its message, in call order, and no result is stray. */
function inCallOrder(messages: readonly Message[]): boolean {
  let expected: readonly ToolCallBlock[] = [];
  let next = 0;
  for (const message of messages) {
    if (message.role === 'assistant') {
      if (next < expected.length) return false;
      expected = message.content.filter((b): b is ToolCallBlock => b.type === 'tool-call');
      next = 0;
    } else if (message.source.kind === 'tool') {
      const id = (message as ToolResultMessage).content[0]?.toolCallId;
      if (next >= expected.length || expected[next]!.id !== id) return false;
      next++;
    } else if (next < expected.length) return false;
  }
  return next >= expected.length;
}

function missingResult(call: ToolCallBlock): ToolResultMessage {
  return {
    id: `missing-result-${call.id}`,
    role: 'user',
    source: { kind: 'tool', callId: call.id },
    content: [{ type: 'tool-result', toolCallId: call.id, content: [{ type: 'text', text: MISSING_RESULT_TEXT }], isError: true }],
  };
}

function orphanResult(result: ToolResultMessage): UserMessage {
  const block = result.content[0];
  const text = block?.content.map((t) => t.text).join('') ?? '';
  return {
    id: result.id,
    role: 'user',
    source: { kind: 'inject', orphanResult: true },
    content: [{ type: 'text', text: `Result of tool call ${String(block?.toolCallId)} (its call is not in this history):\n${text}` }],
  };
}

/** True for an assistant message with reasoning that arrived as `reasoning_content`. */
function hasReasoningContent(message: Message): boolean {
  return message.role === 'assistant' && message.content.some((b) => b.type === 'reasoning' && b.field === 'reasoning_content');
}

/** The arguments string to send back: the raw string, or `"{}"` for an empty / blank one. */
export function wireArguments(raw: string): string {
  return raw.trim() === '' ? '{}' : raw;
}

/**
 * An assistant message: `content` is its text ("" when none, never null); `tool_calls` when it
 * made any (with their extras unless strict); then the reasoning fields per {@link WireDialect}:
 * - `deepseek`: `reasoning_content` with all reasoning text, on messages with tool calls or reasoning;
 * - `as-received`: `reasoning_content` with the text that came in it (on every message with tool
 *   calls when `echoContent`, `""` if none), `reasoning` with the text that came in that field,
 *   `reasoning_details` with every logged detail; reasoning of unknown origin (older or imported
 *   logs) counts as `reasoning_content` when `echoContent`, else is not sent;
 * - `strict`: none.
 * `echoContent`: the request shows the server speaks `reasoning_content` (see serializeMessages).
 * `unknownField`: where reasoning of unknown origin goes back when the log taught it
 * (`request/header.dialect.reasoningField`); it wins over the `echoContent` default.
 * `omitContent`: the endpoint refused `reasoning_content` (`request/header.dialect.reasoningContent:
 * 'omit'`): the field is never sent, whatever the dialect (reasoning that came in it is not sent).
 */
export function serializeAssistant(
  message: AssistantMessage,
  dialect: WireDialect,
  echoContent = dialect.echo === 'deepseek',
  unknownField?: 'reasoning_content' | 'reasoning',
  omitContent = false,
): WireMessage {
  let text = '';
  let all = '';
  let inContent = '';
  let inReasoning = '';
  let hasReasoning = false;
  let hasContentField = false;
  let hasReasoningField = false;
  const details: JsonValue[] = [];
  const calls: WireToolCall[] = [];
  const strict = dialect.echo === 'strict';
  for (const block of message.content) {
    if (block.type === 'text') text += block.text;
    else if (block.type === 'reasoning') {
      all += block.text;
      hasReasoning = true;
      const field = block.field ?? unknownField;
      if (field === 'reasoning') {
        inReasoning += block.text;
        hasReasoningField = true;
      } else if (field === 'reasoning_content' || (field === undefined && echoContent)) {
        inContent += block.text;
        hasContentField = true;
      }
      if (block.details !== undefined) details.push(...block.details.map(copyJson));
    } else {
      const call: { [key: string]: JsonValue } = { id: block.id, type: 'function', function: { name: block.name, arguments: wireArguments(block.arguments) } };
      if (!strict && block.extras !== undefined) for (const [key, value] of Object.entries(block.extras)) if (!(key in call)) call[key] = copyJson(value);
      calls.push(call as unknown as WireToolCall);
    }
  }
  const wire: {
    role: 'assistant';
    content: string;
    tool_calls?: WireToolCall[];
    reasoning_content?: string;
    reasoning?: string;
    reasoning_details?: JsonValue[];
  } = { role: 'assistant', content: text };
  if (calls.length > 0) wire.tool_calls = calls;
  if (dialect.echo === 'deepseek') {
    if (!omitContent && (calls.length > 0 || hasReasoning)) wire.reasoning_content = all;
  } else if (dialect.echo === 'as-received') {
    if (!omitContent && (hasContentField || (echoContent && calls.length > 0))) wire.reasoning_content = inContent;
    if (hasReasoningField) wire.reasoning = inReasoning;
    if (details.length > 0) wire.reasoning_details = details;
  }
  return wire;
}

function copyJson(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(copyJson);
  if (value !== null && typeof value === 'object') {
    const out: { [key: string]: JsonValue } = {};
    for (const [key, inner] of Object.entries(value as { readonly [key: string]: JsonValue })) out[key] = copyJson(inner);
    return out;
  }
  return value;
}
