/**
 * Crash recovery with a real child process (docs/architecture.md §8, §11; dsh-contracts §10.1, §8.2). The child
 * (test/support/crash-child.ts) runs the real Session + SessionRepository + SqliteSessionStore, flushes
 * at the durability barriers, and blocks at a named failpoint; we SIGKILL it, reload the file and
 * assert the exact recovered log, then that reload is idempotent and fork/resume work afterwards.
 */
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../shared/events.js';
import type { Message } from '../../../shared/messages.js';
import { TOOL_NOT_STARTED_TEXT, TOOL_OUTCOME_UNKNOWN_TEXT } from '../../../electron/session/repair.js';
import { Session } from '../../../electron/session/session.js';
import { SessionRepository } from '../../../electron/store/session-repository.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { killHard, spawnTsx, waitForFile } from '../../support/crash-harness.js';
import { SCENARIO_CALLS, TURN1_DELTAS, TURN2_ARG_PARTS, TURN2_REASONING, TURN2_TEXT, type CrashFailpoint } from '../../support/crash-scenarios.js';
import { AgentLogWriter, header, serializeAll, tempDir } from '../../support/store-fixtures.js';

const tmp = tempDir('forkline-crash-');
afterAll(() => tmp.dispose());

/** Types of turn 1, computed by running the same writer on an in-memory session. */
function turn1Types(): string[] {
  const s = new Session({ header: header('t1') });
  new AgentLogWriter(s).completedTurn('first task', TURN1_DELTAS);
  return s.events.map((e) => e.type);
}

const CLAIMED = ['agent/inbox/spliced', 'turn/start', 'agent/inbox/spliced'];
const REQUESTED = [...CLAIMED, 'step/start', 'user/message', 'request/header'];
function responded(calls: number): string[] {
  const chunks = 1 + TURN2_REASONING + 1 + (1 + TURN2_TEXT + 1) + calls * (1 + TURN2_ARG_PARTS.length + 1) + 2;
  return [...REQUESTED, ...Array<string>(chunks).fill('assistant/chunk'), 'assistant/message'];
}

interface Crashed {
  readonly file: string;
  readonly id: string;
  readonly marker: Record<string, unknown>;
  readonly signal: NodeJS.Signals | null;
}

async function crash(failpoint: CrashFailpoint): Promise<Crashed> {
  const file = tmp.file(`${failpoint}.db`);
  const markerFile = tmp.file(`${failpoint}.marker`);
  const id = `crash-${failpoint}`;
  const child = spawnTsx('test/support/crash-child.ts', [file, id, failpoint, markerFile]);
  const marker = JSON.parse(await waitForFile(markerFile, child)) as Record<string, unknown>;
  expect(marker['pid']).toBe(child.child.pid);
  const { signal, code } = await killHard(child);
  expect(code).toBeNull();
  return { file, id, marker, signal };
}

function data<T extends SessionEvent['type']>(event: SessionEvent | undefined, type: T): SessionEvent<T>['data'] {
  expect(event?.type).toBe(type);
  return (event as SessionEvent<T>).data;
}

function expectNotStarted(event: SessionEvent | undefined, callId: string): void {
  const d = data(event, 'tool/result');
  expect(d).toMatchObject({ turn: 2, step: 1, error: { name: 'ToolNotStartedError', code: 'TOOL_NOT_STARTED' } });
  expect(d.message.content[0]).toEqual({ type: 'tool-result', toolCallId: callId, isError: true, content: [{ type: 'text', text: TOOL_NOT_STARTED_TEXT }] });
  expect(event!.surfaceOp).toBe('append');
  expect(event!.sourceEventSeqs).toBeUndefined();
}

function expectOutcomeUnknown(event: SessionEvent | undefined, callId: string, toolCallSeq: number): void {
  const d = data(event, 'tool/result');
  expect(d).toMatchObject({ turn: 2, step: 1, error: { name: 'ToolOutcomeUnknownError', code: 'TOOL_OUTCOME_UNKNOWN' } });
  expect(d.message.content[0]).toEqual({ type: 'tool-result', toolCallId: callId, isError: true, content: [{ type: 'text', text: TOOL_OUTCOME_UNKNOWN_TEXT }] });
  expect(event!.surfaceOp).toBe('append');
  expect(event!.sourceEventSeqs).toEqual([toolCallSeq]);
}

function expectClosedStepAndTurn(events: readonly SessionEvent[]): void {
  expect(data(events[events.length - 2], 'step/end')).toEqual({ turn: 2, step: 1 });
  expect(data(events[events.length - 1], 'turn/end')).toEqual({ turn: 2, reason: { kind: 'interrupted' } });
}

