/**
 * Heap held by a loaded 100,000-event session vs the session's JSON size (its events serialised
 * one per line, unpacked). Measured with `--expose-gc` as the heapUsed delta around
 * store.readAll + new Session(seed), holding a reference to the session. Goal (docs/architecture.md §13): ≤ 2×.
 */
import { serializeEvent } from '../electron/session/chunk-rows.js';
import { Session } from '../electron/session/session.js';
import { SqliteSessionStore } from '../electron/store/sqlite-session-store.js';
import { header, tempDir } from '../test/support/store-fixtures.js';
import { chunkHeavyMix } from './event-mix.js';
import { gc, median, report } from './report.js';

const EVENTS = 100_000;
const RUNS = 3;

function main(): void {
  const tmp = tempDir('forkline-bench-heap-');
  const file = tmp.file('heap.db');
  let jsonBytes = 0;
  {
    const mix = chunkHeavyMix(EVENTS);
    const events = mix.events.slice(0, EVENTS);
    for (const e of events) jsonBytes += Buffer.byteLength(serializeEvent(e)) + 1;
    const store = new SqliteSessionStore(file);
    store.createSession(header('big'), events);
    store.close();
  }
  const deltas: number[] = [];
  const held: Session[] = [];
  const store = new SqliteSessionStore(file);
  store.readAll('big'); // warm the statement cache and JIT outside the measurement
  for (let run = 0; run < RUNS; run++) {
    gc();
    const before = process.memoryUsage().heapUsed;
    const session = new Session({ header: store.get('big')!.header, seed: store.readAll('big') });
    session.deriveMessages();
    gc();
    const after = process.memoryUsage().heapUsed;
    held.push(session); // keep every loaded session alive across the measurement
    deltas.push(after - before);
  }
  store.close();
  tmp.dispose();
  const bytes = median(deltas);
  const ratio = bytes / jsonBytes;
  report({
    name: 'heap of a loaded 100,000-event session',
    unit: 'MB',
    ours: Number((bytes / 2 ** 20).toFixed(1)),
    baseline: Number((jsonBytes / 2 ** 20).toFixed(1)),
    baselineName: 'the session as JSON (one event per line, unpacked)',
    ratio,
    goal: '≤ 2×',
    met: ratio <= 2,
    detail: `heapUsed delta after gc, session held; median of ${RUNS} loads (${held.length} sessions held)`,
  });
}

main();
