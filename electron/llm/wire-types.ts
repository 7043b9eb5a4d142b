/**
 * The subset of the OpenAI Chat Completions streaming wire format that the adapter reads
 * (`chat.completion.chunk`, https://platform.openai.com/docs/api-reference/chat-streaming), widened
 * with the fields OpenAI-compatible providers add:
 * - `delta.reasoning_content` — DeepSeek thinking mode (https://api-docs.deepseek.com/guides/thinking_mode);
 * - `delta.reasoning` — Groq, Ollama, vLLM (≥ 0.10) and OpenRouter reasoning text;
 * - `delta.reasoning_details` — OpenRouter's structured reasoning, streamed as fragments keyed by
 *   `index` (https://openrouter.ai/docs/use-cases/reasoning-tokens#reasoning-details-api-shape);
 * - per-call extras on `tool_calls[]`, e.g. Gemini's `extra_content.google.thought_signature`
 *   (https://ai.google.dev/gemini-api/docs/thought-signatures);
 * - `usage.prompt_cache_hit_tokens` / `prompt_cache_miss_tokens` — DeepSeek context caching
 *   (https://api-docs.deepseek.com/guides/kv_cache).
 *
 * Every field is optional and nullable: providers omit and null fields freely, and the translator
 * must never trust a field to be present. The `openai` package's `ChatCompletionChunk` is
 * assignable to {@link WireChunk}.
 */

/** One streamed tool-call fragment. `id` and `function.name` usually arrive only on the first one. */
export interface WireToolCallDelta {
  /** Provider extras (any key besides the four below), kept and sent back on the call. */
  readonly [extra: string]: unknown;
  readonly index?: number | null;
  readonly id?: string | null;
  readonly type?: string | null;
  readonly function?: {
    readonly name?: string | null;
    readonly arguments?: string | null;
  } | null;
}

/** The `delta` of a streamed choice. */
export interface WireDelta {
  readonly role?: string | null;
  readonly content?: string | null;
  readonly reasoning_content?: string | null;
  readonly reasoning?: string | null;
  readonly reasoning_details?: readonly unknown[] | null;
  readonly tool_calls?: readonly WireToolCallDelta[] | null;
}

export interface WireChoice {
  readonly index?: number | null;
  readonly delta?: WireDelta | null;
  /** `stop`, `tool_calls`, `length`, `content_filter`, or a provider-specific value. */
  readonly finish_reason?: string | null;
}

/** Token counts as providers report them (all in tokens). */
export interface WireUsage {
  readonly prompt_tokens?: number | null;
  readonly completion_tokens?: number | null;
  readonly total_tokens?: number | null;
  readonly prompt_tokens_details?: { readonly cached_tokens?: number | null } | null;
  readonly completion_tokens_details?: { readonly reasoning_tokens?: number | null } | null;
  /** DeepSeek: prompt tokens served from the context cache (included in `prompt_tokens`). */
  readonly prompt_cache_hit_tokens?: number | null;
  readonly prompt_cache_miss_tokens?: number | null;
}

/** One parsed `data:` payload of a Chat Completions stream. A usage-only chunk has `choices: []`. */
export interface WireChunk {
  readonly choices?: readonly WireChoice[] | null;
  readonly usage?: WireUsage | null;
}
