/**
 * Branch figures as text where two of them are set side by side — the ranking's reasons ("shorter
 * time: 40 ms vs 48 ms"), the board's figures, `forkline compare` and `forkline fanout`. Two figures
 * that differ never print alike: a pair is printed at the precision that shows its difference (a
 * trial's board said "shorter time: 0.0 s vs 0.0 s" for 40 ms against 48 ms). Pure: no Node, no DOM.
 */

/** Most digits a pair adds beyond its usual precision to tell two figures apart. */
const MAX_EXTRA_DIGITS = 6;

/** The number a figure's text shows (`$0.000000` → 0, `8,412 ms` → 8412). */
function shownNumber(text: string): number {
  return Number(text.replace(/[^0-9.-]/g, ''));
}

/**
 * `a` and `b` rendered by `render(value, extra)` with `extra` = 0, 1, 2, … more digits until the two
 * texts show different numbers (`$0` and `$0.000000` look alike); figures that are equal stay at
 * `extra` 0.
 */
function distinctPair(a: number, b: number, render: (value: number, extra: number) => string): readonly [string, string] {
  let extra = 0;
  let left = render(a, 0);
  let right = render(b, 0);
  while (a !== b && shownNumber(left) === shownNumber(right) && extra < MAX_EXTRA_DIGITS) {
    extra++;
    left = render(a, extra);
    right = render(b, extra);
  }
  return [left, right];
}

/** `n` with US thousands separators and exactly `digits` decimals. */
function grouped(n: number, digits: number): string {
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** One unit for a pair of durations: milliseconds while both are under 10 s, else seconds. */
function durationRender(a: number, b: number): (ms: number, extra: number) => string {
  if (Math.max(Math.abs(a), Math.abs(b)) < 10_000) return (ms, extra) => `${grouped(ms, extra)} ms`;
  return (ms, extra) => `${grouped(ms / 1000, 1 + extra)} s`;
}

/** A branch's time: `40 ms`, `8,412 ms` under 10 s, else `12.3 s`; `?` when not a number. */
export function durationFigure(ms: number): string {
  return durationPair(ms, ms)[0];
}

/**
 * Two branches' times in one unit (ms while both are under 10 s, else s with one decimal), with more
 * digits when that is what tells them apart: `40 ms` / `48 ms`, `12.34 s` / `12.36 s`.
 */
export function durationPair(a: number, b: number): readonly [string, string] {
  if (!Number.isFinite(a) || !Number.isFinite(b)) return [Number.isFinite(a) ? durationFigure(a) : '?', Number.isFinite(b) ? durationFigure(b) : '?'];
  return distinctPair(a, b, durationRender(a, b));
}

/** Decimals a USD amount usually shows (as shared/pricing.ts formatUsd: 6 under a cent, 4 under a dollar, else 2). */
function usdDigits(usd: number): number {
  const abs = Math.abs(usd);
  return abs < 0.01 ? 6 : abs < 1 ? 4 : 2;
}

/**
 * Two fully priced branches' costs at one precision — the finer of the two amounts' usual ones
 * (`$0.0123`, `$0.001730`), with more decimals when that is what tells them apart; an amount of
 * exactly 0 is `$0`.
 */
export function usdPair(a: number, b: number): readonly [string, string] {
  const nonZero = [a, b].filter((x) => x !== 0);
  const digits = nonZero.length === 0 ? 2 : Math.max(...nonZero.map(usdDigits));
  return distinctPair(a, b, (usd, extra) => (usd === 0 ? '$0' : `$${usd.toFixed(digits + extra)}`));
}

/** A token count in full (`2,544`): counts are whole numbers, so two that differ never print alike (no `2.54k`). */
export function tokensFigure(n: number): string {
  return Number.isFinite(n) ? grouped(n, 0) : '?';
}
