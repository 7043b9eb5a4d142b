import { describe, expect, it } from 'vitest';
import type { LlmErrorCode, LlmFailure } from '../../../shared/chunks.js';
import { decideRetry, DEFAULT_RETRY_POLICY } from '../../../electron/llm/retry-policy.js';

const f = (code: LlmErrorCode, extra: Partial<LlmFailure> = {}): LlmFailure => ({ code, message: code, ...extra });
const mid = () => 0.5; // zero jitter

describe('decideRetry', () => {
  it('retries the default codes with exponential backoff up to the cap', () => {
    for (const code of ['RATE_LIMIT', 'SERVER', 'TRANSPORT', 'TIMEOUT', 'EMPTY_RESPONSE'] as const) {
      expect(decideRetry(f(code), 1, DEFAULT_RETRY_POLICY, mid)).toEqual({ delayMs: 500 });
    }
    expect([1, 2, 3, 4, 5].map((n) => decideRetry(f('SERVER'), n, DEFAULT_RETRY_POLICY, mid)?.delayMs)).toEqual([500, 1000, 2000, 4000, 8000]);
    expect(decideRetry(f('SERVER'), 5, { ...DEFAULT_RETRY_POLICY, maxRetries: 9 }, mid)).toEqual({ delayMs: 8000 });
    expect(decideRetry(f('SERVER'), 6, { ...DEFAULT_RETRY_POLICY, maxRetries: 9 }, mid)).toEqual({ delayMs: 10_000 });
  });

  it('gives up after maxRetries and for codes that are not transient', () => {
    expect(decideRetry(f('SERVER'), 6)).toBeUndefined();
    expect(decideRetry(f('SERVER'), 0)).toBeUndefined();
    for (const code of ['AUTH', 'QUOTA', 'CONTEXT_WINDOW_EXCEEDED', 'INVALID_REQUEST', 'ABORTED', 'STREAM_CLOSED', 'MALFORMED_RESPONSE', 'UNKNOWN'] as const) {
      expect(decideRetry(f(code), 1)).toBeUndefined();
    }
  });

  it('TIMEOUT is retried once by default: each timed-out attempt already cost a whole timeout (issue 20)', () => {
    expect(decideRetry(f('TIMEOUT'), 1, DEFAULT_RETRY_POLICY, () => 0.5)).toEqual({ delayMs: 500 });
    expect(decideRetry(f('TIMEOUT'), 2, DEFAULT_RETRY_POLICY, () => 0.5)).toBeUndefined();
    expect(decideRetry(f('SERVER'), 2, DEFAULT_RETRY_POLICY, () => 0.5)).toEqual({ delayMs: 1000 });
    // A caller may lift the cap.
    expect(decideRetry(f('TIMEOUT'), 3, { maxRetriesByCode: {} }, () => 0.5)).toEqual({ delayMs: 2000 });
  });

  it('applies ±10 % jitter within bounds', () => {
    expect(decideRetry(f('SERVER'), 2, DEFAULT_RETRY_POLICY, () => 0)).toEqual({ delayMs: 900 });
    expect(decideRetry(f('SERVER'), 2, DEFAULT_RETRY_POLICY, () => 0.999999)).toEqual({ delayMs: 1100 });
    for (let i = 0; i < 200; i++) {
      const delay = decideRetry(f('TRANSPORT'), 3)!.delayMs;
      expect(delay).toBeGreaterThanOrEqual(1800);
      expect(delay).toBeLessThanOrEqual(2200);
    }
    // The result never exceeds the cap, even with upward jitter.
    expect(decideRetry(f('SERVER'), 5, { maxRetries: 10, maxDelayMs: 8000 }, () => 0.999)?.delayMs).toBe(8000);
  });

  it('a Retry-After at or below the cap replaces the delay exactly; above the cap gives up', () => {
    expect(decideRetry(f('RATE_LIMIT', { retryAfterMs: 3000 }), 1, DEFAULT_RETRY_POLICY, () => 0)).toEqual({ delayMs: 3000 });
    expect(decideRetry(f('RATE_LIMIT', { retryAfterMs: 10_000 }), 4)).toEqual({ delayMs: 10_000 });
    expect(decideRetry(f('RATE_LIMIT', { retryAfterMs: 0 }), 1)).toEqual({ delayMs: 0 });
    expect(decideRetry(f('RATE_LIMIT', { retryAfterMs: 10_001 }), 1)).toBeUndefined();
    expect(decideRetry(f('AUTH', { retryAfterMs: 100 }), 1)).toBeUndefined();
  });

  it('accepts a partial policy, filling the rest from the defaults', () => {
    expect(decideRetry(f('SERVER'), 1, { initialDelayMs: 100 }, mid)).toEqual({ delayMs: 100 });
    expect(decideRetry(f('SERVER'), 2, { maxRetries: 1 })).toBeUndefined();
    expect(decideRetry(f('AUTH'), 1, { retryableCodes: new Set(['AUTH']) }, mid)).toEqual({ delayMs: 500 });
  });
});
