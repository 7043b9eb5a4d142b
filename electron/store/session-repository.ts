/**
 * SessionRepository: the persistence coordinator between live {@link Session}s and a
 * {@link SessionStore} (DESIGN §7, §8).
 *
 * - create / resume attach a write-behind writer to a live Session and mark it owned by this
 *   process; release flushes and clears the mark.
 * - load repairs a cold session with an open last turn (crash recovery closers, appended durably)
 *   and refuses to repair one that a live agent owns — in this process or in another running one.
 * - fork is by reference and costs the same at any seq.
 * - import / export speak the JSONL format.
 */
import { Emitter, type Event } from '../../shared/event.js';
import { SessionForkError, StoreError } from '../../shared/errors.js';
import { SESSION_FORMAT_VERSION, type SessionEvent, type SessionHeader } from '../../shared/events.js';
import type { IDisposable } from '../../shared/lifecycle.js';
import { checkForkBoundaryWith } from '../session/fork-boundary.js';
import { exportJsonl, importJsonl } from '../session/jsonl.js';
import { interruptedTurnClosers } from '../session/repair.js';
import { Session, type InvariantMode } from '../session/session.js';
import type { SessionRecord, SessionStore } from './session-store.js';
import { SessionWriteBehind, type WriteFailure } from './write-behind.js';

export interface RepositoryOptions {
  /** Epoch-ms clock. */
  readonly now?: () => number;
  /** Id generator for sessions (UUIDs in production). */
  readonly newId: () => string;
  /** Write-behind window in ms. */
  readonly writeWindowMs?: number;
  readonly invariants?: InvariantMode;
  /** This process's pid (for the live-owner mark). */
  readonly pid?: number;
  /** Whether a pid belongs to a running process; defaults to `process.kill(pid, 0)`. */
  readonly isProcessAlive?: (pid: number) => boolean;
}

/** A session held live by this process: appends are persisted through write-behind. */
export interface LiveSession extends IDisposable {
  readonly session: Session;
  /** Resolves when every event appended so far is durable. @throws the store's write error. */
  flush(): Promise<void>;
  /** Background write failures (the events stay queued and are retried). */
  readonly onDidFailWrite: Event<WriteFailure>;
  /** Flushes, stops persisting and clears the live mark. */
  release(): Promise<void>;
}

export interface LoadResult {
  readonly record: SessionRecord;
  readonly events: readonly SessionEvent[];
  /** Number of crash-recovery closers appended by this load (0 when the log was balanced). */
  readonly repaired: number;
  /** True when another live owner holds the session: nothing was repaired or written. */
  readonly ownedElsewhere: boolean;
}

export interface ImportResult {
  readonly id: string;
  readonly eventCount: number;
  readonly warnings: readonly string[];
}

/**
 * The fork boundary check reads a cold source backwards from the boundary in windows that start
 * small (a boundary at a `turn/end` needs one event) and grow while the scan continues, so the cost
 * does not depend on where in a long history the boundary is.
 */
/** A title for an untitled imported log: its last `session/title`, else its first typed prompt (first line, ≤ 60 chars). */
function titleFromLog(events: readonly SessionEvent[]): string | undefined {
  let title: string | undefined;
  for (const e of events) if (e.type === 'session/title' && typeof e.data.title === 'string') title = e.data.title;
  if (title !== undefined) return title;
  for (const e of events) {
    if (e.type === 'user/message' && e.data.source?.kind === 'user') {
      const line = e.data.content.map((b) => (b.type === 'text' ? b.text : '')).join('').trim().split('\n')[0]!.trim();
      if (line !== '') return line.length > 60 ? `${line.slice(0, 57)}…` : line;
    }
  }
  return undefined;
}

/**
 * Where a tail view of `count` events starts, given `window` = the events `[from, count)`: about
 * `tail` events back, moved to a turn start when one is near — back by at most a quarter of the
 * tail, else forward when that still keeps half of it — so the view usually opens on a turn rule
 * and never holds much more than `tail` events (a turn of thousands of chunks is cut inside).
 */
export function tailStart(window: readonly SessionEvent[], from: number, count: number, tail: number): number {
  const target = Math.max(from, count - tail);
  if (target <= 0) return 0;
  for (let seq = target; seq >= Math.max(from, target - Math.floor(tail / 4)); seq--) {
    if (window[seq - from]?.type === 'turn/start') return seq;
  }
  for (let seq = target; seq <= count - Math.ceil(tail / 2); seq++) {
    if (window[seq - from]?.type === 'turn/start') return seq;
  }
  return target;
}

const FORK_SCAN_FIRST_WINDOW = 8;
const FORK_SCAN_MAX_WINDOW = 4096;

