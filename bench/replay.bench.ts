/**
 * Replay of a 1,000-step session (issue 23): a session recorded in this run through the real
 * Agent, tool pipeline and SQLite store (as in step-overhead.bench.ts: the model answers instantly,
 * the tool does nothing) is read back from the store and replayed on this build (`replaySession`:
 * every request rebuilt and compared byte for byte, model answers and tool results from the log).
 * Baseline, measured in the same run: the time to open the session (`readAll` + `new Session`)
 * plus 1,000 × the harness's per-step overhead (the recording's wall time per step).
 * Goal: ≤ 2×. The replay runs with the recording's configuration (compaction off, as recorded).
 */
import { randomUUID } from 'node:crypto';
import type { StreamChunk } from '../shared/chunks.js';
import { Agent } from '../electron/agent/agent.js';
import type { ModelClient } from '../electron/llm/model-client.js';
import { replaySession } from '../electron/replay/replay-session.js';
import { Session } from '../electron/session/session.js';
import { SessionRepository } from '../electron/store/session-repository.js';
import { SqliteSessionStore } from '../electron/store/sqlite-session-store.js';
import { InMemoryFileReadTracker } from '../electron/tools/file-read-tracker.js';
import { ToolRegistry } from '../electron/tools/registry.js';
import { noopTool } from './noop-tool.js';
import { tempDir } from '../test/support/store-fixtures.js';
import { gc, median, report } from './report.js';

const STEPS = 1_000;
const RUNS = Number(process.env['REPLAY_BENCH_RUNS'] ?? 3);

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
        yield { type: 'usage', usage: { inputTokens: 100 + n, outputTokens: 10 } };
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

const noop = noopTool();

async function main(): Promise<void> {
  const tmp = tempDir('forkline-bench-replay-');
  const store = new SqliteSessionStore(tmp.file('replay.db'));
  const repository = new SessionRepository(store, { newId: randomUUID, invariants: 'enforce' });
  const live = repository.create({ cwd: tmp.dir });
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
  const recordStart = performance.now();
  agent.followup('go');
  await agent.whenIdle();
  const perStepMs = (performance.now() - recordStart) / STEPS;
  await agent.dispose();
  const id = live.session.id;
  await live.release();

  const openMs: number[] = [];
  const replayMs: number[] = [];
  const ratios: number[] = [];
  let outcome = '';
  let events = 0;
  for (let run = 0; run < RUNS; run++) {
    gc();
    let t0 = performance.now();
    const session = new Session({ header: store.get(id)!.header, seed: store.readAll(id) });
    const open = performance.now() - t0;
    events = session.length;
    gc();
    t0 = performance.now();
    const record = store.get(id)!;
    const report = await replaySession(record.header, store.readAll(id), { createTools: () => [noop], platform: 'linux', build: { compaction: false } });
    const replay = performance.now() - t0;
    outcome = `${report.outcome}, ${report.requests.identical}/${report.requests.logged} requests identical`;
    if (report.outcome !== 'identical') throw new Error(`the replay diverged: ${JSON.stringify(report.requests.divergence ?? report.tools.divergence ?? report.stopped)}`);
    openMs.push(open);
    replayMs.push(replay);
    ratios.push(replay / (open + STEPS * perStepMs));
  }
  repository.dispose();
  store.close();
  tmp.dispose();
  const ratio = median(ratios);
  const baseline = median(openMs) + STEPS * perStepMs;
  report({
    name: 'replay a 1,000-step session',
    unit: 'ms',
    ours: Number(median(replayMs).toFixed(1)),
    baseline: Number(baseline.toFixed(1)),
    baselineName: `open (${median(openMs).toFixed(1)} ms) + 1,000 × per-step overhead (${perStepMs.toFixed(2)} ms)`,
    ratio,
    goal: '≤ 2×',
    met: ratio <= 2,
    detail: `${STEPS} steps, ${events} events; replay = readAll + replaySession (${outcome}); per-step overhead from recording the same session (instant model, no-op tool, SQLite with flush barriers); median of ${RUNS} runs`,
  });
}

await main();
