/**
 * Size: over 500 lines because every SQL statement of the store is prepared here, next to the
 * transactions that use it (SQL stays confined to this file, sql.ts and migrations/).
 *
 * SQLite session store on better-sqlite3 (docs/architecture.md §7).
 *
 * - Pragmas: `busy_timeout` first, then WAL, `synchronous=FULL`, foreign keys on.
 * - One writer connection; every write is one short `BEGIN IMMEDIATE` transaction, never held
 *   across an `await` (the API is synchronous).
 * - Append checks the stored next seq (`sessions.event_count`) so a stale writer is rejected.
 * - Runs of delta chunks are stored as one packed row (`chunk-rows.ts`), which keeps the append
 *   rate above raw one-row-per-event inserts.
 * - Fork by reference: a child with `prefix_from` reads seqs `[0, seed_length)` from that session.
 *   Deleting a session first copies its prefix into every child that reads it.
 */
import Database from 'better-sqlite3';
import { closeSync, fdatasync, fstatSync, openSync, statSync } from 'node:fs';
import { SessionCorruptionError, StoreError } from '../../shared/errors.js';
import { KNOWN_EVENT_TYPES, type SessionEvent, type SessionHeader, type SessionOrigin } from '../../shared/events.js';
import { deepFreezeJson, type JsonValue } from '../../shared/json.js';
import { MAX_PACKED_MEMBERS, PACKED_ROW_TYPES, expandPackedRow, packEvents, type PackedRow, type PackedRowType } from '../session/chunk-rows.js';
import { prepareDatabaseFile } from './database-file.js';
import { lastTurnAfter, searchableText } from './search-text.js';
import { lostClaim } from './session-ownership.js';
import { ThreadedAppender, type RowValue } from './threaded-appender.js';
import type { AppendOptions, BackgroundAppender, CreateSessionOptions, SessionOwner, SessionRecord, SessionStore, StoreSearchHit, StoreSearchQuery } from './session-store.js';
import { applyMigration, MIGRATION_LIST, SCHEMA_VERSION } from './migrations/index.js';
import { APPLICATION_ID, BUSY_TIMEOUT_MS, CONNECTION_PRAGMAS, SQL, type StatementName } from './sql.js';

interface SessionRow {
  id: string;
  version: number;
  created_at: number;
  updated_at: number;
  cwd: string | null;
  title: string | null;
  parent_session: string | null;
  origin: string | null;
  seed_length: number | null;
  prefix_from: string | null;
  event_count: number;
  owner_pid: number | null;
  owner_start: string | null;
  owner_host: string | null;
  owner_since: number | null;
  owner_token: string | null;
  last_turn: string | null;
  search_pending_from: number | null;
}

interface EventRow {
  seq: number;
  last_seq: number;
  type: string;
  time: number;
  data: string;
  surface_op: string | null;
  source_event_seqs: string | null;
  ignorable: number | null;
}

/** One row just inserted inside a write transaction (see {@link SqliteStoreOptions.onRowWritten}). */
export interface RowWritten {
  readonly sessionId: string;
  /** First and last seq held by the row (equal unless it is a packed chunk run). */
  readonly seq: number;
  readonly lastSeq: number;
  /** Event type, or the packed row type. */
  readonly type: string;
  /** 0-based position of the row within the rows of this write. */
  readonly rowIndex: number;
}

export interface SqliteStoreOptions {
  /** Epoch-ms clock for `updated_at`. */
  readonly now?: () => number;
  /** Pack delta-chunk runs into single rows (default true). */
  readonly packChunks?: boolean;
  /**
   * Instrumentation: called inside the write transaction after each event row is inserted, before
   * the commit. Crash tests use it as a failpoint (a process killed here must leave no partial
   * batch behind). Throwing from it rolls the transaction back.
   */
  readonly onRowWritten?: (row: RowWritten) => void;
  /**
   * Path of a better-sqlite3 addon built for another ABI (the Electron main process, docs/architecture.md §9);
   * default: the Node build where npm put it.
   */
  readonly nativeBinding?: string;
}

