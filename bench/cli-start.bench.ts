/**
 * CLI start (docs/architecture.md §13, issue 15): wall time of `forkline ls` — the real command, `node
 * bin/forkline.js ls`, running the bundle built ahead of time — on a data folder holding 1,000 stored
 * sessions, against `node -e 0` in the same run. Both are spawned as fresh processes in interleaved
 * pairs (alternating which goes first); the figure is the median of the per-pair ratios.
 * Goal: ≤ 3×.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { SqliteSessionStore } from '../electron/store/sqlite-session-store.js';
import { buildSession, header, tempDir } from '../test/support/store-fixtures.js';
import { median, report } from './report.js';

const SESSIONS = 1_000;
const PAIRS = 21;
const ROOT = join(import.meta.dirname, '..');

function timeMs(args: readonly string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

function main(): void {
  const tmp = tempDir('forkline-bench-cli-');
  const dataDir = tmp.dir;
  const store = new SqliteSessionStore(join(dataDir, 'sessions.db'));
  const log = buildSession('template', 2, 6).events;
  for (let i = 0; i < SESSIONS; i++) {
    const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    store.createSession(header(id, { title: `session ${i}`, cwd: '/tmp/work' }), log);
  }
  store.close();
  const ls = [join(ROOT, 'bin', 'forkline.js'), 'ls', '--data-dir', dataDir];
  const baseline = ['-e', '0'];
  // Warm up the file cache (and rebuild a stale bundle, which is not what is measured).
  timeMs(ls);
  timeMs(baseline);
  const ours: number[] = [];
  const base: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < PAIRS; i++) {
    let a: number;
    let b: number;
    if (i % 2 === 0) {
      a = timeMs(ls);
      b = timeMs(baseline);
    } else {
      b = timeMs(baseline);
      a = timeMs(ls);
    }
    ours.push(a);
    base.push(b);
    ratios.push(a / b);
  }
  tmp.dispose();
  const ratio = median(ratios);
  report({
    name: 'CLI start, `forkline ls` on 1,000 sessions',
    unit: 'ms',
    ours: Number(median(ours).toFixed(1)),
    baseline: Number(median(base).toFixed(1)),
    baselineName: '`node -e 0`',
    ratio,
    goal: '≤ 3×',
    met: ratio <= 3,
    detail: `${PAIRS} interleaved pairs of fresh processes, per-pair ratios ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×; the bundled CLI (dist/cli) through bin/forkline.js, ${SESSIONS} sessions of ${log.length} events`,
  });
}

main();
