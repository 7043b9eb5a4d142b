/**
 * Size: over 500 lines because claims, recovery, tail reads and fork share the live-session
 * table and the owner checks; the import sink moved to electron/host/services/session-imports.ts
 * and the search passes to search-passes.ts. Splitting recovery and fork out is the next step.
 *
 * SessionRepository: the persistence coordinator between live {@link Session}s and a
 * {@link SessionStore} (docs/architecture.md §7, §8).
 *
 * - Ownership: create / resume claim the session for this process in one store transaction
 *   (pid + process start identity + host + a claim token, see session-ownership.ts). A live owner
 *   elsewhere gives SESSION_LIVE saying where it runs, unless the caller takes over; a dead owner
 *   (exited, or its pid now names an unrelated process) is taken over with a logged
 *   `session/takeover`. Appends carry the claim token, so an owner that was taken over gets
 *   STALE_APPEND instead of interleaving. release flushes and clears the claim (if still ours).
 * - One recovery path: every read of a session with no live owner (load, resume, fork, export,
 *   import) first closes its interrupted last turn the same way, durably and once
 *   ({@link SessionRepository.recover}); a second read appends nothing. A session that a live agent
 *   owns is never repaired.
 * - fork is by reference and costs the same at any seq.
 * - export speaks the JSONL format; imports write through the primitives {@link SessionRepository.createImporting},
 *   {@link SessionRepository.finishImport} and {@link SessionRepository.removeImport}, driven by
 *   `electron/host/services/session-imports.ts` (the store imports nothing above `session/`).
 */
import { randomUUID } from 'node:crypto';
import { Emitter, type Event } from '../../shared/event.js';
import { ForklineError, SessionForkError, StoreError } from '../../shared/errors.js';
import { isImportedSession, SESSION_FORMAT_VERSION, type SessionEvent, type SessionHeader } from '../../shared/events.js';
import type { IDisposable } from '../../shared/lifecycle.js';
import { endRecordedProcess, type RecordedProcessOutcome } from '../platform/process-tree.js';
import type { OwnerIdentity } from '../platform/process-identity.js';
import { checkForkBoundaryWith } from '../session/fork-boundary.js';
import { exportJsonl } from '../session/jsonl.js';
import { closeInterruptedTurn, unansweredToolProcesses, type UnansweredToolProcess } from '../session/repair.js';
import { Session, type IllFormedTextMode, type InvariantMode } from '../session/session.js';
import { ownerState, selfIdentity, sessionLiveError, SYSTEM_PROCESS_PROBE, type OwnerState, type ProcessProbe } from './session-ownership.js';
import type { BackgroundAppender, SessionOwner, SessionRecord, SessionStore } from './session-store.js';
import { SearchPasses } from './search-passes.js';
import { GroupCommitter } from './group-commit.js';
import { SessionWriteBehind, type WriteFailure } from './write-behind.js';

export interface RepositoryOptions {
  /** Epoch-ms clock. */
  readonly now?: () => number;
  /** Id generator for sessions (UUIDs in production). */
  readonly newId: () => string;
  /** Write-behind window in ms. */
  readonly writeWindowMs?: number;
  /**
   * Commit the batches that live sessions write within one event-loop turn together, in one
   * transaction (one fsync), instead of one commit each (group-commit.ts). The runtime turns it on:
   * concurrent sessions (a fan-out's branches) then do not pay one fsync each per barrier. Default off.
   */
  readonly groupCommit?: boolean;
  readonly invariants?: InvariantMode;
  /** Lone surrogates in appended data: `reject` (tests) or `repair` with a note (production). Default `reject`. */
  readonly illFormedText?: IllFormedTextMode;
  /** This process as a session owner (default: its real pid, start identity and host name). */
  readonly identity?: OwnerIdentity;
  /** What the operating system says about other processes (default: /proc or `ps`). */
  readonly probe?: ProcessProbe;
  /** Claim tokens (default: random UUIDs). */
  readonly newToken?: () => string;
  /**
   * Ends a process that a crashed tool left running, when it is provably the recorded one
   * (default: {@link endRecordedProcess}: pid + start identity, whole process group).
   */
  readonly endLeftoverProcess?: (process: UnansweredToolProcess) => RecordedProcessOutcome;
}

