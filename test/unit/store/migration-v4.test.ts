/**
 * Schema 4 (full-text search + last-turn state) migrating a real schema-2 store file written by an
 * earlier build (test/fixtures/stores/forkline-store-v2.db; see test/fixtures/INDEX.md): existing
 * sessions are indexed on migrate, their events read back unchanged, and the write path keeps the
 * index and the state current afterwards. Version 3 (ownership, issue 10) is an empty placeholder
 * in this branch, so the walk 2 → 3 → 4 is the one a merged build takes.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SessionRepository } from '../../../electron/store/session-repository.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../../electron/store/migrations/index.js';
import { AgentLogWriter, tempDir } from '../../support/store-fixtures.js';

const FIXTURE = join(import.meta.dirname, '../../fixtures/stores/forkline-store-v2.db');

describe('schema 4 migration from a real schema-2 file', () => {
  const tmp = tempDir('forkline-migrate-');
  afterAll(() => tmp.dispose());

  function copy(name: string): string {
    const file = tmp.file(name);
    copyFileSync(FIXTURE, file);
    return file;
  }

  function rawRows(file: string): { user_version: number; events: unknown[] } {
    const db = new Database(file, { readonly: true });
    try {
      return {
        user_version: db.pragma('user_version', { simple: true }) as number,
        events: db.prepare('SELECT session_id, seq, last_seq, type, time, data, surface_op, source_event_seqs FROM events ORDER BY session_id, seq').all(),
      };
    } finally {
      db.close();
    }
  }

  it('walks every version contiguously (3: ownership, 4: search, 5: deferred search documents)', () => {
    expect(SCHEMA_VERSION).toBe(5);
    for (let v = 1; v <= SCHEMA_VERSION; v++) expect(MIGRATIONS[v]?.version, `migration ${v}`).toBe(v);
  });

  it('indexes existing sessions on migrate, records their last turn, and leaves every event row untouched', () => {
    const file = copy('v2.db');
    const before = rawRows(file);
    expect(before.user_version).toBe(2);
    const store = new SqliteSessionStore(file);
    try {
      expect(rawRows(file).events).toEqual(before.events);
      expect(rawRows(file).user_version).toBe(SCHEMA_VERSION);
      // The bash result of session 1 held the TypeError; the fork child reads that event by reference, so it is the parent's hit.
      const hits = store.search({ terms: ['typeerror'], limit: 10 });
      expect(hits.map((h) => [h.sessionId, h.kind])).toEqual([['v2-session-1', 'tool']]);
      expect(store.readAll('v2-session-1')[hits[0]!.seq]!.type).toBe('tool/result');
      expect(store.search({ terms: ['rename the helper'], limit: 10 }).map((h) => h.sessionId)).toEqual(['v2-session-2']);
      expect(store.search({ terms: ['added a guard'], limit: 10 }).map((h) => h.kind)).toEqual(['assistant']);
      expect(store.get('v2-session-1')!.lastTurn).toBe('error');
      expect(store.get('v2-session-2')!.lastTurn).toBe('open');
      expect(store.get('v2-session-3')!.lastTurn).toBeUndefined();
      // Reads follow the prefix reference as before.
      expect(store.readAll('v2-session-3')).toHaveLength(store.get('v2-session-3')!.eventCount);
    } finally {
      store.close();
    }
    // Reopening does not index twice.
    const again = new SqliteSessionStore(file);
    expect(again.search({ terms: ['typeerror'], limit: 10 })).toHaveLength(1);
    again.close();
  });

  it('keeps the index and the last-turn state current through the write path after migrating (recovery, resume, delete)', async () => {
    const file = copy('v2-live.db');
    const store = new SqliteSessionStore(file);
    let n = 0;
    // The fixture's owner pid is taken as gone (a crash): the repository recovers and may claim it.
    const repo = new SessionRepository(store, { newId: () => `new-${++n}`, probe: { liveness: () => 'gone', isPidAlive: () => false, startedAtMs: () => undefined } });
    try {
      // Opening the crashed session closes its turn: the state follows.
      expect(repo.load('v2-session-2').repaired).toBeGreaterThan(0);
      expect(store.get('v2-session-2')!.lastTurn).toBe('interrupted');
      const live = repo.resume('v2-session-2');
      const w = new AgentLogWriter(live.session);
      w.turnStart();
      w.stepStart();
      w.user('please grep for ZeroDivisionError in the logs');
      await live.flush();
      expect(store.get('v2-session-2')!.lastTurn).toBe('open');
      expect(store.search({ terms: ['ZeroDivisionError'], limit: 5 }).map((h) => h.sessionId)).toEqual(['v2-session-2']);
      w.stepEnd();
      w.turnEnd();
      await live.release();
      expect(store.get('v2-session-2')!.lastTurn).toBe('completed');
      // Deleting the parent gives the fork child its own copy of the prefix, indexed under the child.
      repo.delete('v2-session-1');
      expect(store.search({ terms: ['typeerror'], limit: 10 }).map((h) => h.sessionId)).toEqual(['v2-session-3']);
      const db = new Database(file, { timeout: 5000 });
      expect(db.prepare("SELECT count(*) FROM search_docs WHERE session_id = 'v2-session-1'").pluck().get()).toBe(0);
      db.exec("INSERT INTO search_index(search_index) VALUES ('integrity-check')");
      db.close();
    } finally {
      repo.dispose();
      store.close();
    }
  });
});
