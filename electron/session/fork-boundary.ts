/**
 * Fork boundaries (docs/architecture.md §8; reference runtime `SessionStore.fork`). A boundary is an inclusive
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

/** A turn end: the turn's number and the seq of its `turn/end` (what `forkline show` prints). */
export interface TurnEndMark {
  readonly turn: number;
  readonly seq: number;
}

/** How many turn ends before and after a refused seq the hint lists. */
const HINT_EACH_SIDE = 2;

/**
 * The exact fork boundary for a user's anchor (`forkline fork --at SEQ`, HostApi `forkSession`):
 * docs/architecture.md §8 "what `show` prints is what `fork --at` cuts".
 *
 * - no anchor → the last `turn/end` of the log;
 * - the seq of a `turn/end` → that seq, exactly (the child holds nothing after it: the parent's
 *   later checkpoints and queued inbox entries stay with the parent);
 * - a seq between turns (after a `turn/end`, before the next `turn/start`) → that `turn/end`;
 * - a seq inside a turn → `OPEN_TURN`; a seq past the end of the log → `NO_SUCH_SEQ`; a seq before
 *   the first turn ended, or a log without a closed turn → `FORK_UNAVAILABLE`. Each refusal's
 *   message lists the nearest turn ends (`turn 1 ended at seq 215, …`) and the error carries them
 *   in `turnEnds`.
 *
 * `eventAt(seq)` is read only around the anchor (backwards to the previous turn marker, forwards to
 * the next turn end for a hint), so the cost does not grow with the log.
 * @returns the inclusive boundary seq (the child's seed length is boundary + 1)
 * @throws SessionForkError OPEN_TURN | NO_SUCH_SEQ | FORK_UNAVAILABLE | INVALID_BOUNDARY (not a non-negative integer)
 */
export function forkBoundaryAt(length: number, eventAt: (seq: number) => SessionEvent | undefined, atSeq?: number): number {
  const before = (from: number, count: number): TurnEndMark[] => {
    const out: TurnEndMark[] = [];
    for (let seq = Math.min(from, length - 1); seq >= 0 && out.length < count; seq--) {
      const e = eventAt(seq);
      if (e?.type === 'turn/end') out.unshift({ turn: e.data.turn, seq });
    }
    return out;
  };
  const after = (from: number, count: number): TurnEndMark[] => {
    const out: TurnEndMark[] = [];
    for (let seq = Math.max(0, from); seq < length && out.length < count; seq++) {
      const e = eventAt(seq);
      if (e?.type === 'turn/end') out.push({ turn: e.data.turn, seq });
    }
    return out;
  };
  const refuse = (code: 'OPEN_TURN' | 'NO_SUCH_SEQ' | 'FORK_UNAVAILABLE', what: string, turnEnds: TurnEndMark[]): never => {
    const hint =
      turnEnds.length === 0 ? 'this session has no completed turn yet' : `fork at a turn end: ${turnEnds.map((t) => `turn ${t.turn} ended at seq ${t.seq}`).join(', ')} (forkline show prints them)`;
    throw new SessionForkError(code, `${what}; ${hint}`, turnEnds);
  };
  if (atSeq === undefined) {
    const last = before(length - 1, 1)[0];
    if (last === undefined) refuse('FORK_UNAVAILABLE', 'there is nothing to fork from', []);
    return last!.seq;
  }
  if (!Number.isSafeInteger(atSeq) || atSeq < 0) {
    throw new SessionForkError('INVALID_BOUNDARY', `--at ${String(atSeq)} is not a seq (a non-negative integer)`);
  }
  if (atSeq >= length) {
    refuse('NO_SUCH_SEQ', `seq ${atSeq} is beyond the end of this session's log (its last seq is ${length - 1})`, before(length - 1, HINT_EACH_SIDE));
  }
  for (let seq = atSeq; seq >= 0; seq--) {
    const e = eventAt(seq);
    if (e?.type === 'turn/end') return seq;
    if (e?.type === 'turn/start') {
      const ends = [...before(seq, HINT_EACH_SIDE), ...after(atSeq, HINT_EACH_SIDE)];
      const closesAt = ends.find((t) => t.turn === e.data.turn);
      refuse('OPEN_TURN', `seq ${atSeq} is inside turn ${e.data.turn}, which ${closesAt ? `runs until seq ${closesAt.seq}` : 'has not ended'}`, ends);
    }
  }
  return refuse('FORK_UNAVAILABLE', `seq ${atSeq} comes before the first turn ended`, after(atSeq, HINT_EACH_SIDE));
}
