/**
 * The `cost` member of `ls --json`, `show --json` and `compare --json` (docs/providers.md "Prices, overrides and budgets"): what the session
 * cost from its logged usage and logged prices (shared/session-cost.ts; history logged before
 * prices were is priced with the bundled list at its own time). `usd` is `null` when a response's
 * price is unknown (never 0): `knownUsd` then sums the priced ones.
 */
import type { SessionEvent } from '../../shared/events.js';
import { costJson, sessionCost } from '../../shared/session-cost.js';
import type { PriceBook } from '../pricing/price-list.js';

export function sessionCostJson(events: readonly SessionEvent[], book: PriceBook, options: { readonly turns?: boolean } = {}): Record<string, unknown> {
  const cost = sessionCost(events, { fallback: book.fallback });
  const out: Record<string, unknown> = costJson(cost.total, cost.snapshots);
  if (options.turns) {
    out['turns'] = [...cost.turns].map(([turn, t]) => {
      const { priceSnapshots: _snapshots, ...figures } = costJson(t, []);
      return { turn, ...figures };
    });
  }
  return out;
}
