/**
 * Request validators that reject what each real provider rejects, answering with that provider's
 * error shape (plug into the scripted server: `startScriptedLlm({ validator })` or
 * `llm.setValidator(...)`). Each rule names its source; a test that passes through one of these
 * has sent a request the provider would accept on these points.
 *
 * | provider | rejects | error | source |
 * |---|---|---|---|
 * | DeepSeek (thinking) | an assistant message with `tool_calls` and no `reasoning_content` | 400 `Missing \`reasoning_content\` field in the assistant message at message index N` | https://api-docs.deepseek.com/guides/thinking_mode (tool calls: "the reasoning_content must be passed back"); the text is the one quoted in issue 9 |
 * | OpenAI | unknown keys on messages, tool calls or the body (`reasoning_content`, `reasoning`, `reasoning_details`, `extra_content`, `thinking`) | 400 `Unrecognized request argument supplied: …` (`invalid_request_error`) | https://platform.openai.com/docs/api-reference/chat/create (the documented fields); OpenAI's strict request validation |
 * | OpenRouter (reasoning models behind it) | an assistant message with `tool_calls` whose streamed `reasoning_details` did not come back unchanged | 400 from the upstream model, passed through | https://openrouter.ai/docs/use-cases/reasoning-tokens#preserving-reasoning-blocks |
 * | Ollama `/v1` | tool-call `arguments` that are not a JSON object (e.g. `""`) | 400 `invalid tool call arguments` | ollama `openai/openai.go` (`fromChatRequest` unmarshals `function.arguments`) |
 * | vLLM | tool-call `arguments` that do not parse as JSON (the chat template gets a dict) | 400 `BadRequestError` | vLLM `chat_utils` (`json.loads` of assistant tool-call arguments) |
 * | llama.cpp | the same (`json::parse` of `arguments`) | 500 / 400 `Failed to parse tool call arguments as JSON` | llama.cpp `common/chat.cpp` (`common_chat_msgs_parse_oaicompat`) |
 * | Gemini (OpenAI-compatible) | the first tool call of an assistant step without the `extra_content.google.thought_signature` it was streamed with | 400 `Function call is missing a thought_signature in functionCall parts…` (`INVALID_ARGUMENT`) | https://ai.google.dev/gemini-api/docs/thought-signatures (Gemini 3 validates function-call signatures; OpenAI-compatibility section) |
 * | every strict server | `""` or blank `arguments` | (as above) | issue 9 |
 */
import type { RecordedRequest, RequestValidator, ScriptStep } from './scripted-llm/index.js';
import { httpError } from './scripted-llm/index.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- request bodies are arbitrary JSON
type Body = any;

/** One broken rule: what and where. */
export type Violation = string;

function assistantsWithCalls(body: Body): { index: number; message: Body }[] {
  const out: { index: number; message: Body }[] = [];
  const messages: Body[] = Array.isArray(body?.messages) ? body.messages : [];
  messages.forEach((message, index) => {
    if (message?.role === 'assistant' && Array.isArray(message.tool_calls) && message.tool_calls.length > 0) out.push({ index, message });
  });
  return out;
}

/** Tool-call arguments that are not a JSON object (`""`, blanks, broken JSON). */
export function badArguments(body: Body): Violation[] {
  const out: Violation[] = [];
  for (const { index, message } of assistantsWithCalls(body)) {
    for (const call of message.tool_calls as Body[]) {
      const raw = call?.function?.arguments;
      let ok = false;
      if (typeof raw === 'string' && raw.trim() !== '') {
        try {
          const parsed = JSON.parse(raw) as unknown;
          ok = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
        } catch {
          ok = false;
        }
      }
      if (!ok) out.push(`messages[${index}].tool_calls[${call?.id ?? '?'}].function.arguments is ${JSON.stringify(raw)}, not a JSON object`);
    }
  }
  return out;
}

/** DeepSeek thinking mode: every assistant message with tool calls carries `reasoning_content` (a string). */
export function deepSeekViolations(body: Body): Violation[] {
  const out: Violation[] = [];
  for (const { index, message } of assistantsWithCalls(body)) {
    if (typeof message.reasoning_content !== 'string') out.push(`Missing \`reasoning_content\` field in the assistant message at message index ${index}`);
  }
  return out;
}

const OPENAI_BODY_KEYS = new Set([
  'model',
  'messages',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'stream',
  'stream_options',
  'max_tokens',
  'max_completion_tokens',
  'temperature',
  'top_p',
  'n',
  'stop',
  'presence_penalty',
  'frequency_penalty',
  'logit_bias',
  'logprobs',
  'top_logprobs',
  'user',
  'seed',
  'response_format',
  'reasoning_effort',
  'metadata',
  'store',
  'service_tier',
  'modalities',
  'audio',
  'prediction',
  'web_search_options',
  'verbosity',
  'prompt_cache_key',
  'safety_identifier',
]);
const OPENAI_MESSAGE_KEYS: Record<string, Set<string>> = {
  system: new Set(['role', 'content', 'name']),
  developer: new Set(['role', 'content', 'name']),
  user: new Set(['role', 'content', 'name']),
  assistant: new Set(['role', 'content', 'name', 'tool_calls', 'refusal', 'audio', 'function_call']),
  tool: new Set(['role', 'content', 'tool_call_id']),
};
const OPENAI_CALL_KEYS = new Set(['id', 'type', 'function']);

