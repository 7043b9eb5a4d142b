/**
 * Live OTLP export's cost per step (issue 26): the harness-overhead run of step-overhead.bench.ts
 * (one turn of 1,000 steps, each a model response asking for one tool call, through the real Agent,
 * tool pipeline, Session and SQLite store; model and tool answer instantly) with and without a
 * {@link LiveTraceExporter} streaming its spans through the SDK's OTLP/HTTP exporter to a
 * collector on 127.0.0.1 (an HTTP server in a child process that reads each request and answers
 * 200; the SDK exporter encodes and sends on live export's worker thread).
 * One exporter serves every run with export (its thread started in the warm-up, as the app starts
 * it once when the setting is turned on). Fifteen pairs of runs (one without export, one with), back
 * to back in alternating order, in the same process; the figure is the median of the pairs' ratios
 * (mean step time with export over the mean without), printed beside the median step time of each
 * path. Goal: ≤ 1.05 (≤ 5 % more per step).
 */
import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { StreamChunk } from '../shared/chunks.js';
import { Agent } from '../electron/agent/agent.js';
import type { ModelClient } from '../electron/llm/model-client.js';
import { SessionRepository } from '../electron/store/session-repository.js';
import { SqliteSessionStore } from '../electron/store/sqlite-session-store.js';
import { LiveTraceExporter } from '../electron/telemetry/live-exporter.js';
import { threadedOtlpSink } from '../electron/telemetry/otlp-export-thread.js';
import { InMemoryFileReadTracker } from '../electron/tools/file-read-tracker.js';
import { ToolRegistry } from '../electron/tools/registry.js';
import { noopTool } from './noop-tool.js';
import { tempDir } from '../test/support/store-fixtures.js';
import { median, report } from './report.js';

const STEPS = 1_000;
const ROUNDS = 15;

/** The collector's program: prints its port, then on SIGUSR2 the number of requests it answered. */
const COLLECTOR = `
let requests = 0;
const server = require('node:http').createServer((req, res) => {
  req.resume();
  req.on('end', () => { requests++; res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(); });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
process.on('SIGUSR2', () => { console.log(requests); process.exit(0); });
`;

function instantModel(): ModelClient {
  let n = 0;
  return {
    async *stream(): AsyncIterable<StreamChunk> {
      n++;
      if (n < STEPS) {
        const id = `call-${n}`;
        yield { type: 'block-start', index: 0, blockType: 'tool-call' };
        yield { type: 'tool-call-delta', index: 0, id, name: 'noop', argumentsDelta: `{"n":${n}}` };
        yield { type: 'block-end', index: 0, block: { type: 'tool-call', id, name: 'noop', arguments: `{"n":${n}}` } };
        yield { type: 'usage', usage: { inputTokens: 100 + n, outputTokens: 10, cacheReadTokens: 90 } };
        yield { type: 'finish', reason: { kind: 'tool-calls' } };
      } else {
        yield { type: 'block-start', index: 0, blockType: 'text' };
        yield { type: 'text-delta', index: 0, text: 'done' };
        yield { type: 'block-end', index: 0, block: { type: 'text', text: 'done' } };
        yield { type: 'finish', reason: { kind: 'stop' } };
      }
    },
  };
}

/** One 1,000-step turn; returns the mean wall ms per step and what the exporter did. */
async function run(traces: LiveTraceExporter | undefined): Promise<{ msPerStep: number; exported: number; dropped: number }> {
  const tmp = tempDir('forkline-bench-otlp-');
  const store = new SqliteSessionStore(tmp.file('steps.db'));
  const repository = new SessionRepository(store, { newId: randomUUID, invariants: 'enforce' });
  const live = repository.create({ cwd: tmp.dir });
  const before = { exported: traces?.exported ?? 0, dropped: traces?.dropped ?? 0 };
  const watch = traces?.watch(live.session);
  const noop = noopTool();
  const agent = new Agent({
    session: live.session,
    flush: () => live.flush(),
    model: instantModel(),
    tools: new ToolRegistry([noop]),
    files: new InMemoryFileReadTracker(),
    cwd: tmp.dir,
    config: () => ({ provider: 'custom', model: 'bench' }),
    approvalPolicy: () => 'allow',
    newId: randomUUID,
    compaction: false,
  });
  // Start from a collected heap (npm run bench passes --expose-gc): the garbage of the run
  // before is not collected inside this one's measured turn.
  (globalThis as { gc?: () => void }).gc?.();
  const started = performance.now();
  agent.followup('go');
  await agent.whenIdle();
  const msPerStep = (performance.now() - started) / STEPS;
  watch?.dispose();
  await traces?.flush();
  const figures = { msPerStep, exported: (traces?.exported ?? 0) - before.exported, dropped: (traces?.dropped ?? 0) - before.dropped };
  await agent.dispose();
  await live.release();
  store.close();
  tmp.dispose();
  return figures;
}

async function main(): Promise<void> {
  // The collector runs in a child process, as a real one would (in this process its HTTP server
  // would be counted as the export's cost): it reads each request, answers 200 and counts them.
  const collector = spawn(process.execPath, ['-e', COLLECTOR], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: collector.stdout! });
  const nextLine = (): Promise<string> => new Promise((resolve) => lines.once('line', resolve));
  const url = `http://127.0.0.1:${await nextLine()}/v1/traces`;
  // One exporter for the whole bench, as the app has one while the setting is on: its export
  // thread starts (and loads the SDK) once, in the warm-up, not inside a measured turn.
  const traces = new LiveTraceExporter({ sink: threadedOtlpSink(url, 10_000) });
  // Warm-up of both paths (JIT, SQLite, module loading: the SDK, on the export thread too).
  await run(undefined);
  await run(traces);
  const off: number[] = [];
  const on: number[] = [];
  let exported = 0;
  let dropped = 0;
  const withExport = async (): Promise<void> => {
    const r = await run(traces);
    on.push(r.msPerStep);
    exported += r.exported;
    dropped += r.dropped;
  };
  // Pairs in alternating order (off-on, on-off, …): a machine getting slower or faster through
  // the bench weighs on both paths alike instead of on whichever runs second.
  for (let i = 0; i < ROUNDS; i++) {
    if (i % 2 === 0) {
      off.push((await run(undefined)).msPerStep);
      await withExport();
    } else {
      await withExport();
      off.push((await run(undefined)).msPerStep);
    }
  }
  await traces.shutdown();
  collector.kill('SIGUSR2'); // it prints its request count and exits
  const requests = Number(await nextLine());
  const ours = median(on);
  const baseline = median(off);
  // The ratio is the median of the pairs' own ratios: each pair ran back to back, so a burst of
  // load on the machine moves both of its runs, and one slow run moves the figure by one rank only.
  const ratio = median(on.map((v, i) => v / off[i]!));
  report({
    name: 'harness overhead per step with live OTLP export',
    unit: 'ms/step',
    ours: Number(ours.toFixed(3)),
    baseline: Number(baseline.toFixed(3)),
    baselineName: 'the same 1,000-step turn without export (same run)',
    ratio,
    goal: '≤ 1.05',
    met: ratio <= 1.05,
    detail: `ratio: median of ${ROUNDS} back-to-back pairs' ratios (${on.map((v, i) => (v / off[i]!).toFixed(2)).join('/')}); ms/step: medians of the runs (off ${off.map((v) => v.toFixed(3)).join('/')}, on ${on.map((v) => v.toFixed(3)).join('/')}); ${exported} spans exported in ${requests} requests to 127.0.0.1, ${dropped} dropped`,
  });
}

await main();
