/**
 * Full-text search over 1,000,000 logged events (docs/architecture.md §13: ≤ 0.2× a full scan of the same rows,
 * same run). Ten sessions of the chunk-heavy mix (~100,000 events each) are written through
 * `SqliteSessionStore`, whose write path keeps the FTS5 index; a few tool results carry rare
 * error text. Ours: `store.search` (the index) for each query. Baseline: the fastest scan SQLite
 * can do over the same rows — `SELECT … FROM events WHERE data LIKE '%term%'` over every stored
 * row of the same file, with no JSON parsing at all.
 */
import Database from 'better-sqlite3';
import type { SessionEvent } from '../shared/events.js';
import { SqliteSessionStore } from '../electron/store/sqlite-session-store.js';
import { header, tempDir } from '../test/support/store-fixtures.js';
import { chunkHeavyMix } from './event-mix.js';
import { gc, median, report } from './report.js';

const SESSIONS = 10;
const RUNS = 7;
/** Rare terms planted in a few tool results, and a common one. */
const QUERIES = [['ZeroDivisionError'], ['ECONNRESET', 'upstream'], ['Edited src/module7']];

function withPlantedErrors(events: readonly SessionEvent[], session: number): SessionEvent[] {
  let planted = 0;
  return events.map((e) => {
    if (e.type !== 'tool/result' || e.seq % 97 !== session % 97 || planted >= 2) return e;
    planted++;
    const text = session % 2 === 0 ? 'Traceback: ZeroDivisionError: division by zero in report()' : 'fetch failed: ECONNRESET from upstream after 3 retries';
    const message = { ...e.data.message, content: [{ ...e.data.message.content[0]!, content: [{ type: 'text' as const, text }] }] };
    return { ...e, data: { ...e.data, message } } as unknown as SessionEvent;
  });
}

function main(): void {
  const tmp = tempDir('forkline-bench-search-');
  const file = tmp.file('search.db');
  const store = new SqliteSessionStore(file);
  const mix = chunkHeavyMix(100_000).events;
  let total = 0;
  for (let s = 0; s < SESSIONS; s++) {
    const events = withPlantedErrors(mix, s);
    store.createSession(header(`s${s}`), events);
    total += events.length;
  }
  const raw = new Database(file, { readonly: true });
  const scan = raw.prepare('SELECT session_id, seq FROM events WHERE data LIKE ?');
  const ours: number[] = [];
  const base: number[] = [];
  const ratios: number[] = [];
  let hits = 0;
  for (let run = 0; run < RUNS; run++) {
    gc();
    let o = 0;
    let b = 0;
    for (const terms of QUERIES) {
      const t0 = performance.now();
      const found = store.search({ terms, limit: 50 });
      o += performance.now() - t0;
      const t1 = performance.now();
      const scanned = scan.all(`%${terms[0]}%`) as unknown[];
      b += performance.now() - t1;
      if (found.length === 0 || scanned.length === 0) throw new Error(`no hits for ${terms.join(' ')}`);
      hits += found.length;
    }
    ours.push(o);
    base.push(b);
    ratios.push(o / b);
  }
  const rows = (raw.prepare('SELECT count(*) FROM events').pluck().get() as number) ?? 0;
  const docs = (raw.prepare('SELECT count(*) FROM search_docs').pluck().get() as number) ?? 0;
  raw.close();
  store.close();
  tmp.dispose();
  const ratio = median(ratios);
  report({
    name: 'full-text search over 1,000,000 logged events',
    unit: 'ms',
    ours: Number(median(ours).toFixed(2)),
    baseline: Number(median(base).toFixed(1)),
    baselineName: "a full scan of the same rows (SQL LIKE over every stored row's data)",
    ratio,
    goal: '≤ 0.2×',
    met: ratio <= 0.2,
    detail: `${total.toLocaleString('en-US')} events in ${SESSIONS} sessions (${rows.toLocaleString('en-US')} stored rows, ${docs.toLocaleString('en-US')} indexed messages and tool results); ${QUERIES.length} queries per run (${QUERIES.map((q) => q.join(' + ')).join('; ')}), newest 50 hits each; median of ${RUNS} runs (${Math.round(hits / RUNS)} hits per run)`,
  });
}

main();