export class SqliteSessionStore implements SessionStore {
  private readonly db: Database.Database;
  private readonly statements = new Map<StatementName, Database.Statement>();
  private readonly now: () => number;
  private readonly packChunks: boolean;
  private readonly onRowWritten: ((row: RowWritten) => void) | undefined;
  private readonly nativeBinding: string | undefined;
  /** Transactions built once: the write path runs one per flushed batch, reads one per range. */
  private readonly appendTx: Database.Transaction<(sessionId: string, events: readonly SessionEvent[], ownerToken: string | undefined, deferSearch: boolean) => void>;
  /** One read transaction, so a range spanning a fork prefix and the child's rows is one snapshot. */
  private readonly readTx: Database.Transaction<(sessionId: string, fromSeq: number, toSeq: number, out: SessionEvent[]) => void>;
  /** Catches the FTS index up in its own write transaction (before a search). */
  private readonly indexTx: Database.Transaction<() => void>;
  /** One pass of deferred search documents (see {@link indexPendingSearch}). */
  private readonly pendingSearchTx: Database.Transaction<(maxEvents: number) => boolean>;
  /** Documents written since the index last caught up (this connection), and since when. */
  private pendingDocs = 0;
  private pendingSince: number | undefined;
  private closed = false;

  /**
   * Opens (creating if needed, mode 0600) the store at `file` (`:memory:` allowed).
   * @throws StoreError SCHEMA_UNSUPPORTED when the file is another application's database or a
   *   newer schema version; STORE_UNREADABLE when it is not an SQLite database or SQLite reports it
   *   damaged. A refused file is never written.
   */
  constructor(
    readonly file: string,
    options: SqliteStoreOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.packChunks = options.packChunks ?? true;
    this.onRowWritten = options.onRowWritten;
    this.nativeBinding = options.nativeBinding;
    prepareDatabaseFile(file);
    this.db = new Database(file, options.nativeBinding !== undefined ? { nativeBinding: options.nativeBinding } : {});
    try {
      for (const pragma of CONNECTION_PRAGMAS) this.applyPragma(pragma);
      this.migrate();
    } catch (error) {
      this.db.close();
      const code = (error as { code?: unknown }).code;
      if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
        throw new StoreError('STORE_UNREADABLE', `${file} is damaged (${(error as Error).message}); it was left as it is. Move it aside to start with an empty store, or restore it from a backup.`, {
          cause: error,
        });
      }
      throw error;
    }
    this.appendTx = this.db.transaction((sessionId: string, events: readonly SessionEvent[], ownerToken: string | undefined, deferSearch: boolean) =>
      this.appendInTransaction(sessionId, events, ownerToken, deferSearch),
    );
    this.indexTx = this.db.transaction(() => this.catchUpIndex());
    this.pendingSearchTx = this.db.transaction((maxEvents: number) => this.indexPendingInTransaction(maxEvents));
    this.readTx = this.db.transaction((sessionId: string, fromSeq: number, toSeq: number, out: SessionEvent[]) => this.readInTransaction(sessionId, fromSeq, toSeq, out));
  }

  /**
   * Applies one connection pragma. Switching the journal mode needs a lock that SQLite does not wait
   * for through the busy handler, so two instances opening a fresh file at once can see
   * SQLITE_BUSY there: it is retried every 10 ms for up to the busy timeout, and the resulting mode
   * is checked.
   */
  private applyPragma(pragma: string): void {
    const deadline = Date.now() + BUSY_TIMEOUT_MS;
    for (;;) {
      try {
        const result = this.db.pragma(pragma, { simple: true });
        if (pragma.startsWith('journal_mode') && result !== 'wal' && result !== 'memory') {
          throw new StoreError('SCHEMA_UNSUPPORTED', `${this.file} cannot use WAL journaling (journal_mode is ${String(result)})`);
        }
        return;
      } catch (error) {
        if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw error;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
      }
    }
  }

  private migrate(): void {
    const run = this.db.transaction(() => {
      const version = this.db.pragma('user_version', { simple: true }) as number;
      const appId = this.db.pragma('application_id', { simple: true }) as number;
      const tables = (this.db.prepare(SQL.tableCount).get() as { n: number }).n;
      if (version === 0 && tables > 0 && appId !== APPLICATION_ID) {
        throw new StoreError('SCHEMA_UNSUPPORTED', `${this.file} is not a Forkline store (it already has tables)`);
      }
      if (appId !== 0 && appId !== APPLICATION_ID) {
        throw new StoreError('SCHEMA_UNSUPPORTED', `${this.file} belongs to another application (application_id ${appId})`);
      }
      if (version > SCHEMA_VERSION) {
        throw new StoreError('SCHEMA_UNSUPPORTED', `${this.file} has schema version ${version}; this build reads up to ${SCHEMA_VERSION}. Upgrade Forkline.`);
      }
      // One file per step (migrations/NNN-name.ts), all in this one transaction.
      for (const migration of MIGRATION_LIST.slice(version)) {
        applyMigration(this.db, migration);
        this.db.pragma(`user_version = ${migration.version}`);
      }
      if (appId === 0) this.db.pragma(`application_id = ${APPLICATION_ID}`);
    });
    run.immediate();
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreError('STORE_CLOSED', 'the session store is closed');
  }

  private stmt(name: StatementName): Database.Statement {
    this.assertOpen();
    let statement = this.statements.get(name);
    if (!statement) {
      statement = this.db.prepare(SQL[name]);
      this.statements.set(name, statement);
    }
    return statement;
  }

  createSession(header: SessionHeader, events: readonly SessionEvent[], options: CreateSessionOptions = {}): void {
    this.assertOpen();
    const firstSeq = options.prefixFrom !== undefined ? (header.seedLength ?? 0) : 0;
    const tx = this.db.transaction(() => {
      if (this.stmt('getSession').get(header.id)) {
        throw new StoreError('SESSION_ALREADY_EXISTS', `session ${header.id} already exists`);
      }
      if (options.prefixFrom !== undefined) {
        const source = this.stmt('getSession').get(options.prefixFrom) as SessionRow | undefined;
        if (!source) throw new StoreError('SESSION_NOT_FOUND', `prefix source ${options.prefixFrom} does not exist`);
        if (source.event_count < firstSeq) {
          throw new StoreError('STALE_APPEND', `prefix source ${options.prefixFrom} has only ${source.event_count} stored events; the fork needs ${firstSeq}`);
        }
      }
      checkContiguous(header.id, events, firstSeq);
      const now = this.now();
      this.stmt('insertSession').run({
        id: header.id,
        version: header.version,
        created_at: header.createdAt,
        updated_at: now,
        cwd: header.cwd ?? null,
        title: header.title ?? null,
        parent_session: header.parentSession ?? null,
        seed_length: header.seedLength ?? null,
        prefix_from: options.prefixFrom ?? null,
        event_count: firstSeq + events.length,
        origin: header.origin !== undefined ? JSON.stringify(header.origin) : null,
        search_pending_from: options.deferSearch ? firstSeq : null,
      });
      this.insertEvents(header.id, events, !options.deferSearch);
      const lastTurn = lastTurnAfter(undefined, events);
      if (lastTurn !== undefined) this.stmt('setLastTurn').run(lastTurn, header.id);
    });
    tx.immediate();
  }

  append(sessionId: string, events: readonly SessionEvent[], options: AppendOptions = {}): void {
    this.assertOpen();
    if (events.length === 0) return;
    this.appendTx.immediate(sessionId, events, options.ownerToken, options.deferSearch === true);
  }

  /**
   * One append, inside its write transaction. The checks (session exists, claim token still owns
   * it, the batch starts at the stored next seq) and the bookkeeping (event count, activity time,
   * last turn, deferred search start) are one conditional `UPDATE … RETURNING`; only a refused
   * batch pays for a second look to say why. A throw rolls everything back.
   */
  private appendInTransaction(sessionId: string, events: readonly SessionEvent[], ownerToken: string | undefined, deferSearch: boolean): void {
    const from = events[0]!.seq;
    const token = ownerToken ?? null;
    const advanced = this.stmt('advanceEventCount').get(from + events.length, this.now(), lastTurnAfter(undefined, events) ?? null, deferSearch ? from : null, sessionId, from, token, token) as
      Pick<SessionRow, 'search_pending_from'> | undefined;
    if (!advanced) this.refusedAppend(sessionId, events, ownerToken);
    checkContiguous(sessionId, events, from);
    this.insertEvents(sessionId, events, advanced.search_pending_from === null);
  }

  /** Why an append was refused (in the order the checks are documented): never returns. */
  private refusedAppend(sessionId: string, events: readonly SessionEvent[], ownerToken: string | undefined): never {
    const row = this.stmt('sessionEventCount').get(sessionId) as Pick<SessionRow, 'event_count' | 'owner_token' | 'owner_pid' | 'owner_host'> | undefined;
    if (!row) throw new StoreError('SESSION_NOT_FOUND', `session ${sessionId} does not exist`);
    if (ownerToken !== undefined && row.owner_token !== ownerToken) throw lostClaim(sessionId, row.owner_pid, row.owner_host);
    checkContiguous(sessionId, events, row.event_count);
    throw new StoreError('STALE_APPEND', `append to ${sessionId} was refused (the session changed meanwhile)`);
  }

  /**
   * Inserts event rows (packing chunk runs) and, with `withDocs`, their search documents, inside
   * the caller's transaction. A session whose documents are deferred gets them from
   * {@link indexPendingSearch}.
   */
  private insertEvents(sessionId: string, events: readonly SessionEvent[], withDocs: boolean): void {
    const insert = this.stmt('insertEvent');
    let rowIndex = 0;
    forEachEventRow(events, this.packChunks, (seq, lastSeq, type, time, data, surfaceOp, sourceEventSeqs, ignorable, source) => {
      insert.run(sessionId, seq, lastSeq, type, time, data, surfaceOp, sourceEventSeqs, ignorable);
      this.onRowWritten?.({ sessionId, seq, lastSeq, type, rowIndex: rowIndex++ });
      if (!withDocs || 'seq0' in source) return;
      const doc = searchableText(source);
      if (doc) {
        this.stmt('insertSearchDoc').run(sessionId, seq, doc.kind, doc.text);
        this.pendingDocs++;
        this.pendingSince ??= this.now();
      }
    });
    // The FTS index catches up in batches: one segment per batch instead of one per small commit.
    if (this.pendingDocs >= INDEX_BATCH_DOCS || (this.pendingSince !== undefined && this.now() - this.pendingSince >= INDEX_BATCH_MS)) this.catchUpIndex();
  }

  /**
   * Indexes every stored document the FTS index has not seen yet, inside the caller's write
   * transaction (the watermark is read there, so two processes never index a document twice).
   */
  private catchUpIndex(progress = this.stmt('searchProgress'), catchUp = this.stmt('searchCatchUp'), setProgress = this.stmt('setSearchProgress')): void {
    const { upto, latest } = progress.get() as { upto: number; latest: number | null };
    if (latest !== null && latest > upto) {
      catchUp.run(upto);
      setProgress.run(latest);
    }
    this.pendingDocs = 0;
    this.pendingSince = undefined;
  }

  externalVersion(): number {
    return (this.stmt('dataVersion').get() as { data_version: number }).data_version;
  }

  /**
   * A {@link ThreadedAppender} on this file; undefined for `:memory:` or when the worker cannot open
   * the store (a warning is printed; the caller then writes here). See {@link SessionStore.backgroundAppender}.
   */
  backgroundAppender(sessionId: string): BackgroundAppender | undefined {
    this.assertOpen();
    if (this.file === ':memory:' || this.file === '') return undefined;
    const row = this.requireRow(sessionId);
    if (row.search_pending_from === null) throw new StoreError('WRITE_FAILED', `session ${sessionId} indexes as it is written; only a session with deferred search documents is appended on a thread`);
    try {
      return new ThreadedAppender(this.file, sessionId, row.event_count, (events) => eventRowValues(events, this.packChunks), this.now, this.nativeBinding);
    } catch (error) {
      // No writer thread here (e.g. the addon cannot load in a worker): the caller writes on its own thread.
      console.warn(`forkline: ${(error as Error).message}; writing on the main thread instead`);
      return undefined;
    }
  }

  indexPendingSearch(maxEvents: number): boolean {
    this.assertOpen();
    return this.pendingSearchTx.immediate(Math.max(1, Math.floor(maxEvents)));
  }

  /**
   * One pass of {@link indexPendingSearch}, inside its write transaction: the next `maxEvents`
   * seqs of one session with deferred documents. The range is read and advanced in the same
   * transaction, so two connections never write a document twice.
   */
  private indexPendingInTransaction(maxEvents: number): boolean {
    const pending = this.stmt('searchPendingSession').get() as { id: string; pendingFrom: number; eventCount: number } | undefined;
    if (!pending) return false;
    const to = Math.min(pending.eventCount, pending.pendingFrom + maxEvents);
    const insertDoc = this.stmt('insertSearchDoc');
    // `all`, not `iterate`: better-sqlite3 cannot write while a statement iterates (the pass is bounded).
    for (const row of this.stmt('searchPendingSource').all(pending.id, pending.pendingFrom, to) as Pick<EventRow, 'seq' | 'type' | 'data'>[]) {
      let data: unknown;
      try {
        data = JSON.parse(row.data);
      } catch {
        continue; // a damaged row is reported by reads, never by the indexer
      }
      const doc = searchableText({ seq: row.seq, type: row.type, time: 0, data } as SessionEvent);
      if (doc) {
        insertDoc.run(pending.id, row.seq, doc.kind, doc.text);
        this.pendingDocs++;
        this.pendingSince ??= this.now();
      }
    }
    this.stmt('setSearchPending').run(to, pending.id);
    if (this.pendingDocs >= INDEX_BATCH_DOCS) this.catchUpIndex();
    return to < pending.eventCount || this.stmt('searchPendingSession').get() !== undefined;
  }

  search(query: StoreSearchQuery): StoreSearchHit[] {
    this.assertOpen();
    if (query.terms.length === 0 || query.limit <= 0) return [];
    // Sessions stored with deferred documents (imports) get them first, so no stored event is missed.
    while (this.indexPendingSearch(SEARCH_PENDING_PASS_EVENTS)) {
      // one short transaction per pass: a live session's appends can interleave
    }
    // Documents written since the last batch (here or by another process) are indexed first.
    const { upto, latest } = this.stmt('searchProgress').get() as { upto: number; latest: number | null };
    if (latest !== null && latest > upto) this.indexTx.immediate();
    const match = ftsMatchExpression(query.terms);
    const rows = query.sessionId !== undefined ? this.stmt('searchSession').all(match, query.sessionId, query.limit) : this.stmt('search').all(match, query.limit);
    return rows as StoreSearchHit[];
  }

  readAll(sessionId: string): SessionEvent[] {
    return this.readFrom(sessionId, 0);
  }

  readFrom(sessionId: string, fromSeq: number): SessionEvent[] {
    return this.readRange(sessionId, fromSeq, Number.MAX_SAFE_INTEGER);
  }

  readRange(sessionId: string, fromSeq: number, toSeq: number): SessionEvent[] {
    this.assertOpen();
    const out: SessionEvent[] = [];
    this.readTx.deferred(sessionId, fromSeq, toSeq, out);
    return out;
  }

  private readInTransaction(sessionId: string, fromSeq: number, toSeq: number, out: SessionEvent[]): void {
    const record = this.requireRow(sessionId);
    this.collectRange(record, Math.max(0, fromSeq), Math.min(toSeq, record.event_count), out);
  }

  /** Appends events with `from <= seq < to` of `row` (following the prefix chain) to `out`. */
  private collectRange(row: SessionRow, from: number, to: number, out: SessionEvent[]): void {
    if (from >= to) return;
    const seedLength = row.seed_length ?? 0;
    if (row.prefix_from !== null && from < seedLength) {
      const source = this.stmt('getSession').get(row.prefix_from) as SessionRow | undefined;
      if (!source) throw new SessionCorruptionError(row.id, from, `its prefix source ${row.prefix_from} is missing`);
      this.collectRange(source, from, Math.min(to, seedLength), out);
      from = seedLength;
      if (from >= to) return;
    }
    let expected = from;
    const rows = this.stmt('readRange').iterate(row.id, from - (MAX_PACKED_MEMBERS - 1), to, from) as IterableIterator<EventRow>;
    for (const r of rows) {
      for (const event of decodeRow(row.id, r)) {
        if (event.seq < from || event.seq >= to) continue;
        if (event.seq !== expected) throw new SessionCorruptionError(row.id, expected, `stored events jump from seq ${expected - 1} to ${event.seq}`);
        out.push(event);
        expected++;
      }
    }
    if (expected !== to) throw new SessionCorruptionError(row.id, expected, `stored events end at seq ${expected - 1} but the session records ${to}`);
  }

  lastEventOfType(sessionId: string, type: string, beforeSeq: number): SessionEvent | undefined {
    this.assertOpen();
    let row: SessionRow | undefined = this.requireRow(sessionId);
    let before = beforeSeq;
    // Own rows first, then the prefix chain (a fork reads seqs below its seed length from its parent).
    for (let hops = 0; row && hops < 1_000; hops++) {
      const seedLength = row.prefix_from !== null ? (row.seed_length ?? 0) : 0;
      const found = this.stmt('lastOfTypeBefore').get(row.id, before, type) as EventRow | undefined;
      if (found && found.seq >= seedLength) return decodeRow(row.id, found)[0];
      if (row.prefix_from === null) return found ? decodeRow(row.id, found)[0] : undefined;
      before = Math.min(before, seedLength);
      row = this.stmt('getSession').get(row.prefix_from) as SessionRow | undefined;
    }
    return undefined;
  }

  private requireRow(sessionId: string): SessionRow {
    const row = this.stmt('getSession').get(sessionId) as SessionRow | undefined;
    if (!row) throw new StoreError('SESSION_NOT_FOUND', `session ${sessionId} does not exist`);
    return row;
  }

  get(sessionId: string): SessionRecord | undefined {
    const row = this.stmt('getSession').get(sessionId) as SessionRow | undefined;
    return row ? toRecord(row) : undefined;
  }

  list(): SessionRecord[] {
    return (this.stmt('listSessions').all() as SessionRow[]).map(toRecord);
  }

  children(sessionId: string): SessionRecord[] {
    return (this.stmt('listChildren').all(sessionId) as SessionRow[]).map(toRecord);
  }

  setTitle(sessionId: string, title: string | undefined): void {
    const result = this.stmt('setTitle').run(title ?? null, sessionId);
    if (result.changes === 0) throw new StoreError('SESSION_NOT_FOUND', `session ${sessionId} does not exist`);
  }

  setOwner(sessionId: string, owner: SessionOwner | undefined): void {
    const result = this.stmt('setOwner').run({
      id: sessionId,
      pid: owner?.pid ?? null,
      start: owner?.start ?? null,
      host: owner?.host ?? null,
      since: owner?.since ?? null,
      token: owner?.token ?? null,
    });
    if (result.changes === 0) throw new StoreError('SESSION_NOT_FOUND', `session ${sessionId} does not exist`);
  }

  atomically<T>(fn: () => T): T {
    this.assertOpen();
    return this.db.transaction(fn).immediate();
  }

  /**
   * {@link SessionStore.atomicallyDeferringSync}: one `BEGIN IMMEDIATE` transaction committed with
   * `synchronous = NORMAL` (WAL: no fsync at the commit, the database stays consistent), then the
   * connection is back at `synchronous = FULL`. Inside another transaction it simply joins it. An
   * in-memory database has no WAL file: the commit is then an ordinary one.
   */
  atomicallyDeferringSync<T>(fn: () => T): T {
    this.assertOpen();
    if (this.db.inTransaction || this.walFile() === undefined) return this.db.transaction(fn).immediate();
    this.stmt('deferredSyncPragma').run();
    try {
      return this.db.transaction(fn).immediate();
    } finally {
      this.stmt('durableCommitPragma').run();
    }
  }

  /**
   * {@link SessionStore.syncCommitted}: an fdatasync of the WAL file on libuv's thread pool (fsync
   * is per file, whichever descriptor wrote it, so every frame committed before the call is on disk
   * when it resolves; frames an automatic checkpoint moved to the database file were synced by that
   * checkpoint). A sync already running may have started before the caller's commit, so callers
   * arriving meanwhile share the next one.
   * @throws StoreError WRITE_FAILED when the sync fails.
   */
  syncCommitted(): Promise<void> {
    if (this.walFile() === undefined) return Promise.resolve();
    if (this.syncing === undefined) {
      const run: Promise<void> = this.syncWal().finally(() => {
        if (this.syncing === run) this.syncing = undefined;
      });
      this.syncing = run;
      return run;
    }
    this.syncNext ??= this.syncing
      .catch(() => undefined)
      .then(() => {
        this.syncNext = undefined;
        return this.syncCommitted();
      });
    return this.syncNext;
  }
  private syncing: Promise<void> | undefined;
  private syncNext: Promise<void> | undefined;
  /** The WAL file's descriptor (opened at the first sync; `undefined` until then). */
  private walFd: number | undefined;
  /** The inode {@link walFd} was opened on (one stat per sync tells a replaced WAL file). */
  private walIno = 0;

  /** The WAL file's path, or undefined for an in-memory database. */
  private walFile(): string | undefined {
    return this.file === ':memory:' || this.file === '' ? undefined : `${this.file}-wal`;
  }

  private syncWal(): Promise<void> {
    const wal = this.walFile()!;
    return new Promise<void>((resolve, reject) => {
      try {
        // The descriptor is reopened should the WAL file ever have been replaced.
        if (this.walFd !== undefined && statSync(wal).ino !== this.walIno) {
          closeSync(this.walFd);
          this.walFd = undefined;
        }
        if (this.walFd === undefined) {
          this.walFd = openSync(wal, 'r');
          this.walIno = fstatSync(this.walFd).ino;
        }
      } catch (error) {
        reject(new StoreError('WRITE_FAILED', `could not open ${wal} to sync it: ${(error as Error).message}`, { cause: error }));
        return;
      }
      fdatasync(this.walFd, (error) => {
        if (error) reject(new StoreError('WRITE_FAILED', `could not sync ${wal}: ${error.message}`, { cause: error }));
        else resolve();
      });
    });
  }

  delete(sessionId: string): void {
    this.assertOpen();
    const tx = this.db.transaction(() => {
      const row = this.requireRow(sessionId);
      for (const child of this.stmt('listChildren').all(sessionId) as SessionRow[]) {
        const prefix: SessionEvent[] = [];
        this.collectRange(row, 0, child.seed_length ?? 0, prefix);
        // The prefix gets its documents now unless the child's pending range covers it (a live
        // child defers from its first own batch on, after the prefix).
        this.insertEvents(child.id, prefix, child.search_pending_from === null || child.search_pending_from >= (child.seed_length ?? 0));
        this.stmt('clearPrefix').run(child.id);
      }
      this.stmt('deleteSession').run(sessionId);
    });
    tx.immediate();
  }

  close(): void {
    if (this.closed) return;
    try {
      if (this.pendingDocs > 0) this.indexTx.immediate();
    } catch {
      // Indexed on the next search or open instead.
    }
    this.closed = true;
    this.statements.clear();
    this.db.close();
    const fd = this.walFd;
    this.walFd = undefined;
    // A sync still running keeps its descriptor until it is done.
    if (fd !== undefined) void (this.syncing ?? Promise.resolve()).catch(() => undefined).then(() => closeSync(fd));
  }
}

