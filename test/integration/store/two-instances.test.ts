/**
 * Two Forkline instances on one SQLite file (docs/architecture.md §7; FIELD-NOTES class 10). A real second process
 * (test/support/store-writer-child.ts) writes to the same file while this process does: busy is
 * waited out (busy_timeout), a writer with a stale next seq is rejected with STALE_APPEND without
 * replacing the winner's rows, and afterwards every session reads back contiguous and intact.
 */
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreError } from '../../../shared/errors.js';
import type { SessionEvent } from '../../../shared/events.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { spawnTsx, waitForLine } from '../../support/crash-harness.js';
import { header, tempDir } from '../../support/store-fixtures.js';
import { raceOnce, titleBatch } from '../../support/store-writer-shared.js';

const tmp = tempDir('forkline-two-');
afterAll(() => tmp.dispose());

const RACE_MS = 700;

function payload(line: string): Record<string, number> {
  return JSON.parse(line.slice(line.indexOf(' ') + 1)) as Record<string, number>;
}

describe('a second app instance on the same file', () => {
  it('waits out busy, rejects stale appends, and leaves every session contiguous and intact', async () => {
    const file = tmp.file('shared.db');
    const store = new SqliteSessionStore(file);
    for (const id of ['shared', 'parent-own', 'child-own']) store.createSession(header(id), []);

    const child = spawnTsx('test/support/store-writer-child.ts', [file, tmp.dir, String(RACE_MS)]);
    try {
      await waitForLine(child, /^ready/);

      // 1. Busy: hold the write lock from this process; the child's append must wait, then succeed.
      const locker = new Database(file);
      locker.exec('BEGIN IMMEDIATE');
      locker.prepare("UPDATE sessions SET title = 'held' WHERE id = 'parent-own'").run();
      writeFileSync(join(tmp.dir, 'lock-held'), '1');
      while (!existsSync(join(tmp.dir, 'appending'))) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 300)); // the child's append is now waiting on our lock
      const committedAt = Date.now();
      locker.exec('COMMIT');
      locker.close();
      const busy = payload(await waitForLine(child, /^busy/));
      expect(busy['ok']).toBe(true);
      expect(busy['finishedAt']).toBeGreaterThanOrEqual(committedAt);
      expect(busy['ms']).toBeGreaterThanOrEqual(250);
      expect(store.get('child-own')?.eventCount).toBe(1);

      // 2. Race: both processes append to the same session for a while.
      writeFileSync(join(tmp.dir, 'race'), '1');
      const until = performance.now() + RACE_MS;
      const giveUp = performance.now() + 30_000;
      let appended = 0;
      let stale = 0;
      let reads = 0;
      // For the window, and on until one append won and one read ran (each side does the same).
      for (let round = 1; (performance.now() < until || appended === 0 || reads === 0) && performance.now() < giveUp; round++) {
        if (raceOnce(store, 'parent', round) === 'ok') appended++;
        else stale++;
        store.append('parent-own', titleBatch('parent', store.get('parent-own')!.eventCount, 1, round));
        if (round % 10 === 0) {
          // Reads during the race see a consistent, contiguous snapshot.
          const snapshot = store.readAll('shared');
          expect(snapshot.map((e) => e.seq)).toEqual(snapshot.map((_, i) => i));
          reads++;
        }
        // Yield the write lock now and then: SQLite's busy handler polls, so a writer that takes the
        // lock back at once can starve the other process for the whole window on a loaded machine.
        await new Promise((r) => setTimeout(r, 1));
      }
      const race = payload(await waitForLine(child, /^race/));
      expect(appended).toBeGreaterThan(0);
      expect(race['appended']).toBeGreaterThan(0);
      expect(reads).toBeGreaterThan(0);
      // No batch was lost or written twice: the shared log holds exactly the winners' batches.
      expect(store.get('shared')?.eventCount).toBe(3 * (appended + race['appended']!));
      console.log(`two-instance race: parent ${appended} ok / ${stale} stale, child ${race['appended']} ok / ${race['stale']} stale`);

      // 3. Deterministic stale writer: this process read the next seq, then the other instance appended.
      const next = store.get('shared')!.eventCount;
      writeFileSync(join(tmp.dir, 'once'), '1');
      const once = payload(await waitForLine(child, /^once/));
      expect(once['from']).toBe(next);
      let rejected: unknown;
      try {
        store.append('shared', titleBatch('parent-late', next, 3, 0));
      } catch (error) {
        rejected = error;
      }
      expect(rejected).toBeInstanceOf(StoreError);
      expect((rejected as StoreError).code).toBe('STALE_APPEND');
      // The winner's rows are untouched.
      expect(store.readFrom('shared', next).map((e) => (e as SessionEvent<'session/title'>).data.title)).toEqual(['child-once 0.0', 'child-once 0.1', 'child-once 0.2']);
      const exit = await child.exited;
      expect(exit).toEqual({ code: 0, signal: null });
    } finally {
      if (child.child.exitCode === null) child.child.kill('SIGKILL');
    }

    // 4. Afterwards, from a fresh connection: every session contiguous, batches whole, file intact.
    store.close();
    const reopened = new SqliteSessionStore(file);
    try {
      for (const record of reopened.list()) {
        const events = reopened.readAll(record.header.id);
        expect(
          events.map((e) => e.seq),
          record.header.id,
        ).toEqual(events.map((_, i) => i));
        expect(events).toHaveLength(record.eventCount);
      }
      const shared = reopened.readAll('shared') as SessionEvent<'session/title'>[];
      for (let i = 0; i < shared.length; i += 3) {
        const batch = shared.slice(i, i + 3).map((e) => e.data.title.replace(/\.\d$/, ''));
        expect(new Set(batch).size, `batch at ${i} must come from one writer`).toBe(1);
        expect(shared.slice(i, i + 3).map((e) => e.data.title.slice(-2))).toEqual(['.0', '.1', '.2']);
      }
      const writers = new Set(shared.map((e) => e.data.title.split(' ')[0]));
      expect(writers).toEqual(new Set(['parent', 'child', 'child-once']));
      const raw = new Database(file, { readonly: true });
      expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
      raw.close();
    } finally {
      reopened.close();
    }
  }, 30_000);

  it('two instances opening the same fresh files at the same instant both succeed (journal-mode switch waits out busy)', async () => {
    const dir = tmp.file('fresh');
    mkdirSync(dir);
    const count = 60;
    const at = Date.now() + 1500; // after both children have loaded
    const children = ['first', 'second'].map((name) => spawnTsx('test/support/store-open-child.ts', [dir, name, String(at), String(count)]));
    const reports = await Promise.all(children.map((c) => waitForLine(c, /^opened/)));
    await Promise.all(children.map((c) => c.exited));
    for (const line of reports) expect(payload(line)['failures']).toEqual([]);
    for (let i = 0; i < count; i++) {
      const store = new SqliteSessionStore(join(dir, `fresh-${i}.db`));
      expect(
        store
          .list()
          .map((r) => r.header.id)
          .sort(),
      ).toEqual([`first-${i}`, `second-${i}`]);
      store.close();
    }
  }, 30_000);
});
