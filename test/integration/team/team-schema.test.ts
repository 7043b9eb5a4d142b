/**
 * The team store's schema on a real PostgreSQL server (issue 27, "who may do what"): `team init`
 * creates and migrates it with versioned migrations, refuses a newer one, and the server itself
 * (row-level security, column grants, the contiguity trigger) keeps each role to appending its own
 * sessions: two real login roles, each over its own TCP connection with a password.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEAM_MIGRATIONS, TEAM_SCHEMA_VERSION } from '../../../electron/team/migrations/index.js';
import { TeamDb } from '../../../electron/team/team-db.js';
import { TeamStoreError } from '../../../electron/team/team-errors.js';
import { checkTeamSchema, initTeamSchema, storedVersion } from '../../../electron/team/team-schema.js';
import { sharedPostgres, type PgCluster } from '../../support/postgres-cluster.js';

let cluster: PgCluster;
let database: string;
const open: TeamDb[] = [];

async function connect(url: string): Promise<TeamDb> {
  const db = await TeamDb.connect(url);
  open.push(db);
  return db;
}

/** The SQLSTATE under a TeamStoreError. */
async function refusal(p: Promise<unknown>): Promise<{ code: string; sqlstate: string; message: string }> {
  try {
    await p;
  } catch (error) {
    expect(error).toBeInstanceOf(TeamStoreError);
    const e = error as TeamStoreError;
    return { code: e.code, sqlstate: String((e.cause as { code?: string } | undefined)?.code ?? ''), message: e.message };
  }
  throw new Error('expected the server to refuse');
}

beforeAll(async () => {
  cluster = await sharedPostgres();
  database = await cluster.createDatabase('schema');
  await cluster.createRole('alice', 'alice-pw');
  await cluster.createRole('bob', 'bob-pw');
  const admin = await connect(cluster.superuserUrl(database));
  const result = await initTeamSchema(admin);
  expect(result).toMatchObject({ from: 0, to: TEAM_SCHEMA_VERSION });
  expect(result.applied).toEqual(TEAM_MIGRATIONS.map((m) => `${String(m.version).padStart(3, '0')}-${m.name}`));
  await admin.query('GRANT forkline_team TO alice, bob');
}, 60_000);

afterAll(async () => {
  for (const db of open) await db.close();
});

