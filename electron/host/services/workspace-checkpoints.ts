/**
 * Which workspace checkpoint of a session's log a fork or a compare may use (docs/architecture.md,
 * workspace checkpoints). Pure reads of the log: only `workspace/checkpoint` events this
 * installation recorded (`seq >= recordedFrom`, store/session-provenance.ts) whose id is a full hex
 * object id count, so a checkpoint id from an imported log is never given to git.
 */
import type { SessionEvent } from '../../../shared/events.js';
import { isCheckpointId } from '../../workspace/checkpoints.js';

/** A checkpoint and the turn it was taken after. */
export interface TurnCheckpoint {
  readonly turn: number;
  /** The git object id of the snapshot. */
  readonly commit: string;
}

/**
 * The workspace snapshot of the turn that ends at `boundary`: the `workspace/checkpoint` logged for
 * that turn after its end (before the next turn starts; the last such), else the latest one before
 * it. Undefined when none was recorded here, or the one found has no valid id.
 */
export function checkpointOfTurn(events: readonly SessionEvent[], boundary: number, turn: number, recordedFrom: number): TurnCheckpoint | undefined {
  // The last one of that turn wins: a later snapshot between the same turns (e.g. the final files of a line abandoned by a rewind) is the newer state.
  let found: TurnCheckpoint | undefined | null = null;
  for (let seq = Math.max(boundary + 1, recordedFrom); seq < events.length && events[seq]!.type !== 'turn/start'; seq++) {
    const e = events[seq]!;
    if (e.type === 'workspace/checkpoint' && e.data.turn === turn) found = isCheckpointId(e.data.commit) ? { turn, commit: e.data.commit } : undefined;
  }
  if (found !== null) return found;
  for (let seq = boundary; seq >= recordedFrom && seq >= 0; seq--) {
    const e = events[seq]!;
    if (e.type === 'workspace/checkpoint') return isCheckpointId(e.data.commit) ? { turn: e.data.turn, commit: e.data.commit } : undefined;
  }
  return undefined;
}

/**
 * The last workspace checkpoint at or before `upTo` among the events this installation recorded
 * (`seq >= recordedFrom`), if its id is a full hex object id.
 */
export function recordedCheckpoint(events: readonly SessionEvent[], recordedFrom: number, upTo: number): string | undefined {
  for (let seq = Math.min(upTo, events.length - 1); seq >= recordedFrom && seq >= 0; seq--) {
    const event = events[seq]!;
    if (event.type === 'workspace/checkpoint') return isCheckpointId(event.data.commit) ? event.data.commit : undefined;
  }
  return undefined;
}
