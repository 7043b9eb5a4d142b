/**
 * Opens a SqliteSessionStore on a real file in a temp directory for the contract suite, with raw
 * SQL access (a second, independent better-sqlite3 connection) for damage and layout tests.
 */
import Database from 'better-sqlite3';
import { SqliteSessionStore, type SqliteStoreOptions } from '../../electron/store/sqlite-session-store.js';
import type { RawStorage, StoreUnderTest } from './store-contract.js';
import { tempDir } from './store-fixtures.js';

/** Raw SQL over a store file; the row that holds `seq` is the one with seq <= it <= last_seq. */
export function rawSqlite(file: string): RawStorage & { close(): void; db: Database.Database } {
  const db = new Database(file);
  db.pragma('busy_timeout = 5000');
  const holding = 'session_id = ? AND seq <= ? AND last_seq >= ?';
  return {
    db,
    rowCount: (id) => (db.prepare('SELECT count(*) AS n FROM events WHERE session_id = ?').get(id) as { n: number }).n,
    corruptData: (id, seq) => {
      const row = db.prepare(`SELECT seq FROM events WHERE ${holding}`).get(id, seq, seq) as { seq: number } | undefined;
      if (!row) throw new Error(`no row holds seq ${seq}`);
      db.prepare(`UPDATE events SET data = '{"turn":1,"ste' WHERE session_id = ? AND seq = ?`).run(id, row.seq);
      return row.seq;
    },
    deleteRow: (id, seq) => {
      const r = db.prepare(`DELETE FROM events WHERE ${holding}`).run(id, seq, seq);
      if (r.changes !== 1) throw new Error(`no row holds seq ${seq}`);
    },
    dropEvents: () => {
      db.exec('DROP TABLE events');
    },
    close: () => db.close(),
  };
}

export function sqliteUnderTest(options: SqliteStoreOptions = {}): StoreUnderTest & { readonly file: string } {
  const tmp = tempDir();
  const file = tmp.file('sessions.db');
  const stores: SqliteSessionStore[] = [new SqliteSessionStore(file, options)];
  const raw = rawSqlite(file);
  return {
    file,
    get store() {
      return stores[stores.length - 1]!;
    },
    raw,
    reopen() {
      stores[stores.length - 1]!.close();
      const next = new SqliteSessionStore(file, options);
      stores.push(next);
      return next;
    },
    dispose() {
      for (const s of stores) s.close();
      raw.close();
      tmp.dispose();
    },
  };
}
