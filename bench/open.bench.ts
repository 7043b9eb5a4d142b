/**
 * Opening a 100,000-event session: SqliteSessionStore.readAll + new Session(seed) (validation,
 * surface, invariant replay, ready for deriveMessages) vs raw select + JSON.parse of the same events
 * stored one row per event. Goal (docs/architecture.md §13): ≤ 2×.
 */
import { Session } from '../electron/session/session.js';
import { SqliteSessionStore } from '../electron/store/sqlite-session-store.js';
import { header, tempDir } from '../test/support/store-fixtures.js';
import { chunkHeavyMix } from './event-mix.js';
import { openRaw, rawInsert, rawReadAll } from './raw-baseline.js';
import { gc, median, report } from './report.js';

const EVENTS = 100_000;
const RUNS = 7;

function main(): void {
  const tmp = tempDir('forkline-bench-open-');
  const mix = chunkHeavyMix(EVENTS);
  const events = mix.events.slice(0, EVENTS);
  const store = new SqliteSessionStore(tmp.file('ours.db'));
  store.createSession(header('big'), events);
  const raw = openRaw(tmp.file('raw.db'));
  rawInsert(raw, 'big', events, [[0, events.length]]);

  const oursMs: number[] = [];
  const rawMs: number[] = [];
  const ratios: number[] = [];
  let messages = 0;
  for (let run = 0; run < RUNS; run++) {
    gc();
    let t0 = performance.now();
    const session = new Session({ header: store.get('big')!.header, seed: store.readAll('big') });
    const o = performance.now() - t0;
    messages = session.deriveMessages().length;
    if (session.length !== events.length) throw new Error('ours: wrong length');
    gc();
    t0 = performance.now();
    const parsed = rawReadAll(raw, 'big');
    const r = performance.now() - t0;
    if (parsed.length !== events.length) throw new Error('raw: wrong length');
    oursMs.push(o);
    rawMs.push(r);
    ratios.push(o / r);
  }
  store.close();
  raw.close();
  tmp.dispose();
  const ratio = median(ratios);
  report({
    name: 'open a 100,000-event session',
    unit: 'ms',
    ours: Number(median(oursMs).toFixed(1)),
    baseline: Number(median(rawMs).toFixed(1)),
    baselineName: 'raw SELECT + JSON.parse, 1 row/event',
    ratio,
    goal: '≤ 2×',
    met: ratio <= 2,
    detail: `${EVENTS} events (${messages} derived messages); readAll + new Session(seed); median of ${RUNS} paired runs`,
  });
}

main();
