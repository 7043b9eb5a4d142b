/**
 * Finding things and opening long sessions through the real host (SQLite store, agents, the
 * scripted model server): full-text search over every session's messages and tool output
 * (including a running session's latest appends), the session list's status facts (running,
 * waiting for approval, crashed, failed), and tail subscriptions that send only the newest events
 * of a long session whatever its length, with earlier events read on demand.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session } from '../../../electron/session/session.js';
import type { HostConnection } from '../../../electron/host/host-connection.js';
import { createRuntime, type Runtime } from '../../../electron/host/runtime.js';
import { startScriptedLlm, textResponse, toolCallResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';
import { AgentLogWriter, header } from '../../support/store-fixtures.js';
import { waitFor } from '../../support/agent-harness.js';
import { claudeCodeTranscript } from '../../support/claude-code-log.js';
import { importText } from '../../../electron/host/services/session-imports.js';

let llm: ScriptedLlm;
let dir: string;
let workspace: string;
let runtime: Runtime;
let connection: HostConnection;

beforeAll(async () => {
  llm = await startScriptedLlm();
  dir = mkdtempSync(join(tmpdir(), 'forkline-find-'));
  workspace = join(dir, 'ws');
  mkdirSync(workspace);
  runtime = createRuntime({
    dataDir: join(dir, 'data'),
    env: { FORKLINE_CHECKPOINTS: 'off' },
    overrides: { active: { provider: 'custom', baseUrl: llm.baseUrl, model: 'scripted-model' }, approvalPolicy: 'ask' },
    writeWindowMs: 5,
  });
  connection = runtime.host.connect(() => undefined);
});
afterAll(async () => {
  connection.dispose();
  await runtime.close();
  await llm.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A stored session of about `target` events with turns of prompt, reasoning chunks, a tool call and an answer. */
function storedSession(id: string, target: number, last: 'completed' | 'open' | 'error' = 'completed'): Session {
  let t = 1_790_000_000_000;
  const session = new Session({ header: header(id, { cwd: workspace, title: id }), now: () => (t += 3) });
  const w = new AgentLogWriter(session);
  for (let done = false; !done;) {
    w.turnStart();
    w.stepStart();
    w.user(`question ${w.turn}`);
    w.requestHeader(w.turn === 1 ? 'initial' : 'change');
    const r = w.stream({ reasoning: Array.from({ length: 40 }, (_, i) => `thought ${i} `), toolCalls: [{ id: `c${w.turn}`, name: 'bash', args: ['{"command":"make"}'] }] });
    w.assistantMessage(r);
    const call = w.toolCall(`c${w.turn}`, 'bash', '{"command":"make"}');
    w.toolResult(call, w.turn === 3 ? 'src/x.ts(4,1): TypeError: x is not a function' : `built ${w.turn}`);
    w.stepEnd();
    w.stepStart();
    w.assistantMessage(w.stream({ text: [`answer ${w.turn}`] }));
    w.stepEnd();
    done = session.length >= target - 1;
    if (!done || last === 'completed') w.turnEnd();
    else if (last === 'error') w.turnEnd({ kind: 'error', failure: { code: 'RATE_LIMIT', message: '429' } });
  }
  runtime.store.createSession(session.header, session.events);
  return session;
}

describe('full-text search from the host', () => {
  it('finds tool output in any session (case-insensitive), with a snippet around the match, newest first', async () => {
    storedSession('search-a', 200);
    storedSession('search-b', 200);
    const result = await connection.searchSessions({ query: 'typeerror' });
    expect(result.terms).toEqual(['typeerror']);
    expect(result.hits.map((h) => [h.sessionId, h.kind])).toEqual([
      ['search-b', 'tool'],
      ['search-a', 'tool'],
    ]);
    const snippet = result.hits[0]!.snippet;
    expect(snippet.filter((p) => p.match).map((p) => p.text)).toEqual(['TypeError']);
    expect(snippet.map((p) => p.text).join('')).toContain('x is not a function');
    const seq = result.hits[0]!.seq;
    expect(runtime.store.readRange('search-b', seq, seq + 1)[0]!.type).toBe('tool/result');
    expect((await connection.searchSessions({ query: 'typeerror', sessionId: 'search-a' })).hits.map((h) => h.sessionId)).toEqual(['search-a']);
    const many = await connection.searchSessions({ query: 'answer', limit: 3 });
    expect(many.hits).toHaveLength(3);
    expect(many.more).toBe(true);
    expect(await connection.searchSessions({ query: 'ty' })).toEqual({ terms: [], ignored: ['ty'], hits: [], more: false });
  });

  it("finds a running session's latest messages at once (its pending appends are flushed first)", async () => {
    const created = connection.createSession({ cwd: workspace });
    llm.enqueue(textResponse('The flux capacitor needs 1.21 gigawatts.'));
    connection.followup({ sessionId: created.id, text: 'what does the flux capacitor need?' });
    await runtime.host.agentFor(created.id)!.whenIdle();
    const result = await connection.searchSessions({ query: '"flux capacitor" gigawatts' });
    expect(result.hits.map((h) => [h.sessionId, h.kind])).toEqual([[created.id, 'assistant']]);
  });

  it('finds text of a large import at once: its deferred documents are written first, in passes that let other work run', async () => {
    const lines = [...claudeCodeTranscript(150, 7)];
    const summary = importText(runtime.host.repository, `${lines.join('\n')}\n`, 'large.jsonl');
    expect(summary.events).toBeGreaterThan(3_000);
    // The last prompt of the log: its document is among the last ones written.
    const prompt = JSON.parse(lines.filter((l) => l.includes('"type":"user"') && !l.includes('tool_result')).at(-1)!) as { message: { content: string } };
    const words = prompt.message.content.split(' ').slice(0, 4).join(' ');
    let ticked = false;
    setImmediate(() => (ticked = true));
    const result = await connection.searchSessions({ query: `"${words}"`, limit: 200 });
    expect(result.hits.some((h) => h.sessionId === summary.sessionId && h.kind === 'user')).toBe(true);
    // The search answered only after other work had a turn (it did not hold the host for the whole catch-up).
    expect(ticked).toBe(true);
  });
});

