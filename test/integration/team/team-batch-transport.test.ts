/**
 * How the publisher's batches reach the server (team-publisher.ts, BatchTransport), on a real
 * PostgreSQL server with real login roles and real SQLite data folders:
 *
 * - COPY into a temporary table then one INSERT … SELECT: text with every character COPY's text
 *   format escapes (tab, newline, carriage return, backslash, a literal `\N`) and what it does not
 *   (quotes, commas, braces, non-ASCII) arrives byte for byte, bodies and search text alike.
 * - A role that may not create temporary tables publishes the same log through array parameters.
 * - Two publishers of one session at once (same role, same machine): the one that loses a batch
 *   to the other is refused by the events' primary key, continues from the server's high-water
 *   mark, and the server holds the log exactly once.
 * - Row-level security still applies to rows moved from a temporary table.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { searchableText } from '../../../electron/store/search-text.js';
import { TeamDb } from '../../../electron/team/team-db.js';
import { TeamStoreError } from '../../../electron/team/team-errors.js';
import { publishSession } from '../../../electron/team/team-publisher.js';
import { sharedPostgres, type PgCluster } from '../../support/postgres-cluster.js';
import { tempDir } from '../../support/store-fixtures.js';
import { localDigest, serverDigest, teamDatabase, writeLocalSessions } from './team-fixtures.js';

/** Every character COPY's text format escapes, and some it passes as they are. */
const AWKWARD = 'tab\there, newline\nthere, cr\rthere, back\\slash, a literal \\N, "quotes", {braces}, ünïcödé 😀, end';

let cluster: PgCluster;
const temp = tempDir('forkline-team-transport-');
const dataDir = join(temp.dir, 'alice');
const dbs: TeamDb[] = [];
const INSTALLATION = 'installation-transport-test';

async function connect(url: string): Promise<TeamDb> {
  const db = await TeamDb.connect(url);
  dbs.push(db);
  return db;
}

function withStore<T>(fn: (store: SqliteSessionStore) => Promise<T>): Promise<T> {
  const store = new SqliteSessionStore(join(dataDir, 'sessions.db'));
  return fn(store).finally(() => store.close());
}

beforeAll(async () => {
  cluster = await sharedPostgres();
  await writeLocalSessions(dataDir, [
    { id: 'awkward', turns: 6, deltas: 5, prompt: AWKWARD },
    { id: 'no-temp', turns: 5, deltas: 5, prompt: AWKWARD },
    { id: 'raced', turns: 60, deltas: 6 },
  ]);
}, 60_000);

afterAll(async () => {
  for (const db of dbs) await db.close();
  temp.dispose();
});

describe('publishing batches', () => {
  it('copies text COPY escapes and text it does not, byte for byte', async () => {
    const team = await teamDatabase(cluster, 'transport');
    const alice = await connect(team.alice);
    const [result] = await withStore((store) => publishSession(alice, store, 'awkward', { installation: INSTALLATION, batchEvents: 7 }));
    const local = localDigest(dataDir, 'awkward');
    expect(result).toMatchObject({ appended: local.count, total: local.count });
    expect(await serverDigest(alice, 'awkward')).toEqual({ ...local, contiguous: true, nextSeq: local.count });
    // The search text of the first prompt, as the local index holds it.
    const expected = await withStore(async (store) => {
      const prompt = store.readRange('awkward', 0, local.count).find((e) => e.type === 'user/message');
      return prompt === undefined ? undefined : searchableText(prompt)?.text;
    });
    expect(expected).toContain(AWKWARD);
    const stored = await alice.query<{ search_text: string }>("SELECT search_text FROM forkline.events WHERE session_id = 'awkward' AND type = 'user/message' ORDER BY seq LIMIT 1");
    expect(stored.rows[0]?.search_text).toBe(expected);
  });

  it('publishes through array parameters for a role that may not create temporary tables', async () => {
    const team = await teamDatabase(cluster, 'notemp');
    await cluster.admin(team.name, async (client) => {
      await client.query(`REVOKE TEMPORARY ON DATABASE ${team.name} FROM PUBLIC`);
    });
    const alice = await connect(team.alice);
    const refused = await alice.query('CREATE TEMP TABLE probe (x int)').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((refused as TeamStoreError | undefined)?.code).toBe('TEAM_PERMISSION_DENIED');
    await withStore((store) => publishSession(alice, store, 'no-temp', { installation: INSTALLATION, batchEvents: 11 }));
    const local = localDigest(dataDir, 'no-temp');
    expect(await serverDigest(alice, 'no-temp')).toEqual({ ...local, contiguous: true, nextSeq: local.count });
  });

  it('stores a session once when two publishers of it race (same role and machine)', async () => {
    const team = await teamDatabase(cluster, 'race');
    const [one, two] = [await connect(team.alice), await connect(team.alice)];
    const results = await withStore((store) =>
      Promise.all([publishSession(one, store, 'raced', { installation: INSTALLATION, batchEvents: 50 }), publishSession(two, store, 'raced', { installation: INSTALLATION, batchEvents: 50 })]),
    );
    const local = localDigest(dataDir, 'raced');
    expect(local.count).toBeGreaterThan(1000);
    expect(await serverDigest(one, 'raced')).toEqual({ ...local, contiguous: true, nextSeq: local.count });
    // Every event was appended by exactly one of them, and both saw the whole log stored.
    expect(results.map((r) => r[0]!.total)).toEqual([local.count, local.count]);
    expect(results[0]![0]!.appended + results[1]![0]!.appended).toBe(local.count);
  });

  it("refuses rows moved from a temporary table into another role's session", async () => {
    const team = await teamDatabase(cluster, 'rls');
    const alice = await connect(team.alice);
    await withStore((store) => publishSession(alice, store, 'awkward', { installation: INSTALLATION }));
    const bob = await connect(team.bob);
    await bob.query('CREATE TEMP TABLE staged (seq integer, type text, time bigint, body text)');
    const next = (await serverDigest(bob, 'awkward')).nextSeq;
    await bob.copyIn('COPY staged (seq, type, time, body) FROM STDIN', `${next}\tx\t0\t{}\n`);
    const refused = await bob.query("INSERT INTO forkline.events (session_id, seq, type, time, body) SELECT 'awkward', seq, type, time, body FROM staged").then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(TeamStoreError);
    expect((refused as TeamStoreError).code).toBe('TEAM_PERMISSION_DENIED');
    expect((await serverDigest(bob, 'awkward')).nextSeq).toBe(next);
  });
});
