/**
 * Branch figures side by side (shared/figure-text.ts, used by the ranking's reasons, the board and
 * the CLI): two figures that differ never print alike. A trial's board and `forkline compare A B C`
 * said "shorter time: 0.0 s vs 0.0 s" for 40 ms against 48 ms (the reasons' case is in
 * test/unit/fanout/ranking.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { durationFigure, durationPair, tokensFigure, usdPair } from '../../../shared/figure-text.js';

describe('durations', () => {
  it('are milliseconds under 10 s, seconds with one decimal from there', () => {
    expect(durationFigure(40)).toBe('40 ms');
    expect(durationFigure(0)).toBe('0 ms');
    expect(durationFigure(8412)).toBe('8,412 ms');
    expect(durationFigure(9999)).toBe('9,999 ms');
    expect(durationFigure(10_000)).toBe('10.0 s');
    expect(durationFigure(125_340)).toBe('125.3 s');
    expect(durationFigure(Number.NaN)).toBe('?');
  });

  it('a pair shares one unit and shows the difference', () => {
    expect(durationPair(40, 48)).toEqual(['40 ms', '48 ms']);
    // One of them over 10 s: both in seconds.
    expect(durationPair(9_500, 12_000)).toEqual(['9.5 s', '12.0 s']);
    // Equal at one decimal: more digits until they differ.
    expect(durationPair(12_340, 12_344)).toEqual(['12.340 s', '12.344 s']);
    expect(durationPair(12_340, 12_360)).toEqual(['12.3 s', '12.4 s']);
    expect(durationPair(12_341, 12_349)).toEqual(['12.34 s', '12.35 s']);
    // Fractions of a millisecond (a computed figure) get decimals too.
    expect(durationPair(40.2, 40.4)).toEqual(['40.2 ms', '40.4 ms']);
    // Equal figures stay at the usual precision.
    expect(durationPair(12_340, 12_340)).toEqual(['12.3 s', '12.3 s']);
  });
});

describe('costs', () => {
  it('a pair is at the finer of the two usual precisions, more when that tells them apart', () => {
    expect(usdPair(0.0123, 0.0456)).toEqual(['$0.0123', '$0.0456']);
    expect(usdPair(0.0024, 0.0123)).toEqual(['$0.002400', '$0.012300']);
    expect(usdPair(1.5, 2.25)).toEqual(['$1.50', '$2.25']);
    // $0.012345 and $0.012349 both read $0.0123 at four decimals.
    expect(usdPair(0.012345, 0.012349)).toEqual(['$0.012345', '$0.012349']);
    // Under a millionth of a dollar apart.
    expect(usdPair(0.0024, 0.0024004)).toEqual(['$0.0024000', '$0.0024004']);
    expect(usdPair(0, 0.0000004)).toEqual(['$0', '$0.0000004']);
    expect(usdPair(3.001, 3.004)).toEqual(['$3.001', '$3.004']);
  });
});

describe('tokens', () => {
  it('are printed in full, so two counts that differ never look alike (no 2.54k)', () => {
    expect(tokensFigure(2544)).toBe('2,544');
    expect(tokensFigure(2545)).toBe('2,545');
    expect(tokensFigure(0)).toBe('0');
    expect(tokensFigure(1_234_567)).toBe('1,234,567');
  });
});
