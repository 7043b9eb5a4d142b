/**
 * The app's background publisher (issue 27, "Publish": electron/host/services/team-background-publisher.ts)
 * against a real PostgreSQL server: a shared workspace's sessions arrive exactly (count and hash on
 * both sides) while more turns are appended locally; a dropped connection and a server that goes
 * down are retried with the error reported and nothing lost; a session id another role owns is
 * refused and reported while the others publish; sessions created before sharing began stay local;
 * a teammate's session continued in a shared workspace publishes only the fork's own events, its
 * parent by reference.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SessionRepository } from '../../../electron/store/session-repository.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { TeamDb } from '../../../electron/team/team-db.js';
import { installationId } from '../../../electron/team/installation-id.js';
import { publishSession } from '../../../electron/team/team-publisher.js';
import { TeamService } from '../../../electron/host/services/team-service.js';
import { AgentLogWriter } from '../../support/store-fixtures.js';
import type { TeamPublisherView } from '../../../shared/team.js';
import { sharedPostgres, type PgCluster } from '../../support/postgres-cluster.js';
import { tempDir } from '../../support/store-fixtures.js';
import { appendLocalTurns, localDigest, serverDigest, teamDatabase, writeLocalSessions, type TeamDatabase } from './team-fixtures.js';

let cluster: PgCluster;
let team: TeamDatabase;
const temp = tempDir('forkline-team-bg-');
const open: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  cluster = await sharedPostgres();
  team = await teamDatabase(cluster, 'bg');
}, 60_000);
afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
});
afterAll(() => {
  temp.dispose();
});

/** A TeamService over `dataDir`'s store with fast timings; `FORKLINE_TEAM_STORE` names the store. */
function service(dataDir: string, url: string): { team: TeamService; repository: SessionRepository; changes: () => number } {
  const store = new SqliteSessionStore(join(dataDir, 'sessions.db'));
  const repository = new SessionRepository(store, { newId: randomUUID });
  let changes = 0;
  const team = new TeamService({ repository, dataDir, env: { FORKLINE_TEAM_STORE: url }, onChange: () => changes++, pollMs: 50, retryMs: 50, maxRetryMs: 400 });
  open.push({
    close: async () => {
      await team.close();
      await repository.releaseAll();
      repository.dispose();
      store.close();
    },
  });
  return { team, repository, changes: () => changes };
}

