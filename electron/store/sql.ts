/**
 * Every SQL statement of the store, by name (reference runtime pattern: SQL as named resources).
 * No other file may contain SQL; `test/unit/store/sql-boundary.test.ts` enforces it.
 */

/** How long a connection waits for another one's write lock. */
export const BUSY_TIMEOUT_MS = 5000;

/** Connection pragmas, applied in this order. `busy_timeout` comes first so nothing else can fail with SQLITE_BUSY. */
export const CONNECTION_PRAGMAS = [
  `busy_timeout = ${BUSY_TIMEOUT_MS}`,
  'journal_mode = WAL',
  'synchronous = FULL',
  'foreign_keys = ON',
  'trusted_schema = OFF',
] as const;

/** The schema version this build writes (`PRAGMA user_version`). */
export const SCHEMA_VERSION = 3;
/** `PRAGMA application_id` marking a Forkline store ('FKLN'). */
export const APPLICATION_ID = 0x464b4c4e;

/** Migrations by target version; each runs inside one transaction. */
export const MIGRATIONS: Readonly<Record<number, string>> = {
  1: `
    CREATE TABLE sessions (
      id TEXT PRIMARY KEY,
      version INTEGER NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      cwd TEXT,
      title TEXT,
      parent_session TEXT,
      seed_length INTEGER,
      prefix_from TEXT REFERENCES sessions(id),
      event_count INTEGER NOT NULL,
      owner_pid INTEGER
    ) STRICT;
    CREATE TABLE events (
      session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
      seq INTEGER NOT NULL,
      last_seq INTEGER NOT NULL,
      type TEXT NOT NULL,
      time ANY NOT NULL,
      data TEXT NOT NULL,
      surface_op TEXT,
      source_event_seqs TEXT,
      ignorable INTEGER,
      PRIMARY KEY (session_id, seq)
    ) STRICT;
    CREATE INDEX sessions_by_prefix ON sessions(prefix_from) WHERE prefix_from IS NOT NULL;
  `,
  /** Provenance (SessionHeader.origin) as JSON; NULL = native. */
  2: `ALTER TABLE sessions ADD COLUMN origin TEXT;`,
  /**
   * Session ownership a recycled pid cannot fake (issue 10): the owner's process start identity,
   * host, claim time and claim token. A schema-2 mark (owner_pid only) gets the session's last
   * append time as its claim time, the latest moment its owner can have claimed it.
   */
  3: `
    ALTER TABLE sessions ADD COLUMN owner_start TEXT;
    ALTER TABLE sessions ADD COLUMN owner_host TEXT;
    ALTER TABLE sessions ADD COLUMN owner_since INTEGER;
    ALTER TABLE sessions ADD COLUMN owner_token TEXT;
    UPDATE sessions SET owner_since = updated_at WHERE owner_pid IS NOT NULL;
  `,
};

export const SQL = {
  insertSession: `INSERT INTO sessions (id, version, created_at, updated_at, cwd, title, parent_session, seed_length, prefix_from, event_count, origin)
    VALUES (@id, @version, @created_at, @updated_at, @cwd, @title, @parent_session, @seed_length, @prefix_from, @event_count, @origin)`,
  getSession: 'SELECT * FROM sessions WHERE id = ?',
  listSessions: 'SELECT * FROM sessions ORDER BY updated_at DESC, id',
  listChildren: 'SELECT * FROM sessions WHERE prefix_from = ?',
  sessionEventCount: 'SELECT event_count, owner_token, owner_pid, owner_host FROM sessions WHERE id = ?',
  updateEventCount: 'UPDATE sessions SET event_count = ?, updated_at = ? WHERE id = ?',
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
  userVersion: 'PRAGMA user_version',
  applicationId: 'PRAGMA application_id',
  tableCount: "SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table'",
} as const;

export type StatementName = keyof typeof SQL;
