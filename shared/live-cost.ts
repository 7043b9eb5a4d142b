/**
 * What a running turn has cost so far and how long it has waited for the person (docs/providers.md "Prices, overrides and budgets": the live
 * meters), projected from the timeline rows the renderer already folds: each ended step's usage at
 * the price logged for its request (and each compaction summary's at its own), and the approval questions of the turn (the wait is shown apart
 * from the tool's own time). Pure.
 */
import { usageCost } from './pricing.js';
import type { TimelineRow } from './timeline-rows.js';

/** The meter's figures for one turn. */
export interface TurnMeter {
  /** USD of the priced steps so far. */
  readonly knownUsd: number;
  /** Steps with usage (or a price marked unknown) whose price is not known. */
  readonly unknownCount: number;
  /** Steps that reported usage. */
  readonly billedSteps: number;
  /** Billed tokens so far: total input (uncached + cached) + output. */
  readonly tokens: number;
  /** Finished approval waits of the turn, ms. */
  readonly approvalWaitMs: number;
  /** When the question still waiting for a decision was asked (epoch ms), if one is. */
  readonly waitingSince?: number;
}

/** The meter of turn `turn` from the timeline rows (rows of other turns are skipped). */
export function turnMeter(rows: readonly TimelineRow[], turn: number): TurnMeter {
  let knownUsd = 0;
  let unknownCount = 0;
  let billedSteps = 0;
  let tokens = 0;
  let approvalWaitMs = 0;
  let waitingSince: number | undefined;
  let inTurn = false;
  for (const row of rows) {
    if (row.kind === 'turn') inTurn = row.turn === turn;
    if (!inTurn) continue;
    if (row.kind === 'step') {
      const u = row.usage;
      if (u) {
        billedSteps++;
        tokens += u.inputTokens + (u.cacheReadTokens ?? 0) + (u.cacheWriteTokens ?? 0) + u.outputTokens;
      }
      if (row.price?.kind === 'known' && u) knownUsd += usageCost(u, row.price).usd;
      else if (u || row.price?.kind === 'unknown') unknownCount++;
    } else if (row.kind === 'compaction' && row.turn === turn) {
      // A compaction's summary request inside the turn (a manual one after it names no turn).
      const u = row.usage;
      if (u) tokens += u.inputTokens + (u.cacheReadTokens ?? 0) + (u.cacheWriteTokens ?? 0) + u.outputTokens;
      if (row.price?.kind === 'known' && u) knownUsd += usageCost(u, row.price).usd;
      else if (u || row.price?.kind === 'unknown') unknownCount++;
    } else if (row.kind === 'approval') {
      if (row.outcome === undefined) waitingSince = row.time;
      else approvalWaitMs += row.waitMs ?? 0;
    }
  }
  return { knownUsd, unknownCount, billedSteps, tokens, approvalWaitMs, ...(waitingSince !== undefined ? { waitingSince } : {}) };
}
