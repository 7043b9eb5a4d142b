/**
 * The normalised model stream: one closed union of chunks produced only by `electron/llm` and
 * logged verbatim inside `assistant/chunk` events. Shapes follow the reference runtime's
 * `StreamChunk` (DeepSeek Harness `packages/llm/llm/src/types.ts`) so its logs import unchanged.
 */
import type { AssistantBlock, CallId } from './messages.js';

export type BlockType = 'text' | 'reasoning' | 'tool-call';

/**
 * Token counts for one model response. Counts are disjoint: `inputTokens` is uncached input only;
 * billed input = inputTokens + cacheReadTokens + cacheWriteTokens. `reasoningTokens` is a subset
 * of `outputTokens` (never add both).
 */
export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens?: number;
  readonly cacheWriteTokens?: number;
  readonly reasoningTokens?: number;
}

/** Failure codes of a model call (docs/architecture.md §5). `HTTP_<status>` covers statuses with no better code. */
export type LlmErrorCode =
  | 'AUTH'
  | 'QUOTA'
  | 'RATE_LIMIT'
  | 'CONTEXT_WINDOW_EXCEEDED'
  | 'INVALID_REQUEST'
  | 'SERVER'
  | 'TRANSPORT'
  | 'TIMEOUT'
  | 'STREAM_CLOSED'
  | 'EMPTY_RESPONSE'
  | 'MALFORMED_RESPONSE'
  | 'ABORTED'
  | 'MISSING_CREDENTIAL'
  | 'UNSUPPORTED_REASONING_EFFORT'
  | 'CONTENT_FILTER'
  | 'UNKNOWN'
  | 'INSUFFICIENT_SYSTEM_RESOURCE'
  | `HTTP_${number}`
  /** A provider's own finish reason, upper-cased (unknown to this build). */
  | (string & { readonly __providerCode?: never });

/** A frozen, serialisable description of a failed model call. */
export interface LlmFailure {
  readonly message: string;
  readonly code: LlmErrorCode;
  /** HTTP status, when the provider answered. */
  readonly status?: number;
  /** The provider's Retry-After, in ms, when it sent one. */
  readonly retryAfterMs?: number;
  /** The provider's request id (`x-request-id`), when it sent one. */
  readonly requestId?: string;
  /**
   * What a context-overflow error (CONTEXT_WINDOW_EXCEEDED) said about the limits, parsed by the
   * adapter from the provider's error (electron/llm/context-overflow.ts). All in tokens; each
   * present only when the provider stated it.
   */
  readonly overflow?: ContextOverflowFacts;
  /** TIMEOUT from our watchdog: the silence that ended the attempt, ms (shown with the failure). */
  readonly timeoutMs?: number;
}

/** Numbers a context-overflow error states (tokens). */
export interface ContextOverflowFacts {
  /** The model's context window (prompt + output). */
  readonly contextWindow?: number;
  /** The prompt size the server counted. */
  readonly promptTokens?: number;
  /** The output size the request asked for (or the server assumed). */
  readonly requestedOutputTokens?: number;
}

/** Why a stream ended. `error` and `aborted` carry the failure; the others are successes. */
export type FinishReason =
  | { readonly kind: 'stop' }
  | { readonly kind: 'tool-calls' }
  | { readonly kind: 'max-tokens' }
  | { readonly kind: 'error'; readonly failure: LlmFailure }
  | { readonly kind: 'aborted'; readonly failure: LlmFailure };

export type StreamChunk =
  | { readonly type: 'block-start'; readonly index: number; readonly blockType: BlockType }
  | { readonly type: 'text-delta'; readonly index: number; readonly text: string }
  | { readonly type: 'reasoning-delta'; readonly index: number; readonly text: string }
  | {
      readonly type: 'tool-call-delta';
      readonly index: number;
      readonly id: CallId;
      readonly name?: string;
      readonly argumentsDelta: string;
    }
  | { readonly type: 'block-end'; readonly index: number; readonly block: AssistantBlock }
  | { readonly type: 'usage'; readonly usage: TokenUsage }
  | { readonly type: 'finish'; readonly reason: FinishReason };

/** Codes that the default retry policy retries (docs/architecture.md §5). */
export const RETRYABLE_LLM_CODES: ReadonlySet<LlmErrorCode> = new Set<LlmErrorCode>(['RATE_LIMIT', 'SERVER', 'TRANSPORT', 'TIMEOUT', 'EMPTY_RESPONSE']);
