/**
 * Memoised, incremental timeline for one session: folds only the events appended to the log
 * since the last call (O(new events)), and starts over only when handed a log that is not a
 * continuation (a shorter log or another base seq). The timeline is derived data, so it lives
 * here beside the store, never in it.
 */
import { createTimeline, foldEvents, type Timeline } from '../../shared/timeline.js';
import type { SessionEvent } from '../../shared/events.js';
import type { EventLog } from './event-log.js';

export interface TimelineProjector {
  /** `prelude`: envelope events before the log's first seq, folded first (a log opened at its tail). */
  project(log: EventLog, prelude?: readonly SessionEvent[]): Timeline;
}

export function createTimelineProjector(): TimelineProjector {
  let timeline = createTimeline();
  let folded = 0;
  let base: number | undefined;
  let foldedPrelude: readonly SessionEvent[] = [];
  return {
    project(log, prelude = []) {
      if (log.length < folded || (base !== undefined && log.length > 0 && log.baseSeq !== base) || (prelude !== foldedPrelude && prelude.length > 0)) {
        timeline = createTimeline();
        folded = 0;
      }
      if (folded === 0) {
        foldedPrelude = prelude;
        const before = prelude.filter((e) => log.length === 0 || e.seq < log.baseSeq);
        if (before.length > 0) timeline = foldEvents(timeline, before);
      }
      if (log.length > folded) {
        timeline = foldEvents(timeline, log.slice(folded, log.length));
        folded = log.length;
        base = log.baseSeq;
      }
      return timeline;
    },
  };
}
