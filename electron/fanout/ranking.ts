/**
 * Deterministic, explained ranking of branches (README "Fan-out, apply, rewind"): a branch with steps > one with
 * none, then check passed > fewer failures > smaller diff > lower cost (USD when priced, else tokens) > shorter time,
 * then the session id so ties never flip. No model judges. Pure.
 *
 * A branch with no steps (no model response since its fork point: an empty fork, or one whose turn
 * failed before its first response) ranks below every branch that has some, whatever its check
 * says: it produced nothing, so it cannot be the best (its folder is the fork point's, and its
 * smaller diff and lower cost would otherwise put it first).
 */

import type { RankFigures } from '../../shared/branch-ranking.js';
import { durationFigure, durationPair, tokensFigure, usdPair } from '../../shared/figure-text.js';

export type { RankFigures };

export interface RankedBranch<T extends RankFigures> {
  readonly rank: number;
  readonly branch: T;
  /** Why this branch is where it is: the first criterion that separates it from the next one. */
  readonly reasons: readonly string[];
}

/** The branch has no steps since its fork point (`billedResponses` 0; unknown counts as having some). */
const hasNoSteps = (f: RankFigures) => f.billedResponses === 0;
const checkOrder = (f: RankFigures) => (f.checkPassed === true ? 0 : f.checkPassed === false ? 1 : 2);
const failuresOf = (f: RankFigures) => f.failures ?? Number.MAX_SAFE_INTEGER;

/** Criteria in order: a name, a comparator (negative = `a` better) and how to say it. */
const CRITERIA: readonly { readonly compare: (a: RankFigures, b: RankFigures) => number; readonly say: (a: RankFigures, b: RankFigures) => string }[] = [
  {
    compare: (a, b) => Number(hasNoSteps(a)) - Number(hasNoSteps(b)),
    say: (_a, b) => `${short(b.session)} has no steps (it produced nothing)`,
  },
  {
    compare: (a, b) => checkOrder(a) - checkOrder(b),
    say: (a, b) => `check ${verdict(a)} (vs ${verdict(b)} in ${short(b.session)})`,
  },
  {
    compare: (a, b) => failuresOf(a) - failuresOf(b),
    say: (a, b) => `fewer failures: ${a.failures ?? 'n/a'} vs ${b.failures ?? 'n/a'} in ${short(b.session)}`,
  },
  { compare: (a, b) => a.diffLines - b.diffLines, say: (a, b) => `smaller diff: ${a.diffLines} vs ${b.diffLines} changed lines in ${short(b.session)}` },
  {
    // USD when both branches are fully priced (docs/providers.md "Prices, overrides and budgets"), else their tokens.
    compare: (a, b) => (a.costUsd !== undefined && b.costUsd !== undefined ? a.costUsd - b.costUsd : a.tokens - b.tokens),
    say: (a, b) =>
      a.costUsd !== undefined && b.costUsd !== undefined
        ? `lower cost: ${usdVs(a, b)} in ${short(b.session)}`
        : `lower cost: ${tokensFigure(a.tokens)} vs ${tokensFigure(b.tokens)} tokens in ${short(b.session)}`,
  },
  { compare: (a, b) => a.durationMs - b.durationMs, say: (a, b) => `shorter time: ${durationPair(a.durationMs, b.durationMs).join(' vs ')} in ${short(b.session)}` },
];

/**
 * Two fully priced branches' costs for a reason, at the precision that tells them apart
 * (shared/figure-text.ts), or `no steps` for one that billed nothing (never `$0.000000`).
 */
function usdVs(a: RankFigures, b: RankFigures): string {
  const [left, right] = usdPair(a.costUsd!, b.costUsd!);
  return `${a.billedResponses === 0 ? 'no steps' : left} vs ${b.billedResponses === 0 ? 'no steps' : right}`;
}

function verdict(f: RankFigures): string {
  return f.checkPassed === true ? 'passed' : f.checkPassed === false ? 'failed' : 'not run';
}

function short(id: string): string {
  return id.slice(0, 8);
}

/** Compares two branches by the criteria in order (negative = `a` ranks first). */
export function compareBranches(a: RankFigures, b: RankFigures): number {
  for (const c of CRITERIA) {
    const d = c.compare(a, b);
    if (d !== 0) return d;
  }
  return a.session < b.session ? -1 : a.session > b.session ? 1 : 0;
}

/**
 * Branches in rank order (1 = best), each with its reasons: its own figures, and the criterion
 * that put it ahead of the next branch (or "tie … by session id" when none did).
 */
export function rankBranches<T extends RankFigures>(branches: readonly T[]): RankedBranch<T>[] {
  const sorted = [...branches].sort(compareBranches);
  return sorted.map((branch, i) => {
    const reasons = [
      `check ${verdict(branch)}, ${branch.failures ?? 'n/a'} failure(s), ${branch.diffLines} changed line(s), ${tokensFigure(branch.tokens)} tokens, ${durationFigure(branch.durationMs)}`,
    ];
    if (hasNoSteps(branch)) reasons.push('no steps since its fork point: ranked below every branch with steps (a branch that produced nothing cannot be the best)');
    const next = sorted[i + 1];
    if (next) {
      const decisive = CRITERIA.find((c) => c.compare(branch, next) !== 0);
      reasons.push(decisive ? `ranked above ${short(next.session)}: ${decisive.say(branch, next)}` : `tied with ${short(next.session)} on every criterion; ordered by session id`);
    }
    return { rank: i + 1, branch, reasons };
  });
}
