/**
 * Publishing to the team store (issue 27, "Done when"), with real parts only: a real PostgreSQL
 * server (test/support/postgres-cluster.ts), two real login roles, real SQLite data folders and the
 * real CLI bundle as child processes (`npm run build:cli` first).
 *
 * - Two data folders (alice's, bob's) publish at the same time: every event of every session
 *   arrives exactly once, in seq order — counted and hashed on both sides; a fork stores only its
 *   own events and reads its prefix by reference.
 * - One role cannot update or delete the other's rows (the server refuses).
 * - The same session id from another role or another machine is refused, nothing lost locally.
 * - A connection dropped mid-publish (the server ends it) and 20 SIGKILLs of a publishing CLI at
 *   random moments: after publishing again, the server holds exactly the local log.
 */
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { installationId } from '../../../electron/team/installation-id.js';
import { TeamDb } from '../../../electron/team/team-db.js';
import { TeamStoreError } from '../../../electron/team/team-errors.js';
import { publishSession } from '../../../electron/team/team-publisher.js';
import { forkline, startForkline } from '../../support/cli-process.js';
import { sharedPostgres, type PgCluster } from '../../support/postgres-cluster.js';
import { tempDir } from '../../support/store-fixtures.js';
import { appendLocalTurns, localDigest, serverDigest, teamDatabase, writeLocalSessions, type TeamDatabase } from './team-fixtures.js';

let cluster: PgCluster;
let team: TeamDatabase;
const temp = tempDir('forkline-team-');
const aliceDir = join(temp.dir, 'alice');
const bobDir = join(temp.dir, 'bob');
const dbs: TeamDb[] = [];

