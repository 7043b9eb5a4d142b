/**
 * SQLite-specific behaviour of SqliteSessionStore on real files: schema gate, append-only rows,
 * chunk packing bounds, transaction atomicity at the onRowWritten failpoint, connection pragmas.
 */
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreError } from '../../../shared/errors.js';
import { Session } from '../../../electron/session/session.js';
import { SqliteSessionStore, type RowWritten } from '../../../electron/store/sqlite-session-store.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../../electron/store/migrations/index.js';
import { APPLICATION_ID } from '../../../electron/store/sql.js';
import { AgentLogWriter, buildSession, header, serializeAll, steppingClock, tempDir } from '../../support/store-fixtures.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.dispose());

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
}

describe('SqliteSessionStore schema gate', () => {
  it('migrates a version-1 file to the session origin column, keeping its sessions native', () => {
    const file = tmp.file('v1.db');
    const v1 = new Database(file);
    v1.exec(MIGRATIONS[1]!.sql);
    v1.pragma('user_version = 1');
    v1.pragma(`application_id = ${APPLICATION_ID}`);
    v1.prepare('INSERT INTO sessions (id, version, created_at, updated_at, event_count) VALUES (?, 0, 1, 1, 0)').run('old');
    v1.close();
    const store = new SqliteSessionStore(file);
    expect(store.get('old')?.header.origin).toBeUndefined();
    const imported = { ...header('new'), origin: { kind: 'imported', format: 'codex', formatVersion: '0.135', file: 'x.jsonl', importedAt: 5 } } as const;
    store.createSession(imported, buildSession('new', 1, 3).events);
    store.close();
    const reopened = new SqliteSessionStore(file);
    expect(reopened.get('new')?.header.origin).toEqual(imported.origin);
    reopened.close();
    const raw = new Database(file, { readonly: true });
    expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    raw.close();
  });

  it('initialises a fresh file (version, application id, WAL) and reopens it unchanged', () => {
    const file = tmp.file('fresh.db');
    new SqliteSessionStore(file).close();
    const raw = new Database(file, { readonly: true });
    expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(raw.pragma('application_id', { simple: true })).toBe(APPLICATION_ID);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    const tables = raw.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual(['events', 'search_docs', 'search_index', 'search_index_config', 'search_index_data', 'search_index_docsize', 'search_index_idx', 'search_state', 'sessions']);
    raw.close();
    const again = new SqliteSessionStore(file);
    again.createSession(header('a'), buildSession('a', 1, 3).events);
    again.close();
    expect(new SqliteSessionStore(file).list().map((r) => r.header.id)).toEqual(['a']);
  });

  it("refuses another application's database, a foreign application id and a newer schema, leaving them untouched", () => {
    const foreign = tmp.file('foreign.db');
    const f = new Database(foreign);
    f.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)');
    f.close();
    expect(code(() => new SqliteSessionStore(foreign))).toBe('SCHEMA_UNSUPPORTED');
    const check = new Database(foreign, { readonly: true });
    expect(check.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all()).toEqual(['notes']);
    check.close();

    const otherApp = tmp.file('other-app.db');
    const o = new Database(otherApp);
    o.pragma('application_id = 1234');
    o.close();
    expect(code(() => new SqliteSessionStore(otherApp))).toBe('SCHEMA_UNSUPPORTED');

    const newer = tmp.file('newer.db');
    new SqliteSessionStore(newer).close();
    const n = new Database(newer);
    n.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    n.close();
    let error: unknown;
    try {
      new SqliteSessionStore(newer);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).message).toMatch(/Upgrade Forkline/);
  });
});

