/**
 * The cheap per-session cost summary behind the session list (docs/providers.md "Prices, overrides and budgets"): one
 * {@link SessionCostFold} kept per session, fed only the events appended since the list was last
 * built, so listing reads no full log after the first time (and a session that did not change is
 * not read at all). Prices come from the log's own `request/price` events; a response without one
 * counts as unpriced (the list never guesses at a current price).
 */
import type { SessionEvent } from '../../../shared/events.js';
import { SessionCostFold, type CostTotals } from '../../../shared/session-cost.js';

/** The folds of the sessions listed so far, keyed by session id. */
export class SessionCostCache {
  private readonly folds = new Map<string, { fold: SessionCostFold; totals?: CostTotals; at: number }>();

  /**
   * The totals of a session whose log has `length` events; `read(from, to)` reads the events not
   * folded yet. Undefined when the log cannot be read (a damaged row): the list still shows.
   */
  totals(sessionId: string, length: number, read: (fromSeq: number, toSeq: number) => readonly SessionEvent[]): CostTotals | undefined {
    let entry = this.folds.get(sessionId);
    // A log shorter than what was folded is not the same log (deleted and recreated): start over.
    if (!entry || entry.fold.count > length) this.folds.set(sessionId, (entry = { fold: new SessionCostFold(), at: -1 }));
    if (entry.at === length && entry.totals) return entry.totals;
    try {
      if (entry.fold.count < length) for (const e of read(entry.fold.count, length)) entry.fold.add(e);
    } catch {
      this.folds.delete(sessionId);
      return undefined;
    }
    entry.totals = entry.fold.total();
    entry.at = length;
    return entry.totals;
  }

  /** Forgets a session (deleted). */
  forget(sessionId: string): void {
    this.folds.delete(sessionId);
  }
}
