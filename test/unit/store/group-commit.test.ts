/**
 * GroupCommitter (electron/store/group-commit.ts) on a real SQLite file: the batches of several
 * sessions submitted in one event-loop turn land in one commit, a refused batch rejects only its own
 * promise, a promise resolves only after the WAL has been synced (what it wrote is then read back by
 * a second connection), and the repository with `groupCommit` keeps every live session's events.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { ForklineError } from '../../../shared/errors.js';
import { GroupCommitter } from '../../../electron/store/group-commit.js';
import { SessionRepository } from '../../../electron/store/session-repository.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { AgentLogWriter, buildSession, header, serializeAll, tempDir } from '../../support/store-fixtures.js';

let tmp: ReturnType<typeof tempDir>;
let store: SqliteSessionStore;

beforeEach(() => {
  tmp = tempDir('forkline-group-commit-');
  store = new SqliteSessionStore(tmp.file('g.db'));
});
afterEach(() => {
  store.close();
  tmp.dispose();
});

describe('GroupCommitter', () => {
  it('commits the batches of several sessions submitted together in one commit, each durable when its promise resolves', async () => {
    const logs = ['a', 'b', 'c'].map((id) => {
      store.createSession(header(id), []);
      return buildSession(id, 2, 4).events;
    });
    const committer = new GroupCommitter(store);
    let syncedBefore = false;
    const original = store.syncCommitted.bind(store);
    store.syncCommitted = () =>
      original().then(() => {
        syncedBefore = true;
      });
    const resolved: string[] = [];
    await Promise.all(
      ['a', 'b', 'c'].map((id, i) =>
        committer.append(id, logs[i]!, {}).then(() => {
          expect(syncedBefore).toBe(true);
          resolved.push(id);
        }),
      ),
    );
    expect(committer.commits).toBe(1);
    expect(committer.batches).toBe(3);
    expect(resolved).toHaveLength(3);
    // A second connection reads every batch back.
    const other = new SqliteSessionStore(tmp.file('g.db'));
    try {
      ['a', 'b', 'c'].forEach((id, i) => expect(serializeAll(other.readAll(id))).toEqual(serializeAll(logs[i]!)));
    } finally {
      other.close();
    }
  });

  it('rejects only the refused batch of a group; the others commit', async () => {
    store.createSession(header('ok'), []);
    store.createSession(header('stale'), []);
    const ok = buildSession('ok', 1, 3).events;
    const stale = buildSession('stale', 1, 3).events;
    const committer = new GroupCommitter(store);
    const results = await Promise.allSettled([committer.append('ok', ok, {}), committer.append('stale', stale.slice(1), {})]);
    expect(results[0].status).toBe('fulfilled');
    expect(results[1].status).toBe('rejected');
    const reason = (results[1] as PromiseRejectedResult).reason as unknown;
    expect(ForklineError.isInstance(reason) && reason.code).toBe('STALE_APPEND');
    expect(serializeAll(store.readAll('ok'))).toEqual(serializeAll(ok));
    expect(store.readAll('stale')).toEqual([]);
    expect(committer.commits).toBe(1);
    expect(committer.batches).toBe(1);
  });

  it('a failing WAL sync rejects the batches of its group (nothing is reported durable that is not)', async () => {
    store.createSession(header('s'), []);
    const events = buildSession('s', 1, 2).events;
    const committer = new GroupCommitter(store);
    store.syncCommitted = () => Promise.reject(new Error('sync failed (injected)'));
    await expect(committer.append('s', events, {})).rejects.toThrow('sync failed (injected)');
  });
});

describe('SessionRepository with groupCommit', () => {
  it('keeps every event of several live sessions written at once, and shares commits between them', async () => {
    const repo = new SessionRepository(store, { newId: randomUUID, groupCommit: true });
    const lives = [1, 2, 3, 4].map(() => repo.create({ cwd: tmp.dir }));
    const writers = lives.map((l) => new AgentLogWriter(l.session));
    for (let round = 0; round < 20; round++) {
      for (const w of writers) w.completedTurn(`round ${round}`, 2);
      await Promise.all(lives.map((l) => l.flush()));
    }
    const committer = (repo as unknown as { committer: GroupCommitter }).committer;
    // 4 sessions × 20 rounds of batches, written in far fewer commits.
    expect(committer.batches).toBeGreaterThanOrEqual(80);
    expect(committer.commits).toBeLessThan(committer.batches / 2);
    for (const live of lives) expect(serializeAll(store.readAll(live.session.id))).toEqual(serializeAll(live.session.events));
    await repo.releaseAll();
    repo.dispose();
  });
});
