/**
 * Helpers of the team store tests: a team database on the shared throwaway cluster with the
 * schema and two member roles, local data folders holding real sessions (SQLite, written through
 * the real store and repository), and the count + hash of a session's own events on both sides.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { serializeEvent } from '../../../electron/session/chunk-rows.js';
import { SessionRepository } from '../../../electron/store/session-repository.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { TeamDb } from '../../../electron/team/team-db.js';
import { initTeamSchema } from '../../../electron/team/team-schema.js';
import { Session } from '../../../electron/session/session.js';
import { AgentLogWriter, buildSession, header, steppingClock } from '../../support/store-fixtures.js';
import type { PgCluster } from '../../support/postgres-cluster.js';

/** A team database with the schema, and connection strings for two members. */
export interface TeamDatabase {
  readonly name: string;
  readonly adminUrl: string;
  readonly alice: string;
  readonly bob: string;
}

/** Creates a database, runs `team init` in it as its owner, and makes alice and bob members. */
export async function teamDatabase(cluster: PgCluster, prefix: string): Promise<TeamDatabase> {
  const name = await cluster.createDatabase(prefix);
  await cluster.createRole('alice', 'alice-pw');
  await cluster.createRole('bob', 'bob-pw');
  const admin = await TeamDb.connect(cluster.superuserUrl(name));
  try {
    await initTeamSchema(admin);
    await admin.query('GRANT forkline_team TO alice, bob');
  } finally {
    await admin.close();
  }
  return { name, adminUrl: cluster.superuserUrl(name), alice: cluster.roleUrl('alice', 'alice-pw', name), bob: cluster.roleUrl('bob', 'bob-pw', name) };
}

/** A session to write: `turns` completed turns of `deltas` chunks each; `forkOf` forks it from an earlier one after its last event, then adds `turns` turns. */
export interface LocalSpec {
  readonly id: string;
  readonly turns: number;
  readonly deltas?: number;
  readonly title?: string;
  readonly forkOf?: string;
  /** The words of each turn's prompt (numbered); default `prompt`. */
  readonly prompt?: string;
}

/** Writes sessions into `<dataDir>/sessions.db` (real SQLite through the real store). */
export async function writeLocalSessions(dataDir: string, specs: readonly LocalSpec[]): Promise<void> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const store = new SqliteSessionStore(join(dataDir, 'sessions.db'));
  const repository = new SessionRepository(store, { newId: randomUUID });
  try {
    for (const spec of specs) {
      if (spec.forkOf === undefined) {
        const extra = { cwd: join(dataDir, 'work', spec.id), title: spec.title ?? `session ${spec.id}` };
        const session = spec.prompt === undefined ? buildSession(spec.id, spec.turns, spec.deltas ?? 8, extra) : new Session({ header: header(spec.id, extra), now: steppingClock() });
        if (spec.prompt !== undefined) for (let t = 0; t < spec.turns; t++) new AgentLogWriter(session).completedTurn(`${spec.prompt} ${t + 1}`, spec.deltas ?? 8);
        store.createSession(session.header, session.events);
        continue;
      }
      await repository.fork(spec.forkOf, undefined, spec.id);
      await appendTurns(repository, spec.id, spec.turns, spec.deltas ?? 8);
    }
  } finally {
    await repository.releaseAll();
    repository.dispose();
    store.close();
  }
}

/** Appends `turns` completed turns to a stored session (as an agent resuming it would). */
export async function appendLocalTurns(dataDir: string, id: string, turns: number, deltas = 8): Promise<void> {
  const store = new SqliteSessionStore(join(dataDir, 'sessions.db'));
  const repository = new SessionRepository(store, { newId: randomUUID });
  try {
    await appendTurns(repository, id, turns, deltas);
  } finally {
    await repository.releaseAll();
    repository.dispose();
    store.close();
  }
}

async function appendTurns(repository: SessionRepository, id: string, turns: number, deltas: number): Promise<void> {
  const live = repository.resume(id);
  const writer = new AgentLogWriter(live.session);
  for (let t = 0; t < turns; t++) writer.completedTurn(`more ${t} for ${id}`, deltas);
  await live.release();
}

/** Count and md5 of a session's events from `from` on, as canonical text joined by newlines. */
export interface LogDigest {
  readonly count: number;
  readonly md5: string;
}

/** The digest of the local log's events with `from <= seq < to` (default: from 0 to the end). */
export function localDigest(dataDir: string, id: string, from = 0, to = Number.MAX_SAFE_INTEGER): LogDigest {
  const store = new SqliteSessionStore(join(dataDir, 'sessions.db'));
  try {
    const events = store.readRange(id, from, Math.min(to, store.get(id)?.eventCount ?? 0));
    return { count: events.length, md5: createHash('md5').update(events.map(serializeEvent).join('\n')).digest('hex') };
  } finally {
    store.close();
  }
}

/** The digest the server computes over the rows it holds under `id`, checking they are 0..n-1 from `from`. */
export async function serverDigest(db: TeamDb, id: string): Promise<LogDigest & { readonly contiguous: boolean; readonly nextSeq: number }> {
  const row = (
    await db.query<{ count: number; md5: string | null; lo: number | null; hi: number | null; next_seq: number; own_from: number }>(
      `SELECT count(e.seq)::int AS count, md5(string_agg(e.body, E'\\n' ORDER BY e.seq)) AS md5, min(e.seq) AS lo, max(e.seq) AS hi, s.next_seq, s.own_from
       FROM forkline.sessions s LEFT JOIN forkline.events e ON e.session_id = s.id WHERE s.id = $1 GROUP BY s.next_seq, s.own_from`,
      [id],
    )
  ).rows[0];
  if (!row) return { count: 0, md5: createHash('md5').update('').digest('hex'), contiguous: true, nextSeq: 0 };
  const contiguous = row.count === 0 ? row.next_seq === row.own_from : row.lo === row.own_from && row.hi === row.next_seq - 1 && row.hi - row.lo + 1 === row.count;
  return { count: row.count, md5: row.md5 ?? createHash('md5').update('').digest('hex'), contiguous, nextSeq: row.next_seq };
}
