/**
 * Fan-out (issue 21 done-when), through the real runtime: host, agents, tool pipeline, SQLite store,
 * git checkpoints and worktrees, the real `openai` client against the scripted server, which answers
 * at once. Each branch's turn is 50 steps (49 `read_file` calls, then an answer) and its check is
 * `true`. Runs, interleaved (1 then 4, then 4 then 1, …):
 *
 * 1. Wall time of a 4-branch fan-out (forks into worktrees, turns, checks) vs a 1-branch one in the
 *    same run. Goal ≤ 1.5×.
 * 2. Harness overhead per step: a branch's mean step period (step 2's start to step 50's end, / 49)
 *    with 4 branches live vs with 1. Goal ≤ 1.5×. CPU per step is printed beside it.
 * 3. Each child stores only its own events: the `events` rows stored under each child, against its
 *    own event count and the parent's (shared by reference). Goal: no child row below its fork
 *    point and the parent's rows unchanged by the fan-out (a ratio of 1 = rows stored / events of
 *    its own).
 *
 * The board while 4 branches stream is measured in Chromium by ui-fanout-board.bench.ts.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import type { ProviderChoice } from '../shared/api.js';
import type { SessionEvent } from '../shared/events.js';
import { createRuntime, type Runtime } from '../electron/host/runtime.js';
import { Fanout, type VariantSpec } from '../electron/host/services/fanout-run.js';
import { tempDir } from '../test/support/store-fixtures.js';
import { baseSession, STEPS } from './fanout-fixture.js';
import { median, report } from './report.js';

const PAIRS = 3;

interface RunFigures {
  readonly wallMs: number;
  readonly prepareMs: number;
  /** Mean step period per branch (ms). */
  readonly stepMs: number;
  /** CPU of this process per step (ms). */
  readonly cpuPerStepMs: number;
  /** CPU of this process's main thread per step (ms; NaN without /proc). */
  readonly mainCpuPerStepMs: number;
  /** CPU of the scripted server's process per step (ms). */
  readonly serverCpuPerStepMs: number;
  readonly branches: readonly string[];
}

/**
 * CPU time (user + system, ms) of this process's main thread so far — the one thread every branch
 * runs on — from /proc/self/task/<pid>/stat (fields 14 and 15, in clock ticks, 100 per second on
 * Linux; see proc(5)); undefined where /proc is not there.
 */
function mainThreadCpuMs(): number | undefined {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** The scripted server in a child process (fanout-llm-child.ts): its URL, its CPU so far, a closer. */
interface LlmChild {
  readonly baseUrl: string;
  /** The child's CPU (user + system, ms) since it started. */
  cpuMs(): Promise<number>;
  close(): Promise<void>;
}

async function startLlmChild(): Promise<LlmChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fanout-llm-child.ts')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const waiting: { resolve: (line: string) => void; reject: (error: Error) => void }[] = [];
  const early: string[] = [];
  lines.on('line', (line) => {
    const w = waiting.shift();
    if (w) w.resolve(line);
    else early.push(line);
  });
  child.once('exit', (code) => {
    for (const w of waiting.splice(0)) w.reject(new Error(`the scripted server exited (${code})`));
  });
  const next = () =>
    new Promise<string>((resolve, reject) => {
      const line = early.shift();
      if (line !== undefined) return resolve(line);
      if (child.exitCode !== null) return reject(new Error(`the scripted server exited (${child.exitCode})`));
      waiting.push({ resolve, reject });
    });
  const baseUrl = await next();
  if (!baseUrl.startsWith('http')) throw new Error(`the scripted server said ${baseUrl}`);
  return {
    baseUrl,
    cpuMs: async () => {
      child.stdin.write('cpu\n');
      return Number((await next()).replace('CPU ', '')) / 1000;
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.stdin.end();
      }),
  };
}