/**
 * An FTS5 match expression requiring every term (each a quoted string, so the person's text is
 * never read as FTS5 syntax; https://www.sqlite.org/fts5.html#fts5_strings). With the trigram
 * tokenizer each string matches as a case-insensitive substring.
 */
export function ftsMatchExpression(terms: readonly string[]): string {
  return terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(' AND ');
}

/** One `events` row's parameters, and the event (or packed chunk run) it holds. */
type EventRowVisitor = (
  seq: number,
  lastSeq: number,
  type: string,
  time: number,
  data: string,
  surfaceOp: string | null,
  sourceEventSeqs: string | null,
  ignorable: 1 | null,
  source: SessionEvent | PackedRow,
) => void;

/**
 * Visits the `events` rows of `events` in order (runs of delta chunks packed into one row when
 * `packChunks`): the one place that turns events into row parameters, for the write path and the
 * import's writer thread alike. No per-row allocation beyond the serialised JSON.
 */
function forEachEventRow(events: readonly SessionEvent[], packChunks: boolean, visit: EventRowVisitor): void {
  for (const row of packChunks ? packEvents(events) : events) {
    if ('seq0' in row) {
      const members = (row.data.texts ?? row.data.args)!.length;
      visit(row.seq0, row.seq0 + members - 1, row.type, row.time0, JSON.stringify(row.data), null, null, null, row);
    } else {
      visit(
        row.seq,
        row.seq,
        row.type,
        row.time,
        JSON.stringify(row.data),
        row.surfaceOp === undefined ? null : JSON.stringify(row.surfaceOp),
        row.sourceEventSeqs === undefined ? null : JSON.stringify(row.sourceEventSeqs),
        row.ignorable ? 1 : null,
        row,
      );
    }
  }
}

