/**
 * Reconnect delays: exponential from `baseMs`, capped at `maxMs`, with ±20 % jitter so several
 * windows do not reconnect in lockstep. Pure (randomness injected).
 */
export interface BackoffOptions {
  readonly baseMs?: number;
  readonly maxMs?: number;
}

/** Delay before reconnect attempt `attempt` (1-based). `random` returns a value in [0, 1). */
export function backoffDelay(attempt: number, random: () => number, options: BackoffOptions = {}): number {
  const base = options.baseMs ?? 250;
  const max = options.maxMs ?? 10_000;
  const raw = Math.min(max, base * 2 ** Math.max(0, attempt - 1));
  return Math.round(raw * (0.8 + 0.4 * random()));
}
