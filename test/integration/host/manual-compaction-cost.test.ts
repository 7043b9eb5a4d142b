/**
 * Issue 22 bug: after a manual compaction (the app's "Compact", `forkline compact`) the session's
 * cost said "1 unpriced", because a compaction between turns logged no `request/price` of its own
 * (the log's invariant admitted one only inside a step). Its summary request now logs one inside
 * its bracket (turn 0 step 0, naming the compaction), and shared/session-cost.ts prices it at it
 * (`priceFrom: 'logged'`); logs from before that take the price logged latest for the same model
 * and endpoint (`priceFrom: 'session'`, test/unit/pricing/compaction-cost.test.ts).
 *
 * Through a real host (SQLite store, price book with a user price, the real `openai` client
 * against the scripted server) and again from the stored log after a restart (a new runtime on
 * the same data folder, and the store read directly).
 *
 * Figures by hand (user price for `scripted-model`: $0.27 per million uncached input, $0.07 per
 * million cache reads, $1.10 per million output):
 * - each step reports prompt 1,200 (800 cached) and 300 output: 400 × 0.27 + 800 × 0.07 + 300 × 1.10
 *   = 108 + 56 + 330 = 494 µUSD = $0.000494; two turns of one step: $0.000988;
 * - the summary reports prompt 50,000 (20,000 cached) and 2,000 output: 30,000 × 0.27 + 20,000 × 0.07
 *   + 2,000 × 1.10 = 8,100 + 1,400 + 2,200 µUSD = $0.0117;
 * - the session: $0.012688, nothing unpriced.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostMethodName, SessionSummary } from '../../../shared/api.js';
import type { SessionEvent } from '../../../shared/events.js';
import { costLabel, sessionCost } from '../../../shared/session-cost.js';
import { dispatch } from '../../../electron/host/dispatch.js';
import type { HostConnection } from '../../../electron/host/host-connection.js';
import { createRuntime, type Runtime } from '../../../electron/host/runtime.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { startScriptedLlm, textResponse, usage, type ScriptedLlm } from '../../support/scripted-llm/index.js';

const STEP_USD = (400 * 0.27 + 800 * 0.07 + 300 * 1.1) / 1e6;
const SUMMARY_USD = (30_000 * 0.27 + 20_000 * 0.07 + 2_000 * 1.1) / 1e6;

let llm: ScriptedLlm;
let dir: string;
let runtime: Runtime;
let connection: HostConnection;
let nextId = 0;

function open(): void {
  runtime = createRuntime({
    dataDir: join(dir, 'data'),
    env: {},
    overrides: { active: { provider: 'custom', baseUrl: llm.baseUrl, model: 'scripted-model' }, approvalPolicy: 'allow' },
    writeWindowMs: 5,
  });
  // A large window: no compaction but the manual one.
  runtime.settings.update({
    prices: [{ model: 'scripted-model', inputMtok: 0.27, cacheReadMtok: 0.07, outputMtok: 1.1 }],
    modelLimits: { baseUrl: llm.baseUrl, model: 'scripted-model', contextWindow: 1_000_000 },
  });
  connection = runtime.host.connect(() => undefined);
}

async function close(): Promise<void> {
  connection.dispose();
  await runtime.close();
}

async function call<T = unknown>(method: HostMethodName, params: unknown): Promise<T> {
  const response = await dispatch(connection, { id: ++nextId, method, params });
  if ('error' in response && response.error) throw Object.assign(new Error(response.error.message), response.error);
  return (response as { result: T }).result;
}

const summaryOf = async (id: string): Promise<SessionSummary> => (await call<SessionSummary[]>('listSessions', {})).find((s) => s.id === id)!;

beforeAll(async () => {
  llm = await startScriptedLlm({});
  llm.setHandler((request) => {
    const text = JSON.stringify(request.body.messages);
    if (text.includes('compaction engine')) return textResponse('## Primary Request and Intent\n- notes\n', { usage: usage(50_000, 2_000, { cached: 20_000 }) });
    return textResponse('noted', { usage: usage(1_200, 300, { cached: 800 }) });
  });
  dir = mkdtempSync(join(tmpdir(), 'forkline-compaction-cost-'));
  open();
}, 60_000);
afterAll(async () => {
  await close();
  await llm.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a manual compaction is priced like any other request', () => {
  it('the listed cost includes the summary request, nothing unpriced, before and after a restart', async () => {
    const id = (await call<{ id: string }>('createSession', { cwd: dir })).id;
    // A long first prompt (≈ 5,000 tokens estimated) is what the compaction summarises.
    await call('followup', { sessionId: id, text: `Keep these notes: ${'a note to keep. '.repeat(1250)}` });
    await runtime.host.agentFor(id)!.whenIdle();
    await call('followup', { sessionId: id, text: 'and one more thing' });
    await runtime.host.agentFor(id)!.whenIdle();
    expect(runtime.host.agentFor(id)!.session.events.some((e) => e.type === 'compaction/start')).toBe(false);
    const before = await summaryOf(id);
    expect(before.cost?.usd).toBeCloseTo(2 * STEP_USD, 6);
    expect(before.cost?.unknownCount).toBe(0);

    const requestsBefore = llm.requests.length;
    expect((await call<{ compacted: boolean }>('compactSession', { sessionId: id })).compacted).toBe(true);
    expect(llm.requests.length - requestsBefore).toBe(1);
    const live = runtime.host.agentFor(id)!.session.events as readonly SessionEvent[];
    const summary = live.find((e): e is SessionEvent<'compaction/summary'> => e.type === 'compaction/summary');
    expect(summary?.data.usage).toEqual({ inputTokens: 30_000, cacheReadTokens: 20_000, outputTokens: 2_000 });
    // Between turns, its own request/price inside the bracket: turn 0 step 0, naming the compaction.
    const start = live.find((e): e is SessionEvent<'compaction/start'> => e.type === 'compaction/start')!;
    const own = live.filter((e): e is SessionEvent<'request/price'> => e.type === 'request/price' && e.seq > start.seq);
    expect(own.map((e) => e.data)).toEqual([expect.objectContaining({ turn: 0, step: 0, compactionId: start.data.compactionId, model: 'scripted-model' })]);
    expect(own[0]!.seq).toBeLessThan(summary!.seq);

    const after = await summaryOf(id);
    expect(after.cost?.usd).toBeDefined();
    expect(Math.abs(after.cost!.usd! - (2 * STEP_USD + SUMMARY_USD))).toBeLessThan(1e-6);
    expect(after.cost!.usd!).toBeCloseTo(0.012688, 6);
    expect(after.cost).toMatchObject({ unknownCount: 0, unreportedCount: 0, inputTokens: 2 * 1_200 + 50_000, cacheReadTokens: 2 * 800 + 20_000, outputTokens: 2 * 300 + 2_000 });
    // What the header meter and the sidebar show.
    expect(costLabel(after.cost)).toBe('$0.0127');
    expect(costLabel(after.cost)).not.toContain('unpriced');
    expect(costLabel(after.cost, { compact: true })).toBe('$0.0127');

    // After a restart: the host's summary is built from the stored log.
    await close();
    open();
    const restarted = await summaryOf(id);
    expect(Math.abs(restarted.cost!.usd! - (2 * STEP_USD + SUMMARY_USD))).toBeLessThan(1e-6);
    expect(restarted.cost!.unknownCount).toBe(0);

    // The stored log read straight from the SQLite file, priced per response.
    await close();
    const store = new SqliteSessionStore(join(dir, 'data', 'sessions.db'));
    try {
      const cost = sessionCost(store.readAll(id));
      const compaction = cost.responses.find((r) => r.kind === 'compaction')!;
      expect(compaction).toMatchObject({ status: 'priced', priceFrom: 'logged', model: 'scripted-model', turn: 0 });
      expect(Math.abs(compaction.usd! - SUMMARY_USD)).toBeLessThan(1e-9);
      expect(compaction.breakdown).toMatchObject({ input: expect.closeTo(0.0081, 9), cacheRead: expect.closeTo(0.0014, 9), output: expect.closeTo(0.0022, 9) });
      expect(cost.responses.filter((r) => r.kind === 'step').map((r) => [r.priceFrom, r.status])).toEqual([
        ['logged', 'priced'],
        ['logged', 'priced'],
      ]);
      expect(cost.total.unknownCount).toBe(0);
      expect(cost.turns.get(0)?.usd).toBeCloseTo(SUMMARY_USD, 9);
    } finally {
      store.close();
      open();
    }
  }, 90_000);
});
