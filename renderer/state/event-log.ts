/**
 * An append-only event log with immutable views: each `appendEvents` returns a new view (new
 * identity, for store change detection) that shares storage with the previous one, so appending
 * N events costs O(N) instead of copying the whole log. A view only ever reads indexes below its
 * own `length`, and storage is never rewritten, so old views stay valid. Appending to a view
 * that is not the newest copies its prefix first (rare; keeps the semantics immutable).
 */
import type { SessionEvent } from '../../shared/events.js';

export interface EventLog {
  /** Seq of the first event (events are contiguous from here). */
  readonly baseSeq: number;
  readonly length: number;
  /** Event with this seq, if in the view. */
  bySeq(seq: number): SessionEvent | undefined;
  /** Events `[from, to)` by position. */
  slice(from: number, to?: number): SessionEvent[];
}

class LogView implements EventLog {
  constructor(
    readonly storage: SessionEvent[],
    readonly baseSeq: number,
    readonly length: number,
  ) {}

  bySeq(seq: number): SessionEvent | undefined {
    const i = seq - this.baseSeq;
    return i >= 0 && i < this.length ? this.storage[i] : undefined;
  }

  slice(from: number, to: number = this.length): SessionEvent[] {
    return this.storage.slice(Math.max(0, from), Math.min(to, this.length));
  }
}

export function emptyLog(baseSeq = 0): EventLog {
  return new LogView([], baseSeq, 0);
}

/**
 * Appends events that continue the log (the first one's seq must be `baseSeq + length`; callers
 * sequence them first). Returns the same view when `events` is empty.
 * @throws Error when the events do not continue the log.
 */
export function appendEvents(log: EventLog, events: readonly SessionEvent[]): EventLog {
  if (events.length === 0) return log;
  const view = log as LogView;
  const base = view.length === 0 ? events[0]!.seq : view.baseSeq;
  if (view.length > 0 && events[0]!.seq !== view.baseSeq + view.length) {
    throw new Error(`appendEvents: seq ${events[0]!.seq} does not continue a log ending at ${view.baseSeq + view.length - 1}`);
  }
  let storage = view.length === 0 ? [] : view.storage;
  if (storage.length !== view.length) storage = storage.slice(0, view.length);
  for (const event of events) storage.push(event);
  return new LogView(storage, base, view.length + events.length);
}

/**
 * A log with `events` (contiguous, ending right before the log's first seq) put in front: what
 * "show earlier events" does for a session opened at its tail. Copies the storage once (an
 * on-demand action, not a per-frame one).
 * @throws Error when the events do not end right before the log.
 */
export function prependEvents(log: EventLog, events: readonly SessionEvent[]): EventLog {
  if (events.length === 0) return log;
  const view = log as LogView;
  const last = events[events.length - 1]!.seq;
  if (view.length > 0 && last !== view.baseSeq - 1) {
    throw new Error(`prependEvents: seq ${last} does not end right before the log's first seq ${view.baseSeq}`);
  }
  events.forEach((event, i) => {
    if (event.seq !== events[0]!.seq + i) throw new Error(`prependEvents: seq ${event.seq} breaks the run starting at ${events[0]!.seq}`);
  });
  return new LogView([...events, ...view.slice(0)], events[0]!.seq, events.length + view.length);
}
