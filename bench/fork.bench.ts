/**
 * Fork cost vs history length: SessionRepository.fork at the turn boundary nearest seq 100,000 vs at
 * the one nearest seq 100, on a cold stored parent. Fork is by reference (the child stores
 * parent_session + seed_length and its own session/end-seed), so the cost must not grow with the
 * prefix. Goal (docs/architecture.md §13): ≤ 2×.
 */
import { SessionRepository } from '../electron/store/session-repository.js';
import { SqliteSessionStore } from '../electron/store/sqlite-session-store.js';
import { header, tempDir } from '../test/support/store-fixtures.js';
import { chunkHeavyMix } from './event-mix.js';
import { median, report } from './report.js';

const FORKS = 200;
const ROUNDS = 5;

async function main(): Promise<void> {
  const tmp = tempDir('forkline-bench-fork-');
  const mix = chunkHeavyMix(100_100, 100);
  const store = new SqliteSessionStore(tmp.file('fork.db'));
  store.createSession(header('parent'), mix.events);
  let n = 0;
  const repo = new SessionRepository(store, { newId: () => `child-${++n}` });
  const ends = mix.events.filter((e) => e.type === 'turn/end').map((e) => e.seq);
  const near = (target: number) => ends.reduce((best, s) => (Math.abs(s - target) < Math.abs(best - target) ? s : best));
  const early = near(100);
  const late = near(100_000);

  const time = async (boundary: number): Promise<number> => {
    const t0 = performance.now();
    for (let i = 0; i < FORKS; i++) await repo.fork('parent', boundary);
    return (performance.now() - t0) / FORKS;
  };
  await time(early); // warm up statements and JIT
  const earlyMs: number[] = [];
  const lateMs: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const a = round % 2 === 0 ? await time(early) : 0;
    const b = await time(late);
    const c = round % 2 === 0 ? a : await time(early);
    earlyMs.push(c);
    lateMs.push(b);
    ratios.push(b / c);
  }
  const sample = store.get(`child-${n}`)!;
  const rows = store.readFrom(sample.header.id, sample.header.seedLength!).length;
  store.close();
  tmp.dispose();
  const ratio = median(ratios);
  report({
    name: 'fork at seq 100,000 vs at seq 100',
    unit: 'ms/fork',
    ours: Number(median(lateMs).toFixed(3)),
    baseline: Number(median(earlyMs).toFixed(3)),
    baselineName: `fork at seq ${early} (same run)`,
    ratio,
    goal: '≤ 2×',
    met: ratio <= 2,
    detail: `boundaries ${late} vs ${early}; ${FORKS} forks per sample, median of ${ROUNDS} rounds; a child stores ${rows} own event(s)`,
  });
}

await main();