async function connect(url: string): Promise<TeamDb> {
  const db = await TeamDb.connect(url);
  dbs.push(db);
  return db;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Deterministic randomness (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALICE = ['a-one', 'a-two', 'a-three'];
const BOB = ['b-one', 'b-two', 'b-three'];

beforeAll(async () => {
  cluster = await sharedPostgres();
  team = await teamDatabase(cluster, 'publish');
  await writeLocalSessions(aliceDir, [
    { id: 'a-one', turns: 30, deltas: 12 },
    { id: 'a-two', turns: 12 },
    { id: 'a-three', turns: 40, deltas: 4 },
    { id: 'a-fork', forkOf: 'a-one', turns: 5 },
  ]);
  await writeLocalSessions(bobDir, [
    { id: 'b-one', turns: 35, deltas: 10 },
    { id: 'b-two', turns: 8 },
    { id: 'b-three', turns: 25, deltas: 16 },
  ]);
}, 60_000);

afterAll(async () => {
  for (const db of dbs) await db.close();
  temp.dispose();
});

describe('two roles publishing at the same time', () => {
  it('stores every event of every session exactly once, in seq order', async () => {
    const env = { FORKLINE_TEAM_BATCH: '37' };
    const [a, b] = await Promise.all([
      forkline(['publish', ...ALICE, 'a-fork', '--team-store', team.alice], { dataDir: aliceDir, env }),
      forkline(['publish', ...BOB, '--team-store', team.bob], { dataDir: bobDir, env: { ...env, FORKLINE_TEAM_STORE: team.bob } }),
    ]);
    expect(a.stderr).toBe('');
    expect(b.stderr).toBe('');
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(a.stdout).toMatch(/^a-fork {2}\+\d+ events \(\d+ in all\) \(its own from seq \d+; earlier ones by reference\)$/m);
    const reader = await connect(team.bob);
    for (const [dir, ids] of [
      [aliceDir, ALICE],
      [bobDir, BOB],
    ] as const) {
      for (const id of ids) {
        const local = localDigest(dir, id);
        const server = await serverDigest(reader, id);
        expect(local.count).toBeGreaterThan(100);
        expect({ id, ...server }).toEqual({ id, ...local, contiguous: true, nextSeq: local.count });
      }
    }
    // The fork: only its own events under its id; the prefix is its parent's rows.
    const store = new SqliteSessionStore(join(aliceDir, 'sessions.db'));
    const seed = store.get('a-fork')!.header.seedLength!;
    store.close();
    const fork = await serverDigest(reader, 'a-fork');
    expect(fork).toEqual({ ...localDigest(aliceDir, 'a-fork', seed), contiguous: true, nextSeq: seed + fork.count });
    const owners = await reader.query('SELECT id, owner_role, parent_id, fork_seq, own_from FROM forkline.sessions ORDER BY id');
    expect(owners.rows).toEqual([
      { id: 'a-fork', owner_role: 'alice', parent_id: 'a-one', fork_seq: seed, own_from: seed },
      ...['a-one', 'a-three', 'a-two'].map((id) => ({ id, owner_role: 'alice', parent_id: null, fork_seq: null, own_from: 0 })),
      ...['b-one', 'b-three', 'b-two'].map((id) => ({ id, owner_role: 'bob', parent_id: null, fork_seq: null, own_from: 0 })),
    ]);
    // Publishing again sends nothing; new local turns are appended after what is there.
    const again = await forkline(['publish', 'a-two', '--team-store', team.alice], { dataDir: aliceDir });
    expect(again.stdout).toMatch(/^a-two {2}\+0 events/);
    await appendLocalTurns(aliceDir, 'a-two', 3);
    const more = await forkline(['publish', 'a-tw', '--team-store', team.alice], { dataDir: aliceDir });
    expect(more.code).toBe(0);
    const local = localDigest(aliceDir, 'a-two');
    expect(await serverDigest(reader, 'a-two')).toEqual({ ...local, contiguous: true, nextSeq: local.count });
  });

  it("refuses bob updating or deleting alice's published rows", async () => {
    const bob = await connect(team.bob);
    const before = await serverDigest(bob, 'a-one');
    for (const sql of [
      "UPDATE forkline.events SET body = '{}' WHERE session_id = 'a-one'",
      "DELETE FROM forkline.events WHERE session_id = 'a-one'",
      "DELETE FROM forkline.sessions WHERE id = 'a-one'",
      "INSERT INTO forkline.events (session_id, seq, type, time, body) VALUES ('a-one', 100000, 'x', 0, '{}')",
    ]) {
      const refused = await bob.query(sql).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused, sql).toBeInstanceOf(TeamStoreError);
      expect((refused as TeamStoreError).code).toBe('TEAM_PERMISSION_DENIED');
    }
    expect((await bob.query("UPDATE forkline.sessions SET title = 'mine now' WHERE id = 'a-one'")).rowCount).toBe(0);
    expect(await serverDigest(bob, 'a-one')).toEqual(before);
  });

  it('refuses the same session id from another role or another machine, and changes nothing locally', async () => {
    // Bob's machine holds a copy of alice's session (same id).
    const copy = join(temp.dir, 'copy-of-alice');
    cpSync(aliceDir, copy, { recursive: true });
    rmSync(join(copy, 'team.json'), { force: true });
    const before = localDigest(copy, 'a-three');
    const asBob = await forkline(['publish', 'a-three', 'a-two', '--team-store', team.bob], { dataDir: copy });
    expect(asBob.code).toBe(1);
    expect(asBob.stderr).toMatch(/^forkline: session a-three is already published by role alice, not bob; nothing was published and nothing local changed \[TEAM_OWNER_MISMATCH\]$/m);
    expect(asBob.stderr).toMatch(/session a-two is already published by role alice/);
    // Alice on a second machine (another installation id).
    const asAlice = await forkline(['publish', 'a-three', '--team-store', team.alice], { dataDir: copy });
    expect(asAlice.code).toBe(1);
    expect(asAlice.stderr).toMatch(/session a-three is already published from another machine \(installation [0-9a-f]{8}, this one is [0-9a-f]{8}\).*\[TEAM_OWNER_MISMATCH\]/);
    expect(localDigest(copy, 'a-three')).toEqual(before);
    const reader = await connect(team.alice);
    expect(await serverDigest(reader, 'a-three')).toEqual({ ...localDigest(aliceDir, 'a-three'), contiguous: true, nextSeq: before.count });
  });

  it('says in one line when the server is unreachable or the password is wrong', async () => {
    const refused = await forkline(['publish', 'a-one', '--team-store', `postgres://alice:pw@127.0.0.1:1/${team.name}`], { dataDir: aliceDir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^forkline: cannot reach the team store at postgres:\/\/alice:\*\*\*@127\.0\.0\.1:1\/\w+: ECONNREFUSED .*\[TEAM_STORE_UNREACHABLE\]\n$/);
    const wrong = await forkline(['publish', 'a-one', '--team-store', cluster.roleUrl('alice', 'wrong', team.name)], { dataDir: aliceDir });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^forkline: the team store at .* refused the login: password authentication failed for user "alice" \[TEAM_STORE_AUTH\]\n$/);
    expect(wrong.stderr).not.toContain('wrong');
    const none = await forkline(['publish', 'a-one'], { dataDir: aliceDir, env: { FORKLINE_TEAM_STORE: '' } });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no team store: pass --team-store/);
  });
});

