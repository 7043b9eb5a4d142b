/**
 * Deferred search documents (schema 5, issue 12 item 5): an import stores its events without their
 * search documents; they are written afterwards in short passes (`indexPendingSearch`, the
 * repository's background passes) and always before a search answers. Real SQLite files, a real
 * Claude Code log from the fixtures, and two connections passing the work between them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SessionRepository } from '../../../electron/store/session-repository.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { rawSqlite } from '../../support/sqlite-store-harness.js';
import { tempDir } from '../../support/store-fixtures.js';
import { importText } from '../../../electron/host/services/session-imports.js';

const LOG = join(import.meta.dirname, '../../fixtures/agent-session-logs/claude-code/cc_coverage-test-fix.jsonl');

describe('deferred search documents of imported sessions', () => {
  const tmp = tempDir('forkline-deferred-search-');
  afterAll(() => tmp.dispose());

  function importInto(file: string): { store: SqliteSessionStore; repo: SessionRepository; id: string } {
    const store = new SqliteSessionStore(file);
    let n = 0;
    const repo = new SessionRepository(store, { newId: () => `imported-${++n}` });
    const summary = importText(repo, readFileSync(LOG, 'utf8'), 'cc_coverage-test-fix.jsonl');
    return { store, repo, id: summary.sessionId };
  }

  function docState(file: string, id: string): { docs: number; pendingFrom: number | null; eventCount: number } {
    const raw = rawSqlite(file);
    try {
      const docs = (raw.db.prepare('SELECT count(*) AS n FROM search_docs WHERE session_id = ?').get(id) as { n: number }).n;
      const row = raw.db.prepare('SELECT search_pending_from AS pendingFrom, event_count AS eventCount FROM sessions WHERE id = ?').get(id) as {
        pendingFrom: number | null;
        eventCount: number;
      };
      return { docs, ...row };
    } finally {
      raw.close();
    }
  }

  it('an import writes no documents; passes of a few events write them all once, from two connections taking turns', () => {
    const file = tmp.file('two-connections.db');
    const { store, repo, id } = importInto(file);
    repo.dispose();
    const after = docState(file, id);
    expect(after.docs).toBe(0);
    expect(after.pendingFrom).toBe(0);
    const other = new SqliteSessionStore(file);
    let passes = 0;
    // Alternate connections, 7 events a pass: each pass claims its range inside its own transaction.
    for (let more = true; more; passes++) more = (passes % 2 === 0 ? store : other).indexPendingSearch(7);
    expect(passes).toBeGreaterThan(after.eventCount / 7 - 1);
    const done = docState(file, id);
    expect(done.pendingFrom).toBe(done.eventCount);
    expect(store.indexPendingSearch(7)).toBe(false);
    // One document per searchable event, exactly as the write path makes them for a live session.
    const searchable = store.readAll(id).filter((e) => e.type === 'user/message' || e.type === 'assistant/message' || e.type === 'tool/result');
    expect(done.docs).toBeGreaterThan(0);
    expect(done.docs).toBeLessThanOrEqual(searchable.length);
    const inline = tmp.file('inline.db');
    const reference = new SqliteSessionStore(inline);
    reference.createSession(store.get(id)!.header, store.readAll(id));
    expect(docState(inline, id).docs).toBe(done.docs);
    reference.close();
    other.close();
    store.close();
  });

  it('a search right after an import finds its text (the search writes what is pending first)', () => {
    const file = tmp.file('search-first.db');
    const { store, repo, id } = importInto(file);
    repo.dispose();
    const text = store
      .readAll(id)
      .filter((e) => e.type === 'tool/result')
      .map((e) => JSON.stringify(e.data))
      .find((t) => /coverage/i.test(t));
    expect(text).toBeDefined();
    const hits = store.search({ terms: ['coverage'], limit: 500 });
    expect(hits.some((h) => h.sessionId === id && h.kind === 'tool')).toBe(true);
    expect(docState(file, id).pendingFrom).toBe(store.get(id)!.eventCount);
    store.close();
  });

  it("the repository's background passes write the documents without a search, and stop when done", async () => {
    const file = tmp.file('background.db');
    const { store, repo, id } = importInto(file);
    const deadline = Date.now() + 10_000;
    while (docState(file, id).pendingFrom !== store.get(id)!.eventCount && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const state = docState(file, id);
    expect(state.pendingFrom).toBe(state.eventCount);
    expect(state.docs).toBeGreaterThan(0);
    repo.dispose();
    store.close();
  });

  it('a live session stores events only; a search mid-session finds them, and its release writes the rest in the background', async () => {
    const file = tmp.file('live.db');
    const store = new SqliteSessionStore(file);
    const repo = new SessionRepository(store, { newId: () => 'live-1' });
    const live = repo.create({ id: 'live-1' });
    const say = (id: string, text: string): void => {
      live.session.append({ type: 'user/message', data: { id, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } }, surfaceOp: 'append' });
    };
    live.session.append({ type: 'turn/start', data: { turn: 1 } });
    say('u1', 'find the zebrafish coverage');
    await live.flush();
    const mid = docState(file, 'live-1');
    expect(mid.docs).toBe(0);
    expect(mid.pendingFrom).toBe(0);
    const hits = store.search({ terms: ['zebrafish'], limit: 10 });
    expect(hits.map((h) => [h.sessionId, h.kind])).toEqual([['live-1', 'user']]);
    expect(docState(file, 'live-1').pendingFrom).toBe(store.get('live-1')!.eventCount);
    say('u2', 'and the okapi');
    await live.release();
    const deadline = Date.now() + 10_000;
    while (docState(file, 'live-1').pendingFrom !== store.get('live-1')!.eventCount && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const done = docState(file, 'live-1');
    expect(done.pendingFrom).toBe(done.eventCount);
    expect(done.docs).toBe(2);
    expect(store.search({ terms: ['okapi'], limit: 10 }).map((h) => h.sessionId)).toEqual(['live-1']);
    repo.dispose();
    store.close();
  });

  it("deleting a fork's parent gives the child's copied prefix its documents (the child deferred only its own events)", async () => {
    const file = tmp.file('fork-delete.db');
    const store = new SqliteSessionStore(file);
    let n = 0;
    const repo = new SessionRepository(store, { newId: () => `s-${++n}` });
    const parent = repo.create({ id: 'parent' });
    parent.session.append({ type: 'turn/start', data: { turn: 1 } });
    parent.session.append({ type: 'user/message', data: { id: 'u1', role: 'user', content: [{ type: 'text', text: 'the capybara prefix' }], source: { kind: 'user' } }, surfaceOp: 'append' });
    parent.session.append({ type: 'turn/end', data: { turn: 1, reason: { kind: 'completed' } } } as never);
    await parent.release();
    const forked = await repo.fork('parent');
    const child = repo.resume(forked.header.id);
    child.session.append({ type: 'turn/start', data: { turn: child.session.lastTurn + 1 } });
    await child.release();
    expect(store.search({ terms: ['capybara'], limit: 10 }).map((h) => h.sessionId)).toEqual(['parent']);
    repo.delete('parent');
    expect(store.search({ terms: ['capybara'], limit: 10 }).map((h) => h.sessionId)).toEqual([child.session.id]);
    repo.dispose();
    store.close();
  });
});