/** Every assistant tool call in the messages is answered by a tool result before the next assistant message. */
function expectBalancedMessages(messages: readonly Message[]): void {
  const open = new Set<string>();
  for (const m of messages) {
    if (m.role === 'assistant') {
      expect([...open]).toEqual([]);
      for (const b of m.content) if (b.type === 'tool-call') open.add(b.id);
    } else if (m.source.kind === 'tool') {
      open.delete(m.content[0]!.type === 'tool-result' ? m.content[0]!.toolCallId : '');
    }
  }
  expect([...open]).toEqual([]);
}

/**
 * Shared after-crash checks: a second load appends nothing, fork at the last closed turns works,
 * resume appends one end-seed and a new turn continues numbering; every request would be balanced.
 */
async function afterRecovery(c: Crashed, recovered: readonly SessionEvent[]): Promise<void> {
  const store = new SqliteSessionStore(c.file);
  try {
    const repo = new SessionRepository(store, { newId: () => 'x' });
    const again = repo.load(c.id);
    expect(again.repaired).toBe(0);
    expect(serializeAll(again.events)).toEqual(serializeAll(recovered));

    const ends = recovered.filter((e) => e.type === 'turn/end').map((e) => e.seq);
    const lastCompleted = await repo.fork(c.id, ends[0], `${c.id}-fork1`);
    expect(serializeAll(store.readAll(lastCompleted.header.id).slice(0, ends[0]! + 1))).toEqual(serializeAll(recovered.slice(0, ends[0]! + 1)));
    const atInterrupted = await repo.fork(c.id, ends[1], `${c.id}-fork2`);
    expect(atInterrupted.header.seedLength).toBe(recovered.length);
    expect(
      store
        .readAll(atInterrupted.header.id)
        .map((e) => e.type)
        .slice(recovered.length),
    ).toEqual(['session/end-seed']);

    const live = repo.resume(c.id);
    // The dead child's claim is taken over, with a logged note naming it.
    expect(live.session.events.slice(recovered.length).map((e) => e.type)).toEqual(['session/end-seed', 'session/takeover']);
    expect(live.session.events[recovered.length + 1]!.data).toMatchObject({ previous: { pid: c.marker['pid'] }, reason: 'exited' });
    expectBalancedMessages(live.session.deriveMessages());
    const w = new AgentLogWriter(live.session);
    w.inboxInsert('third task');
    const start = w.turnStart() as SessionEvent<'turn/start'>;
    expect(start.data.turn).toBe(3);
    w.claim();
    w.stepStart();
    w.user('third task');
    w.assistantMessage(w.stream({ text: ['done'] }));
    w.stepEnd();
    w.turnEnd();
    expectBalancedMessages(live.session.deriveMessages());
    await live.release();
    const final = store.readAll(c.id);
    expect(serializeAll(final)).toEqual(serializeAll(live.session.events));
    expect(final.map((e) => e.seq)).toEqual(final.map((_, i) => i));
  } finally {
    store.close();
  }
}

function loadRecovered(c: Crashed): { events: SessionEvent[]; repaired: number; storedBefore: number } {
  const store = new SqliteSessionStore(c.file);
  try {
    const storedBefore = store.get(c.id)!.eventCount;
    // The dead child's pid is reaped, so the live-owner mark it left is stale and repair proceeds.
    expect(store.get(c.id)?.owner?.pid).toBe(c.marker['pid']);
    const repo = new SessionRepository(store, { newId: () => 'x' });
    const loaded = repo.load(c.id);
    expect(loaded.ownedElsewhere).toBe(false);
    return { events: [...loaded.events], repaired: loaded.repaired, storedBefore };
  } finally {
    store.close();
  }
}

