/**
 * Schema 4: full-text search (FTS5, trigram tokenizer: case-insensitive substring matching of
 * terms of 3+ characters) over the text of messages and tool results. The write path stores one
 * `search_docs` row per indexed event in the same transaction as the event (deleted with its
 * session); `search_index` is an external-content FTS5 index over those rows, brought up to
 * `search_state.indexed_upto` in batches by the write path (every few dozen documents or seconds,
 * see SqliteSessionStore) and always before a search answers, so a search sees every stored event.
 * `sessions.last_turn` is the state of the session's last turn (`open`, or its turn-end reason
 * kind) for the session list. Existing sessions are indexed when this migration runs (backfill).
 */
import type Database from 'better-sqlite3';
import type { SessionEvent } from '../../../shared/events.js';
import { lastTurnOfRow, searchableText } from '../search-text.js';
import { SQL } from '../sql.js';
import type { Migration } from './migration.js';

/** The next page of stored events that can hold searchable text, in insertion order. Params: after rowid, limit. */
const BACKFILL_SEARCH_SOURCE = `SELECT rowid AS rowid, session_id, seq, type, data FROM events
    WHERE rowid > ? AND type IN ('user/message', 'assistant/message', 'tool/result') ORDER BY rowid LIMIT ?`;
/** The last turn/start or turn/end row of each session. */
const BACKFILL_LAST_TURN_SOURCE = `SELECT e.session_id AS session_id, e.type AS type, e.data AS data FROM events e
    JOIN (SELECT session_id, max(seq) AS seq FROM events WHERE type IN ('turn/start', 'turn/end') GROUP BY session_id) last
    ON e.session_id = last.session_id AND e.seq = last.seq`;

/**
 * Indexes every stored message and tool result for search (decoded like a read, so damaged rows
 * are skipped, never fatal) and records each session's last-turn state. Runs inside the
 * migration's transaction, once, on the first open by a build with schema 4.
 */
function backfill(db: Database.Database): void {
  const insert = db.prepare(SQL.insertSearchDoc);
  const page = db.prepare(BACKFILL_SEARCH_SOURCE);
  // Paged: better-sqlite3 cannot write while a statement iterates.
  for (let after = 0; ;) {
    const rows = page.all(after, 2_000) as { rowid: number; session_id: string; seq: number; type: string; data: string }[];
    if (rows.length === 0) break;
    for (const row of rows) {
      let data: unknown;
      try {
        data = JSON.parse(row.data);
      } catch {
        continue;
      }
      const doc = searchableText({ seq: row.seq, type: row.type, time: 0, data } as SessionEvent);
      if (doc) insert.run(row.session_id, row.seq, doc.kind, doc.text);
    }
    after = rows[rows.length - 1]!.rowid;
  }
  const setLastTurn = db.prepare(SQL.setLastTurn);
  for (const row of db.prepare(BACKFILL_LAST_TURN_SOURCE).all() as { session_id: string; type: string; data: string }[]) {
    let data: unknown;
    try {
      data = JSON.parse(row.data);
    } catch {
      data = undefined;
    }
    setLastTurn.run(lastTurnOfRow(row.type, data), row.session_id);
  }
}

export const migration004: Migration = {
  version: 4,
  name: 'search',
  sql: `
    CREATE TABLE search_docs (
      id INTEGER PRIMARY KEY,
      session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
      seq INTEGER NOT NULL,
      kind TEXT NOT NULL,
      text TEXT NOT NULL
    ) STRICT;
    CREATE INDEX search_docs_by_session ON search_docs(session_id, seq);
    CREATE VIRTUAL TABLE search_index USING fts5(text, content='search_docs', content_rowid='id', tokenize='trigram remove_diacritics 1');
    CREATE TABLE search_state (id INTEGER PRIMARY KEY CHECK (id = 1), indexed_upto INTEGER NOT NULL) STRICT;
    INSERT INTO search_state (id, indexed_upto) VALUES (1, 0);
    CREATE TRIGGER search_docs_delete AFTER DELETE ON search_docs
      WHEN old.id <= (SELECT indexed_upto FROM search_state WHERE id = 1) BEGIN
      INSERT INTO search_index(search_index, rowid, text) VALUES ('delete', old.id, old.text);
    END;
    ALTER TABLE sessions ADD COLUMN last_turn TEXT;
  `,
  backfill,
};