/** One fan-out of `n` branches from `parent` (the `Fanout` class directly: `prepareFanout` refuses fewer than 2). */
async function fanout(runtime: Runtime, llm: LlmChild, parent: string, n: number): Promise<RunFigures> {
  const active: ProviderChoice = runtime.settings.active;
  const variants: VariantSpec[] = Array.from({ length: n }, (_, i) => ({ label: `branch ${i + 1}`, route: {} }));
  const server0 = await llm.cpuMs();
  const cpu0 = process.cpuUsage();
  const main0 = mainThreadCpuMs();
  const t0 = performance.now();
  const run = new Fanout(runtime, { sessionId: parent, prompt: 'go', variants, routes: variants.map(() => active), check: 'true', checkTimeoutMs: 30_000, concurrency: 4 });
  await run.prepare();
  const t1 = performance.now();
  await run.run();
  const t2 = performance.now();
  const cpu = process.cpuUsage(cpu0);
  const main1 = mainThreadCpuMs();
  const serverMs = (await llm.cpuMs()) - server0;
  const periods: number[] = [];
  for (const b of run.branches) {
    if (b.outcome !== 'completed' || b.check?.passed !== true) throw new Error(`branch ${b.index + 1} ended ${b.outcome} ${b.error ?? ''}`);
    const events = runtime.host.agentFor(b.sessionId)!.session.events;
    const own = events.slice(runtime.repository.get(b.sessionId)!.header.seedLength ?? 0);
    const turn = own.find((e): e is SessionEvent<'turn/start'> => e.type === 'turn/start')!.data.turn;
    const start = own.find((e) => e.type === 'step/start' && e.data.turn === turn && e.data.step === 2)!;
    const end = own.find((e) => e.type === 'step/end' && e.data.turn === turn && e.data.step === STEPS)!;
    periods.push((end.time - start.time) / (STEPS - 1));
  }
  return {
    wallMs: t2 - t0,
    prepareMs: t1 - t0,
    stepMs: periods.reduce((a, b) => a + b, 0) / periods.length,
    cpuPerStepMs: (cpu.user + cpu.system) / 1000 / (n * STEPS),
    serverCpuPerStepMs: serverMs / (n * STEPS),
    mainCpuPerStepMs: main0 !== undefined && main1 !== undefined ? (main1 - main0) / (n * STEPS) : Number.NaN,
    branches: run.branches.map((b) => b.sessionId),
  };
}

