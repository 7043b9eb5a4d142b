/**
 * The fault matrix (issue 10; docs/architecture.md §7–§8; dsh-contracts §8.2, §3.2, §9.7): a real Forkline
 * process (test/support/fault-child.ts: the real runtime, agent loop, SQLite store, supervised
 * bash, the real `openai` client against the scripted server) is stopped by
 * {SIGKILL, SIGTERM, SIGHUP} × {streaming a model response, inside a tool body with children (one
 * of them `setsid`), waiting for an approval, during compaction, in the middle of a write-behind
 * batch}. Then, for every cell:
 * - no process is left: every tool process (setsid escapees included) and the supervisor's watcher
 *   are gone within 2 s of Forkline's death;
 * - reload: SIGKILL → crash recovery appends exactly the contract's closers (TOOL_OUTCOME_UNKNOWN
 *   for a logged call, `step/end`, `turn/end{interrupted}`; compaction brackets untouched);
 *   SIGTERM / SIGHUP → nothing to repair: the turn was cancelled with the signal as its cause, its
 *   closers logged (interrupted partial answer, ABORTED / ABORTED_BEFORE_DISPATCH results,
 *   `compaction/end{error}`), and the process exited 143 / 129;
 * - invariants hold (contiguous seqs, no invariant warning, balanced turns and tool calls), and a
 *   second load adds nothing;
 * - resume works: a new turn runs to completion on the same session.
 * The cells run as parallel child processes (a few at a time on 2 cores).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOfType, type SessionEvent } from '../../../shared/events.js';
import type { Message } from '../../../shared/messages.js';
import { createRuntime } from '../../../electron/host/runtime.js';
import { isPidAlive } from '../../../electron/platform/process-identity.js';
import { processesWithEnvironment } from '../../../electron/platform/process-tree.js';
import { scanOpenState, TOOL_OUTCOME_UNKNOWN_TEXT } from '../../../electron/session/repair.js';
import { Session } from '../../../electron/session/session.js';
import { SessionRepository } from '../../../electron/store/session-repository.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { SUPERVISOR_MARKER } from '../../../electron/tools/process-supervisor.js';
import { spawnTsx, waitForFile } from '../../support/crash-harness.js';
import { FAULT_POINTS, type FaultChildConfig, type FaultPoint, type FaultReady } from '../../support/fault-points.js';
import { LEFT_BEHIND_SCRIPT } from '../../support/left-behind.js';
import { frame, framesResponse, reply, startScriptedLlm, textResponse, toolCallResponse, usage, type ScriptedLlm } from '../../support/scripted-llm/index.js';
import { tempDir } from '../../support/store-fixtures.js';

const SIGNALS = ['SIGKILL', 'SIGTERM', 'SIGHUP'] as const;
type Signal = (typeof SIGNALS)[number];
const EXIT_CODES: Record<Exclude<Signal, 'SIGKILL'>, number> = { SIGTERM: 143, SIGHUP: 129 };
/** Cells running at once. */
const PARALLEL = 5;

const tmp = tempDir('forkline-faults-');
afterAll(() => tmp.dispose());

/** What the model does in each scenario (the fault child drives the turn to the fault point). */
function script(llm: ScriptedLlm, point: FaultPoint): void {
  switch (point) {
    case 'streaming':
      llm.enqueue(reply({ reasoning: 'Let me think about this carefully.', text: 'Here is the first part of a long answer that never finishes', split: 6, cut: { after: 16, then: 'stall' } }));
      return;
    case 'tool':
      llm.enqueue(toolCallResponse([{ id: 'call_tool', name: 'bash', arguments: JSON.stringify({ command: LEFT_BEHIND_SCRIPT }) }]));
      return;
    case 'approval':
      llm.enqueue(toolCallResponse([{ id: 'call_ask', name: 'bash', arguments: JSON.stringify({ command: 'echo ran > ran.txt' }) }]));
      return;
    case 'compaction':
      // Turn 1 nearly fills a 4000-token window; turn 2's compaction then waits for its summary.
      llm.enqueue(textResponse('The project has many parts. '.repeat(300), { usage: usage(3500, 200), split: 2000 }), framesResponse([frame.stall()]));
      return;
    case 'batch':
      llm.enqueue(reply({ reasoning: 'thinking step by step about the task at hand', text: 'a streamed answer that is being written to the log', split: 3, cut: { after: 40, then: 'stall' } }));
      return;
  }
}

