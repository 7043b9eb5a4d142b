/**
 * Issue 22 budgets set from the app, through the real dispatch (schemas, handlers) on a real host
 * (SQLite, price book with a user price, spend guard; the real `openai` client against the
 * scripted server):
 * - a per-turn USD budget (`setSessionBudget({turnUsd})`, the run settings' "per turn" field) ends
 *   the turn with reason `budget` (scope `turn`) before the request that could cross it, and the
 *   next turn starts from 0;
 * - a manual compaction's cost counts: a session budget that the spend before it would keep is
 *   crossed by it ($0.504 spent, to 1e-6 USD), so the next request is not sent.
 *
 * Figures by hand: the user's price for `scripted-model` is $1 per million input and output
 * tokens; every step reports 100,000 input tokens and 0 output ($0.1), the compaction's summary
 * 500,000 input tokens ($0.5). A request's worst case is its estimated input (a few thousand
 * tokens) plus its output cap of 100 tokens: under $0.01.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostMethodName, SessionSummary } from '../../../shared/api.js';
import type { SessionEvent } from '../../../shared/events.js';
import { dispatch } from '../../../electron/host/dispatch.js';
import type { HostConnection } from '../../../electron/host/host-connection.js';
import { createRuntime, type Runtime } from '../../../electron/host/runtime.js';
import { startScriptedLlm, textResponse, toolCallResponse, usage, type ScriptedLlm } from '../../support/scripted-llm/index.js';

let llm: ScriptedLlm;
let dir: string;
let runtime: Runtime;
let connection: HostConnection;
let nextId = 0;

async function call<T = unknown>(method: HostMethodName, params: unknown): Promise<T> {
  const response = await dispatch(connection, { id: ++nextId, method, params });
  if ('error' in response && response.error) throw Object.assign(new Error(response.error.message), response.error);
  return (response as { result: T }).result;
}

/** What each step reports: 100,000 input tokens in the per-turn case, 1,000 in the compaction case (so little is retained). */
let stepUsage = usage(100_000, 0);
const SUMMARY_USAGE = usage(500_000, 0);

interface Msg {
  readonly role: string;
  readonly content?: unknown;
}

beforeAll(async () => {
  llm = await startScriptedLlm({});
  // A summary request gets a summary; a prompt asks for read_file until its third step, then answers.
  llm.setHandler((request) => {
    const messages = request.body.messages as Msg[];
    const text = JSON.stringify(messages);
    if (text.includes('compaction engine')) return textResponse('## Primary Request and Intent\n- read a.txt\n', { usage: SUMMARY_USAGE });
    const lastUser = messages.findLastIndex((m) => m.role === 'user');
    const tools = messages.slice(lastUser).filter((m) => m.role === 'tool').length;
    if (tools < 3) return toolCallResponse([{ id: `call_${messages.length}`, name: 'read_file', arguments: '{"path":"a.txt"}' }], { usage: stepUsage });
    return textResponse('done', { usage: stepUsage });
  });
  dir = mkdtempSync(join(tmpdir(), 'forkline-budget-turn-'));
  writeFileSync(join(dir, 'a.txt'), `${'some text to read. '.repeat(400)}\n`);
  runtime = createRuntime({
    dataDir: join(dir, 'data'),
    env: {},
    overrides: { active: { provider: 'custom', baseUrl: llm.baseUrl, model: 'scripted-model' }, approvalPolicy: 'allow' },
    writeWindowMs: 5,
  });
  runtime.settings.update({ prices: [{ model: 'scripted-model', inputMtok: 1, outputMtok: 1 }], modelLimits: { baseUrl: llm.baseUrl, model: 'scripted-model', maxOutputTokens: 100 } });
  connection = runtime.host.connect(() => undefined);
}, 60_000);
afterAll(async () => {
  connection.dispose();
  await runtime.close();
  await llm.close();
  rmSync(dir, { recursive: true, force: true });
});

const events = (id: string): readonly SessionEvent[] => runtime.host.agentFor(id)!.session.events;
const turnEnd = (id: string, turn: number) => events(id).find((e): e is SessionEvent<'turn/end'> => e.type === 'turn/end' && e.data.turn === turn)?.data.reason;
const summaryOf = async (id: string): Promise<SessionSummary> => (await call<SessionSummary[]>('listSessions', {})).find((s) => s.id === id)!;

