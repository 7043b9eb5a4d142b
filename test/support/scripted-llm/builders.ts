/**
 * Small builders so tests read like the behaviour they script:
 *
 *   llm.enqueue(textResponse('hi', { usage: usage(10, 2) }));
 *   llm.enqueue(toolCallResponse([{ id: 'c1', name: 'read_file', arguments: '{"path":"a"}' }], { split: 3 }));
 *   llm.enqueue(httpError(429, { error: { message: 'slow down' } }, { retryAfter: 1 }));
 *   llm.enqueue(replayFile(fixture('openai-gpt-4o_text_finish-length.sse')));
 */
import { join } from 'node:path';
import type { Frame, FramesStep, HttpErrorStep, ReplayStep, ReplyStep, ScriptedToolCall, ScriptedUsage, StreamOptions } from './script.js';
import { PROVIDER_STREAMS } from '../fixtures.js';

type ReplyOptions = Omit<ReplyStep, 'type' | 'text' | 'toolCalls'>;

/** A plain text answer (finish `stop`). */
export function textResponse(text: string, options: ReplyOptions = {}): ReplyStep {
  return { type: 'reply', ...options, text };
}

/** Reasoning, then text. */
export function reasoningResponse(reasoning: string, text: string, options: ReplyOptions = {}): ReplyStep {
  return { type: 'reply', ...options, reasoning, text };
}

/** Tool calls (finish `tool_calls`), optionally after `text` / `reasoning` given in options. */
export function toolCallResponse(calls: readonly ScriptedToolCall[], options: ReplyOptions & { text?: string } = {}): ReplyStep {
  return { type: 'reply', ...options, toolCalls: calls };
}

/** Any reply. */
export function reply(step: Omit<ReplyStep, 'type'>): ReplyStep {
  return { type: 'reply', ...step };
}

/** An empty reply: a role chunk, then `{"delta":{"content":""},"finish_reason":"stop"}`, then [DONE] (FIELD-NOTES C5). */
export function emptyResponse(options: StreamOptions = {}): ReplyStep {
  return { type: 'reply', ...options, text: '' };
}

/** Explicit frames. */
export function framesResponse(frames: readonly Frame[], options: StreamOptions & { status?: number } = {}): FramesStep {
  return { type: 'frames', ...options, frames };
}

/** A non-2xx answer with a JSON (or text) body. */
export function httpError(status: number, body?: unknown, options: { retryAfter?: number | string; headers?: Record<string, string> } = {}): HttpErrorStep {
  return { type: 'http-error', status, ...(body === undefined ? {} : { body }), ...options };
}

/** Replays a recorded `.sse` or `.chunks.jsonl` file. */
export function replayFile(file: string, options: StreamOptions = {}): ReplayStep {
  return { type: 'replay', ...options, file };
}

/** Wire usage: prompt/completion tokens plus optional cache hits (OpenAI + DeepSeek fields) and reasoning tokens. */
export function usage(promptTokens: number, completionTokens: number, extra: { cached?: number; reasoning?: number } = {}): ScriptedUsage {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    ...(extra.cached === undefined ? {} : { prompt_tokens_details: { cached_tokens: extra.cached }, prompt_cache_hit_tokens: extra.cached, prompt_cache_miss_tokens: promptTokens - extra.cached }),
    ...(extra.reasoning === undefined ? {} : { completion_tokens_details: { reasoning_tokens: extra.reasoning } }),
  };
}

/** Frame helpers. */
export const frame = {
  data: (data: unknown): Frame => ({ data }),
  event: (event: string, data: unknown): Frame => ({ event, data }),
  comment: (comment = 'keep-alive'): Frame => ({ comment }),
  done: (): Frame => ({ done: true }),
  raw: (raw: string): Frame => ({ raw }),
  delay: (delayMs: number): Frame => ({ delayMs }),
  stall: (): Frame => ({ stall: true }),
  destroy: (): Frame => ({ destroy: true }),
};

/** Absolute path of the shared provider-stream fixtures folder (test/fixtures/provider-streams). */
export const PROVIDER_STREAMS_DIR = PROVIDER_STREAMS;

/** Absolute path of one provider-stream fixture. */
export function fixture(name: string): string {
  return join(PROVIDER_STREAMS_DIR, name);
}

export { wireChunk } from './compile.js';