interface Cell {
  readonly point: FaultPoint;
  readonly signal: Signal;
  readonly dataDir: string;
  readonly workspace: string;
  readonly ready: FaultReady;
  readonly exit: { code: number | null; signal: NodeJS.Signals | null };
  /** ms from Forkline's death until no supervised process was left. */
  readonly cleanMs: number;
  /** Events stored when the child died. */
  readonly storedAtDeath: number;
}

async function goneWithin(check: () => number[], limitMs: number): Promise<number> {
  const t0 = Date.now();
  for (;;) {
    const alive = check();
    if (alive.length === 0) return Date.now() - t0;
    if (Date.now() - t0 > limitMs) throw new Error(`still running ${limitMs} ms after Forkline died: ${alive.join(', ')}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function runCell(point: FaultPoint, signal: Signal): Promise<Cell> {
  const dir = tmp.file(`${point}-${signal}`);
  const dataDir = join(dir, 'data');
  const workspace = join(dir, 'ws');
  mkdirSync(workspace, { recursive: true });
  mkdirSync(dataDir, { recursive: true });
  const llm = await startScriptedLlm();
  try {
    script(llm, point);
    const config: FaultChildConfig = {
      dataDir,
      workspace,
      baseUrl: llm.baseUrl,
      point,
      readyFile: join(dir, 'ready.json'),
      ...(point === 'compaction' ? { contextWindow: 4000 } : {}),
      ...(point === 'batch' ? { batchBlockMs: 1500 } : {}),
    };
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
    const child = spawnTsx('test/support/fault-child.ts', [join(dir, 'config.json')]);
    const ready = JSON.parse(await waitForFile(config.readyFile, child, 90_000)) as FaultReady;
    expect(ready.pid).toBe(child.child.pid);
    child.child.kill(signal);
    const exit = await child.exited;
    const tracked = [...(ready.toolPids ?? []), ...(ready.toolProcess ? [ready.toolProcess.pid] : []), ...(ready.watcherPid !== undefined ? [ready.watcherPid] : [])];
    const cleanMs = await goneWithin(() => [...tracked.filter(isPidAlive), ...processesWithEnvironment(SUPERVISOR_MARKER, ready.supervisorMarker)], 2000);
    const store = new SqliteSessionStore(join(dataDir, 'sessions.db'));
    const storedAtDeath = store.get(ready.sessionId)!.eventCount;
    store.close();
    return { point, signal, dataDir, workspace, ready, exit, cleanMs, storedAtDeath };
  } finally {
    await llm.close();
  }
}

function types(events: readonly SessionEvent[]): string[] {
  return events.map((e) => e.type);
}

/** Every assistant tool call is answered before the next assistant message (what a provider demands). */
function expectBalancedMessages(messages: readonly Message[]): void {
  const open = new Set<string>();
  for (const m of messages) {
    if (m.role === 'assistant') {
      expect([...open]).toEqual([]);
      for (const b of m.content) if (b.type === 'tool-call') open.add(b.id);
    } else if (m.source.kind === 'tool' && m.content[0]?.type === 'tool-result') open.delete(m.content[0].toolCallId);
  }
  expect([...open]).toEqual([]);
}

/** The turn the fault hit (turn 2 for compaction, else turn 1) and its events. */
function faultTurn(cell: Cell, events: readonly SessionEvent[]): { turn: number; events: SessionEvent[] } {
  const turn = cell.point === 'compaction' ? 2 : 1;
  const start = events.findIndex((e) => e.type === 'turn/start' && e.data.turn === turn);
  return { turn, events: events.slice(start) };
}

/** Exactly the contract's crash-recovery closers for a SIGKILL cell. */
function expectCrashClosers(cell: Cell, events: readonly SessionEvent[], repaired: number): void {
  const { turn, events: inTurn } = faultTurn(cell, events);
  const closers = events.slice(cell.storedAtDeath);
  expect(closers).toHaveLength(repaired);
  const end = closers.at(-1) as SessionEvent<'turn/end'>;
  expect(end.data).toEqual({ turn, reason: { kind: 'interrupted' } });
  switch (cell.point) {
    case 'streaming':
      expect(types(closers)).toEqual(['step/end', 'turn/end']);
      // The streamed chunks were durable; a chunk-only stream gets no assistant/message.
      expect(inTurn.filter((e) => e.type === 'assistant/chunk').length).toBeGreaterThanOrEqual(3);
      expect(inTurn.some((e) => e.type === 'assistant/message')).toBe(false);
      break;
    case 'batch':
      // The batch's transaction rolled back: none of its chunks is stored, nothing half-written.
      expect(types(closers)).toEqual(['step/end', 'turn/end']);
      expect(inTurn.some((e) => e.type === 'assistant/chunk')).toBe(false);
      expect(inTurn.some((e) => e.type === 'request/header')).toBe(true);
      break;
    case 'tool':
    case 'approval': {
      expect(types(closers)).toEqual(['tool/result', 'step/end', 'turn/end']);
      const call = eventsOfType(inTurn, 'tool/call')[0]!;
      const result = closers[0] as SessionEvent<'tool/result'>;
      expect(result.data.error).toEqual({ name: 'ToolOutcomeUnknownError', code: 'TOOL_OUTCOME_UNKNOWN' });
      expect(result.data.message.content[0]).toMatchObject({ toolCallId: call.data.callId, isError: true, content: [{ type: 'text', text: TOOL_OUTCOME_UNKNOWN_TEXT }] });
      expect(result.sourceEventSeqs).toEqual([call.seq]);
      if (cell.point === 'tool') {
        // The running tool's process was logged on its call before the crash.
        const process = eventsOfType(inTurn, 'tool/process');
        expect(process.map((e) => ({ callId: e.data.callId, pid: e.data.pid }))).toEqual([{ callId: call.data.callId, pid: cell.ready.toolProcess!.pid }]);
        expect(process[0]!.data.start).toBe(cell.ready.toolProcess!.start);
      } else {
        expect(types(inTurn).filter((t) => t.startsWith('approval/'))).toEqual(['approval/asked']);
      }
      break;
    }
    case 'compaction':
      // Crash repair never touches a compaction bracket (its owner does; a later end-seed makes it stale).
      expect(types(closers)).toEqual(['step/end', 'turn/end']);
      expect(types(inTurn).filter((t) => t.startsWith('compaction/'))).toEqual(['compaction/start']);
      break;
  }
}

/** The closers a cancel with a signal cause logs, for a SIGTERM / SIGHUP cell. */
function expectSignalClosers(cell: Cell, events: readonly SessionEvent[]): void {
  const { turn, events: inTurn } = faultTurn(cell, events);
  const end = events.at(-1) as SessionEvent<'turn/end'>;
  expect(end.data).toEqual({ turn, reason: { kind: 'aborted', cause: { kind: 'signal', signal: cell.signal } } });
  const tail = types(events.slice(-4));
  switch (cell.point) {
    case 'streaming':
    case 'batch': {
      // The partial answer (visible text was streamed) is kept as an interrupted message.
      expect(tail.slice(-3)).toEqual(['assistant/message', 'step/end', 'turn/end']);
      const message = events.at(-3) as SessionEvent<'assistant/message'>;
      expect(message.data.interrupted).toBe(true);
      expect(message.data.message.content.some((b) => b.type === 'text')).toBe(true);
      break;
    }
    case 'tool': {
      expect(tail.slice(-3)).toEqual(['tool/result', 'step/end', 'turn/end']);
      const result = events.at(-3) as SessionEvent<'tool/result'>;
      expect(result.data.error?.code).toBe('ABORTED');
      break;
    }
    case 'approval': {
      expect(tail).toEqual(['approval/decided', 'tool/result', 'step/end', 'turn/end']);
      expect((events.at(-4) as SessionEvent<'approval/decided'>).data.outcome).toBe('cancelled');
      expect((events.at(-3) as SessionEvent<'tool/result'>).data.error?.code).toBe('ABORTED_BEFORE_DISPATCH');
      break;
    }
    case 'compaction': {
      expect(tail.slice(-3)).toEqual(['compaction/end', 'step/end', 'turn/end']);
      expect((events.at(-3) as SessionEvent<'compaction/end'>).data.error).toBeDefined();
      expect(types(inTurn).filter((t) => t.startsWith('compaction/'))).toEqual(['compaction/start', 'compaction/end']);
      break;
    }
  }
}

/** Resumes the session in this process with a fresh scripted model: a new turn completes. */
async function expectResumeWorks(cell: Cell, recovered: readonly SessionEvent[]): Promise<void> {
  const llm = await startScriptedLlm();
  llm.enqueue(textResponse('Picking up where we left off.'));
  const runtime = createRuntime({
    dataDir: cell.dataDir,
    env: { FORKLINE_CHECKPOINTS: 'off' },
    overrides: { active: { provider: 'custom', baseUrl: llm.baseUrl, model: 'scripted-model' }, approvalPolicy: 'allow' },
    writeWindowMs: 5,
  });
  try {
    const connection = runtime.host.connect(() => undefined);
    connection.followup({ sessionId: cell.ready.sessionId, text: 'continue' });
    const agent = runtime.host.agentFor(cell.ready.sessionId)!;
    await agent.whenIdle();
    const events = agent.session.events;
    const after = events.slice(recovered.length);
    // A killed owner is taken over with a note; a signalled one released the session cleanly.
    expect(types(after).slice(0, cell.signal === 'SIGKILL' ? 2 : 1)).toEqual(cell.signal === 'SIGKILL' ? ['session/end-seed', 'session/takeover'] : ['session/end-seed']);
    if (cell.signal === 'SIGKILL') expect(after[1]!.data).toMatchObject({ previous: { pid: cell.ready.pid }, reason: 'exited' });
    const ends = eventsOfType(after, 'turn/end');
    expect(ends.map((e) => e.data)).toEqual([{ turn: faultTurn(cell, recovered).turn + 1, reason: { kind: 'completed' } }]);
    expectBalancedMessages(agent.session.deriveMessages());
    connection.dispose();
  } finally {
    await runtime.close();
    await llm.close();
  }
}

describe('fault matrix: {SIGKILL, SIGTERM, SIGHUP} × {streaming, tool body with children, approval, compaction, write-behind batch}', () => {
  /** Each cell's run, or why it could not run (reported by that cell's test only). */
  const cells = new Map<string, Cell | Error>();

  beforeAll(async () => {
    const queue = SIGNALS.flatMap((signal) => FAULT_POINTS.map((point) => ({ point, signal })));
    const worker = async () => {
      for (let job = queue.shift(); job; job = queue.shift()) {
        const key = `${job.point} ${job.signal}`;
        cells.set(key, await runCell(job.point, job.signal).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error)))));
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
  }, 300_000);

  for (const signal of SIGNALS) {
    for (const point of FAULT_POINTS) {
      it(`${signal} × ${point}`, async () => {
        const run = cells.get(`${point} ${signal}`)!;
        if (run instanceof Error) throw run;
        const cell = run;
        console.log(`${signal} × ${point}: exit ${cell.exit.signal ?? cell.exit.code}, no supervised process left ${cell.cleanMs} ms after death`);
        // How the process ended.
        if (signal === 'SIGKILL') expect(cell.exit).toEqual({ code: null, signal: 'SIGKILL' });
        else expect(cell.exit).toEqual({ code: EXIT_CODES[signal], signal: null });
        // No process left (measured right after the death, see runCell).
        expect(cell.cleanMs).toBeLessThanOrEqual(2000);
        if (point === 'tool') {
          expect(cell.ready.toolPids).toHaveLength(3);
          for (const pid of [...cell.ready.toolPids!, cell.ready.toolProcess!.pid, cell.ready.watcherPid!]) expect(isPidAlive(pid), `pid ${pid}`).toBe(false);
        }

        const store = new SqliteSessionStore(join(cell.dataDir, 'sessions.db'));
        let recovered: readonly SessionEvent[];
        try {
          const repository = new SessionRepository(store, { newId: () => 'unused' });
          const loaded = repository.load(cell.ready.sessionId);
          expect(loaded.ownedElsewhere).toBe(false);
          // Everything a tool started was already gone: recovery found nothing left to end.
          expect(loaded.leftovers).toEqual([]);
          recovered = loaded.events;
          if (signal === 'SIGKILL') {
            expect(loaded.repaired).toBeGreaterThan(0);
            expectCrashClosers(cell, recovered, loaded.repaired);
          } else {
            expect(loaded.repaired).toBe(0);
            expect(store.get(cell.ready.sessionId)!.owner).toBeUndefined();
            expectSignalClosers(cell, recovered);
          }
          // Invariants: contiguous, no violation, nothing open, every call answered.
          expect(recovered.map((e) => e.seq)).toEqual(recovered.map((_, i) => i));
          const replay = new Session({ header: loaded.record.header, seed: recovered, invariants: 'enforce' });
          expect(replay.warnings).toEqual([]);
          expect(scanOpenState(recovered)).toEqual({ turn: undefined, step: undefined, pending: [] });
          expectBalancedMessages(replay.deriveMessages());
          // The one recovery path closes it once: a second load adds nothing.
          const again = repository.load(cell.ready.sessionId);
          expect(again.repaired).toBe(0);
          expect(again.events).toEqual(recovered);
          // The tool never ran after an unanswered approval.
          if (point === 'approval') expect(existsSync(join(cell.workspace, 'ran.txt'))).toBe(false);
        } finally {
          store.close();
        }
        await expectResumeWorks(cell, recovered);
      });
    }
  }
});
