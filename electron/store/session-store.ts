/**
 * The storage seam for session logs (docs/architecture.md §7). The SQLite implementation lives in
 * `sqlite-session-store.ts`; an in-memory reference implementation in `memory-session-store.ts`
 * runs the same contract tests. Keeping storage behind this interface lets the Electron build swap
 * the native module (better-sqlite3 must be built per Electron ABI, STACK.md §6).
 *
 * All methods are synchronous: better-sqlite3 is, and every transaction stays short.
 */
import type { SessionEvent, SessionHeader } from '../../shared/events.js';

/** One row of the session table: everything listing needs without reading events. */
export interface SessionRecord {
  readonly header: SessionHeader;
  /** Number of events = next seq. */
  readonly eventCount: number;
  /** Epoch ms of the last append (or creation). */
  readonly updatedAt: number;
  /** Session whose rows hold this session's inherited prefix, or undefined when it owns them. */
  readonly prefixFrom?: string;
  /** The process that holds the session live (an agent may be appending), if any. */
  readonly owner?: SessionOwner;
  /**
   * State of the session's last turn, kept by the write path: `open` (started, not ended), or the
   * reason kind of its `turn/end` (`completed`, `error`, `interrupted`, `aborted`, …). Absent when
   * the session's own events hold no turn.
   */
  readonly lastTurn?: string;
}

/**
 * Who holds a session live (docs/architecture.md §7 ownership). The pid and start identity name the process so
 * that a recycled pid cannot pass for it (see electron/platform/process-identity.ts); the token
 * names this one claim: appends made under the claim carry it, and a store refuses them once
 * another claim replaced it.
 */
export interface SessionOwner {
  readonly pid: number;
  /** Process start identity; absent for schema-2 marks and platforms that cannot tell. */
  readonly start?: string;
  /** Host name; absent for schema-2 marks (which were always local). */
  readonly host?: string;
  /** Epoch ms of the claim (schema-2 marks: the session's last append before the upgrade). */
  readonly since: number;
  /** Random id of the claim; absent for schema-2 marks. */
  readonly token?: string;
}

/** A full-text query as the store runs it (terms already parsed, see shared/search-query.ts). */
export interface StoreSearchQuery {
  /** Every hit contains every term (case-insensitive substring; terms have 3+ characters). */
  readonly terms: readonly string[];
  readonly limit: number;
  /** Only this session's own events (not an inherited fork prefix). */
  readonly sessionId?: string;
}

/** One indexed event that matched: where it is and its indexed text. */
export interface StoreSearchHit {
  readonly sessionId: string;
  readonly seq: number;
  /** `user`, `assistant`, `tool` or `summary` (a compaction summary). */
  readonly kind: string;
  readonly text: string;
}

export interface AppendOptions {
  /**
   * The writer's claim token: the append is refused with STALE_APPEND unless the session is still
   * owned under this claim (another process took it over meanwhile).
   */
  readonly ownerToken?: string;
  /**
   * Leave this batch's search documents to {@link SessionStore.indexPendingSearch} (the background
   * passes, and always the next search before it answers), so the write path stores events only.
   * When none of the session's documents are pending yet, they are pending from this batch's first
   * seq on. For live sessions (the repository's write path). A store without a separate index
   * ignores it.
   */
  readonly deferSearch?: boolean;
}

export interface CreateSessionOptions {
  /** Read seqs `[0, header.seedLength)` from this session instead of copying them (fork by reference). */
  readonly prefixFrom?: string;
  /**
   * Write this session's events without their search documents; they are extracted afterwards
   * ({@link SessionStore.indexPendingSearch}, and always before a search answers). For imports: a
   * large log is stored at the speed of its events. A store without a separate index ignores it.
   */
  readonly deferSearch?: boolean;
}

/**
 * Appends one session's events off the calling thread (a large import): `append` posts a batch and
 * returns (blocking only while a bounded number of batches wait), `drain` waits until all are
 * stored, `close` stops it. Errors of a batch are thrown by a later `append` or by `drain`.
 */
export interface BackgroundAppender {
  /** @throws StoreError STALE_APPEND (a gap), or what an earlier batch met. */
  append(events: readonly SessionEvent[]): void;
  /** @throws what any batch met. */
  drain(): void;
  /** Waits for the posted batches (dropping their errors) and stops. Idempotent. */
  close(): void;
}