export class SessionRepository implements IDisposable {
  private readonly liveSessions = new Map<string, LiveSession>();
  /** Live sessions whose release (final flush) is under way. */
  private readonly releasing = new Set<string>();
  private readonly now: () => number;
  private readonly pid: number;
  private readonly isProcessAlive: (pid: number) => boolean;
  private readonly writeFailEmitter = new Emitter<{ sessionId: string; failure: WriteFailure }>();
  /** Any live session's background write failure. */
  readonly onDidFailWrite = this.writeFailEmitter.event;

  constructor(
    readonly store: SessionStore,
    private readonly options: RepositoryOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.pid = options.pid ?? process.pid;
    this.isProcessAlive =
      options.isProcessAlive ??
      ((pid) => {
        try {
          process.kill(pid, 0);
          return true;
        } catch (error) {
          return (error as NodeJS.ErrnoException).code === 'EPERM';
        }
      });
  }

  list(): SessionRecord[] {
    return this.store.list();
  }

  get(id: string): SessionRecord | undefined {
    return this.store.get(id);
  }

  live(id: string): LiveSession | undefined {
    return this.liveSessions.get(id);
  }

  /** Creates a new empty session (its row is written at once so listings show it) and holds it live. */
  create(init: { readonly cwd?: string; readonly title?: string; readonly id?: string } = {}): LiveSession {
    const header = this.createStored(init).header;
    return this.attach(new Session({ header, now: this.now, invariants: this.options.invariants ?? 'enforce' }));
  }

  /** Creates a new empty stored session without holding it live. */
  createStored(init: { readonly cwd?: string; readonly title?: string; readonly id?: string } = {}): SessionRecord {
    const id = init.id ?? this.options.newId();
    if (this.liveSessions.has(id) || this.store.get(id)) throw new StoreError('SESSION_ALREADY_EXISTS', `session ${id} already exists`);
    const header: SessionHeader = {
      version: SESSION_FORMAT_VERSION,
      id,
      createdAt: this.now(),
      ...(init.cwd !== undefined ? { cwd: init.cwd } : {}),
      ...(init.title !== undefined ? { title: init.title } : {}),
    };
    this.store.createSession(header, []);
    return this.store.get(id)!;
  }

  /**
   * Reads a session as a balanced log. A cold session whose last turn is open gets its crash
   * recovery closers appended durably first (idempotent: a second load appends nothing). A session
   * owned live by another running process is returned as stored, unrepaired.
   * @throws StoreError SESSION_NOT_FOUND; StoreError SESSION_LIVE when this process owns it live
   *   with an open turn; SessionCorruptionError for damaged rows.
   */
  load(id: string): LoadResult {
    const live = this.liveSessions.get(id);
    const record = this.store.get(id);
    if (!record) throw new StoreError('SESSION_NOT_FOUND', `session ${id} does not exist`);
    if (live) {
      if (live.session.state.openTurn !== undefined) {
        throw new StoreError('SESSION_LIVE', `session ${id} is running in this window; its open turn is not repaired`);
      }
      return { record, events: live.session.events, repaired: 0, ownedElsewhere: false };
    }
    const events = this.store.readAll(id);
    if (record.ownerPid !== undefined && record.ownerPid !== this.pid && this.isProcessAlive(record.ownerPid)) {
      return { record, events, repaired: 0, ownedElsewhere: true };
    }
    const closers = interruptedTurnClosers(events);
    if (closers.length === 0) return { record, events, repaired: 0, ownedElsewhere: false };
    const lastTime = events[events.length - 1]?.time ?? this.now();
    const session = new Session({ header: record.header, seed: events, now: () => lastTime, invariants: 'enforce' });
    const appended = session.appendAll(closers);
    this.store.append(id, appended);
    return { record: this.store.get(id)!, events: session.events, repaired: appended.length, ownedElsewhere: false };
  }

