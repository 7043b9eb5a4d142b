/**
 * Harness overhead per step (docs/architecture.md §13): one turn of 1,000 steps, each a model response asking for
 * one tool call, through the real Agent, tool registry/pipeline/scheduler, Session and SQLite store
 * (write-behind with its durability barriers: flush before every model request and before every tool
 * body). The model answers instantly from memory and the tool does nothing, so a step's wall time is
 * the harness's own cost. Compares the mean step time of steps 991–1,000 with steps 1–10.
 * Goal: ≤ 3×, and under 5 ms per step.
 */
import { randomUUID } from 'node:crypto';
import type { StreamChunk } from '../shared/chunks.js';
import type { SessionEvent } from '../shared/events.js';
import { Agent } from '../electron/agent/agent.js';
import type { ModelClient } from '../electron/llm/model-client.js';
import { SessionRepository } from '../electron/store/session-repository.js';
import { SqliteSessionStore } from '../electron/store/sqlite-session-store.js';
import { InMemoryFileReadTracker } from '../electron/tools/file-read-tracker.js';
import { ToolRegistry } from '../electron/tools/registry.js';
import { noopTool } from './noop-tool.js';
import { tempDir } from '../test/support/store-fixtures.js';
import { report } from './report.js';

const STEPS = 1_000;

/** Answers instantly: a tool call for the first STEPS-1 requests, then a final text. */
function instantModel(): ModelClient {
  let n = 0;
  return {
    async *stream(): AsyncIterable<StreamChunk> {
      n++;
      if (n < STEPS) {
        const id = `call-${n}`;
        yield { type: 'block-start', index: 0, blockType: 'tool-call' };
        yield { type: 'tool-call-delta', index: 0, id, name: 'noop', argumentsDelta: '{"n":' };
        yield { type: 'tool-call-delta', index: 0, id, name: 'noop', argumentsDelta: `${n}}` };
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

async function main(): Promise<void> {
  const tmp = tempDir('forkline-bench-step-');
  const store = new SqliteSessionStore(tmp.file('steps.db'));
  const repository = new SessionRepository(store, { newId: randomUUID, invariants: 'enforce' });
  const live = repository.create({ cwd: tmp.dir });
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
  agent.followup('go');
  await agent.whenIdle();
  const events = live.session.events;
  // Event times are whole ms, so a group of steps is timed from its first step/start to its last step/end.
  const groupMs = (from: number, to: number) => {
    const startEvent = events.find((e: SessionEvent) => e.type === 'step/start' && e.data.step === from)!;
    const endEvent = events.find((e: SessionEvent) => e.type === 'step/end' && e.data.step === to)!;
    return (endEvent.time - startEvent.time) / (to - from + 1);
  };
  const early = groupMs(2, 51);
  const late = groupMs(STEPS - 49, STEPS);
  await agent.dispose();
  await live.release();
  store.close();
  tmp.dispose();
  const ratio = late / Math.max(early, 0.001);
  report({
    name: 'harness overhead per step, step 1,000 vs step 10',
    unit: 'ms/step',
    ours: Number(late.toFixed(3)),
    baseline: Number(early.toFixed(3)),
    baselineName: 'steps 2–51 of the same turn',
    ratio,
    goal: '≤ 3× and < 5 ms',
    met: ratio <= 3 && late < 5,
    detail: `${STEPS} steps, ${events.length} events; steps ${STEPS - 49}–${STEPS} vs 2–51 (50-step means; model and tool answer instantly; 2 flush barriers per step with synchronous=FULL)`,
  });
}

await main();
