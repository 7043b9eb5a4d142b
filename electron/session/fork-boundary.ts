/**
 * Fork boundaries (DESIGN §8; reference runtime `SessionStore.fork`). A boundary is an inclusive
 * seq; the child inherits `events[0..boundary]`. It is legal only between turns: the last
 * `turn/start` or `turn/end` at or before it must be a `turn/end` (or there is none).
 */
import { SessionForkError } from '../../shared/errors.js';
import type { SessionEvent } from '../../shared/events.js';

/**
 * Checks an explicit boundary and returns the child's seed length (`boundary + 1`).
 * @param boundary inclusive seq; undefined = the last event (an empty source gives an empty seed).
 * @throws SessionForkError INVALID_BOUNDARY (not a safe integer in range) or OPEN_TURN.
 */
export function checkForkBoundary(events: readonly SessionEvent[], boundary: number | undefined): number {
  return checkForkBoundaryWith(events.length, (seq) => events[seq], boundary);
}

/**
 * {@link checkForkBoundary} over a lazily read log: `eventAt(seq)` is called only for the boundary
 * and backwards until the nearest turn marker, so the cost does not grow with the log's length.
 */
export function checkForkBoundaryWith(length: number, eventAt: (seq: number) => SessionEvent | undefined, boundary: number | undefined): number {
  if (boundary === undefined) {
    if (length === 0) return 0;
    boundary = length - 1;
  }
  if (!Number.isSafeInteger(boundary) || boundary < 0 || boundary >= length) {
    throw new SessionForkError('INVALID_BOUNDARY', `boundary ${String(boundary)} is not a seq of this session (0..${length - 1})`);
  }
  const at = eventAt(boundary);
  if (at?.seq !== boundary) {
    throw new SessionForkError('INVALID_BOUNDARY', `event at index ${boundary} has seq ${String(at?.seq)}`);
  }
  for (let seq = boundary; seq >= 0; seq--) {
    const event = eventAt(seq)!;
    if (event.type === 'turn/end') break;
    if (event.type === 'turn/start') {
      throw new SessionForkError('OPEN_TURN', `seq ${boundary} is inside turn ${event.data.turn}, which is open there; fork at a turn boundary`);
    }
  }
  return boundary + 1;
}

/**
 * Maps a UI anchor to a boundary the way the reference host does: the first `turn/end` at or after
 * `atSeq` (none given, or past the end of the log → the last `turn/end`), extended over trailing
 * between-turn events up to the next `turn/start`. Returns undefined when no closed turn qualifies
 * (an anchor inside an unfinished trailing turn never clips backwards).
 */
export function boundaryForAnchor(events: readonly SessionEvent[], atSeq?: number): number | undefined {
  let end: number | undefined;
  // No anchor, or an anchor past the end of the log, means "the last closed turn" (reference host).
  if (atSeq === undefined || atSeq >= events.length) {
    for (let i = events.length - 1; i >= 0; i--) {
      if (events[i]!.type === 'turn/end') {
        end = i;
        break;
      }
    }
  } else {
    for (let i = Math.max(0, atSeq); i < events.length; i++) {
      if (events[i]!.type === 'turn/end') {
        end = i;
        break;
      }
    }
  }
  if (end === undefined) return undefined;
  while (end + 1 < events.length && events[end + 1]!.type !== 'turn/start') end++;
  return end;
}