/** A process a crashed tool call left behind, found by crash recovery. */
export interface LeftoverProcess extends UnansweredToolProcess {
  /** `ended`: it was still running and was stopped; `unverifiable`: its pid runs but cannot be proven to be it (left alone). */
  readonly outcome: Exclude<RecordedProcessOutcome, 'gone'>;
}

/** What crash recovery did about a process an interrupted tool call left behind. */
export function leftoverNotice(left: LeftoverProcess): string {
  return left.outcome === 'ended'
    ? `A process of the interrupted call ${left.callId} (pid ${left.pid}) was still running; it was stopped.`
    : `Pid ${left.pid} of the interrupted call ${left.callId} is running, but it cannot be proven to be that process, so it was left alone.`;
}

/** What {@link SessionRepository.recover} did. */
export interface RecoveryResult {
  readonly record: SessionRecord;
  /** Number of crash-recovery closers appended (0 when the log was balanced or owned live elsewhere). */
  readonly repaired: number;
  /** Processes of the interrupted calls that were still around. */
  readonly leftovers: readonly LeftoverProcess[];
  /** True when another live owner holds the session: nothing was repaired or written. */
  readonly ownedElsewhere: boolean;
}

/** How a live session lost its claim. */
export interface ClaimLost {
  readonly sessionId: string;
  /** Events this process appended that were not stored. */
  readonly unsaved: number;
  readonly error: unknown;
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

export interface LoadResult extends RecoveryResult {
  readonly events: readonly SessionEvent[];
}

/** Options of {@link SessionRepository.resume}. */
export interface ResumeOptions {
  /** Take the session over even from a live owner (the user confirmed it). */
  readonly takeOver?: boolean;
}

/**
 * The fork boundary check reads a cold source backwards from the boundary in windows that start
 * small (a boundary at a `turn/end` needs one event) and grow while the scan continues, so the cost
 * does not depend on where in a long history the boundary is.
 */
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

/**
 * Live sessions defer their search documents; background passes write them once no live session
 * has written for this long (ms), and when one is released. A search never waits for this: it
 * writes whatever is pending first, so every stored event is found.
 */
export const LIVE_SEARCH_QUIET_MS = 2_000;

export class SessionRepository implements IDisposable {
  private readonly liveSessions = new Map<string, LiveSession>();
  /** Live sessions whose release (final flush) is under way. */
  private readonly releasing = new Set<string>();
  private readonly now: () => number;
  private readonly identity: OwnerIdentity;
  private readonly probe: ProcessProbe;
  private readonly newToken: () => string;
  private readonly endLeftover: (process: UnansweredToolProcess) => RecordedProcessOutcome;
  private readonly writeFailEmitter = new Emitter<{ sessionId: string; failure: WriteFailure }>();
  /** Any live session's background write failure. */
  readonly onDidFailWrite = this.writeFailEmitter.event;
  private readonly claimLostEmitter = new Emitter<ClaimLost>();
  private readonly searchPasses: SearchPasses;
  /** A live session of this process was taken over by another one: its later events are not stored. */
  readonly onDidLoseClaim: Event<ClaimLost> = this.claimLostEmitter.event;

  constructor(
    readonly store: SessionStore,
    private readonly options: RepositoryOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.identity = options.identity ?? selfIdentity();
    this.probe = options.probe ?? SYSTEM_PROCESS_PROBE;
    this.newToken = options.newToken ?? randomUUID;
    this.endLeftover = options.endLeftoverProcess ?? endRecordedProcess;
    this.searchPasses = new SearchPasses(store);
    this.committer = options.groupCommit === true ? new GroupCommitter(store) : undefined;
  }

  /** Shared by live sessions when {@link RepositoryOptions.groupCommit} is on. */
  private readonly committer: GroupCommitter | undefined;

  /** How the session's owner record stands, seen from this process. */
  ownerState(record: SessionRecord): OwnerState {
    return ownerState(record.owner, this.identity, this.probe);
  }

  /** True when another running process holds the session live. */
  isOwnedElsewhere(record: SessionRecord): boolean {
    return this.ownerState(record).kind === 'live' && !this.liveSessions.has(record.header.id);
  }

