import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { intervalsOverlap, overlapGroups, type CallInterval } from '../../../shared/tool-overlap.js';

describe('overlapGroups', () => {
  it('sequential calls do not overlap; interleaved ones form one group with distinct lanes', () => {
    expect(
      overlapGroups([
        { start: 1, end: 2 },
        { start: 3, end: 4 },
      ]),
    ).toEqual([undefined, undefined]);
    expect(
      overlapGroups([
        { start: 1, end: 5 },
        { start: 2, end: 6 },
        { start: 3, end: 4 },
      ]),
    ).toEqual([
      { group: 1, size: 3, lane: 0, lanes: 3 },
      { group: 1, size: 3, lane: 1, lanes: 3 },
      { group: 1, size: 3, lane: 2, lanes: 3 },
    ]);
  });

  it('reuses a lane once its call ended, chains transitively and treats running calls as open', () => {
    // a [1,3], b [2,5], c [4,6]: a–b overlap, b–c overlap → one group; c reuses a's lane.
    expect(
      overlapGroups([
        { start: 1, end: 3 },
        { start: 2, end: 5 },
        { start: 4, end: 6 },
      ]).map((s) => s?.lane),
    ).toEqual([0, 1, 0]);
    expect(
      overlapGroups([
        { start: 1, end: undefined },
        { start: 9, end: undefined },
      ]).map((s) => s?.size),
    ).toEqual([2, 2]);
    // Input order does not matter.
    expect(
      overlapGroups([
        { start: 5, end: 8 },
        { start: 1, end: 6 },
      ]).map((s) => s?.group),
    ).toEqual([1, 1]);
  });

  it('property: members of a group chain by overlap; lanes never overlap; singletons overlap nothing', () => {
    const interval = fc
      .tuple(fc.integer({ min: 0, max: 40 }), fc.option(fc.integer({ min: 1, max: 10 }), { nil: undefined }))
      .map(([start, len]): CallInterval => ({ start, end: len === undefined ? undefined : start + len }));
    fc.assert(
      fc.property(fc.array(interval, { maxLength: 12 }), (intervals) => {
        const slots = overlapGroups(intervals);
        intervals.forEach((a, i) => {
          const overlapsAny = intervals.some((b, j) => j !== i && intervalsOverlap(a, b));
          expect(slots[i] !== undefined).toBe(overlapsAny);
          intervals.forEach((b, j) => {
            if (i === j) return;
            if (intervalsOverlap(a, b)) expect(slots[j]?.group).toBe(slots[i]?.group);
            if (slots[i] && slots[j] && slots[i]!.group === slots[j]!.group && slots[i]!.lane === slots[j]!.lane) expect(intervalsOverlap(a, b)).toBe(false);
          });
        });
      }),
    );
  });
});