/**
 * The rows of `events` as flat values, 8 per row (ThreadedAppender's ROW_STRIDE and RowValue): what
 * the writer thread inserts. The same rows as {@link forEachEventRow}, with the JSON columns left as
 * values for the writer thread to serialise the same way.
 */
function eventRowValues(events: readonly SessionEvent[], packChunks: boolean): RowValue[] {
  const out: RowValue[] = [];
  for (const row of packChunks ? packEvents(events) : events) {
    if ('seq0' in row) {
      const members = (row.data.texts ?? row.data.args)!.length;
      out.push(row.seq0, row.seq0 + members - 1, row.type, row.time0, row.data, undefined, undefined, null);
    } else {
      out.push(row.seq, row.seq, row.type, row.time, row.data, row.surfaceOp, row.sourceEventSeqs, row.ignorable ? 1 : null);
    }
  }
  return out;
}

/** Events per pass when a search writes deferred documents before it answers. */
const SEARCH_PENDING_PASS_EVENTS = 20_000;

/** The FTS index catches up after this many new documents … */
const INDEX_BATCH_DOCS = 64;
/** … or when the oldest unindexed document of this connection is this old (ms). */
const INDEX_BATCH_MS = 2_000;

function checkContiguous(sessionId: string, events: readonly SessionEvent[], firstSeq: number): void {
  events.forEach((event, i) => {
    if (event.seq !== firstSeq + i) {
      throw new StoreError(
        'STALE_APPEND',
        i === 0
          ? `append to ${sessionId} starts at seq ${event.seq} but the store's next seq is ${firstSeq} (another writer appended first, or events were skipped)`
          : `append to ${sessionId} has a gap: seq ${event.seq} follows ${firstSeq + i - 1}`,
      );
    }
  });
}

