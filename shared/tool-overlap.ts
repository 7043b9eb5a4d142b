/**
 * Parallel tool calls: which calls of one step ran at the same time.
 *
 * A call's interval runs from its `tool/call` (start) to its `tool/result` (end); a call with no
 * result yet is still running (open end). Intervals are compared in log order (seq): the log
 * records starts and commits in the order they happened, which is exact even when several events
 * share one millisecond, while `time` is used only to draw the bars. Two calls overlap when each
 * starts before the other ends; a group is a maximal chain of overlapping calls, and lanes are
 * assigned greedily so that overlapping calls never share a lane.
 *
 * Pure: no Node, no DOM.
 */

export interface CallInterval {
  /** Seq of the call's `tool/call`. */
  readonly start: number;
  /** Seq of the call's `tool/result`; undefined while the call runs. */
  readonly end: number | undefined;
}

export interface OverlapSlot {
  /** Start seq of the group's first call: stable while the group grows. */
  readonly group: number;
  /** Number of calls in the group (≥ 2). */
  readonly size: number;
  /** 0-based lane inside the group; overlapping calls get different lanes. */
  readonly lane: number;
  /** Number of lanes the group uses (its peak concurrency). */
  readonly lanes: number;
}

/**
 * One slot per input interval, in input order; `undefined` for a call that overlaps no other.
 * Cost: O(n log n) for n calls of one step.
 */
export function overlapGroups(intervals: readonly CallInterval[]): (OverlapSlot | undefined)[] {
  const order = intervals.map((_, i) => i).sort((a, b) => intervals[a]!.start - intervals[b]!.start || a - b);
  const out: (OverlapSlot | undefined)[] = new Array<OverlapSlot | undefined>(intervals.length).fill(undefined);
  let group: number[] = [];
  let groupEnd = -Infinity;
  const flush = (): void => {
    if (group.length >= 2) {
      const laneEnds: number[] = [];
      const lanes: number[] = [];
      for (const i of group) {
        const iv = intervals[i]!;
        let lane = laneEnds.findIndex((end) => end <= iv.start);
        if (lane < 0) {
          lane = laneEnds.length;
          laneEnds.push(0);
        }
        laneEnds[lane] = iv.end ?? Infinity;
        lanes.push(lane);
      }
      const first = intervals[group[0]!]!.start;
      group.forEach((i, k) => {
        out[i] = { group: first, size: group.length, lane: lanes[k]!, lanes: laneEnds.length };
      });
    }
    group = [];
    groupEnd = -Infinity;
  };
  for (const i of order) {
    const iv = intervals[i]!;
    const end = iv.end ?? Infinity;
    if (group.length > 0 && iv.start < groupEnd) {
      group.push(i);
      groupEnd = Math.max(groupEnd, end);
    } else {
      flush();
      group.push(i);
      groupEnd = end;
    }
  }
  flush();
  return out;
}

/** True when two intervals overlap (each starts before the other ends). */
export function intervalsOverlap(a: CallInterval, b: CallInterval): boolean {
  return a.start < (b.end ?? Infinity) && b.start < (a.end ?? Infinity);
}
