/**
 * The session reader: the one "live log or stored log" read of the host. A session a live agent
 * of this host holds is read from its in-memory log (the newest); any other from the store through
 * the one recovery path (docs/architecture.md §8: an interrupted turn is closed first). Moved out
 * of the HostConnection handlers, which wrote this choice several times.
 */
import { ForklineError } from '../../../shared/errors.js';
import type { SessionEvent, SessionHeader } from '../../../shared/events.js';
import type { Session } from '../../session/session.js';
import type { SessionRepository } from '../../store/session-repository.js';

/** Reads sessions as this host sees them (live first, else stored and recovered). */
export class SessionReader {
  constructor(
    private readonly repository: SessionRepository,
    /** The live session this host's agent holds, if any. */
    private readonly liveSession: (sessionId: string) => Session | undefined,
  ) {}

  /**
   * The whole log. @throws StoreError SESSION_NOT_FOUND (stored path); SessionCorruptionError for
   * damaged rows.
   */
  events(sessionId: string): readonly SessionEvent[] {
    return this.liveSession(sessionId)?.events ?? this.repository.load(sessionId).events;
  }

  /** The header and the whole log. @throws ForklineError SESSION_NOT_FOUND before any read. */
  withHeader(sessionId: string): { header: SessionHeader; events: readonly SessionEvent[] } {
    const live = this.liveSession(sessionId);
    const record = this.repository.get(sessionId);
    if (!record) throw new ForklineError('SESSION_NOT_FOUND', `session ${sessionId} does not exist`);
    return { header: record.header, events: live ? live.events : this.repository.load(sessionId).events };
  }

  /**
   * Events `[fromSeq, toSeq)` as they are now (a stored session is read as stored, without the
   * recovery pass, as the timeline's paging always did). @throws ForklineError SESSION_NOT_FOUND.
   */
  range(sessionId: string, fromSeq: number, toSeq: number): readonly SessionEvent[] {
    const live = this.liveSession(sessionId);
    if (live) return live.events.slice(fromSeq, toSeq);
    if (!this.repository.get(sessionId)) throw new ForklineError('SESSION_NOT_FOUND', `session ${sessionId} does not exist`);
    return this.repository.store.readRange(sessionId, fromSeq, toSeq);
  }
}