describe('resuming after a failure', () => {
  it('continues exactly after a connection the server dropped mid-publish', async () => {
    const dir = join(temp.dir, 'dropped');
    await writeLocalSessions(dir, [{ id: 'drop-1', turns: 40, deltas: 10 }]);
    const store = new SqliteSessionStore(join(dir, 'sessions.db'));
    const installation = installationId(dir);
    const db = await connect(team.alice);
    const pid = (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    let batches = 0;
    const failure = await publishSession(db, store, 'drop-1', {
      installation,
      batchEvents: 25,
      onBatch: () => {
        // The server ends the connection between two batches (as a restart or a network cut would).
        if (++batches === 3) void cluster.admin(team.name, (c) => c.query('SELECT pg_terminate_backend($1)', [pid]));
      },
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TeamStoreError);
    expect((failure as TeamStoreError).code).toBe('TEAM_STORE_UNREACHABLE');
    const reader = await connect(team.alice);
    const partial = await serverDigest(reader, 'drop-1');
    expect(partial.contiguous).toBe(true);
    expect(partial.count).toBeGreaterThanOrEqual(75);
    expect(partial.count).toBeLessThan(localDigest(dir, 'drop-1').count);
    const again = await publishSession(await connect(team.alice), store, 'drop-1', { installation, batchEvents: 25 });
    expect(again[0]!.appended).toBe(localDigest(dir, 'drop-1').count - partial.count);
    store.close();
    const local = localDigest(dir, 'drop-1');
    expect(await serverDigest(reader, 'drop-1')).toEqual({ ...local, contiguous: true, nextSeq: local.count });
  });

  it('holds exactly the local log after 20 SIGKILLs of a publishing CLI at random moments', async () => {
    const dir = join(temp.dir, 'killed');
    const id = `kill-${randomUUID()}`;
    await writeLocalSessions(dir, [{ id, turns: 40, deltas: 20 }]);
    const reader = await connect(team.alice);
    const seed = Math.floor(Math.random() * 2 ** 31);
    const rand = random(seed);
    const progress: string[] = [];
    let midway = 0;
    for (let kill = 0; kill < 20; kill++) {
      // The local log keeps growing between runs, as a session that is still being worked on.
      await appendLocalTurns(dir, id, 2, 20);
      const total = localDigest(dir, id).count;
      const before = (await serverDigest(reader, id)).count;
      // Batches of 2: about 80 round trips per run, a window wide enough for a kill to land inside.
      const run = startForkline(['publish', id, '--team-store', team.alice], { dataDir: dir, env: { FORKLINE_TEAM_BATCH: '2' } });
      if (kill % 2 === 0) {
        // Any moment from process start-up on (loading, opening the store, connecting, publishing).
        await sleep(Math.floor(rand() * 3000));
      } else {
        // A moment inside the publish: once the server's mark has moved, after a random while.
        const started = Date.now();
        while ((await serverDigest(reader, id)).nextSeq === before && Date.now() - started < 20_000 && run.child.exitCode === null) await sleep(10);
        await sleep(Math.floor(rand() * 150));
      }
      run.child.kill('SIGKILL');
      const ended = await run.exited;
      const after = await serverDigest(reader, id);
      const where = `kill ${kill}: ${before} → ${after.count} of ${total} (seed ${seed})`;
      expect(after.contiguous, where).toBe(true);
      // What the server holds is always an exact prefix of the local log: no gap, no duplicate.
      expect(after.md5, where).toBe(localDigest(dir, id, 0, after.count).md5);
      expect(after.nextSeq, where).toBe(after.count);
      if (ended.signal === 'SIGKILL' && after.count > before && after.count < total) midway++;
      progress.push(`${before}→${after.count}/${total}${ended.signal === 'SIGKILL' ? '' : ' (ended)'}`);
    }
    // The kills really landed while publishing (not only before it started or after it ended).
    expect(midway, `progress ${progress.join(', ')} (seed ${seed})`).toBeGreaterThanOrEqual(5);
    const finish = await forkline(['publish', id, '--team-store', team.alice], { dataDir: dir });
    expect(finish.code).toBe(0);
    const local = localDigest(dir, id);
    expect(await serverDigest(reader, id)).toEqual({ ...local, contiguous: true, nextSeq: local.count });
  }, 300_000);
});
