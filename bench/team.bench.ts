/**
 * The team store (issue 27) on a real PostgreSQL server this benchmark starts itself
 * (test/support/postgres-cluster.ts: a throwaway cluster, stopped and removed at the end).
 *
 * 1. Publishing a 100,000-event session (the chunk-heavy mix, stored in a real SQLite file) with
 *    the publisher as a team member — reading the local store, serialising, search text, batched
 *    `INSERT … SELECT … FROM unnest(…)` under row-level security and the contiguity trigger —
 *    against the same rows, already serialised in memory, sent with a raw `COPY … FROM STDIN`
 *    (pg-copy-streams) into the same table of the same server by its owner. Goal ≥ 0.5× COPY's rate.
 * 2. Listing 10,000 team sessions (`listTeamSessions`: the sessions table, which holds every figure
 *    the list shows) against a full scan that derives the same list from the events (count, last
 *    time and the responses' tokens per session, over every stored row: the 10,000 sessions of 40
 *    events and the published ones). Goal < 0.2× the scan's time.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { SessionEvent } from '../shared/events.js';
import { serializeEvent } from '../electron/session/chunk-rows.js';
import { searchableText } from '../electron/store/search-text.js';
import { SqliteSessionStore } from '../electron/store/sqlite-session-store.js';
import { TeamDb } from '../electron/team/team-db.js';
import { publishSession } from '../electron/team/team-publisher.js';
import { initTeamSchema } from '../electron/team/team-schema.js';
import { listTeamSessions } from '../electron/team/team-sessions.js';
import { startPostgresCluster } from '../test/support/postgres-cluster.js';
import { header, tempDir } from '../test/support/store-fixtures.js';
import { chunkHeavyMix } from './event-mix.js';
import { median, report } from './report.js';

const RUNS = 3;
const LISTED = 10_000;

/** One value in COPY's text format. */
function copyValue(value: string | number | null): string {
  if (value === null) return '\\N';
  return String(value).replace(/[\\\n\r\t]/g, (c) => (c === '\\' ? '\\\\' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\t'));
}

function searchText(event: SessionEvent): string | null {
  const doc = searchableText(event);
  return doc === undefined ? null : doc.text.replaceAll('\u0000', ' ');
}

async function main(): Promise<void> {
  const cluster = await startPostgresCluster();
  const tmp = tempDir('forkline-bench-team-');
  try {
    const database = await cluster.createDatabase('bench');
    await cluster.createRole('alice', 'alice-pw');
    const admin = await TeamDb.connect(cluster.superuserUrl(database));
    await initTeamSchema(admin);
    await admin.query('GRANT forkline_team TO alice');
    const alice = await TeamDb.connect(cluster.roleUrl('alice', 'alice-pw', database));
    const client = new pg.Client({ connectionString: cluster.superuserUrl(database) });
    await client.connect();
    const events = chunkHeavyMix(100_000).events;
    const store = new SqliteSessionStore(tmp.file('sessions.db'));
    // The COPY rows, prepared before the clock starts (the baseline does no work of ours).
    const copyLines = events.map((e) => `${copyValue(e.seq)}\t${copyValue(e.type)}\t${copyValue(e.time)}\t${copyValue(serializeEvent(e))}\t${copyValue(searchText(e))}`);
    const installation = randomUUID();
    const ours: number[] = [];
    const base: number[] = [];
    const ratios: number[] = [];
    /** This process's CPU time while publishing (ms): reading, serialising, encoding; the server's is apart. */
    const cpu: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const id = `publish-${run}`;
      store.createSession(header(id, { title: 'bench' }), events);
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      const [result] = await publishSession(alice, store, id, { installation });
      const publishMs = performance.now() - t0;
      const c1 = process.cpuUsage(c0);
      cpu.push((c1.user + c1.system) / 1000);
      if (result?.total !== events.length) throw new Error(`published ${result?.total} of ${events.length}`);
      // The same rows by COPY, into the same table, under another session id.
      const copyId = `copy-${run}`;
      await admin.query("INSERT INTO forkline.sessions (id, installation, header, created_at) VALUES ($1, 'bench', '{}', 0)", [copyId]);
      const t1 = performance.now();
      const stream = client.query(copyFrom('COPY forkline.events (session_id, seq, type, time, body, search_text) FROM STDIN'));
      await pipeline(
        Readable.from(
          (function* () {
            const prefix = `${copyId}\t`;
            for (let i = 0; i < copyLines.length; i += 1000)
              yield copyLines
                .slice(i, i + 1000)
                .map((l) => `${prefix}${l}\n`)
                .join('');
          })(),
        ),
        stream,
      );
      const copyMs = performance.now() - t1;
      const copied = (await admin.query<{ n: number }>('SELECT next_seq AS n FROM forkline.sessions WHERE id = $1', [copyId])).rows[0]?.n;
      if (copied !== events.length) throw new Error(`COPY stored ${copied} of ${events.length}`);
      ours.push(events.length / (publishMs / 1000));
      base.push(events.length / (copyMs / 1000));
      ratios.push(publishMs > 0 ? copyMs / publishMs : 0);
    }
    const ratio = median(ratios);
    report({
      name: 'publishing a 100,000-event session to the team store',
      unit: 'events/s',
      ours: Math.round(median(ours)),
      baseline: Math.round(median(base)),
      baselineName: 'raw COPY of the same rows into the same table and server (PostgreSQL 15)',
      ratio,
      goal: '≥ 0.5×',
      met: ratio >= 0.5,
      detail: `median of ${RUNS} runs (per-run ratios ${ratios.map((r) => r.toFixed(2)).join(', ')}); ours reads the SQLite log, serialises and extracts search text while it sends batches of 2,000 (COPY into a temporary table, then INSERT … SELECT under row-level security), using ${Math.round(median(cpu))} ms of this process's CPU; COPY's rows are prepared beforehand`,
    });

    // 10,000 sessions of 40 real events each (a short turn: its chunks, messages, tool call and
    // result, renumbered from 0), written by the owner in bulk.
    const firstEnd = events.findIndex((e) => e.type === 'turn/end');
    const turn = events.slice(0, firstEnd + 1);
    const small = [...turn.filter((e) => e.type !== 'assistant/chunk'), ...turn.filter((e) => e.type === 'assistant/chunk').slice(0, 40)].slice(0, 40).map((e, seq) => ({ ...e, seq }) as SessionEvent);
    await admin.query(
      `INSERT INTO forkline.sessions (id, installation, title, status, workspace, header, created_at)
       SELECT 'listed-' || i, 'bench', 'session ' || i, 'completed', 'repo' || (i % 40), '{}', 1780000000000 + i FROM generate_series(1, $1) i`,
      [LISTED],
    );
    await admin.query(
      `INSERT INTO forkline.events (session_id, seq, type, time, body)
       SELECT 'listed-' || i, e.seq, e.type, e.time, e.body FROM generate_series(1, $1) i, unnest($2::int[], $3::text[], $4::bigint[], $5::text[]) AS e(seq, type, time, body)`,
      [LISTED, small.map((e) => e.seq), small.map((e) => e.type), small.map((e) => e.time), small.map(serializeEvent)],
    );
    await admin.query('VACUUM ANALYZE forkline.sessions');
    await admin.query('VACUUM ANALYZE forkline.events');
    const listOurs: number[] = [];
    const listBase: number[] = [];
    const listRatios: number[] = [];
    for (let run = 0; run < 7; run++) {
      const t0 = performance.now();
      const rows = await listTeamSessions(alice, { limit: LISTED + RUNS * 2 });
      const o = performance.now() - t0;
      if (rows.length < LISTED) throw new Error(`listed ${rows.length}`);
      const t1 = performance.now();
      // The same list derived from the events: count, last time and the tokens of every response.
      const scanned = await alice.query(
        `SELECT session_id, count(*) AS events, max(time) AS last,
           sum(CASE WHEN type = 'assistant/message' THEN coalesce((body::jsonb #>> '{data,usage,inputTokens}')::bigint, 0) END) AS input_tokens,
           sum(CASE WHEN type = 'assistant/message' THEN coalesce((body::jsonb #>> '{data,usage,outputTokens}')::bigint, 0) END) AS output_tokens
         FROM forkline.events GROUP BY session_id ORDER BY last DESC`,
      );
      const b = performance.now() - t1;
      if (scanned.rows.length < LISTED) throw new Error(`scanned ${scanned.rows.length}`);
      listOurs.push(o);
      listBase.push(b);
      listRatios.push(o / b);
    }
    const eventRows = (await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM forkline.events')).rows[0]?.n ?? 0;
    const listRatio = median(listRatios);
    report({
      name: `listing ${LISTED.toLocaleString('en-US')} team sessions`,
      unit: 'ms',
      ours: Number(median(listOurs).toFixed(1)),
      baseline: Number(median(listBase).toFixed(1)),
      baselineName: `a full scan deriving the list from the events (${eventRows.toLocaleString('en-US')} rows: count, last time, tokens per session)`,
      ratio: listRatio,
      goal: '< 0.2×',
      met: listRatio < 0.2,
      detail: 'median of 7 runs, as a team member (row-level security on); ours reads the sessions table in updated_at order',
    });
    await alice.close();
    await admin.close();
    await client.end();
    store.close();
  } finally {
    tmp.dispose();
    cluster.stop();
  }
}

await main();