function toRecord(row: SessionRow): SessionRecord {
  const header: { -readonly [K in keyof SessionHeader]: SessionHeader[K] } = { version: row.version, id: row.id, createdAt: row.created_at };
  if (row.cwd !== null) header.cwd = row.cwd;
  if (row.title !== null) header.title = row.title;
  if (row.parent_session !== null) header.parentSession = row.parent_session;
  if (row.seed_length !== null) header.seedLength = row.seed_length;
  if (row.origin !== null) header.origin = parseOrigin(row.id, row.origin);
  const record: { -readonly [K in keyof SessionRecord]: SessionRecord[K] } = { header, eventCount: row.event_count, updatedAt: row.updated_at };
  if (row.prefix_from !== null) record.prefixFrom = row.prefix_from;
  if (row.owner_pid !== null) {
    const owner: { -readonly [K in keyof SessionOwner]: SessionOwner[K] } = { pid: row.owner_pid, since: row.owner_since ?? row.updated_at };
    if (row.owner_start !== null) owner.start = row.owner_start;
    if (row.owner_host !== null) owner.host = row.owner_host;
    if (row.owner_token !== null) owner.token = row.owner_token;
    record.owner = owner;
  }
  if (row.last_turn !== null && row.last_turn !== undefined) record.lastTurn = row.last_turn;
  return record;
}

