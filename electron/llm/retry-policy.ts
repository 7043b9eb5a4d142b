/**
 * The retry decision for a failed model attempt, as a pure function (docs/architecture.md §5; reference runtime
 * `packages/llm/llm/src/retry-policy.ts`, digest §5.3). The agent loop asks it, logs `llm/retry`
 * with the returned delay, waits, and calls `ModelClient.stream()` again; the adapter itself never
 * retries (the `openai` client runs with `maxRetries: 0`).
 */
import { RETRYABLE_LLM_CODES, type LlmErrorCode, type LlmFailure } from '../../shared/chunks.js';

/** Retry tuning. Delays in ms. */
export interface RetryPolicy {
  /** Retries after the first attempt (5 → at most 6 attempts). */
  readonly maxRetries: number;
  /** Base delay before retry 1; doubles per retry. */
  readonly initialDelayMs: number;
  /** Cap for the computed delay, and the largest provider Retry-After we wait for. */
  readonly maxDelayMs: number;
  /** Symmetric jitter as a share of the computed delay (0.1 = ±10 %). */
  readonly jitterRatio: number;
  /** Failure codes worth another attempt. */
  readonly retryableCodes: ReadonlySet<LlmErrorCode>;
  /**
   * A lower retry cap for some codes (the retry number of the step must not pass it). TIMEOUT: 1 —
   * each timed-out attempt already cost a whole timeout of silence, so the person learns within a
   * minute or two instead of after six silent attempts (docs/providers.md "Silence").
   */
  readonly maxRetriesByCode?: { readonly [code: string]: number };
}

/** Defaults: 5 retries (1 for TIMEOUT), 500 ms doubling to 10 s, ±10 % jitter, RATE_LIMIT SERVER TRANSPORT TIMEOUT EMPTY_RESPONSE. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  maxRetries: 5,
  initialDelayMs: 500,
  maxDelayMs: 10_000,
  jitterRatio: 0.1,
  retryableCodes: RETRYABLE_LLM_CODES,
  maxRetriesByCode: Object.freeze({ TIMEOUT: 1 }),
});

/** A decision to retry after `delayMs` (integer ms, ≥ 0). */
export interface RetryDecision {
  readonly delayMs: number;
}

/**
 * Whether to retry `failure`, and after how long.
 *
 * `retryNumber` is 1-based: the number of the retry about to happen (the `attempt` field of
 * `llm/retry`). Returns `undefined` (give up) when the code is not retryable or
 * `retryNumber > maxRetries` (or the code's lower cap in `maxRetriesByCode`). A provider Retry-After (`failure.retryAfterMs`) at or below
 * `maxDelayMs` is used as the delay exactly (no jitter); one above the cap gives up. Otherwise the
 * delay is `min(initialDelayMs·2^(retryNumber−1), maxDelayMs)` with ±`jitterRatio` jitter from
 * `random()` (in [0, 1)), rounded and clamped to [0, maxDelayMs]. `overrides` may be partial:
 * missing fields take {@link DEFAULT_RETRY_POLICY}'s values.
 */
export function decideRetry(failure: LlmFailure, retryNumber: number, overrides: Partial<RetryPolicy> = DEFAULT_RETRY_POLICY, random: () => number = Math.random): RetryDecision | undefined {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...definedOnly(overrides) };
  if (!policy.retryableCodes.has(failure.code)) return undefined;
  const cap = Math.min(policy.maxRetries, policy.maxRetriesByCode?.[failure.code] ?? Infinity);
  if (!Number.isInteger(retryNumber) || retryNumber < 1 || retryNumber > cap) return undefined;
  if (failure.retryAfterMs !== undefined) {
    if (failure.retryAfterMs > policy.maxDelayMs) return undefined;
    return { delayMs: Math.max(0, Math.round(failure.retryAfterMs)) };
  }
  const base = Math.min(policy.initialDelayMs * 2 ** (retryNumber - 1), policy.maxDelayMs);
  const jitter = base * policy.jitterRatio * (2 * random() - 1);
  return { delayMs: Math.min(policy.maxDelayMs, Math.max(0, Math.round(base + jitter))) };
}

function definedOnly(overrides: Partial<RetryPolicy>): Partial<RetryPolicy> {
  return Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined)) as Partial<RetryPolicy>;
}
