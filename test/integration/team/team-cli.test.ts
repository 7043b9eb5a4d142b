/**
 * `forkline team init|ls|show|fork|search` (issue 27, "Browse and continue") as real CLI processes
 * against a real PostgreSQL server: bob lists, reads, searches and continues a session alice
 * published; the copy bob forks from is an imported, read-only session naming where it came from.
 */
import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { forkline } from '../../support/cli-process.js';
import { sharedPostgres, type PgCluster } from '../../support/postgres-cluster.js';
import { tempDir } from '../../support/store-fixtures.js';
import { writeLocalSessions } from './team-fixtures.js';

let cluster: PgCluster;
let database: string;
let alice: string;
let bob: string;
const temp = tempDir('forkline-team-cli-');
const aliceDir = join(temp.dir, 'alice');
const bobDir = join(temp.dir, 'bob');
const ID = '5e55a1ce-0000-4000-8000-00000000a11c';

beforeAll(async () => {
  cluster = await sharedPostgres();
  database = await cluster.createDatabase('cli');
  await cluster.createRole('alice', 'alice-pw');
  await cluster.createRole('bob', 'bob-pw');
  alice = cluster.roleUrl('alice', 'alice-pw', database);
  bob = cluster.roleUrl('bob', 'bob-pw', database);
  await writeLocalSessions(aliceDir, [
    { id: ID, turns: 4, prompt: 'why does the flaky parser test fail on Windows', title: 'flaky parser' },
    { id: 'a-other', turns: 2, prompt: 'rename the config loader' },
  ]);
}, 60_000);

afterAll(() => {
  temp.dispose();
});

describe('forkline team', () => {
  it('init creates the schema once, then says it is up to date', async () => {
    const noSchema = await forkline(['team', 'ls', '--team-store', bob], { dataDir: bobDir });
    expect(noSchema.code).toBe(1);
    expect(noSchema.stderr).toMatch(/has no Forkline schema; run forkline team init .*\[TEAM_SCHEMA_MISSING\]/);
    const first = await forkline(['team', 'init', '--team-store', cluster.superuserUrl(database)], { dataDir: aliceDir });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/schema version 0 → 2 \(applied 001-sessions-events, 002-event-search\)/);
    expect(first.stdout).toMatch(/GRANT forkline_team TO their_role/);
    const second = await forkline(['team', 'init', '--team-store', cluster.superuserUrl(database)], { dataDir: aliceDir });
    expect(second.stdout).toMatch(/schema version 2, up to date/);
    await cluster.admin(database, (c) => c.query('GRANT forkline_team TO alice, bob'));
  });

  it("lists, shows and searches a teammate's session", async () => {
    const published = await forkline(['publish', ID, 'a-other', '--team-store', alice], { dataDir: aliceDir });
    expect(published.code).toBe(0);
    const ls = await forkline(['team', 'ls', '--team-store', bob], { dataDir: bobDir });
    expect(ls.code).toBe(0);
    expect(ls.stdout).toMatch(new RegExp(`^${ID} {2}alice {2}\\d{4}-\\d\\d-\\d\\dT.* {2}\\s*\\d+ events {2}completed {2}\\d+ tokens {2}.* {2}${ID} {2}flaky parser$`, 'm'));
    const json = JSON.parse((await forkline(['team', 'ls', '--json'], { dataDir: bobDir, env: { FORKLINE_TEAM_STORE: bob } })).stdout) as {
      id: string;
      owner: string;
      workspace: string;
      status: string;
    }[];
    expect(json.map((r) => [r.id, r.owner, r.workspace, r.status]).sort()).toEqual([
      [ID, 'alice', ID, 'completed'],
      ['a-other', 'alice', 'a-other', 'completed'],
    ]);
    const show = await forkline(['team', 'show', ID.slice(0, 6), '--team-store', bob], { dataDir: bobDir });
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/^team session 5e55a1ce-.* — flaky parser\npublished by alice, workspace 5e55a1ce-/);
    expect(show.stdout).toContain('why does the flaky parser test fail on Windows 3');
    const search = await forkline(['team', 'search', 'failing', 'windows', '--team-store', bob], { dataDir: bobDir });
    expect(search.code).toBe(0);
    // English stemming: "failing" finds "fail".
    expect(search.stdout).toMatch(/^5e55a1ce {2}seq \d+ {2}alice {2}flaky parser: .*\[\[fail\]\] on \[\[Windows\]\]/m);
    expect(search.stdout).not.toContain('a-other');
    const nothing = await forkline(['team', 'search', 'kubernetes', '--team-store', bob], { dataDir: bobDir });
    expect(nothing.code).toBe(1);
    const unknown = await forkline(['team', 'show', 'zzz', '--team-store', bob], { dataDir: bobDir });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no team session zzz .*\[TEAM_SESSION_NOT_FOUND\]/);
  });

  it('forks a team session into a local folder through an imported, read-only copy', async () => {
    const work = join(temp.dir, 'bob-work');
    mkdirSync(work);
    const needsDir = await forkline(['team', 'fork', ID, '--team-store', bob], { dataDir: bobDir });
    expect(needsDir.code).toBe(2);
    const forked = await forkline(['team', 'fork', ID, '--cwd', work, '--team-store', bob], { dataDir: bobDir });
    expect(forked.stderr).toMatch(/imported team session 5e55a1ce-.* \(published by alice\) as .*: \d+ events, read-only/);
    expect(forked.code).toBe(0);
    const childId = forked.stdout.trim();
    const store = new SqliteSessionStore(join(bobDir, 'sessions.db'));
    try {
      const child = store.get(childId)!;
      expect(child.header.cwd).toBe(realpathSync(work));
      expect(child.header.origin?.kind ?? 'native').toBe('native');
      const copy = store.get(child.header.parentSession!)!;
      expect(copy.header.origin).toMatchObject({ kind: 'imported', format: 'forkline', file: `team:alice:${ID}.jsonl` });
      expect(copy.header.cwd).toBeUndefined();
      // The copy holds exactly what alice published.
      const published = new SqliteSessionStore(join(aliceDir, 'sessions.db'));
      expect(store.readAll(copy.header.id).map((e) => [e.seq, e.type, e.data])).toEqual(published.readAll(ID).map((e) => [e.seq, e.type, e.data]));
      published.close();
    } finally {
      store.close();
    }
    const ls = await forkline(['ls'], { dataDir: bobDir });
    expect(ls.stdout).toMatch(/flaky parser {2}⑂ [0-9a-f]{8}( {2}in \S.*)?$/m);
    expect(ls.stdout).toMatch(/flaky parser {2}\(imported\)( {2}in \S.*)?$/m);
  });
});