function parseOrigin(sessionId: string, text: string): SessionOrigin {
  try {
    const value = JSON.parse(text) as SessionOrigin;
    if (value !== null && typeof value === 'object' && (value.kind === 'native' || value.kind === 'imported')) return value;
  } catch {
    // fall through to the corruption error
  }
  throw new SessionCorruptionError(sessionId, undefined, 'the stored session origin is damaged');
}

function decodeRow(sessionId: string, row: EventRow): SessionEvent[] {
  let data: JsonValue;
  try {
    data = JSON.parse(row.data) as JsonValue;
  } catch (error) {
    throw new SessionCorruptionError(sessionId, row.seq, `the stored data of a ${row.type} row is not valid JSON`, { cause: error });
  }
  if (PACKED_ROW_TYPES.has(row.type)) {
    try {
      const events = expandPackedRow({ type: row.type as PackedRowType, seq0: row.seq, time0: row.time, data } as unknown as PackedRow);
      if (events[events.length - 1]!.seq !== row.last_seq) throw new Error(`the row claims to end at seq ${row.last_seq}`);
      for (const e of events) deepFreezeJson(e);
      return events;
    } catch (error) {
      throw new SessionCorruptionError(sessionId, row.seq, `a packed chunk row is damaged (${error instanceof Error ? error.message : String(error)})`, { cause: error });
    }
  }
  if (!KNOWN_EVENT_TYPES.has(row.type) && row.ignorable !== 1) {
    throw new SessionCorruptionError(sessionId, row.seq, `unknown event type ${row.type}`);
  }
  if (typeof row.time !== 'number' || data === null || typeof data !== 'object') {
    throw new SessionCorruptionError(sessionId, row.seq, `the ${row.type} row has no valid time or data`);
  }
  const event: Record<string, unknown> = { seq: row.seq, type: row.type, time: row.time, data };
  try {
    if (row.surface_op !== null) event['surfaceOp'] = JSON.parse(row.surface_op);
    if (row.source_event_seqs !== null) event['sourceEventSeqs'] = JSON.parse(row.source_event_seqs);
  } catch (error) {
    throw new SessionCorruptionError(sessionId, row.seq, 'the stored surface op or provenance is not valid JSON', { cause: error });
  }
  if (row.ignorable === 1) event['ignorable'] = true;
  return [deepFreezeJson(event) as unknown as SessionEvent];
}