  /**
   * Like {@link load}, but for opening a long session at once: reads only about the last `tail`
   * events (starting at a turn start where one is near, see {@link tailStart}), so the cost does
   * not grow with the log. A session whose last turn is open needs crash recovery, which reads the
   * whole log ({@link load}); the result is then cut the same way.
   * @returns the load result with `events` starting at `startSeq`.
   * @throws as {@link load}.
   */
  loadTail(id: string, tail: number): LoadResult & { readonly startSeq: number } {
    const record = this.store.get(id);
    if (!record) throw new StoreError('SESSION_NOT_FOUND', `session ${id} does not exist`);
    const count = record.eventCount;
    const cut = (result: LoadResult): LoadResult & { startSeq: number } => {
      const startSeq = tailStart(result.events, 0, result.events.length, tail);
      return { ...result, events: result.events.slice(startSeq), startSeq };
    };
    if (this.liveSessions.has(id) || count <= tail * 2) return cut(this.load(id));
    // tailStart looks back at most a quarter of the tail.
    const from = Math.max(0, count - tail - Math.ceil(tail / 4) - 1);
    const window = this.store.readRange(id, from, count);
    // Balanced when the last turn boundary in view is an end (or the window holds no turn at all
    // and the stored state says the last turn closed).
    let lastBoundary: string | undefined;
    for (let i = window.length - 1; i >= 0 && lastBoundary === undefined; i--) {
      const type = window[i]!.type;
      if (type === 'turn/start' || type === 'turn/end' || type === 'session/end-seed') lastBoundary = type;
    }
    const open = lastBoundary === 'turn/start' || (lastBoundary === undefined && record.lastTurn === 'open');
    const ownedElsewhere = record.ownerPid !== undefined && record.ownerPid !== this.pid && this.isProcessAlive(record.ownerPid);
    if (open && !ownedElsewhere) return cut(this.load(id));
    const startSeq = tailStart(window, from, count, tail);
    return { record, events: window.slice(startSeq - from), repaired: 0, ownedElsewhere, startSeq };
  }

  /**
   * Holds a stored session live for new work: same id, crash recovery applied, `session/end-seed`
   * appended (unless the log already ends with one), turn numbers and seqs continue.
   * @throws StoreError SESSION_LIVE when another running process owns it.
   */
  resume(id: string): LiveSession {
    const existing = this.liveSessions.get(id);
    if (existing && this.releasing.has(id)) {
      throw new StoreError('SESSION_LIVE', `session ${id} is being closed; open it again once that finished`);
    }
    if (existing) return existing;
    const loaded = this.load(id);
    if (loaded.ownedElsewhere) {
      throw new StoreError('SESSION_LIVE', `session ${id} is held by another running Forkline (pid ${loaded.record.ownerPid}); close it there first`);
    }
    const session = new Session({
      header: loaded.record.header,
      seed: loaded.events,
      markEndSeed: true,
      now: this.now,
      invariants: this.options.invariants ?? 'enforce',
    });
    return this.attach(session);
  }

  private attach(session: Session): LiveSession {
    const id = session.id;
    const writer = new SessionWriteBehind((batch) => this.store.append(id, batch), {
      ...(this.options.writeWindowMs !== undefined ? { windowMs: this.options.writeWindowMs } : {}),
    });
    // Events the constructor appended (end-seed) happened before anyone could subscribe.
    for (const event of session.eventsFrom(session.firstLiveSeq)) writer.enqueue(event);
    const subscription = session.onDidAppend((event) => writer.enqueue(event));
    const failSubscription = writer.onDidFail((failure) => this.writeFailEmitter.fire({ sessionId: id, failure }));
    this.store.setOwner(id, this.pid);
    let released = false;
    const live: LiveSession = {
      session,
      flush: () => writer.flush(),
      onDidFailWrite: writer.onDidFail,
      release: async () => {
        if (released) return;
        this.releasing.add(id);
        try {
          await writer.flush();
        } finally {
          this.releasing.delete(id);
        }
        released = true;
        subscription.dispose();
        failSubscription.dispose();
        writer.dispose();
        this.liveSessions.delete(id);
        try {
          this.store.setOwner(id, undefined);
        } catch {
          // The session may have been deleted meanwhile; nothing to clear.
        }
      },
      dispose: () => {
        void live.release().catch((error: unknown) => console.error(`could not persist session ${id} on release:`, error));
      },
    };
    this.liveSessions.set(id, live);
    return live;
  }