/** OpenAI: no unknown keys anywhere (body, messages, tool calls), and JSON-object arguments. */
export function openAiViolations(body: Body): Violation[] {
  const out: Violation[] = [];
  for (const key of Object.keys(body ?? {})) if (!OPENAI_BODY_KEYS.has(key)) out.push(`Unrecognized request argument supplied: ${key}`);
  const messages: Body[] = Array.isArray(body?.messages) ? body.messages : [];
  messages.forEach((message, index) => {
    const allowed = OPENAI_MESSAGE_KEYS[message?.role] ?? new Set<string>();
    for (const key of Object.keys(message ?? {})) if (!allowed.has(key)) out.push(`Unrecognized request argument supplied: messages[${index}].${key}`);
    for (const call of (Array.isArray(message?.tool_calls) ? message.tool_calls : []) as Body[]) {
      for (const key of Object.keys(call ?? {})) if (!OPENAI_CALL_KEYS.has(key)) out.push(`Unrecognized request argument supplied: messages[${index}].tool_calls[].${key}`);
    }
  });
  return [...out, ...badArguments(body)];
}

/**
 * OpenRouter with a reasoning model: every assistant message with tool calls carries the
 * `reasoning_details` that were streamed with it (`expected`, compared as JSON).
 */
export function openRouterViolations(body: Body, expected: readonly unknown[]): Violation[] {
  const out: Violation[] = [];
  for (const { index, message } of assistantsWithCalls(body)) {
    if (JSON.stringify(message.reasoning_details) !== JSON.stringify(expected)) {
      out.push(`messages[${index}].reasoning_details is ${JSON.stringify(message.reasoning_details)?.slice(0, 200)}, not the streamed reasoning_details`);
    }
  }
  return [...out, ...badArguments(body)];
}

/** Gemini: the first tool call of each assistant step carries its streamed thought signature. */
export function geminiViolations(body: Body, signatureOf: (callId: string) => string | undefined): Violation[] {
  const out: Violation[] = [];
  for (const { index, message } of assistantsWithCalls(body)) {
    const first = message.tool_calls[0] as Body;
    const expected = signatureOf(first?.id);
    const sent = first?.extra_content?.google?.thought_signature;
    if (expected !== undefined && sent !== expected) {
      out.push(
        `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${first?.function?.name}\` , position ${index + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
      );
    }
  }
  return [...out, ...badArguments(body)];
}

/** The provider's error answer for a list of violations (undefined when there are none). */
function reject(violations: Violation[], answer: (first: Violation) => ScriptStep): ScriptStep | undefined {
  return violations.length === 0 ? undefined : answer(violations[0]!);
}

/** Validators as the scripted server takes them, each answering with its provider's error shape. */
export const validators = {
  deepseek: (): RequestValidator => (r: RecordedRequest) =>
    reject([...deepSeekViolations(r.body), ...badArguments(r.body)], (v) => httpError(400, { error: { message: v, type: 'invalid_request_error', param: null, code: 'invalid_request_error' } })),
  openai: (): RequestValidator => (r) => reject(openAiViolations(r.body), (v) => httpError(400, { error: { message: v, type: 'invalid_request_error', param: null, code: null } })),
  openrouter:
    (expectedDetails: readonly unknown[]): RequestValidator =>
    (r) =>
      reject(openRouterViolations(r.body, expectedDetails), (v) => httpError(400, { error: { message: `Provider returned error: ${v}`, code: 400, metadata: { provider_name: 'Anthropic' } } })),
  ollama: (): RequestValidator => (r) =>
    reject(badArguments(r.body), (v) => httpError(400, { error: { message: `invalid tool call arguments: ${v}`, type: 'invalid_request_error', param: null, code: null } })),
  vllm: (): RequestValidator => (r) => reject(badArguments(r.body), (v) => httpError(400, { object: 'error', message: v, type: 'BadRequestError', param: null, code: 400 })),
  llamacpp: (): RequestValidator => (r) =>
    reject(badArguments(r.body), (v) => httpError(500, { error: { code: 500, message: `Failed to parse tool call arguments as JSON: ${v}`, type: 'server_error' } })),
  gemini:
    (signatureOf: (callId: string) => string | undefined): RequestValidator =>
    (r) =>
      reject(geminiViolations(r.body, signatureOf), (v) => httpError(400, [{ error: { code: 400, message: v, status: 'INVALID_ARGUMENT' } }])),
};
