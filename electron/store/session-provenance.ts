/**
 * Which part of a session's log this installation recorded (docs/security.md: provenance). Events read
 * from a file are untrusted input: their endpoints, providers, workspace, checkpoint ids, paths and
 * file-read records may be shown but are never used to act. Only the events this installation
 * appended itself are.
 *
 * Rules, applied along the fork lineage (a child reads its parent's first `seedLength` events):
 * - an imported session (`origin.kind === 'imported'`): nothing is trusted;
 * - a native session with no parent: everything is trusted;
 * - a native fork: its own events (from `seedLength` on) are trusted, and the inherited prefix
 *   only as far as its parent's trusted part reaches; a parent that no longer exists counts as
 *   untrusted (we can no longer tell where its events came from).
 */
import { isImportedSession } from '../../shared/events.js';
import type { SessionRecord } from './session-store.js';

/** Reads session rows (the store or the repository). */
export interface SessionRecordReader {
  get(sessionId: string): SessionRecord | undefined;
}

/**
 * The first seq of the trusted tail of a session's log: events with `seq >= result` were recorded
 * by this installation. `Infinity` when none are (an imported or unknown session).
 */
export function recordedHereFrom(records: SessionRecordReader, sessionId: string): number {
  const seen = new Set<string>();
  const walk = (id: string): number => {
    const record = records.get(id);
    if (!record || isImportedSession(record.header)) return Number.POSITIVE_INFINITY;
    const { parentSession, seedLength } = record.header;
    if (parentSession === undefined || seedLength === undefined) return 0;
    if (seen.has(id)) return seedLength;
    seen.add(id);
    return Math.min(walk(parentSession), seedLength);
  };
  return walk(sessionId);
}

/** True when every event of the session was recorded here (a native session with a native lineage). */
export function isFullyRecordedHere(records: SessionRecordReader, sessionId: string): boolean {
  return recordedHereFrom(records, sessionId) === 0;
}
