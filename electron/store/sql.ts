/**
 * Every SQL statement of the store, by name (reference runtime pattern: SQL as named resources).
 * The schema migrations are the one other place with SQL: one file each in `migrations/`
 * (their DDL, and a backfill's own queries). No other file may contain SQL;
 * `test/unit/store/sql-boundary.test.ts` enforces it.
 */

/** How long a connection waits for another one's write lock. */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * Connection pragmas, applied in this order. `busy_timeout` comes first so nothing else can fail with SQLITE_BUSY.
 * `page_size` takes effect only on a new, empty file (before WAL is switched on; an existing store keeps its
 * pages, https://www.sqlite.org/pragma.html#pragma_page_size): 16 KiB pages hold several ~1 KB event rows each
 * and cut the CPU of bulk inserts (an import's writer thread) by about a quarter against the 4 KiB default.
 */
export const CONNECTION_PRAGMAS = [`busy_timeout = ${BUSY_TIMEOUT_MS}`, 'page_size = 16384', 'journal_mode = WAL', 'synchronous = FULL', 'foreign_keys = ON', 'trusted_schema = OFF'] as const;

/**
 * The pragmas of an import's writer thread (ThreadedAppender): as {@link CONNECTION_PRAGMAS} but
 * `synchronous = NORMAL` — in WAL mode a commit then skips its fsync while the database stays
 * consistent (https://www.sqlite.org/pragma.html#pragma_synchronous). The writer ends with one
 * `synchronous = FULL` commit, whose WAL fsync makes every earlier commit durable too.
 */
export const IMPORT_WRITER_PRAGMAS: readonly string[] = CONNECTION_PRAGMAS.map((p) => (p.startsWith('synchronous') ? 'synchronous = NORMAL' : p));
/** The pragma of the writer thread's last, durable commit (and of the main connection again after a deferred-sync commit). */
export const DURABLE_COMMIT_PRAGMA = 'synchronous = FULL';
/**
 * The pragma of a commit whose fsync is done afterwards, off the calling thread, by an fdatasync of
 * the WAL file (`SqliteSessionStore.atomicallyDeferringSync` / `syncCommitted`).
 */
export const DEFERRED_SYNC_PRAGMA = 'synchronous = NORMAL';

/** `PRAGMA application_id` marking a Forkline store ('FKLN'). */
export const APPLICATION_ID = 0x464b4c4e;

export const SQL = {
  // The two pragmas around a deferred-sync commit, prepared once (db.pragma() prepares each call:
  // ~0.1 ms per barrier commit, a tenth of a fan-out step's store time).
  deferredSyncPragma: `PRAGMA ${DEFERRED_SYNC_PRAGMA}`,
  durableCommitPragma: `PRAGMA ${DURABLE_COMMIT_PRAGMA}`,
  insertSession: `INSERT INTO sessions (id, version, created_at, updated_at, cwd, title, parent_session, seed_length, prefix_from, event_count, origin, search_pending_from)
    VALUES (@id, @version, @created_at, @updated_at, @cwd, @title, @parent_session, @seed_length, @prefix_from, @event_count, @origin, @search_pending_from)`,
  getSession: 'SELECT * FROM sessions WHERE id = ?',
  listSessions: 'SELECT * FROM sessions ORDER BY updated_at DESC, id',
  listChildren: 'SELECT * FROM sessions WHERE prefix_from = ?',
  sessionEventCount: 'SELECT event_count, owner_token, owner_pid, owner_host, search_pending_from FROM sessions WHERE id = ?',
  updateEventCount: 'UPDATE sessions SET event_count = ?, updated_at = ? WHERE id = ?',
  /**
   * The write path's whole per-batch bookkeeping in one statement: advances the event count, the
   * activity time and (when the batch holds a turn marker) the last-turn state, and starts the
   * session's deferred search documents at the batch when asked and none are pending yet — but only
   * when the stored next seq is the batch's first and the claim token (if given) still owns the
   * session; no row comes back otherwise (the caller then finds out why). Returns the session's
   * `search_pending_from` after the update (NULL: write the batch's documents with it).
   * Params: new event_count, updated_at, last_turn or NULL, first deferred seq or NULL, id, expected event_count, owner token or NULL (twice).
   */
  advanceEventCount: `UPDATE sessions SET event_count = ?, updated_at = ?, last_turn = coalesce(?, last_turn), search_pending_from = coalesce(search_pending_from, ?)
    WHERE id = ? AND event_count = ? AND (? IS NULL OR owner_token = ?) RETURNING search_pending_from`,
  /** A commit that changes nothing but the activity time (the writer thread's durable last commit). Params: updated_at, id. */
  touchSession: 'UPDATE sessions SET updated_at = ? WHERE id = ?',
  setTitle: 'UPDATE sessions SET title = ? WHERE id = ?',
  setOwner: `UPDATE sessions SET owner_pid = @pid, owner_start = @start, owner_host = @host, owner_since = @since, owner_token = @token
    WHERE id = @id`,
  clearPrefix: 'UPDATE sessions SET prefix_from = NULL WHERE id = ?',
  deleteSession: 'DELETE FROM sessions WHERE id = ?',
  insertEvent: `INSERT INTO events (session_id, seq, last_seq, type, time, data, surface_op, source_event_seqs, ignorable)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  /**
   * Rows overlapping [from, to). A packed row may start before `from`, but never more than
   * MAX_PACKED_MEMBERS - 1 seqs before it, so the primary-key range scan stays bounded.
   * Params: session_id, lowest possible row start, to, from.
   */
  readRange: `SELECT seq, last_seq, type, time, data, surface_op, source_event_seqs, ignorable FROM events
    WHERE session_id = ? AND seq >= ? AND seq < ? AND last_seq >= ? ORDER BY seq`,
  /** One indexed event. Params: session_id, seq, kind, text. */
  insertSearchDoc: 'INSERT INTO search_docs (session_id, seq, kind, text) VALUES (?, ?, ?, ?)',
  /** A session whose search documents are behind its events (schema 5), and how far. */
  searchPendingSession: `SELECT id, search_pending_from AS pendingFrom, event_count AS eventCount FROM sessions
    WHERE search_pending_from IS NOT NULL AND search_pending_from < event_count LIMIT 1`,
  /** The searchable events of one session with `from <= seq < to`. Params: session_id, from, to. */
  searchPendingSource: `SELECT seq, type, data FROM events
    WHERE session_id = ? AND seq >= ? AND seq < ? AND type IN ('user/message', 'assistant/message', 'tool/result') ORDER BY seq`,
  setSearchPending: 'UPDATE sessions SET search_pending_from = ? WHERE id = ?',
  /** How far the FTS index has caught up with `search_docs`, and how far it has to go. */
  searchProgress: 'SELECT (SELECT indexed_upto FROM search_state WHERE id = 1) AS upto, (SELECT max(id) FROM search_docs) AS latest',
  /** Indexes the documents after the watermark. Params: watermark. */
  searchCatchUp: 'INSERT INTO search_index (rowid, text) SELECT id, text FROM search_docs WHERE id > ? ORDER BY id',
  setSearchProgress: 'UPDATE search_state SET indexed_upto = ? WHERE id = 1',
  /** Newest hits first. Params: FTS5 match expression, limit. */
  search: `SELECT d.session_id AS sessionId, d.seq AS seq, d.kind AS kind, d.text AS text FROM search_index
    JOIN search_docs d ON d.id = search_index.rowid WHERE search_index MATCH ? ORDER BY search_index.rowid DESC LIMIT ?`,
  /** Newest hits of one session first. Params: FTS5 match expression, session_id, limit. */
  searchSession: `SELECT d.session_id AS sessionId, d.seq AS seq, d.kind AS kind, d.text AS text FROM search_index
    JOIN search_docs d ON d.id = search_index.rowid WHERE search_index MATCH ? AND d.session_id = ? ORDER BY search_index.rowid DESC LIMIT ?`,
  setLastTurn: 'UPDATE sessions SET last_turn = ? WHERE id = ?',
  /** The latest unpacked event of a type before a seq (the route in effect for a tail view). Params: session_id, before seq, type. */
  lastOfTypeBefore: `SELECT seq, last_seq, type, time, data, surface_op, source_event_seqs, ignorable FROM events
    WHERE session_id = ? AND seq < ? AND type = ? ORDER BY seq DESC LIMIT 1`,
  /** Changes when another connection commits (https://www.sqlite.org/pragma.html#pragma_data_version). */
  dataVersion: 'PRAGMA data_version',
  userVersion: 'PRAGMA user_version',
  applicationId: 'PRAGMA application_id',
  tableCount: "SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table'",
} as const;

export type StatementName = keyof typeof SQL;
