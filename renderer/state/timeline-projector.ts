/**
 * Memoised, incremental timeline for one session: folds only the events appended to the log
 * since the last call (O(new events)), and starts over only when handed a log that is not a
 * continuation (a shorter log or another base seq). The timeline is derived data, so it lives
 * here beside the store, never in it.
 */
import { createTimeline, foldEvents, type Timeline } from '../../shared/timeline.js';
import type { EventLog } from './event-log.js';

export interface TimelineProjector {
  project(log: EventLog): Timeline;
}

export function createTimelineProjector(): TimelineProjector {
  let timeline = createTimeline();
  let folded = 0;
  let base: number | undefined;
  return {
    project(log) {
      if (log.length < folded || (base !== undefined && log.length > 0 && log.baseSeq !== base)) {
        timeline = createTimeline();
        folded = 0;
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