describe('crash recovery (real child process, SIGKILL at named failpoints)', () => {
  const T1 = turn1Types();
  const crashed = new Map<CrashFailpoint, Crashed>();

  beforeAll(async () => {
    // The children are independent; run them side by side to keep the suite fast.
    const points: CrashFailpoint[] = ['no-step', 'mid-batch', 'before-tool-call', 'in-tool-body', 'mixed'];
    const results = await Promise.all(points.map((p) => crash(p)));
    points.forEach((p, i) => crashed.set(p, results[i]!));
  }, 60_000);

  it('every child died by SIGKILL', () => {
    for (const [point, c] of crashed) expect(c.signal, point).toBe('SIGKILL');
  });

  it('(d) inside a turn with no open step → only turn/end{interrupted}', async () => {
    const c = crashed.get('no-step')!;
    const { events, repaired, storedBefore } = loadRecovered(c);
    expect(storedBefore).toBe(T1.length + CLAIMED.length);
    expect(repaired).toBe(1);
    expect(events.map((e) => e.type)).toEqual([...T1, ...CLAIMED, 'turn/end']);
    expect(data(events[events.length - 1], 'turn/end')).toEqual({ turn: 2, reason: { kind: 'interrupted' } });
    await afterRecovery(c, events);
  });

  it('(a) killed in the middle of a batch write → the transaction rolled back, no partial batch is visible', async () => {
    const c = crashed.get('mid-batch')!;
    const row = c.marker['row'] as { seq: number; rowIndex: number; type: string };
    const batchStart = T1.length + REQUESTED.length;
    expect(row.rowIndex).toBe(2);
    expect(row.seq).toBeGreaterThan(batchStart); // rows of the doomed batch had been inserted
    const raw = new Database(c.file, { readonly: true });
    try {
      const stored = raw.prepare('SELECT count(*) AS n, max(last_seq) AS last FROM events WHERE session_id = ?').get(c.id) as { n: number; last: number };
      expect(stored.last).toBe(batchStart - 1);
      expect((raw.prepare('SELECT event_count FROM sessions WHERE id = ?').get(c.id) as { event_count: number }).event_count).toBe(batchStart);
      expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      raw.close();
    }
    const { events, repaired } = loadRecovered(c);
    expect(repaired).toBe(2);
    expect(events.map((e) => e.type)).toEqual([...T1, ...REQUESTED, 'step/end', 'turn/end']);
    expectClosedStepAndTurn(events);
    expect(events.some((e) => e.type === 'assistant/chunk' && (e.data as { turn: number }).turn === 2)).toBe(false);
    await afterRecovery(c, events);
  });

  it('(c) after the tool calls and before any tool/call → TOOL_NOT_STARTED per call, in block order', async () => {
    const c = crashed.get('before-tool-call')!;
    const { events, repaired } = loadRecovered(c);
    const before = responded(SCENARIO_CALLS['before-tool-call']);
    expect(repaired).toBe(4);
    expect(events.map((e) => e.type)).toEqual([...T1, ...before, 'tool/result', 'tool/result', 'step/end', 'turn/end']);
    const base = T1.length + before.length;
    expectNotStarted(events[base], 'call_t2_0');
    expectNotStarted(events[base + 1], 'call_t2_1');
    expectClosedStepAndTurn(events);
    await afterRecovery(c, events);
  });

  it('(b) after tool/call and before its result → TOOL_OUTCOME_UNKNOWN citing the tool/call', async () => {
    const c = crashed.get('in-tool-body')!;
    const { events, repaired } = loadRecovered(c);
    const before = [...responded(1), 'tool/call'];
    expect(repaired).toBe(3);
    expect(events.map((e) => e.type)).toEqual([...T1, ...before, 'tool/result', 'step/end', 'turn/end']);
    const toolCallSeq = T1.length + before.length - 1;
    expect(c.marker['toolCallSeq']).toBe(toolCallSeq);
    expect(data(events[toolCallSeq], 'tool/call').callId).toBe('call_t2_0');
    expectOutcomeUnknown(events[toolCallSeq + 1], 'call_t2_0', toolCallSeq);
    expectClosedStepAndTurn(events);
    await afterRecovery(c, events);
  });

  it('mixed: an answered call stays, the running one is unknown, the unstarted one is not-started (block order)', async () => {
    const c = crashed.get('mixed')!;
    const { events, repaired } = loadRecovered(c);
    const before = [...responded(3), 'tool/call', 'tool/result', 'tool/call'];
    expect(repaired).toBe(4);
    expect(events.map((e) => e.type)).toEqual([...T1, ...before, 'tool/result', 'tool/result', 'step/end', 'turn/end']);
    const secondCallSeq = T1.length + before.length - 1;
    expect(data(events[secondCallSeq - 1], 'tool/result').message.content[0].content).toEqual([{ type: 'text', text: 'ran call 0' }]);
    expectOutcomeUnknown(events[secondCallSeq + 1], 'call_t2_1', secondCallSeq);
    expectNotStarted(events[secondCallSeq + 2], 'call_t2_2');
    expectClosedStepAndTurn(events);
    await afterRecovery(c, events);
  });

  it("the closers' model-facing text says what the model may safely do", () => {
    expect(TOOL_NOT_STARTED_TEXT).toMatch(/never started/);
    expect(TOOL_NOT_STARTED_TEXT).toMatch(/Nothing was executed/);
    expect(TOOL_NOT_STARTED_TEXT).toMatch(/call the tool again/);
    expect(TOOL_OUTCOME_UNKNOWN_TEXT).toMatch(/outcome of this tool call is unknown/);
    expect(TOOL_OUTCOME_UNKNOWN_TEXT).toMatch(/Retry it only if it is read-only or idempotent/);
    expect(TOOL_OUTCOME_UNKNOWN_TEXT).toMatch(/verify the current state/);
    expect(TOOL_OUTCOME_UNKNOWN_TEXT).toMatch(/ask the user/);
  });
});