async function turn(id: string, text: string): Promise<void> {
  await call('followup', { sessionId: id, text });
  await runtime.host.agentFor(id)!.whenIdle();
}

describe('budgets from the app: per turn, and a manual compaction counts', () => {
  let id: string;

  it('a per-turn budget stops the turn before the request that could cross it; the next turn starts from 0', async () => {
    id = (await call<{ id: string }>('createSession', { cwd: dir })).id;
    await expect(call('setSessionBudget', { sessionId: id, turnUsd: -1 })).rejects.toMatchObject({
      code: 'INVALID_BUDGET',
      message: expect.stringContaining('the per-turn USD budget must be a number above 0'),
    });
    const set = await call<SessionSummary>('setSessionBudget', { sessionId: id, turnUsd: 0.15 });
    expect(set.budget).toEqual({ turnUsd: 0.15 });
    const before = llm.requests.length;
    await turn(id, 'read a.txt please');
    // Step 1: spent 0 + worst case < 0.15, sent ($0.1). Step 2: 0.1 + worst case < 0.15, sent ($0.2). Step 3: 0.2 + … > 0.15: not sent.
    expect(llm.requests.length - before).toBe(2);
    const stop = turnEnd(id, 1);
    expect(stop).toMatchObject({ kind: 'budget', limit: 'usd', scope: 'turn', budget: 0.15 });
    if (stop?.kind !== 'budget') throw new Error('not a budget stop');
    expect(stop.spent).toBeCloseTo(0.2, 6);
    expect(stop.worstCase).toBeGreaterThan(0);
    expect(stop.worstCase).toBeLessThan(0.05);
    // A new turn's spend starts from 0: its first two requests are sent again.
    await turn(id, 'read a.txt again');
    expect(llm.requests.length - before).toBe(4);
    expect(turnEnd(id, 2)).toMatchObject({ kind: 'budget', scope: 'turn' });
    expect((await summaryOf(id)).cost?.usd).toBeCloseTo(0.4, 6);
  }, 60_000);

  it("a manual compaction's cost counts against the session budget", async () => {
    // A session of its own whose steps report 1,000 input tokens each ($0.001): three reads, then an answer.
    stepUsage = usage(1_000, 0);
    const own = (await call<{ id: string }>('createSession', { cwd: dir })).id;
    await turn(own, 'read a.txt please');
    expect(turnEnd(own, 1)).toMatchObject({ kind: 'completed' });
    const spentBefore = (await summaryOf(own)).cost!.usd!;
    expect(spentBefore).toBeCloseTo(0.004, 6);
    const compacted = await call<{ compacted: boolean }>('compactSession', { sessionId: own });
    expect(compacted.compacted).toBe(true);
    expect(events(own).some((e) => e.type === 'compaction/summary')).toBe(true);
    // The session's cost includes the summary request: 0.004 + 0.5. A manual compaction logs no
    // `request/price` of its own (the log's invariants allow one only inside a step); it is priced
    // at the price logged latest for its model (shared/session-cost.ts), so nothing is unpriced.
    expect((await summaryOf(own)).cost?.inputTokens).toBe(4 * 1_000 + 500_000);
    expect((await summaryOf(own)).cost?.usd).toBeCloseTo(0.504, 6);
    expect((await summaryOf(own)).cost?.unknownCount).toBe(0);
    // A budget the spend before the compaction would keep ($0.004 + a worst case under $0.05 < $0.3) but not with it.
    await call('setSessionBudget', { sessionId: own, sessionUsd: 0.3 });
    const before = llm.requests.length;
    await turn(own, 'read a.txt once more');
    expect(llm.requests.length).toBe(before);
    const stop = turnEnd(own, 2);
    expect(stop).toMatchObject({ kind: 'budget', limit: 'usd', scope: 'session', budget: 0.3 });
    if (stop?.kind !== 'budget') throw new Error('not a budget stop');
    expect(stop.spent).toBeCloseTo(0.504, 6);
  }, 60_000);
});