async function engine(): Promise<void> {
  const tmp = tempDir('forkline-bench-fanout-');
  const llm = await startLlmChild();
  const dataDir = join(tmp.dir, 'data');
  const runtime = createRuntime({ dataDir, env: {}, overrides: { active: { provider: 'custom', baseUrl: llm.baseUrl, model: 'scripted-model' }, approvalPolicy: 'allow' } });
  try {
    const parent = await baseSession(runtime, tmp.dir);
    const parentLength = runtime.host.agentFor(parent)!.session.length;
    await fanout(runtime, llm, parent, 1); // warm up (module loads, git, the client)
    const ones: RunFigures[] = [];
    const fours: RunFigures[] = [];
    for (let i = 0; i < PAIRS; i++) {
      if (i % 2 === 0) {
        ones.push(await fanout(runtime, llm, parent, 1));
        fours.push(await fanout(runtime, llm, parent, 4));
      } else {
        fours.push(await fanout(runtime, llm, parent, 4));
        ones.push(await fanout(runtime, llm, parent, 1));
      }
    }
    const wallRatios = ones.map((o, i) => fours[i]!.wallMs / o.wallMs);
    const stepRatios = ones.map((o, i) => fours[i]!.stepMs / o.stepMs);
    const f = (v: number, d = 0) => v.toFixed(d);
    const oneWall = median(ones.map((o) => o.wallMs));
    const fourWall = median(fours.map((o) => o.wallMs));
    report({
      name: 'fan-out of 4 branches vs 1 (50 instant steps each)',
      unit: 'ms wall',
      ours: Math.round(fourWall),
      baseline: Math.round(oneWall),
      baselineName: 'a 1-branch fan-out',
      ratio: median(wallRatios),
      goal: '≤ 1.5×',
      met: median(wallRatios) <= 1.5,
      detail: `${PAIRS} interleaved pairs, median of per-pair ratios (${wallRatios.map((r) => r.toFixed(2)).join(', ')}); forks into worktrees take ${f(median(fours.map((o) => o.prepareMs)))} ms of 4 vs ${f(median(ones.map((o) => o.prepareMs)))} ms of 1; each branch: ${STEPS} steps, ${STEPS - 1} read_file calls, check \`true\``,
    });
    report({
      name: 'harness overhead per step, 4 live branches vs 1',
      unit: 'ms/step',
      ours: Number(median(fours.map((o) => o.stepMs)).toFixed(2)),
      baseline: Number(median(ones.map((o) => o.stepMs)).toFixed(2)),
      baselineName: 'the same steps with 1 branch live',
      ratio: median(stepRatios),
      goal: '≤ 1.5×',
      met: median(stepRatios) <= 1.5,
      detail: `a branch's step period (step 2 start → step ${STEPS} end, / ${STEPS - 1}), mean over its branches, median of ${PAIRS} pairs (${stepRatios.map((r) => r.toFixed(2)).join(', ')}); CPU per step of the main thread (where every branch runs): ${f(median(fours.map((o) => o.mainCpuPerStepMs)), 2)} ms with 4 vs ${f(median(ones.map((o) => o.mainCpuPerStepMs)), 2)} ms with 1; of the whole process: ${f(median(fours.map((o) => o.cpuPerStepMs)), 2)} ms with 4 vs ${f(median(ones.map((o) => o.cpuPerStepMs)), 2)} ms with 1 (the scripted server runs in a child process: ${f(median(fours.map((o) => o.serverCpuPerStepMs)), 2)} ms with 4 vs ${f(median(ones.map((o) => o.serverCpuPerStepMs)), 2)} ms with 1 there)`,
    });
    // 3. Rows: counted in the SQLite file itself, after everything is written.
    const fourBranches = fours.at(-1)!.branches;
    await runtime.close();
    const db = new Database(join(dataDir, 'sessions.db'), { readonly: true });
    const rowsOf = db.prepare('SELECT count(*) AS n, min(seq) AS first, coalesce(max(last_seq), -1) + 1 AS upto FROM events WHERE session_id = ?');
    const seedOf = db.prepare('SELECT seed_length AS seed FROM sessions WHERE id = ?');
    const parentRows = rowsOf.get(parent) as { n: number; upto: number };
    const lines: string[] = [];
    let below = 0;
    let ownTotal = 0;
    let rowTotal = 0;
    for (const id of fourBranches) {
      const rows = rowsOf.get(id) as { n: number; first: number; upto: number };
      const seed = (seedOf.get(id) as { seed: number }).seed;
      if (rows.first < seed) below++;
      ownTotal += rows.upto - seed;
      rowTotal += rows.n;
      lines.push(`${id.slice(0, 8)}: ${rows.n} rows for seqs ${rows.first}–${rows.upto - 1} (${rows.upto - seed} events of its own; ${seed} shared from the parent by reference)`);
    }
    db.close();
    const met = below === 0 && parentRows.upto === parentLength;
    report({
      name: 'rows stored per fan-out child vs its own events',
      unit: 'rows',
      ours: rowTotal,
      baseline: ownTotal,
      baselineName: "the 4 children's own events",
      ratio: rowTotal / ownTotal,
      goal: 'no row below a fork point; parent unchanged',
      met,
      detail: `parent: ${parentRows.n} rows for its ${parentRows.upto} events (${parentLength} before the ${1 + 2 * PAIRS} fan-outs); ${lines.join('; ')}${below ? `; ${below} child(ren) store rows below their fork point` : ''}`,
    });
  } finally {
    await runtime.close().catch(() => undefined);
    await llm.close();
    tmp.dispose();
  }
}

await engine();