describe('SqliteSessionStore rows', () => {
  it('is append-only: later batches never rewrite earlier rows, even when a chunk run continues across batches', () => {
    const file = tmp.file('append-only.db');
    const store = new SqliteSessionStore(file);
    const s = new Session({ header: header('ao'), now: steppingClock() });
    const w = new AgentLogWriter(s);
    w.inboxInsert('go');
    w.turnStart();
    w.claim();
    w.stepStart();
    w.user('go');
    const r = w.stream({ reasoning: Array.from({ length: 40 }, (_, i) => `r${i}`) });
    const cut = r.chunkSeqs[20]!;
    store.createSession(header('ao'), s.events.slice(0, cut));
    const raw = new Database(file, { readonly: true });
    const rows = () => raw.prepare('SELECT seq, last_seq, type, time, data FROM events WHERE session_id = ? ORDER BY seq').all('ao') as { seq: number; last_seq: number; type: string; data: string }[];
    const before = rows();
    store.append('ao', s.events.slice(cut));
    const after = rows();
    expect(after.slice(0, before.length)).toEqual(before);
    // The continuation became its own packed row; nothing merged into the stored one.
    expect(after.filter((row) => row.type === 'reasoning-chunks').map((row) => [row.seq, row.last_seq])).toEqual([
      [r.chunkSeqs[1], cut - 1],
      [cut, r.chunkSeqs[40]],
    ]);
    expect(serializeAll(store.readAll('ao'))).toEqual(serializeAll(s.events));
    raw.close();
    store.close();
  });

  it('packs runs of at least 3 deltas into rows of at most 1024 members', () => {
    const file = tmp.file('bounds.db');
    const store = new SqliteSessionStore(file);
    const s = new Session({ header: header('pk'), now: steppingClock() });
    const w = new AgentLogWriter(s);
    w.turnStart();
    w.stepStart();
    w.stream({ text: Array.from({ length: 3000 }, (_, i) => `t${i}`) });
    store.createSession(header('pk'), s.events);
    const raw = new Database(file, { readonly: true });
    const packed = raw.prepare("SELECT seq, last_seq FROM events WHERE session_id = 'pk' AND type = 'text-chunks' ORDER BY seq").all() as { seq: number; last_seq: number }[];
    expect(packed.map((p) => p.last_seq - p.seq + 1)).toEqual([1024, 1024, 952]);
    expect(raw.prepare("SELECT count(*) FROM events WHERE session_id = 'pk'").pluck().get()).toBe(s.length - 3000 + 3);
    raw.close();
    for (const from of [0, 3, 1026, 1027, 2050, 3001, s.length]) {
      expect(serializeAll(store.readFrom('pk', from))).toEqual(serializeAll(s.events.slice(from)));
    }
    store.close();
  });

  it('a failure inside the write transaction (onRowWritten failpoint) rolls the whole batch back', () => {
    const file = tmp.file('atomic.db');
    let failAt: number | undefined;
    const seen: RowWritten[] = [];
    const store = new SqliteSessionStore(file, {
      onRowWritten: (row) => {
        seen.push(row);
        if (row.rowIndex === failAt) throw new Error('injected failure inside the transaction');
      },
    });
    const s = buildSession('atomic', 2, 10);
    const half = Math.floor(s.length / 2);
    store.createSession(header('atomic'), s.events.slice(0, half));
    const written = seen.length;
    expect(written).toBeGreaterThan(3);
    expect(seen.map((r) => r.rowIndex)).toEqual(seen.map((_, i) => i));
    failAt = 3;
    expect(() => store.append('atomic', s.events.slice(half))).toThrow(/injected failure/);
    expect(seen.length).toBe(written + 4);
    expect(store.get('atomic')?.eventCount).toBe(half);
    expect(serializeAll(store.readAll('atomic'))).toEqual(serializeAll(s.events.slice(0, half)));
    failAt = undefined;
    store.append('atomic', s.events.slice(half));
    expect(serializeAll(store.readAll('atomic'))).toEqual(serializeAll(s.events));
    store.close();
  });

  it('a closed store refuses work with STORE_CLOSED', () => {
    const store = new SqliteSessionStore(tmp.file('closed.db'));
    store.close();
    store.close();
    expect(code(() => store.list())).toBe('STORE_CLOSED');
    expect(code(() => store.append('x', buildSession('x', 1, 3).events))).toBe('STORE_CLOSED');
    expect(code(() => store.readAll('x'))).toBe('STORE_CLOSED');
    expect(code(() => store.createSession(header('y'), []))).toBe('STORE_CLOSED');
  });

  it('indexes in batches yet every search sees every stored document, also ones another connection wrote; deleting unindexed documents keeps the index intact', () => {
    const file = tmp.file('batches.db');
    const a = new SqliteSessionStore(file);
    const b = new SqliteSessionStore(file);
    const one = buildSession('one', 2, 3);
    a.createSession(one.header, one.events);
    const two = buildSession('two', 2, 3);
    b.createSession(two.header, two.events);
    // Neither connection has reached a batch yet; the search indexes what is pending first.
    expect(
      a
        .search({ terms: ['contents of src/2'], limit: 10 })
        .map((h) => h.sessionId)
        .sort(),
    ).toEqual(['one', 'two']);
    const three = buildSession('three', 1, 3);
    b.createSession(three.header, three.events);
    b.delete('three');
    b.delete('one');
    expect(a.search({ terms: ['contents of src/'], limit: 10 }).map((h) => h.sessionId)).toEqual(['two', 'two']);
    a.close();
    b.close();
    const raw = new Database(file);
    raw.exec("INSERT INTO search_index(search_index) VALUES ('integrity-check')");
    expect(raw.prepare('SELECT indexed_upto FROM search_state').pluck().get()).toBe(raw.prepare('SELECT max(id) FROM search_docs').pluck().get());
    raw.close();
  });
});
