/**
 * Wires the price book (bundled list + overrides, price-list.ts) into the agent's pre-request
 * check (electron/agent/spend-guard.ts) — the one place the host's composition root needs.
 */
import { SpendGuard, type Budget } from '../agent/spend-guard.js';
import { PriceBook, type PriceOverride } from './price-list.js';

export interface PricingOptions {
  /** A person's prices (cli.json `prices`, Settings), already validated. */
  readonly overrides?: readonly PriceOverride[];
  /** Limits for the agents of this process (`--budget`, `--turn-budget`, `--max-tokens-total`). */
  readonly budget?: Budget;
}

/** A guard factory for the host: each agent gets its own guard over the same price book. */
export function spendGuardFactory(options: PricingOptions = {}): () => SpendGuard {
  const book = new PriceBook(options.overrides ?? []);
  return () =>
    new SpendGuard({
      quote: (route, at) => book.quote(route, at),
      // History logged before prices were (or inherited from such a log): priced with today's list at its own time.
      fallback: book.fallback,
      budget: () => options.budget,
    });
}