describe('session list status', () => {
  it('says which sessions crashed mid-turn, failed, or wait for an approval', async () => {
    storedSession('status-crashed', 60, 'open');
    storedSession('status-failed', 60, 'error');
    storedSession('status-fine', 60, 'completed');
    const byId = () => new Map(connection.listSessions().map((s) => [s.id, s]));
    expect(byId().get('status-crashed')!.lastTurn).toBe('open');
    expect(byId().get('status-failed')!.lastTurn).toBe('error');
    expect(byId().get('status-fine')!.lastTurn).toBe('completed');
    // Opening the crashed session recovers it: the turn is closed as interrupted.
    connection.subscribeSession({ sessionId: 'status-crashed', fromSeq: 0 });
    expect(byId().get('status-crashed')!.lastTurn).toBe('interrupted');

    const asking = connection.createSession({ cwd: workspace });
    llm.enqueue(toolCallResponse([{ id: 'risky', name: 'bash', arguments: '{"command":"rm -rf build"}' }]), textResponse('skipped'));
    connection.followup({ sessionId: asking.id, text: 'clean the build' });
    await waitFor(() => byId().get(asking.id)!.waitingApproval === true);
    expect(byId().get(asking.id)).toMatchObject({ status: 'running', lastTurn: 'open', waitingApproval: true });
    const agent = runtime.host.agentFor(asking.id)!;
    connection.decideApproval({ sessionId: asking.id, approvalId: agent.approvals.list[0]!.id, decision: 'reject' });
    await agent.whenIdle();
    expect(byId().get(asking.id)).toMatchObject({ status: 'idle', lastTurn: 'completed' });
    expect(byId().get(asking.id)!.waitingApproval).toBeUndefined();
  });
});

describe('opening a long session at its tail', () => {
  it('sends about the last `tail` events from a turn start, and earlier events on demand', () => {
    const long = storedSession('long', 30_000);
    const small = storedSession('small', 150);
    const tail = connection.subscribeSession({ sessionId: 'long', fromSeq: 0, tail: 1_000 });
    expect(tail.eventCount).toBe(long.length);
    expect(tail.startSeq).toBeGreaterThan(long.length - 2_100);
    expect(tail.startSeq).toBeLessThanOrEqual(long.length - 1_000);
    expect(tail.events[0]!.seq).toBe(tail.startSeq);
    expect(tail.events[0]!.type).toBe('turn/start');
    expect(tail.events.at(-1)!.seq).toBe(long.length - 1);
    const earlier = connection.readEvents({ sessionId: 'long', fromSeq: tail.startSeq - 500, toSeq: tail.startSeq });
    expect(earlier.events.map((e) => e.seq)).toEqual(Array.from({ length: 500 }, (_, i) => tail.startSeq - 500 + i));
    expect(earlier.events).toEqual(long.events.slice(tail.startSeq - 500, tail.startSeq));
    // The envelope in effect there (logged long before the tail) is one call away.
    const envelope = connection.readEnvelope({ sessionId: 'long', beforeSeq: tail.startSeq });
    const headers = long.events.filter((e) => e.seq < tail.startSeq && e.type === 'request/header');
    expect(envelope.events.map((e) => e.seq)).toEqual([headers.at(-1)!.seq]);
    // A short session comes whole.
    const whole = connection.subscribeSession({ sessionId: 'small', fromSeq: 0, tail: 1_000 });
    expect(whole.startSeq).toBe(0);
    expect(whole.events).toHaveLength(small.length);
    // Resubscribing from a seq ignores the tail.
    expect(connection.subscribeSession({ sessionId: 'long', fromSeq: 10, tail: 1_000 }).startSeq).toBe(10);
  });

  it('recovers a long session whose last turn is open before cutting its tail', () => {
    const crashed = storedSession('long-crashed', 8_000, 'open');
    const result = connection.subscribeSession({ sessionId: 'long-crashed', fromSeq: 0, tail: 500 });
    expect(result.notices.join(' ')).toMatch(/interrupted/);
    expect(result.eventCount).toBeGreaterThan(crashed.length);
    expect(result.events.at(-1)!.type).toBe('turn/end');
    expect(result.events.at(-1)!.data).toMatchObject({ reason: { kind: 'interrupted' } });
    expect(result.startSeq + result.events.length).toBe(result.eventCount);
  });
});