  /**
   * Forks `sourceId` after the inclusive seq `boundary` (default: its last event). The child has its
   * own id, `parentSession`, `seedLength`, its own `session/end-seed`, and reads the parent's prefix
   * by reference. A live source is flushed first. No child exists after any refusal.
   *
   * Inbox rule for whoever runs an agent on the child: the seed holds the parent's
   * `agent/inbox/spliced` events, including any follow-up still pending at the boundary; the
   * child's inbox is rebuilt by replaying splices from `header.seedLength` only (never from 0), so
   * it starts empty. The child's own events after the seed contain no splice.
   * @throws SessionForkError SESSION_ALREADY_EXISTS | SESSION_NOT_FOUND | INVALID_BOUNDARY | OPEN_TURN.
   */
  async fork(sourceId: string, boundary?: number, childId: string = this.options.newId(), overrides: { readonly cwd?: string } = {}): Promise<SessionRecord> {
    if (this.liveSessions.has(childId) || this.store.get(childId)) {
      throw new SessionForkError('SESSION_ALREADY_EXISTS', `session ${childId} already exists`);
    }
    const source = this.store.get(sourceId);
    if (!source) throw new SessionForkError('SESSION_NOT_FOUND', `session ${sourceId} does not exist`);
    const live = this.liveSessions.get(sourceId);
    if (live) await live.flush();
    const length = live ? live.session.length : source.eventCount;
    const cache = new Map<number, SessionEvent>();
    let window = FORK_SCAN_FIRST_WINDOW;
    const eventAt = (seq: number): SessionEvent | undefined => {
      if (live) return live.session.eventAt(seq);
      if (!cache.has(seq)) {
        const from = Math.max(0, seq - window + 1);
        for (const event of this.store.readRange(sourceId, from, seq + 1)) cache.set(event.seq, event);
        window = Math.min(window * 4, FORK_SCAN_MAX_WINDOW);
      }
      return cache.get(seq);
    };
    const seedLength = checkForkBoundaryWith(length, eventAt, boundary);
    const header: SessionHeader = {
      version: SESSION_FORMAT_VERSION,
      id: childId,
      createdAt: this.now(),
      ...((overrides.cwd ?? source.header.cwd) !== undefined ? { cwd: overrides.cwd ?? source.header.cwd } : {}),
      ...(source.header.title !== undefined ? { title: source.header.title } : {}),
      parentSession: sourceId,
      seedLength,
    };
    const endSeed = { seq: seedLength, type: 'session/end-seed', time: this.now(), data: {} } as SessionEvent;
    this.store.createSession(header, [endSeed], { prefixFrom: sourceId });
    return this.store.get(childId)!;
  }

  rename(id: string, title: string | undefined): void {
    this.store.setTitle(id, title);
  }

  /** Deletes a session (children get their own copy of the prefix first). @throws StoreError SESSION_LIVE */
  delete(id: string): void {
    if (this.liveSessions.has(id)) throw new StoreError('SESSION_LIVE', `session ${id} is open; close it before deleting`);
    this.store.delete(id);
  }

  /** The session as JSONL text (live sessions: the in-memory log, which is the newest). */
  exportJsonl(id: string): string {
    const live = this.liveSessions.get(id);
    const record = this.store.get(id);
    if (!record) throw new StoreError('SESSION_NOT_FOUND', `session ${id} does not exist`);
    return exportJsonl(record.header, live ? live.session.events : this.store.readAll(id));
  }

  /**
   * Imports a JSONL session file as a new stored session (a taken id is replaced by a fresh one).
   * The log is validated by replaying it into a Session; relational oddities of foreign logs are
   * returned as warnings, surface damage is refused.
   * @throws SessionCorruptionError, SessionFormatUnsupportedError, SessionError.
   */
  importJsonl(text: string, file?: string): ImportResult {
    const parsed = importJsonl(text, this.options.newId());
    // Whatever the file claims, a log read from a file is imported (untrusted) here.
    let header: SessionHeader = {
      ...parsed.header,
      origin: {
        kind: 'imported',
        format: 'forkline',
        ...(file !== undefined ? { file: file.split(/[\\/]/).pop() ?? file } : {}),
        importedAt: this.now(),
      },
    };
    const warnings = [...parsed.warnings];
    if (this.store.get(header.id) || this.liveSessions.has(header.id)) {
      const fresh = this.options.newId();
      warnings.push(`a session with id ${header.id} already exists; imported as ${fresh}`);
      header = { ...header, id: fresh };
    }
    if (header.title === undefined) {
      const title = titleFromLog(parsed.events);
      if (title !== undefined) header = { ...header, title };
    }
    if (header.id !== parsed.header.id && header.title !== undefined) header = { ...header, title: `${header.title} (imported copy)` };
    // The file carries its whole log, so the stored session owns every event (no prefix reference);
    // parentSession/seedLength stay as lineage facts.
    const replay = new Session({ header, seed: parsed.events, invariants: 'report' });
    warnings.push(...replay.warnings.map((w) => `invariant: ${w}`));
    this.store.createSession(header, parsed.events);
    return { id: header.id, eventCount: parsed.events.length, warnings };
  }

  /** Makes every event appended so far to a live session durable (e.g. before a full-text search). */
  async flushAll(): Promise<void> {
    await Promise.all([...this.liveSessions.values()].map((l) => l.flush()));
  }

  /** Flushes and releases every live session. */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.liveSessions.values()].map((l) => l.release()));
  }

  dispose(): void {
    for (const live of [...this.liveSessions.values()]) live.dispose();
    this.writeFailEmitter.dispose();
  }
}