async function until(what: string, check: () => boolean | Promise<boolean>, state: () => TeamPublisherView, timeout = 20_000): Promise<void> {
  const end = Date.now() + timeout;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; the publisher says ${JSON.stringify(state())}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function sameOnServer(dataDir: string, id: string): Promise<boolean> {
  const db = await TeamDb.connect(team.adminUrl);
  try {
    const server = await serverDigest(db, id);
    // A fork's own events only (its prefix is published by reference, under its parent).
    const local = localDigest(dataDir, id, server.nextSeq - server.count);
    return server.contiguous && server.nextSeq === localDigest(dataDir, id).count && server.count === local.count && server.md5 === local.md5;
  } finally {
    await db.close();
  }
}

describe('the background publisher', () => {
  it('publishes only sessions created in a shared workspace since sharing began', async () => {
    const dir = join(temp.dir, 'old');
    await writeLocalSessions(dir, [{ id: 'bg-old-1', turns: 2 }]);
    const { team: svc } = service(dir, team.bob);
    expect(svc.status().publisher.state).toBe('off');
    // Created at 1_780_000_000_000 (the fixture's clock): before sharing began, so never published.
    svc.update({ share: { workspace: join(dir, 'work'), on: true } });
    await until(
      'a pass',
      () => svc.status().publisher.state === 'idle',
      () => svc.status().publisher,
    );
    expect(svc.status().publisher.pending).toEqual([]);
    const db = await TeamDb.connect(team.adminUrl);
    expect((await db.query<{ n: number }>("SELECT count(*)::int AS n FROM forkline.sessions WHERE id = 'bg-old-1'")).rows[0]?.n).toBe(0);
    await db.close();
  });

  it('publishes exactly while turns are appended, and after its connection is killed', async () => {
    const dir = join(temp.dir, 'live');
    await writeLocalSessions(dir, [
      { id: 'bg-a', turns: 30 },
      { id: 'bg-b', turns: 5 },
      { id: 'bg-fork', forkOf: 'bg-b', turns: 3 },
    ]);
    const { team: svc } = service(dir, team.bob);
    svc.settings.setShared(join(dir, 'work'), true, 0);
    svc.publisher.kick();
    await until(
      'first publish',
      async () => (await sameOnServer(dir, 'bg-a')) && (await sameOnServer(dir, 'bg-b')),
      () => svc.status().publisher,
    );
    // More turns, and the publisher's connection killed by the server meanwhile.
    await appendLocalTurns(dir, 'bg-a', 20);
    await cluster.admin(team.name, (c) => c.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'forkline-publisher'"));
    await appendLocalTurns(dir, 'bg-a', 5);
    await until(
      'everything',
      async () => (await sameOnServer(dir, 'bg-a')) && (await sameOnServer(dir, 'bg-fork')) && svc.status().publisher.pending.length === 0,
      () => svc.status().publisher,
    );
    const db = await TeamDb.connect(team.adminUrl);
    // The fork stores only its own events (its prefix by reference).
    const fork = (await db.query<{ parent_id: string; own_from: number; owner_role: string }>("SELECT parent_id, own_from, owner_role FROM forkline.sessions WHERE id = 'bg-fork'")).rows[0]!;
    await db.close();
    expect(fork).toMatchObject({ parent_id: 'bg-b', owner_role: 'bob' });
    expect(fork.own_from).toBeGreaterThan(0);
    expect(svc.status().publisher.publishedEvents).toBeGreaterThan(0);
  }, 60_000);

  it('reports a server that is down, keeps everything waiting, and publishes when it is back', async () => {
    const dir = join(temp.dir, 'down');
    await writeLocalSessions(dir, [{ id: 'bg-down', turns: 4 }]);
    const { team: svc, changes } = service(dir, team.bob);
    cluster.stopServer();
    try {
      svc.settings.setShared(join(dir, 'work'), true, 0);
      svc.publisher.kick();
      await until(
        'the failure reported',
        () => svc.status().publisher.lastError?.code === 'TEAM_STORE_UNREACHABLE',
        () => svc.status().publisher,
      );
      const view = svc.status().publisher;
      expect(view.pending).toEqual([{ sessionId: 'bg-down', title: 'session bg-down', waitingEvents: localDigest(dir, 'bg-down').count }]);
      expect(view.lastError?.message).toMatch(/cannot reach the team store at postgres:\/\/bob:\*\*\*@127\.0\.0\.1:\d+\/.*nothing local was changed/);
      expect(changes()).toBeGreaterThan(0);
    } finally {
      cluster.startServer();
    }
    await until(
      'published after the restart',
      async () => svc.status().publisher.pending.length === 0 && (await sameOnServer(dir, 'bg-down')),
      () => svc.status().publisher,
    );
    expect(svc.status().publisher.lastError).toBeUndefined();
  });

  it('refuses a session id another role published, and still publishes the others', async () => {
    const aliceDir = join(temp.dir, 'alice');
    const bobDir = join(temp.dir, 'bob');
    await writeLocalSessions(aliceDir, [{ id: 'bg-taken', turns: 2 }]);
    await writeLocalSessions(bobDir, [
      { id: 'bg-taken', turns: 3 },
      { id: 'bg-mine', turns: 2 },
    ]);
    const store = new SqliteSessionStore(join(aliceDir, 'sessions.db'));
    const db = await TeamDb.connect(team.alice);
    await publishSession(db, store, 'bg-taken', { installation: installationId(aliceDir) });
    await db.close();
    store.close();
    const { team: svc } = service(bobDir, team.bob);
    svc.settings.setShared(join(bobDir, 'work'), true, 0);
    svc.publisher.kick();
    await until(
      'bob’s own session',
      () => sameOnServer(bobDir, 'bg-mine'),
      () => svc.status().publisher,
    );
    await until(
      'the refusal',
      () => svc.status().publisher.refused.length === 1,
      () => svc.status().publisher,
    );
    const view = svc.status().publisher;
    expect(view.refused[0]).toMatchObject({ sessionId: 'bg-taken', code: 'TEAM_OWNER_MISMATCH' });
    expect(view.pending).toEqual([]);
    // Alice's log is untouched.
    expect(await sameOnServer(aliceDir, 'bg-taken')).toBe(true);
  });

  it("continues a teammate's session in a shared workspace: only the fork's own events are published, its parent by reference", async () => {
    const aliceDir = join(temp.dir, 'alice-fork');
    const bobDir = join(temp.dir, 'bob-fork');
    const teammate = 'bg-alice-origin';
    await writeLocalSessions(aliceDir, [{ id: teammate, turns: 3 }]);
    const aliceStore = new SqliteSessionStore(join(aliceDir, 'sessions.db'));
    const aliceDb = await TeamDb.connect(team.alice);
    await publishSession(aliceDb, aliceStore, teammate, { installation: installationId(aliceDir) });
    await aliceDb.close();
    aliceStore.close();
    const admin = await TeamDb.connect(team.adminUrl);
    open.push(admin);
    const aliceBefore = await serverDigest(admin, teammate);

    // Bob shares his workspace, then continues alice's session in it (the app's path: open the team session, fork its copy).
    mkdirSync(bobDir, { recursive: true, mode: 0o700 });
    const { team: svc, repository } = service(bobDir, team.bob);
    const work = join(bobDir, 'work', 'continued');
    svc.settings.setShared(join(bobDir, 'work'), true, 0);
    const copy = await svc.open(teammate);
    expect(copy.header.origin).toMatchObject({ kind: 'imported', file: `team:alice:${teammate}.jsonl` });
    const fork = await repository.fork(copy.header.id, undefined, 'bg-bob-continues', { cwd: work });
    const live = repository.resume(fork.header.id);
    new AgentLogWriter(live.session).completedTurn('bob goes on from here', 4);
    await live.release();
    svc.publisher.kick();
    await until(
      'bob’s fork on the server',
      () => sameOnServer(bobDir, fork.header.id),
      () => svc.status().publisher,
    );
    const view = svc.status().publisher;
    expect(view.refused).toEqual([]);
    expect(view.lastError).toBeUndefined();
    const row = (
      await admin.query<{ owner_role: string; parent_id: string; own_from: number; fork_seq: number }>('SELECT owner_role, parent_id, own_from, fork_seq FROM forkline.sessions WHERE id = $1', [
        fork.header.id,
      ])
    ).rows[0]!;
    // By reference to alice's session, from the fork point on: bob's rows are his own events only.
    expect(row).toEqual({ owner_role: 'bob', parent_id: teammate, own_from: fork.header.seedLength, fork_seq: fork.header.seedLength });
    expect(localDigest(bobDir, fork.header.id, fork.header.seedLength!)).toEqual({ count: (await serverDigest(admin, fork.header.id)).count, md5: (await serverDigest(admin, fork.header.id)).md5 });
    const bobRows = await admin.query<{ id: string }>("SELECT id FROM forkline.sessions WHERE owner_role = 'bob' AND id = ANY($1)", [[copy.header.id, fork.header.id]]);
    expect(bobRows.rows.map((r) => r.id)).toEqual([fork.header.id]);
    // The copy's id is alice's session: alice's rows, untouched (owner, count, hash).
    expect(copy.header.id).toBe(teammate);
    expect((await admin.query<{ owner_role: string }>('SELECT owner_role FROM forkline.sessions WHERE id = $1', [teammate])).rows[0]?.owner_role).toBe('alice');
    expect(await serverDigest(admin, teammate)).toEqual(aliceBefore);
    // The team reads bob's fork whole: alice's prefix by reference, then bob's turn.
    const events = (await admin.query<{ n: number }>("SELECT count(*)::int AS n FROM forkline.events WHERE session_id = $1 AND type = 'turn/start'", [fork.header.id])).rows[0]!.n;
    expect(events).toBe(1);
    // Publishing the copy itself is refused: it is alice's.
    const bobDb = await TeamDb.connect(team.bob);
    open.push(bobDb);
    await expect(publishSession(bobDb, repository.store, copy.header.id, { installation: installationId(bobDir) })).rejects.toMatchObject({ code: 'TEAM_OWNER_MISMATCH' });
  });
});
