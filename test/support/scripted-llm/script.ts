/**
 * The scripted-LLM script format: plain JSON describing what the server answers to each
 * `POST /v1/chat/completions`, one step per request (see README.md beside this file). Everything
 * here is JSON-serialisable, so the same steps work from tests (built with `builders.ts`) and from a
 * `--script FILE` on the command line.
 */

/** One piece of an HTTP response body, or an action between pieces. */
export type Frame =
  /** `data: <JSON.stringify(data)>\n\n`; a string is sent verbatim after `data: `. */
  | { readonly data: unknown }
  /** `event: <event>\ndata: <JSON>\n\n` (e.g. an `event: error` frame). */
  | { readonly event: string; readonly data: unknown }
  /** `: <comment>\n\n` (e.g. `: keep-alive`). */
  | { readonly comment: string }
  /** `data: [DONE]\n\n`. */
  | { readonly done: true }
  /** Exactly these characters (UTF-8), for malformed or oddly framed output. */
  | { readonly raw: string }
  /** Wait this many ms before the next frame. */
  | { readonly delayMs: number }
  /** Send nothing more and keep the connection open until the client goes away. */
  | { readonly stall: true }
  /** Destroy the socket now (a connection dropped mid-stream). */
  | { readonly destroy: true };

/** A tool call of a scripted reply. `arguments` is the complete raw JSON string. */
export interface ScriptedToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

/** Token counts in the wire format (the server sends them as given). */
export interface ScriptedUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens?: number;
  readonly prompt_tokens_details?: { readonly cached_tokens?: number };
  readonly completion_tokens_details?: { readonly reasoning_tokens?: number };
  readonly prompt_cache_hit_tokens?: number;
  readonly prompt_cache_miss_tokens?: number;
}

/** How a stream is cut short: after `after` frames, `stall`, `destroy` the socket, or `end` cleanly (no [DONE]). */
export interface Cut {
  readonly after: number;
  readonly then: 'stall' | 'destroy' | 'end';
}

/** Options every streaming step accepts. */
export interface StreamOptions {
  /** Wait this long before every frame (ms). */
  readonly frameDelayMs?: number;
  /** Insert a `: keep-alive` comment before every Nth frame. */
  readonly keepAliveEvery?: number;
  readonly cut?: Cut;
  /** Extra response headers. `x-request-id` defaults to `req_scripted_<n>`. */
  readonly headers?: { readonly [name: string]: string };
}

/**
 * A model reply compiled into `chat.completion.chunk` frames: a role chunk, reasoning deltas, text
 * deltas, tool-call deltas, a finish chunk, an optional usage-only chunk, `[DONE]`.
 */
export interface ReplyStep extends StreamOptions {
  readonly type: 'reply';
  readonly model?: string;
  readonly reasoning?: string;
  /** Wire field for reasoning deltas (DeepSeek `reasoning_content`, default; Groq/Ollama `reasoning`). */
  readonly reasoningField?: 'reasoning_content' | 'reasoning';
  readonly text?: string;
  readonly toolCalls?: readonly ScriptedToolCall[];
  /** Characters per delta for reasoning, text and tool arguments (default 4). */
  readonly split?: number;
  /** How tool-call deltas after the first carry id/name: left out (OpenAI), `""`, or `null`. */
  readonly laterIdName?: 'omit' | 'empty' | 'null';
  /** Interleave the argument deltas of parallel calls round-robin instead of one call after another. */
  readonly interleave?: boolean;
  /** Wire finish_reason; default `tool_calls` with tool calls, else `stop`; `null` = never sent. */
  readonly finish?: string | null;
  readonly usage?: ScriptedUsage;
  /** Where usage goes: on the finish chunk (DeepSeek) or a separate `choices: []` chunk (OpenAI, default). */
  readonly usageIn?: 'finish-chunk' | 'separate-chunk';
  /** Send `data: [DONE]` at the end (default true). */
  readonly done?: boolean;
  /**
   * With no `reasoning`: send `"reasoning_content": ""` on the first tool-call (or text) delta, as a
   * thinking endpoint with nothing to think does (default false; true in strict thinking mode).
   */
  readonly emptyReasoningContent?: boolean;
}

/** Explicit frames, for anything a reply cannot express. */
export interface FramesStep extends StreamOptions {
  readonly type: 'frames';
  readonly frames: readonly Frame[];
  /** HTTP status (default 200). */
  readonly status?: number;
}

/** A non-2xx JSON answer. */
export interface HttpErrorStep {
  readonly type: 'http-error';
  readonly status: number;
  /** JSON body (objects are stringified) or raw text; default `{error:{message, type, code}}`. */
  readonly body?: unknown;
  /** `Retry-After` header: seconds (number) or an HTTP-date / raw string. */
  readonly retryAfter?: number | string;
  readonly headers?: { readonly [name: string]: string };
}

/**
 * Replays a recorded file: `.sse` byte for byte (split into frames at blank lines only for pacing);
 * `.chunks.jsonl` as `data: <line>\n\n` per non-empty line and then `data: [DONE]\n\n`. A relative
 * `file` resolves against the script's folder (or the server's `baseDir`).
 */
export interface ReplayStep extends StreamOptions {
  readonly type: 'replay';
  readonly file: string;
}

export type ScriptStep = ReplyStep | FramesStep | HttpErrorStep | ReplayStep;

/** A script file: `{ "steps": [...] }` (a bare array of steps is accepted too). */
export interface ScriptFile {
  readonly description?: string;
  readonly steps: readonly ScriptStep[];
}