  /** Stored sessions, newest activity first, without imports that have not finished (see {@link importing}). */
  list(): SessionRecord[] {
    return this.store.list().filter((record) => !this.importUnfinished(record));
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
    const { owner } = this.claim(header.id, {});
    return this.attach(new Session({ header, now: this.now, invariants: this.options.invariants ?? 'enforce', ...this.textOptions(header.id) }), owner);
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
   * The one recovery path (docs/architecture.md §8): closes the interrupted last turn of a session that no live
   * agent owns — one synthetic `tool/result` per unanswered call (`TOOL_NOT_STARTED` /
   * `TOOL_OUTCOME_UNKNOWN`), `step/end` if open, `turn/end{interrupted}` — appended durably in one
   * transaction that re-checks the owner, so it happens once whoever reads first; a second call
   * appends nothing. Reads only the log's tail (from its last turn marker), so the cost does not
   * grow with the history. Processes of the interrupted calls that still run and are provably
   * the recorded ones are ended and reported. Every read path (load, resume, fork, export, import)
   * goes through here.
   * @throws StoreError SESSION_NOT_FOUND; SessionCorruptionError for damaged rows.
   */
  recover(id: string): RecoveryResult {
    for (let attempt = 0; ; attempt++) {
      const record = this.store.get(id);
      if (!record) throw new StoreError('SESSION_NOT_FOUND', `session ${id} does not exist`);
      if (this.liveSessions.has(id) || this.ownerState(record).kind === 'live') {
        return { record, repaired: 0, leftovers: [], ownedElsewhere: !this.liveSessions.has(id) };
      }
      const tail = this.openTail(id, record.eventCount);
      if (tail === undefined) return { record, repaired: 0, leftovers: [], ownedElsewhere: false };
      const time = tail[tail.length - 1]?.time ?? this.now();
      const closers = closeInterruptedTurn(tail, record.eventCount, time);
      if (closers.length === 0) return { record, repaired: 0, leftovers: [], ownedElsewhere: false };
      const processes = unansweredToolProcesses(tail);
      try {
        const stored = this.store.atomically(() => {
          const now = this.store.get(id);
          if (!now) throw new StoreError('SESSION_NOT_FOUND', `session ${id} does not exist`);
          if (now.eventCount !== record.eventCount || this.ownerState(now).kind === 'live') return undefined;
          this.store.append(id, closers);
          return this.store.get(id)!;
        });
        if (stored === undefined) {
          if (attempt < 5) continue;
          // Someone keeps writing: report the session as owned elsewhere rather than loop.
          return { record: this.store.get(id)!, repaired: 0, leftovers: [], ownedElsewhere: true };
        }
        const leftovers: LeftoverProcess[] = [];
        for (const p of processes) {
          const outcome = this.endLeftover(p);
          if (outcome !== 'gone') leftovers.push({ ...p, outcome });
        }
        return { record: stored, repaired: closers.length, leftovers, ownedElsewhere: false };
      } catch (error) {
        // Another reader appended the same closers first: read again.
        if (ForklineError.isInstance(error) && error.code === 'STALE_APPEND' && attempt < 5) continue;
        throw error;
      }
    }
  }

  /**
   * The log's events from its last `turn/start` when that turn is still open (undefined when the
   * log ends between turns). Reads backwards in windows that grow, so a balanced log costs one
   * small read.
   */
  private openTail(id: string, length: number): SessionEvent[] | undefined {
    let window = FORK_SCAN_FIRST_WINDOW;
    let to = length;
    const chunks: SessionEvent[][] = [];
    while (to > 0) {
      const from = Math.max(0, to - window);
      const part = this.store.readRange(id, from, to);
      chunks.unshift(part);
      for (let i = part.length - 1; i >= 0; i--) {
        const type = part[i]!.type;
        if (type === 'turn/end') return undefined;
        if (type === 'turn/start') return [...part.slice(i), ...chunks.slice(1).flat()];
      }
      to = from;
      window = Math.min(window * 4, FORK_SCAN_MAX_WINDOW);
    }
    return undefined;
  }

  /**
   * Reads a session as a balanced log: {@link recover} first (unless a live agent owns it), then
   * every event. A session owned live by another running process is returned as stored, unrepaired.
   * @throws StoreError SESSION_NOT_FOUND; StoreError SESSION_LIVE when this process owns it live
   *   with an open turn; SessionCorruptionError for damaged rows.
   */
  load(id: string): LoadResult {
    const live = this.liveSessions.get(id);
    if (live) {
      const record = this.store.get(id);
      if (!record) throw new StoreError('SESSION_NOT_FOUND', `session ${id} does not exist`);
      if (live.session.state.openTurn !== undefined) {
        throw new StoreError('SESSION_LIVE', `session ${id} is running in this window; its open turn is not repaired`);
      }
      return { record, events: live.session.events, repaired: 0, leftovers: [], ownedElsewhere: false };
    }
    const recovered = this.recover(id);
    return { ...recovered, events: this.store.readAll(id) };
  }

  /**
   * Like {@link load}, but for opening a long session at once: reads only about the last `tail`
   * events (starting at a turn start where one is near, see {@link tailStart}), so the cost does
   * not grow with the log. Crash recovery runs first, as on every read path ({@link recover}
   * reads only from the last turn marker).
   * @returns the load result with `events` starting at `startSeq`.
   * @throws as {@link load}.
   */
  loadTail(id: string, tail: number): LoadResult & { readonly startSeq: number } {
    const record = this.store.get(id);
    if (!record) throw new StoreError('SESSION_NOT_FOUND', `session ${id} does not exist`);
    if (this.liveSessions.has(id) || record.eventCount <= tail * 2) {
      const result = this.load(id);
      const startSeq = tailStart(result.events, 0, result.events.length, tail);
      return { ...result, events: result.events.slice(startSeq), startSeq };
    }
    const recovered = this.recover(id);
    const count = recovered.record.eventCount;
    // tailStart looks back at most a quarter of the tail.
    const from = Math.max(0, count - tail - Math.ceil(tail / 4) - 1);
    const window = this.store.readRange(id, from, count);
    const startSeq = tailStart(window, from, count, tail);
    return { ...recovered, events: window.slice(startSeq - from), startSeq };
  }

  /**
   * Holds a stored session live for new work: claims it (atomically), applies crash recovery,
   * appends `session/end-seed` (unless the log already ends with one) and, when a previous owner
   * was replaced, `session/takeover`; turn numbers and seqs continue.
   * @throws StoreError SESSION_LIVE when another running process owns it and `takeOver` is not set.
   */
  resume(id: string, options: ResumeOptions = {}): LiveSession {
    const existing = this.liveSessions.get(id);
    if (existing && this.releasing.has(id)) {
      throw new StoreError('SESSION_LIVE', `session ${id} is being closed; open it again once that finished`);
    }
    if (existing) return existing;
    const claim = this.claim(id, options);
    let session: Session;
    try {
      const loaded = this.load(id);
      session = new Session({
        header: loaded.record.header,
        seed: loaded.events,
        markEndSeed: true,
        now: this.now,
        invariants: this.options.invariants ?? 'enforce',
        ...this.textOptions(id),
      });
      if (claim.previous) {
        const { owner, reason } = claim.previous;
        session.append({
          type: 'session/takeover',
          data: {
            previous: { pid: owner.pid, since: owner.since, ...(owner.host !== undefined ? { host: owner.host } : {}), ...(owner.start !== undefined ? { start: owner.start } : {}) },
            reason,
          },
        });
      }
    } catch (error) {
      this.releaseClaim(id, claim.owner);
      throw error;
    }
    return this.attach(session, claim.owner);
  }

  /**
   * Claims `id` for this process in one store transaction: a live owner elsewhere refuses
   * (SESSION_LIVE, saying where) unless `takeOver`; a dead one is replaced and returned as
   * `previous` so the caller can log the takeover.
   */
  private claim(id: string, options: ResumeOptions): { owner: SessionOwner; previous?: { owner: SessionOwner; reason: 'exited' | 'pid-reused' | 'forced' } } {
    return this.store.atomically(() => {
      const record = this.store.get(id);
      if (!record) throw new StoreError('SESSION_NOT_FOUND', `session ${id} does not exist`);
      const state = this.ownerState(record);
      if (state.kind === 'live' && !options.takeOver) throw sessionLiveError(id, state.owner);
      const owner = this.newOwner();
      this.store.setOwner(id, owner);
      if (state.kind === 'dead') return { owner, previous: { owner: state.owner, reason: state.reason } };
      if (state.kind === 'live') return { owner, previous: { owner: state.owner, reason: 'forced' } };
      return { owner };
    });
  }

  /** Clears the owner record if it is still `owner`'s claim. Never throws. */
  private releaseClaim(id: string, owner: SessionOwner): void {
    try {
      this.store.atomically(() => {
        if (this.store.get(id)?.owner?.token === owner.token) this.store.setOwner(id, undefined);
      });
    } catch {
      // The session may have been deleted meanwhile, or the store closed: nothing to clear.
    }
  }

  /** How live sessions treat lone surrogates, with repair notes going to the process log. */
  private textOptions(id: string): { illFormedText: IllFormedTextMode; onNote: (note: string) => void } {
    return { illFormedText: this.options.illFormedText ?? 'reject', onNote: (note) => console.warn(`session ${id}: ${note}`) };
  }

  private attach(session: Session, owner: SessionOwner): LiveSession {
    const id = session.id;
    const ownerToken = owner.token!;
    let lost = false;
    // Events only: their search documents are left to the background passes (after the session has
    // been quiet a while, or released) and, whatever is left, to the next search before it answers.
    const appendOptions = { ownerToken, deferSearch: true } as const;
    const committer = this.committer;
    const writer = new SessionWriteBehind(
      committer
        ? async (batch) => {
            await committer.append(id, batch, appendOptions);
            this.liveWritten();
          }
        : (batch) => {
            this.store.append(id, batch, appendOptions);
            this.liveWritten();
          },
      {
        ...(this.options.writeWindowMs !== undefined ? { windowMs: this.options.writeWindowMs } : {}),
      },
    );
    // Events the constructor appended (end-seed) happened before anyone could subscribe.
    for (const event of session.eventsFrom(session.firstLiveSeq)) writer.enqueue(event);
    const subscription = session.onDidAppend((event) => {
      if (!lost) writer.enqueue(event);
    });
    /** True (and reported once) when the failure means another process took the session over. */
    const claimLost = (error: unknown): boolean => {
      if (lost) return true;
      if (!ForklineError.isInstance(error) || error.code !== 'STALE_APPEND') return false;
      let current: SessionRecord | undefined;
      try {
        current = this.store.get(id);
      } catch {
        return false;
      }
      if (current?.owner?.token === ownerToken) return false;
      lost = true;
      this.claimLostEmitter.fire({ sessionId: id, unsaved: writer.pendingCount, error });
      return true;
    };
    const failSubscription = writer.onDidFail((failure) => {
      if (claimLost(failure.error)) return;
      this.writeFailEmitter.fire({ sessionId: id, failure });
    });
    let released = false;
    const live: LiveSession = {
      session,
      flush: () => {
        const barrier = writer.flush();
        barrier.catch(claimLost);
        return barrier;
      },
      onDidFailWrite: writer.onDidFail,
      release: async () => {
        if (released) return;
        this.releasing.add(id);
        try {
          await writer.flush();
        } catch (error) {
          // Taken over: what is left cannot be stored (the new owner closed the log); let go.
          if (!claimLost(error)) throw error;
        } finally {
          this.releasing.delete(id);
        }
        released = true;
        this.indexSearchInBackground();
        subscription.dispose();
        failSubscription.dispose();
        writer.dispose();
        this.liveSessions.delete(id);
        if (!lost) this.releaseClaim(id, owner);
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
   * own id, `parentSession`, `seedLength`, its own `session/end-seed` (then, with
   * `overrides.checkpoint`, the workspace snapshot it starts from), and reads the parent's prefix by
   * reference. A live source is flushed first; a cold one goes through {@link recover} first. No
   * child exists after any refusal. The child is native; it inherits the source's workspace
   * (`overrides.cwd` wins) unless the source is imported, whose folder came from a file and is never
   * inherited.
   *
   * Inbox rule for whoever runs an agent on the child: the seed holds the parent's
   * `agent/inbox/spliced` events, including any follow-up still pending at the boundary; the
   * child's inbox is rebuilt by replaying splices from `header.seedLength` only (never from 0), so
   * it starts empty. The child's own events after the seed contain no splice.
   * An imported source's folder is never inherited: its child gets `overrides.cwd` or no folder.
   * @throws SessionForkError SESSION_ALREADY_EXISTS | SESSION_NOT_FOUND | INVALID_BOUNDARY | OPEN_TURN.
   */
  async fork(
    sourceId: string,
    boundary?: number,
    childId: string = this.options.newId(),
    overrides: { readonly cwd?: string | null; readonly checkpoint?: { readonly turn: number; readonly commit: string } } = {},
  ): Promise<SessionRecord> {
    if (this.liveSessions.has(childId) || this.store.get(childId)) {
      throw new SessionForkError('SESSION_ALREADY_EXISTS', `session ${childId} already exists`);
    }
    const source = this.store.get(sourceId);
    if (!source) throw new SessionForkError('SESSION_NOT_FOUND', `session ${sourceId} does not exist`);
    const live = this.liveSessions.get(sourceId);
    if (live) await live.flush();
    const length = live ? live.session.length : this.recover(sourceId).record.eventCount;
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
    // An imported source's folder came from a file: the child gets a workspace only when one is given (`cwd: null` = none).
    const cwd = overrides.cwd === null ? undefined : (overrides.cwd ?? (isImportedSession(source.header) ? undefined : source.header.cwd));
    const header: SessionHeader = {
      version: SESSION_FORMAT_VERSION,
      id: childId,
      createdAt: this.now(),
      ...(cwd !== undefined ? { cwd } : {}),
      ...(source.header.title !== undefined ? { title: source.header.title } : {}),
      parentSession: sourceId,
      seedLength,
    };
    const time = this.now();
    const own = [{ seq: seedLength, type: 'session/end-seed', time, data: {} } as SessionEvent];
    // The workspace the child starts from (the boundary turn's snapshot, logged by the parent after
    // the boundary, so not inherited), so compare and later checkpoints have a base.
    if (overrides.checkpoint) own.push({ seq: seedLength + 1, type: 'workspace/checkpoint', time, data: { ...overrides.checkpoint } } as SessionEvent);
    this.store.createSession(header, own, { prefixFrom: sourceId });
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
    if (live) {
      const record = this.store.get(id);
      if (!record) throw new StoreError('SESSION_NOT_FOUND', `session ${id} does not exist`);
      return exportJsonl(record.header, live.session.events);
    }
    const loaded = this.load(id);
    return exportJsonl(loaded.record.header, loaded.events);
  }

  /**
   * True when a session of this id is stored or held live here (an import's fresh id must be
   * neither).
   */
  exists(id: string): boolean {
    return this.store.get(id) !== undefined || this.liveSessions.has(id);
  }

  /**
   * Stores the first batch of a session being imported, with this process's owner record, in one
   * transaction. The owner record marks the import as unfinished for every process until
   * {@link finishImport}, and lets a later run tell an import that died (SIGKILL, power loss) from
   * one still running. Search documents are deferred (written by {@link indexSearchInBackground},
   * or the next search).
   */
  createImporting(header: SessionHeader, events: readonly SessionEvent[]): void {
    this.store.atomically(() => {
      this.store.createSession(header, events, { deferSearch: true });
      this.store.setOwner(header.id, this.newOwner());
    });
    this.importingIds.add(header.id);
  }

  /** Ends an import that succeeded: clears its owner record (so it is listed) and indexes it for search in the background. */
  finishImport(id: string): void {
    this.store.setOwner(id, undefined);
    this.importingIds.delete(id);
    this.indexSearchInBackground();
  }

  /** Removes what a failed or aborted import stored (an import is all or nothing). */
  removeImport(id: string): void {
    this.importingIds.delete(id);
    if (this.store.get(id)) this.store.delete(id);
  }

  /** A writer of later batches on a worker thread, when the store offers one (see {@link SessionStore.backgroundAppender}). */
  backgroundAppender(id: string): BackgroundAppender | undefined {
    return this.store.backgroundAppender?.(id);
  }

  /** The id generator and clock this repository uses (an import names its session with them). */
  get ids(): { readonly newId: () => string; readonly now: () => number } {
    return { newId: this.options.newId, now: this.now };
  }

  /**
   * Notes a live session's write: once no live session of this repository has written for
   * {@link LIVE_SEARCH_QUIET_MS}, the search documents they deferred are written in background
   * passes. One timer for all sessions; a write only moves a timestamp (the timer re-arms itself).
   */
  private liveWritten(): void {
    this.lastLiveWrite = performance.now();
    if (this.quietTimer !== undefined || this.disposedRepo) return;
    const check = (): void => {
      this.quietTimer = undefined;
      if (this.disposedRepo) return;
      const quietFor = performance.now() - this.lastLiveWrite;
      if (quietFor >= LIVE_SEARCH_QUIET_MS) this.indexSearchInBackground();
      else this.quietTimer = setTimeout(check, LIVE_SEARCH_QUIET_MS - quietFor).unref();
    };
    this.quietTimer = setTimeout(check, LIVE_SEARCH_QUIET_MS).unref();
  }
  private lastLiveWrite = 0;
  private quietTimer: ReturnType<typeof setTimeout> | undefined;
  private disposedRepo = false;

  /** Writes the search documents that imports and live sessions deferred, in background passes (see {@link SearchPasses.inBackground}). */
  indexSearchInBackground(): void {
    this.searchPasses.inBackground();
  }

  /** Writes every deferred search document now, yielding between passes (see {@link SearchPasses.catchUp}). */
  catchUpSearch(): Promise<void> {
    return this.searchPasses.catchUp();
  }

  /**
   * True while a session's import has not ended (not to be listed or opened): one running in this
   * process, one running in another (an imported session keeps an owner record only while it is
   * being written), or one whose importing process died — {@link removeAbandonedImports} deletes those.
   */
  importing(id: string): boolean {
    if (this.importingIds.has(id)) return true;
    const record = this.store.get(id);
    return record !== undefined && this.importUnfinished(record);
  }

  private importUnfinished(record: SessionRecord): boolean {
    return this.importingIds.has(record.header.id) || (isImportedSession(record.header) && record.owner !== undefined);
  }

  /**
   * Deletes imports whose importing process ended before they finished (killed, crashed): an import
   * is all or nothing, and the file can be imported again. Imports still running elsewhere are
   * left alone. Returns the deleted ids.
   */
  removeAbandonedImports(): string[] {
    const removed: string[] = [];
    for (const record of this.store.list()) {
      if (!isImportedSession(record.header) || record.owner === undefined || this.importingIds.has(record.header.id)) continue;
      if (this.ownerState(record).kind !== 'dead') continue;
      try {
        this.store.delete(record.header.id);
        removed.push(record.header.id);
      } catch {
        // another process removed it first
      }
    }
    return removed;
  }

  /** An owner record for this process, claimed now with a fresh token (resume, and imports while they run). */
  private newOwner(): SessionOwner {
    return {
      pid: this.identity.pid,
      host: this.identity.host,
      since: this.now(),
      token: this.newToken(),
      ...(this.identity.start !== undefined ? { start: this.identity.start } : {}),
    };
  }
  private readonly importingIds = new Set<string>();

  /** Makes every event appended so far to a live session durable (e.g. before a full-text search). */
  async flushAll(): Promise<void> {
    await Promise.all([...this.liveSessions.values()].map((l) => l.flush()));
  }

  /** Flushes and releases every live session. */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.liveSessions.values()].map((l) => l.release()));
  }

  dispose(): void {
    this.disposedRepo = true;
    clearTimeout(this.quietTimer);
    this.searchPasses.dispose();
    for (const live of [...this.liveSessions.values()]) live.dispose();
    // Batches the releases above submitted are written before the store can close.
    this.committer?.commitNow();
    this.writeFailEmitter.dispose();
    this.claimLostEmitter.dispose();
  }
}