export interface SessionStore {
  /**
   * Creates the session row and its first events in one transaction. `events` must start at seq
   * `header.seedLength ?? 0` when `prefixFrom` is given, else at 0.
   * @throws StoreError SESSION_ALREADY_EXISTS, SESSION_NOT_FOUND (prefix source), STALE_APPEND (bad first seq).
   */
  createSession(header: SessionHeader, events: readonly SessionEvent[], options?: CreateSessionOptions): void;

  /**
   * Appends a contiguous batch in one transaction. The first seq must equal the stored next seq;
   * a mismatch means another writer got there first.
   * @throws StoreError STALE_APPEND (first seq ≠ stored next seq, a gap inside the batch, or
   *   `options.ownerToken` is no longer the session's claim), SESSION_NOT_FOUND.
   */
  append(sessionId: string, events: readonly SessionEvent[], options?: AppendOptions): void;

  /** Every event of a session (inherited prefix included), in seq order. @throws SessionCorruptionError, StoreError */
  readAll(sessionId: string): SessionEvent[];

  /** Events with `seq >= fromSeq`, in seq order (`[]` past the end). @throws SessionCorruptionError, StoreError */
  readFrom(sessionId: string, fromSeq: number): SessionEvent[];

  /** Events with `fromSeq <= seq < toSeq`, in seq order. @throws SessionCorruptionError, StoreError */
  readRange(sessionId: string, fromSeq: number, toSeq: number): SessionEvent[];

  /**
   * The latest event of `type` with seq < `beforeSeq` (following a fork's prefix), or undefined.
   * Meant for log-only envelope events (`request/header`, `request/context`) that are never packed.
   * @throws SessionCorruptionError, StoreError SESSION_NOT_FOUND
   */
  lastEventOfType(sessionId: string, type: string, beforeSeq: number): SessionEvent | undefined;

  /** The session's row, or undefined. Reads only the session table. */
  get(sessionId: string): SessionRecord | undefined;

  /** All sessions, newest activity first. Reads only the session table. */
  list(): SessionRecord[];

  /** Sessions whose prefix is read from `sessionId`. */
  children(sessionId: string): SessionRecord[];

  setTitle(sessionId: string, title: string | undefined): void;

  /** Records the session's live owner (undefined clears the mark). @throws StoreError SESSION_NOT_FOUND */
  setOwner(sessionId: string, owner: SessionOwner | undefined): void;

  /**
   * Runs `fn` as one write transaction (SQLite: `BEGIN IMMEDIATE`, so no other connection writes
   * in between; store calls inside it join it). Used for check-then-act steps such as claiming an
   * owner or appending recovery closers. `fn` must be synchronous; a throw rolls everything back.
   */
  atomically<T>(fn: () => T): T;

  /**
   * Optional (SQLite in WAL mode): as {@link atomically}, but the commit does not wait for the disk
   * (`synchronous = NORMAL`: the database stays consistent; the commit may be lost to a power cut
   * or an OS crash, never to a crash of this process, until {@link syncCommitted} resolves). The
   * live write path's group commit pairs the two so the fsync runs off the calling thread.
   */
  atomicallyDeferringSync?<T>(fn: () => T): T;

  /**
   * Optional, with {@link atomicallyDeferringSync}: resolves once every commit made before the call
   * is on disk (one fdatasync of the write-ahead log on libuv's thread pool; concurrent callers share
   * one). @throws StoreError WRITE_FAILED when the sync fails.
   */
  syncCommitted?(): Promise<void>;

  /**
   * Full-text search over the messages and tool output of every session, newest events first.
   * The index is kept up to date by the write path (same transaction as the events).
   */
  search(query: StoreSearchQuery): StoreSearchHit[];

  /**
   * Writes the search documents of sessions created with `deferSearch`, at most about
   * `maxEvents` events' worth in one short write transaction. Returns true while some remain.
   * Safe to call from several connections (each pass claims its range inside its transaction).
   */
  indexPendingSearch(maxEvents: number): boolean;

  /**
   * A number that changes when another connection — another Forkline process (the CLI), an
   * import's writer thread — has committed to the store since this connection last looked (SQLite
   * `PRAGMA data_version`). Constant for a store no one else can write (in memory).
   */
  externalVersion(): number;

  /**
   * An appender for a session created with `deferSearch` that writes on another thread with its
   * own connection, starting at the session's stored next seq; undefined when this store cannot
   * (in memory). The caller must `close` it before writing the session any other way.
   * @throws StoreError SESSION_NOT_FOUND
   */
  backgroundAppender?(sessionId: string): BackgroundAppender | undefined;

  /**
   * Deletes a session. Children that read their prefix from it first get their own copy, in the
   * same transaction, so no child loses history.
   */
  delete(sessionId: string): void;

  close(): void;
}
