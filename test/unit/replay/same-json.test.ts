/**
 * sameJsonValue (electron/replay/same-json.ts): "same" only for values JSON.stringify prints the
 * same, checked against JSON.stringify itself on every case, including key order.
 */
import { describe, expect, it } from 'vitest';
import { sameJsonValue } from '../../../electron/replay/same-json.js';

const SAME: [unknown, unknown][] = [
  [1, 1],
  ['a', 'a'],
  [null, null],
  [Number.NaN, Number.NaN],
  [
    { a: 1, b: [1, { c: 'x' }] },
    { a: 1, b: [1, { c: 'x' }] },
  ],
  [[], []],
  [{}, {}],
];

const DIFFERENT: [unknown, unknown][] = [
  [1, 2],
  ['a', 'b'],
  [1, '1'],
  [null, 0],
  [[1], [1, 2]],
  [
    [1, 2],
    [2, 1],
  ],
  [
    { a: 1, b: 2 },
    { b: 2, a: 1 },
  ],
  [{ a: 1 }, { a: 1, b: 2 }],
  [{ a: { b: [1, 2] } }, { a: { b: [1, 3] } }],
  [[], {}],
  [{ a: null }, { a: {} }],
];

describe('sameJsonValue', () => {
  it.each(SAME)('same: %j and %j, as JSON.stringify prints them', (a, b) => {
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(sameJsonValue(a, b)).toBe(true);
  });

  it.each(DIFFERENT)('different: %j and %j (key order counts)', (a, b) => {
    expect(JSON.stringify(a)).not.toBe(JSON.stringify(b));
    expect(sameJsonValue(a, b)).toBe(false);
  });

  it('errs towards different for a member that is undefined on one side only', () => {
    expect(sameJsonValue({ a: 1, b: undefined }, { a: 1 })).toBe(false);
  });
});
