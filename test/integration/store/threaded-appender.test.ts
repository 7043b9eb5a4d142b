/**
 * The writer thread of large imports (ThreadedAppender, issue 12 item 5): a real worker thread with
 * its own connection to a real SQLite file. Its rows are the ones the synchronous path writes
 * (chunk runs packed the same way); a batch it refuses (another writer got there first, a store it
 * cannot open) is thrown to the caller; an import that fails while it runs leaves nothing behind.
 */
import { mkdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { SessionCorruptionError, StoreError } from '../../../shared/errors.js';
import { IMPORT_BATCH_EVENTS } from '../../../electron/import/log-writer.js';
import { SessionRepository } from '../../../electron/store/session-repository.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { ThreadedAppender } from '../../../electron/store/threaded-appender.js';
import { claudeCodeTranscript } from '../../support/claude-code-log.js';
import { rawSqlite } from '../../support/sqlite-store-harness.js';
import { buildSession, tempDir } from '../../support/store-fixtures.js';
import { beginImport, importText } from '../../../electron/host/services/session-imports.js';

describe('ThreadedAppender (writer thread of large imports)', () => {
  const tmp = tempDir('forkline-threaded-');
  afterAll(() => tmp.dispose());

  function rows(file: string, id: string): unknown[] {
    const raw = rawSqlite(file);
    try {
      return raw.db.prepare('SELECT seq, last_seq, type, time, data, surface_op, source_event_seqs, ignorable FROM events WHERE session_id = ? ORDER BY seq').all(id);
    } finally {
      raw.close();
    }
  }

  it('writes the same rows as the synchronous path given the same batches (chunk runs packed alike), and its thread ends when closed', async () => {
    const session = buildSession('threaded', 12, 9);
    // Every column's odd values too: a lone surrogate in a text (the writer thread serialises the
    // JSON columns; a structured clone must keep every UTF-16 code unit) and an ignorable event.
    let marked = 0;
    const events = session.events.map((event, i) => {
      if (i < 10 || marked >= 2) return event;
      if (event.type === 'user/message') {
        marked++;
        return { ...event, data: { ...event.data, text: `lone \ud800 surrogate, then \udfff` } } as typeof event;
      }
      if (event.type === 'request/header' && !event.ignorable) {
        marked++;
        return { ...event, ignorable: true } as typeof event;
      }
      return event;
    });
    expect(marked).toBe(2);
    const file = tmp.file('same-rows.db');
    const store = new SqliteSessionStore(file);
    store.createSession(session.header, events.slice(0, 10), { deferSearch: true });
    const appender = store.backgroundAppender('threaded')!;
    expect(appender).toBeInstanceOf(ThreadedAppender);
    for (let from = 10; from < events.length; from += 17) appender.append(events.slice(from, from + 17));
    appender.drain();
    appender.close();
    await (appender as ThreadedAppender).stopped; // the thread ends with it
    expect(store.readAll('threaded')).toEqual(events);
    expect(store.get('threaded')!.eventCount).toBe(events.length);
    expect(store.get('threaded')!.lastTurn).toBe('completed');
    const sync = tmp.file('sync-rows.db');
    const reference = new SqliteSessionStore(sync);
    reference.createSession(session.header, events.slice(0, 10), { deferSearch: true });
    for (let from = 10; from < events.length; from += 17) reference.append('threaded', events.slice(from, from + 17));
    expect(rows(file, 'threaded')).toEqual(rows(sync, 'threaded'));
    reference.close();
    store.close();
  });

  it('throws a batch the store refused (another writer appended first) and writes nothing after it', () => {
    const session = buildSession('raced', 4, 3);
    const events = session.events;
    const file = tmp.file('raced.db');
    const store = new SqliteSessionStore(file);
    store.createSession(session.header, events.slice(0, 5), { deferSearch: true });
    const appender = store.backgroundAppender('raced')!;
    // Another connection takes seq 5 first: the thread's batch starting at 5 is stale.
    const other = new SqliteSessionStore(file);
    other.append('raced', events.slice(5, 6));
    other.close();
    let thrown: unknown;
    try {
      // The refusal comes back with whichever call collects the worker's answer: this one when
      // the worker is quick, else the next append or the drain.
      appender.append(events.slice(5, 8));
      appender.append(events.slice(8, 10));
      appender.drain();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StoreError);
    expect((thrown as StoreError).code).toBe('STALE_APPEND');
    appender.close();
    expect(store.get('raced')!.eventCount).toBe(6);
    // A gap in what the caller posts is refused before anything is posted.
    const next = store.backgroundAppender('raced')!;
    expect(() => next.append(events.slice(7, 9))).toThrow(/gap/);
    next.close();
    store.close();
  });

  it('refuses a session that indexes as it is written, and a store the thread cannot open before anything is posted', () => {
    const session = buildSession('inline', 1, 3);
    const store = new SqliteSessionStore(tmp.file('inline.db'));
    store.createSession(session.header, session.events.slice(0, 3));
    expect(() => store.backgroundAppender('inline')).toThrow(/deferred search documents/);
    store.close();
    const folder = tmp.file('a-folder');
    mkdirSync(folder);
    // Refused by the constructor, before any batch could be posted (the store then writes on its own thread).
    expect(() => new ThreadedAppender(folder, 'inline', 3, () => [], Date.now)).toThrow(/writer thread could not open/);
  });

  it('an import that fails while the thread writes (a damaged line after several batches) leaves nothing behind', () => {
    const lines = [...claudeCodeTranscript(400)];
    const damagedAt = Math.floor(lines.length * 0.8);
    lines[damagedAt] = '{"type":"assistant","message":{"content":[';
    const file = tmp.file('failed-import.db');
    const store = new SqliteSessionStore(file);
    const repo = new SessionRepository(store, { newId: () => 'fallback' });
    const job = beginImport(repo, 'damaged.jsonl');
    let thrown: unknown;
    try {
      for (let i = 0; i < lines.length; i += 500) job.write(`${lines.slice(i, i + 500).join('\n')}\n`);
      job.end();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SessionCorruptionError);
    expect(String((thrown as Error).message)).toContain(`line ${damagedAt + 1}`);
    expect(store.list()).toEqual([]);
    expect(rows(file, '5c1f0d4e-8a9b-4c2d-9e3f-0a1b2c3d4e5f')).toEqual([]);
    // It got far enough to use the thread: the events before the damaged line span several batches.
    const healthy = importText(new SessionRepository(new SqliteSessionStore(tmp.file('healthy.db')), { newId: () => 'x' }), lines.slice(0, damagedAt).join('\n'));
    expect(healthy.events).toBeGreaterThan(2 * IMPORT_BATCH_EVENTS);
    repo.dispose();
    store.close();
  });
});
