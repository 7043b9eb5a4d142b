/**
 * Live-feed ordering: apply `seq === lastSeq + 1` only, drop duplicates, and report a hole (a seq
 * beyond `lastSeq + 1`) so the caller resubscribes from `lastSeq + 1`. Pure.
 */
import type { SessionEvent } from '../../shared/events.js';

export interface SequenceResult {
  /** Events that continue the log, in order. */
  readonly accepted: SessionEvent[];
  /** The new last seq. */
  readonly lastSeq: number;
  readonly duplicates: number;
  /** Set when an event skipped ahead; everything from it on was not applied. */
  readonly hole?: { readonly expected: number; readonly got: number };
}

export function sequenceEvents(lastSeq: number, incoming: readonly SessionEvent[]): SequenceResult {
  const accepted: SessionEvent[] = [];
  let last = lastSeq;
  let duplicates = 0;
  for (const event of incoming) {
    if (event.seq <= last) {
      duplicates++;
      continue;
    }
    if (event.seq !== last + 1) return { accepted, lastSeq: last, duplicates, hole: { expected: last + 1, got: event.seq } };
    accepted.push(event);
    last = event.seq;
  }
  return { accepted, lastSeq: last, duplicates };
}
