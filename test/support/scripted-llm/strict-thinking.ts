/**
 * The scripted server's strict thinking mode (`startScriptedLlm({ strictThinking: true })`,
 * `npm run scripted-llm -- --strict-thinking`): it refuses what DeepSeek's thinking mode refuses,
 * with DeepSeek's and OpenAI's error texts, and streams like a thinking endpoint (issue 20).
 *
 * | request | answer | source |
 * |---|---|---|
 * | an assistant message with `tool_calls` and no string `reasoning_content` | 400 ``Missing `reasoning_content` field in the assistant message at message index N`` | https://api-docs.deepseek.com/guides/thinking_mode (tool calls: the reasoning_content must be passed back); the text as quoted in issues 9 and 20 |
 * | a tool message answering a call of the open assistant message, but not the next one in call order | 400 `tool results out of call order at index N` | issue 20 item 3 (the text as quoted there) |
 * | a non-tool message (or the end) before every call of the open assistant message was answered | 400 `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: …` | OpenAI / DeepSeek chat completions validation |
 * | a tool message with no open call | 400 `Messages with role 'tool' must be a response to a preceding message with 'tool_calls'` | the same |
 *
 * Replies: a reply step with no reasoning streams `"reasoning_content": ""` with its first tool call
 * (or its first text), as a thinking endpoint with nothing to think does.
 */
import { httpError } from './builders.js';
import type { RecordedRequest, RequestValidator } from './server.js';
import type { ReplyStep, ScriptStep } from './script.js';

/** What the mode checks. */
export interface StrictThinkingOptions {
  /** Refuse assistant tool-call messages without `reasoning_content` (default true). */
  readonly requireReasoningContent?: boolean;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- request bodies are arbitrary JSON
type Body = any;

/** The first-to-last list of what the strict mode refuses in `body` (empty: accepted). */
export function strictThinkingViolations(body: Body, options: StrictThinkingOptions = {}): string[] {
  const out: string[] = [];
  const messages: Body[] = Array.isArray(body?.messages) ? body.messages : [];
  let open: string[] = [];
  let next = 0;
  const unanswered = (): string =>
    `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${open.slice(next).join(', ')}`;
  messages.forEach((message, index) => {
    if (message?.role === 'tool') {
      const id = message.tool_call_id;
      if (next < open.length && open[next] === id) next++;
      else if (open.indexOf(id, next) > next) out.push(`tool results out of call order at index ${index}`);
      else out.push(`Messages with role 'tool' must be a response to a preceding message with 'tool_calls' (message index ${index})`);
      return;
    }
    if (next < open.length) out.push(unanswered());
    open = [];
    next = 0;
    if (message?.role === 'assistant' && Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
      if ((options.requireReasoningContent ?? true) && typeof message.reasoning_content !== 'string')
        out.push(`Missing \`reasoning_content\` field in the assistant message at message index ${index}`);
      open = (message.tool_calls as Body[]).map((c) => String(c?.id));
    }
  });
  if (next < open.length) out.push(unanswered());
  return out;
}

/** The validator of the mode: DeepSeek's 400 body for the first violation. */
export function strictThinkingValidator(options: StrictThinkingOptions = {}): RequestValidator {
  return (request: RecordedRequest) => {
    const first = strictThinkingViolations(request.body, options)[0];
    return first === undefined ? undefined : httpError(400, { error: { message: first, type: 'invalid_request_error', param: null, code: 'invalid_request_error' } });
  };
}

/** A step as the mode plays it: replies without reasoning stream an empty `reasoning_content`. */
export function thinkingStep(step: ScriptStep): ScriptStep {
  if (step.type !== 'reply') return step;
  return { ...step, emptyReasoningContent: (step as ReplyStep).emptyReasoningContent ?? true } as ReplyStep;
}
