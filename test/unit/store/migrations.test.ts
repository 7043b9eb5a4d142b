/**
 * Each schema migration (electron/store/migrations/NNN-name.ts) applied to a database of the
 * version before it: schema 2 is the real fixture file (test/fixtures/stores/forkline-store-v2.db);
 * the versions without a fixture are built from the migration files themselves.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { applyMigration, MIGRATION_LIST, MIGRATIONS, SCHEMA_VERSION } from '../../../electron/store/migrations/index.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { tempDir } from '../../support/store-fixtures.js';

const FIXTURE = join(import.meta.dirname, '../../fixtures/stores/forkline-store-v2.db');

describe('one migration per file', () => {
  const tmp = tempDir('forkline-migrations-');
  afterAll(() => tmp.dispose());
  let n = 0;

  /** A new file at `version`, built by running migrations 1 … version from their files. */
  function built(version: number): Database.Database {
    const db = new Database(tmp.file(`built-${n++}.db`));
    for (const m of MIGRATION_LIST.slice(0, version)) applyMigration(db, m);
    db.pragma(`user_version = ${version}`);
    return db;
  }

  /** A copy of the real schema-2 fixture, optionally migrated further by the files up to `version`. */
  function fromFixture(version = 2): Database.Database {
    const file = tmp.file(`fixture-${n++}.db`);
    copyFileSync(FIXTURE, file);
    const db = new Database(file);
    expect(db.pragma('user_version', { simple: true })).toBe(2);
    for (const m of MIGRATION_LIST.slice(2, version)) applyMigration(db, m);
    return db;
  }

  const columns = (db: Database.Database, table: string): string[] => (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).map((c) => c.name);
  const tables = (db: Database.Database): string[] => (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((t) => t.name);
  const insertSession = (db: Database.Database, id: string, ownerPid: number | null, updatedAt = 7): void => {
    db.prepare('INSERT INTO sessions (id, version, created_at, updated_at, event_count, owner_pid) VALUES (?, 1, 1, ?, 0, ?)').run(id, updatedAt, ownerPid);
  };

  it('the list is contiguous and names each file by its version', () => {
    expect(MIGRATION_LIST.map((m) => m.version)).toEqual([1, 2, 3, 4, 5]);
    expect(SCHEMA_VERSION).toBe(MIGRATION_LIST.length);
    for (const m of MIGRATION_LIST) expect(MIGRATIONS[m.version]).toBe(m);
    expect(MIGRATION_LIST.map((m) => m.name)).toEqual(['initial', 'origin', 'ownership', 'search', 'deferred-search']);
  });

  it('001-initial: an empty file gets the sessions and events tables', () => {
    const db = built(0);
    applyMigration(db, MIGRATIONS[1]!);
    expect(tables(db)).toEqual(['events', 'sessions']);
    insertSession(db, 's', null);
    db.prepare("INSERT INTO events (session_id, seq, last_seq, type, time, data) VALUES ('s', 0, 0, 'session/start', 1, '{}')").run();
    expect(db.prepare('SELECT count(*) AS n FROM events').get()).toEqual({ n: 1 });
    db.close();
  });

  it('002-origin: a schema-1 session gets a NULL origin (native)', () => {
    const db = built(1);
    insertSession(db, 'old', null);
    applyMigration(db, MIGRATIONS[2]!);
    expect(columns(db, 'sessions')).toContain('origin');
    expect(db.prepare('SELECT origin FROM sessions WHERE id = ?').get('old')).toEqual({ origin: null });
    db.close();
  });

  it('003-ownership: on the real schema-2 file, a bare pid mark gets its last append time as claim time; unowned rows stay NULL', () => {
    const db = fromFixture(2);
    insertSession(db, 'marked', 4242, 99);
    const before = db.prepare('SELECT id, owner_pid, updated_at FROM sessions ORDER BY id').all() as { id: string; owner_pid: number | null; updated_at: number }[];
    applyMigration(db, MIGRATIONS[3]!);
    expect(columns(db, 'sessions')).toEqual(expect.arrayContaining(['owner_start', 'owner_host', 'owner_since', 'owner_token']));
    const after = db.prepare('SELECT id, owner_since, owner_token FROM sessions ORDER BY id').all() as { id: string; owner_since: number | null; owner_token: string | null }[];
    expect(after).toEqual(before.map((r) => ({ id: r.id, owner_since: r.owner_pid !== null ? r.updated_at : null, owner_token: null })));
    expect(after.find((r) => r.id === 'marked')!.owner_since).toBe(99);
    db.close();
  });

  it('004-search: on the real file at schema 3, existing messages and tool results are indexed, damaged rows skipped, last turns recorded', () => {
    const db = fromFixture(3);
    insertSession(db, 'damaged', null);
    db.prepare("INSERT INTO events (session_id, seq, last_seq, type, time, data) VALUES ('damaged', 0, 0, 'user/message', 1, 'not json')").run();
    applyMigration(db, MIGRATIONS[4]!);
    expect(tables(db)).toEqual(expect.arrayContaining(['search_docs', 'search_index', 'search_state']));
    const docs = db.prepare('SELECT session_id, kind, text FROM search_docs ORDER BY id').all() as { session_id: string; kind: string; text: string }[];
    expect(docs.some((d) => d.session_id === 'v2-session-1' && d.kind === 'tool' && d.text.includes('TypeError'))).toBe(true);
    expect(docs.some((d) => d.session_id === 'damaged')).toBe(false);
    expect(db.prepare('SELECT last_turn FROM sessions WHERE id = ?').get('v2-session-1')).toEqual({ last_turn: 'error' });
    expect(db.prepare('SELECT last_turn FROM sessions WHERE id = ?').get('v2-session-2')).toEqual({ last_turn: 'open' });
    expect(db.prepare('SELECT indexed_upto FROM search_state').get()).toEqual({ indexed_upto: 0 });
    db.close();
  });

  it('005-deferred-search: a schema-4 session has no search documents pending', () => {
    const db = built(4);
    insertSession(db, 'old', null);
    applyMigration(db, MIGRATIONS[5]!);
    expect(db.prepare('SELECT search_pending_from FROM sessions WHERE id = ?').get('old')).toEqual({ search_pending_from: null });
    db.close();
  });

  it('the store opens a file of every earlier version and brings it to SCHEMA_VERSION', () => {
    for (let v = 0; v < SCHEMA_VERSION; v++) {
      const db = built(v);
      const file = db.name;
      db.close();
      new SqliteSessionStore(file).close();
      const check = new Database(file, { readonly: true });
      expect(check.pragma('user_version', { simple: true }), `from ${v}`).toBe(SCHEMA_VERSION);
      check.close();
    }
  });
});
