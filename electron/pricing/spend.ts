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

/**
 * A guard factory for the host: each agent gets its own guard. `live.overrides` (the Settings
 * prices) are read before every request, ahead of the process's own overrides (cli.json), so a
 * price set in Settings applies from the next request. `sessionBudget` (a budget set for the
 * session in the app) wins over the process's limits where it sets one.
 */
export function spendGuardFactory(options: PricingOptions = {}, live: { readonly overrides?: () => readonly PriceOverride[] } = {}): (sessionBudget?: () => Budget | undefined) => SpendGuard {
  let seen: readonly PriceOverride[] | undefined;
  let book = new PriceBook(options.overrides ?? []);
  const current = (): PriceBook => {
    const mine = live.overrides?.();
    if (mine !== undefined && mine !== seen) {
      seen = mine;
      book = new PriceBook([...mine, ...(options.overrides ?? [])]);
    }
    return book;
  };
  return (sessionBudget) =>
    new SpendGuard({
      quote: (route, at) => current().quote(route, at),
      // History logged before prices were (or inherited from such a log): priced with today's list at its own time.
      fallback: (r) => current().fallback(r),
      budget: () => mergeBudget(options.budget, sessionBudget?.()),
    });
}

/** The process's limits with the session's own on top (undefined when neither sets one). */
function mergeBudget(process: Budget | undefined, session: Budget | undefined): Budget | undefined {
  if (!session) return process;
  const merged = { ...process, ...Object.fromEntries(Object.entries(session).filter(([, v]) => v !== undefined)) } as Budget;
  return Object.keys(merged).length > 0 ? merged : undefined;
}
