/**
 * Sustained append of a chunk-heavy event mix: Session.append → write-behind → SqliteSessionStore,
 * flushing at the agent's durability barriers, vs raw better-sqlite3 inserting the same events one
 * row per event in the same transactions with the same pragmas. Goal (docs/architecture.md §13): ≥ 1.0× the rows/s.
 */
import { SessionRepository } from '../electron/store/session-repository.js';
import { SqliteSessionStore } from '../electron/store/sqlite-session-store.js';
import { tempDir } from '../test/support/store-fixtures.js';
import { chunkHeavyMix, type EventMix } from './event-mix.js';
import { openRaw, rawInsert } from './raw-baseline.js';
import { median, report } from './report.js';

const EVENTS = 100_000;
const RUNS = 7;
const tmp = tempDir('forkline-bench-append-');

async function ours(mix: EventMix, run: number): Promise<number> {
  const store = new SqliteSessionStore(tmp.file(`ours-${run}.db`));
  const repo = new SessionRepository(store, { newId: () => 'x', writeWindowMs: 50 });
  const live = repo.create({ id: 'bench' });
  const t0 = performance.now();
  const { inputs, flushAfter } = mix;
  for (let i = 0; i < inputs.length; i++) {
    live.session.append(inputs[i]!);
    if (flushAfter.has(i)) await live.flush();
  }
  await live.flush();
  const ms = performance.now() - t0;
  if (store.get('bench')?.eventCount !== inputs.length) throw new Error('ours: wrong event count');
  await live.release();
  store.close();
  return ms;
}

function baseline(mix: EventMix, run: number): number {
  const db = openRaw(tmp.file(`raw-${run}.db`));
  const t0 = performance.now();
  rawInsert(db, 'bench', mix.events, mix.batches);
  const ms = performance.now() - t0;
  db.close();
  return ms;
}

async function main(): Promise<void> {
  const mix = chunkHeavyMix(EVENTS);
  const n = mix.events.length;
  const oursMs: number[] = [];
  const rawMs: number[] = [];
  const ratios: number[] = [];
  // Interleaved pairs, alternating which side goes first: fsync latency on a shared disk drifts,
  // and the paired ratio cancels most of that drift.
  for (let run = 0; run < RUNS; run++) {
    if (run % 2 === 0) {
      rawMs.push(baseline(mix, run));
      oursMs.push(await ours(mix, run));
    } else {
      oursMs.push(await ours(mix, run));
      rawMs.push(baseline(mix, run));
    }
    ratios.push(rawMs[run]! / oursMs[run]!);
  }
  tmp.dispose();
  const ratio = median(ratios);
  report({
    name: 'sustained append, chunk-heavy mix',
    unit: 'events/s',
    ours: Math.round(n / (median(oursMs) / 1000)),
    baseline: Math.round(n / (median(rawMs) / 1000)),
    baselineName: 'raw better-sqlite3, 1 row/event, same batches + pragmas',
    ratio,
    goal: '≥ 1.0×',
    met: ratio >= 1,
    detail: `${n} events, ${mix.batches.length} flushed batches (synchronous=FULL); median of ${RUNS} interleaved pairs (ours ${median(oursMs).toFixed(0)} ms, raw ${median(rawMs).toFixed(0)} ms)`,
  });
}

await main();