describe('team init', () => {
  it('is idempotent: a second init applies nothing', async () => {
    const admin = await connect(cluster.superuserUrl(database));
    const again = await initTeamSchema(admin);
    expect(again).toMatchObject({ from: TEAM_SCHEMA_VERSION, to: TEAM_SCHEMA_VERSION, applied: [] });
    expect(await storedVersion(admin)).toBe(TEAM_SCHEMA_VERSION);
    await checkTeamSchema(admin);
  });

  it('migrates a schema-1 database to the current version, keeping its rows', async () => {
    const name = await cluster.createDatabase('v1');
    const admin = await connect(cluster.superuserUrl(name));
    // What a build with only migration 1 created.
    await admin.query(`DO $$ BEGIN CREATE ROLE forkline_team NOLOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`);
    await admin.query('CREATE SCHEMA forkline');
    await admin.query('CREATE TABLE forkline.schema_version (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
    await admin.query(TEAM_MIGRATIONS[0]!.sql);
    await admin.query("INSERT INTO forkline.schema_version (version, name) VALUES (1, 'sessions-events')");
    await admin.query(`INSERT INTO forkline.sessions (id, installation, header, created_at) VALUES ('old', 'i', '{}', 1)`);
    await admin.query(`INSERT INTO forkline.events (session_id, seq, type, time, body) VALUES ('old', 0, 'turn/start', 1, '{}')`);
    expect((await refusal(checkTeamSchema(admin))).message).toMatch(/schema version 1, this Forkline needs 2; run forkline team init/);
    const result = await initTeamSchema(admin);
    expect(result).toMatchObject({ from: 1, to: TEAM_SCHEMA_VERSION, applied: ['002-event-search'] });
    const rows = await admin.query('SELECT seq, search_text FROM forkline.events WHERE session_id = $1', ['old']);
    expect(rows.rows).toEqual([{ seq: 0, search_text: null }]);
    await checkTeamSchema(admin);
  });

  it('refuses a schema newer than this build and changes nothing', async () => {
    const name = await cluster.createDatabase('newer');
    const admin = await connect(cluster.superuserUrl(name));
    await initTeamSchema(admin);
    await admin.query("INSERT INTO forkline.schema_version (version, name) VALUES (99, 'from-the-future')");
    const refused = await refusal(initTeamSchema(admin));
    expect(refused.code).toBe('TEAM_SCHEMA_NEWER');
    expect(refused.message).toMatch(/schema version 99, newer than this Forkline understands \(2\); update Forkline/);
    expect((await refusal(checkTeamSchema(admin))).code).toBe('TEAM_SCHEMA_NEWER');
    expect((await admin.query('SELECT count(*)::int AS n FROM forkline.schema_version')).rows[0]).toEqual({ n: TEAM_SCHEMA_VERSION + 1 });
  });

  it('says what to do on a database without the schema', async () => {
    const name = await cluster.createDatabase('empty');
    const alice = await connect(cluster.roleUrl('alice', 'alice-pw', name));
    const refused = await refusal(checkTeamSchema(alice));
    expect(refused).toMatchObject({ code: 'TEAM_SCHEMA_MISSING' });
    expect(refused.message).toMatch(/run forkline team init/);
  });

  it('refuses init to a role that may not create the schema', async () => {
    const name = await cluster.createDatabase('noinit');
    const bob = await connect(cluster.roleUrl('bob', 'bob-pw', name));
    const refused = await refusal(initTeamSchema(bob));
    expect(refused.code).toBe('TEAM_PERMISSION_DENIED');
    expect(refused.sqlstate).toBe('42501');
    expect(await storedVersion(bob)).toBe(0);
  });
});

describe('row-level security with two real roles', () => {
  let alice: TeamDb;
  let bob: TeamDb;

  beforeAll(async () => {
    alice = await connect(cluster.roleUrl('alice', 'alice-pw', database));
    bob = await connect(cluster.roleUrl('bob', 'bob-pw', database));
    expect([alice.role, bob.role]).toEqual(['alice', 'bob']);
    await alice.query(`INSERT INTO forkline.sessions (id, installation, title, header, created_at) VALUES ('a1', 'inst-a', 'alice''s', '{}', 1)`);
    await alice.query(`INSERT INTO forkline.events (session_id, seq, type, time, body) SELECT 'a1', s, 'turn/start', s, '{"n":' || s || '}' FROM generate_series(0, 9) s`);
  });

  it('stamps the inserting role as owner and moves the high-water mark with the rows', async () => {
    const row = await bob.query('SELECT owner_role, next_seq FROM forkline.sessions WHERE id = $1', ['a1']);
    expect(row.rows).toEqual([{ owner_role: 'alice', next_seq: 10 }]);
    // Everyone reads everyone's events.
    expect((await bob.query('SELECT count(*)::int AS n FROM forkline.events WHERE session_id = $1', ['a1'])).rows[0]).toEqual({ n: 10 });
  });

  it('refuses a role that claims another owner, or sets the high-water mark', async () => {
    const claim = await refusal(bob.query(`INSERT INTO forkline.sessions (id, owner_role, installation, header, created_at) VALUES ('b-fake', 'alice', 'i', '{}', 1)`));
    expect(claim.sqlstate).toBe('42501');
    const mark = await refusal(alice.query(`INSERT INTO forkline.sessions (id, installation, next_seq, header, created_at) VALUES ('a-mark', 'i', 50, '{}', 1)`));
    expect(mark.sqlstate).toBe('42501');
    const moved = await refusal(alice.query('UPDATE forkline.sessions SET next_seq = 0 WHERE id = $1', ['a1']));
    expect(moved.sqlstate).toBe('42501');
  });

  it("refuses bob appending to, updating or deleting alice's rows", async () => {
    const append = await refusal(bob.query(`INSERT INTO forkline.events (session_id, seq, type, time, body) VALUES ('a1', 10, 'turn/start', 1, '{}')`));
    expect(append.sqlstate).toBe('42501');
    expect(append.message).toMatch(/row-level security/);
    const updateEvent = await refusal(bob.query(`UPDATE forkline.events SET body = '{}' WHERE session_id = 'a1'`));
    expect(updateEvent.sqlstate).toBe('42501');
    const deleteEvent = await refusal(bob.query(`DELETE FROM forkline.events WHERE session_id = 'a1'`));
    expect(deleteEvent.sqlstate).toBe('42501');
    const deleteSession = await refusal(bob.query(`DELETE FROM forkline.sessions WHERE id = 'a1'`));
    expect(deleteSession.sqlstate).toBe('42501');
    const truncate = await refusal(bob.query('TRUNCATE forkline.events'));
    expect(truncate.sqlstate).toBe('42501');
    // An update of another's session row matches no row under the policy: nothing changes.
    const updated = await bob.query(`UPDATE forkline.sessions SET title = 'bob was here' WHERE id = 'a1'`);
    expect(updated.rowCount).toBe(0);
    const after = await alice.query('SELECT title, next_seq FROM forkline.sessions WHERE id = $1', ['a1']);
    expect(after.rows).toEqual([{ title: "alice's", next_seq: 10 }]);
    expect((await alice.query(`SELECT string_agg(body, ',' ORDER BY seq) AS bodies FROM forkline.events WHERE session_id = 'a1'`)).rows[0]?.bodies).toBe(
      Array.from({ length: 10 }, (_, i) => `{"n":${i}}`).join(','),
    );
  });

  it('keeps even the owner from rewriting or deleting published events', async () => {
    expect((await refusal(alice.query(`UPDATE forkline.events SET body = '{}' WHERE session_id = 'a1' AND seq = 0`))).sqlstate).toBe('42501');
    expect((await refusal(alice.query(`DELETE FROM forkline.events WHERE session_id = 'a1'`))).sqlstate).toBe('42501');
    expect((await refusal(alice.query(`DELETE FROM forkline.sessions WHERE id = 'a1'`))).sqlstate).toBe('42501');
    // The owner may update the descriptive columns of her own row.
    expect((await alice.query(`UPDATE forkline.sessions SET status = 'completed' WHERE id = 'a1'`)).rowCount).toBe(1);
  });

  it('refuses a gap, accepts a replay as a no-op, and continues exactly at the mark', async () => {
    const gap = await refusal(alice.query(`INSERT INTO forkline.events (session_id, seq, type, time, body) VALUES ('a1', 12, 'turn/start', 1, '{}')`));
    expect(gap).toMatchObject({ code: 'TEAM_SEQ_CONFLICT', sqlstate: 'FL001' });
    expect(gap.message).toMatch(/do not continue the stored log \(it holds seqs up to 9\)/);
    const holed = await refusal(alice.query(`INSERT INTO forkline.events (session_id, seq, type, time, body) VALUES ('a1', 10, 'x', 1, '{}'), ('a1', 12, 'x', 1, '{}')`));
    expect(holed.message).toMatch(/has a gap/);
    const replay = await alice.query(`INSERT INTO forkline.events (session_id, seq, type, time, body) SELECT 'a1', s, 'x', 0, '{}' FROM generate_series(5, 9) s ON CONFLICT DO NOTHING`);
    expect(replay.rowCount).toBe(0);
    const overlap = await alice.query(
      `INSERT INTO forkline.events (session_id, seq, type, time, body) SELECT 'a1', s, 'turn/start', s, '{"n":' || s || '}' FROM generate_series(8, 11) s ON CONFLICT DO NOTHING`,
    );
    expect(overlap.rowCount).toBe(2);
    expect((await alice.query(`SELECT next_seq FROM forkline.sessions WHERE id = 'a1'`)).rows[0]).toEqual({ next_seq: 12 });
    expect((await alice.query(`SELECT body FROM forkline.events WHERE session_id = 'a1' AND seq = 8`)).rows[0]).toEqual({ body: '{"n":8}' });
  });

  it('refuses a fork whose parent does not hold the forked prefix', async () => {
    const early = await refusal(bob.query(`INSERT INTO forkline.sessions (id, installation, parent_id, fork_seq, own_from, header, created_at) VALUES ('b-fork', 'i', 'a1', 40, 40, '{}', 1)`));
    expect(early.message).toMatch(/holds only 12 events of it; publish the parent first/);
    await bob.query(`INSERT INTO forkline.sessions (id, installation, parent_id, fork_seq, own_from, header, created_at) VALUES ('b-fork', 'i', 'a1', 6, 6, '{}', 1)`);
    expect((await bob.query(`SELECT owner_role, next_seq FROM forkline.sessions WHERE id = 'b-fork'`)).rows[0]).toEqual({ owner_role: 'bob', next_seq: 6 });
    expect((await refusal(bob.query(`INSERT INTO forkline.events (session_id, seq, type, time, body) VALUES ('b-fork', 0, 'x', 1, '{}')`))).code).toBe('TEAM_SEQ_CONFLICT');
  });

  it('refuses a role outside forkline_team', async () => {
    await cluster.createRole('mallory', 'm-pw');
    const mallory = await connect(cluster.roleUrl('mallory', 'm-pw', database));
    const read = await refusal(mallory.query('SELECT * FROM forkline.sessions'));
    expect(read.code).toBe('TEAM_PERMISSION_DENIED');
    expect(read.message).toMatch(/GRANT forkline_team TO your_role/);
  });
});

describe('connecting', () => {
  it('gives one clear line for a wrong password, a refused port and a string that is not a URL', async () => {
    const wrong = await refusal(TeamDb.connect(cluster.roleUrl('alice', 'nope', database)));
    expect(wrong.code).toBe('TEAM_STORE_AUTH');
    expect(wrong.message).not.toContain('nope');
    expect(wrong.message).toContain('***');
    const refused = await refusal(TeamDb.connect(`postgres://alice:pw@127.0.0.1:1/${database}`));
    expect(refused.code).toBe('TEAM_STORE_UNREACHABLE');
    expect(refused.message).toMatch(/cannot reach the team store at postgres:\/\/alice:\*\*\*@127\.0\.0\.1:1\/.*ECONNREFUSED/);
    expect((await refusal(TeamDb.connect('mysql://x@y/z'))).code).toBe('TEAM_STORE_URL_INVALID');
    expect((await refusal(TeamDb.connect('not a url'))).code).toBe('TEAM_STORE_URL_INVALID');
  });
});
