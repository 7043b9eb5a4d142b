/**
 * A real Forkline process for the fault matrix (run with `node --import tsx`): the real runtime
 * (Host, agent loop, SQLite store with write-behind, built-in tools under the process supervisor,
 * the real `openai` client against the test's scripted server), with the CLI's stop-signal
 * handling (`listenForStopSignals`: SIGTERM / SIGHUP cancel the turn with the signal as its cause,
 * then the session is flushed and the process exits 128 + n). It drives one turn to a named fault
 * point, writes <readyFile>, and waits for the test's signal.
 *
 * Usage: fault-child.ts <configJsonFile>   (see {@link FaultChildConfig})
 *
 * Fault points (the test scripts the model to match):
 * - `streaming`  text deltas of the answer are logged and durable; the stream then stalls
 * - `tool`       a bash call runs LEFT_BEHIND_SCRIPT (children, a setsid child, a setsid daemon)
 * - `approval`   a bash call waits for the user's approval (policy `ask`, no answerer)
 * - `compaction` turn 2's automatic compaction is waiting for its summary (the stream stalls)
 * - `batch`      inside the SQLite transaction of a write-behind batch of streamed chunks, after 3
 *                rows were inserted; the thread is blocked there for `batchBlockMs`
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionEvent } from '../../shared/events.js';
import { listenForStopSignals, SIGNAL_EXIT_CODES } from '../../electron/cli/stop-signals.js';
import { createRuntime } from '../../electron/host/runtime.js';
import { SqliteSessionStore } from '../../electron/store/sqlite-session-store.js';
import type { FaultChildConfig, FaultReady } from './fault-points.js';
import { LEFT_BEHIND_PID_FILES } from './left-behind.js';

const config = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as FaultChildConfig;
const { point } = config;

let armed = false;

const store = new SqliteSessionStore(join(config.dataDir, 'sessions.db'), {
  onRowWritten: (row) => {
    if (!armed || row.rowIndex !== 2) return;
    armed = false;
    writeReady();
    // Blocks the thread (and so the open transaction): a signal handler can only run afterwards.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, config.batchBlockMs ?? 1500);
  },
});
const runtime = createRuntime({
  dataDir: config.dataDir,
  env: { FORKLINE_CHECKPOINTS: 'off', FORKLINE_MAX_RETRIES: '0' },
  store,
  overrides: {
    active: { provider: 'custom', baseUrl: config.baseUrl, model: 'scripted-model' },
    approvalPolicy: point === 'approval' ? 'ask' : 'allow',
    // The scripted model's context window, as `--context-window N` sets it.
    ...(config.contextWindow !== undefined ? { limits: { contextWindow: config.contextWindow } } : {}),
  },
  writeWindowMs: 50,
});
const connection = runtime.host.connect(() => undefined);
const sessionId = connection.createSession({ cwd: config.workspace }).id;
const agent = runtime.host.ensureAgent(sessionId);
const live = runtime.repository.live(sessionId)!;
const ready = (): FaultReady => ({
  pid: process.pid,
  sessionId,
  length: agent.session.length,
  supervisorMarker: runtime.supervisor.markerValue,
  ...(runtime.supervisor.watcherPid !== undefined ? { watcherPid: runtime.supervisor.watcherPid } : {}),
});

// Like the CLI's terminal prompt or the browser-mode server, something keeps the process alive
// while a turn waits for nothing but the user (an approval).
const keepAlive = setInterval(() => undefined, 60_000);
// Called from the store's failpoint too (only after this point, once a turn streams).
function writeReady(extra: Partial<FaultReady> = {}): void {
  writeFileSync(config.readyFile, JSON.stringify({ ...ready(), ...extra }));
}

const stops = listenForStopSignals({
  onInterrupt: () => agent.cancel({ kind: 'user' }),
  onStop: (signal) => agent.cancel({ kind: 'signal', signal }),
});

if (point === 'compaction') {
  // Turn 1 fills the context window; turn 2's automatic compaction then waits for its summary.
  connection.followup({ sessionId, text: 'Describe the project in detail.' });
  await agent.whenIdle();
}

let reached = false;
const reach = (extra: () => Partial<FaultReady> = () => ({})) => {
  if (reached) return;
  reached = true;
  void live.flush().then(() => writeReady(extra()));
};
let textDeltas = 0;
agent.session.onDidAppend((event: SessionEvent) => {
  if (point === 'streaming' && event.type === 'assistant/chunk' && event.data.chunk.type === 'text-delta' && ++textDeltas === 3) reach();
  if (point === 'batch' && event.type === 'assistant/chunk' && !reached) {
    reached = true;
    armed = true;
  }
  if (point === 'approval' && event.type === 'approval/asked') reach();
  if (point === 'compaction' && event.type === 'compaction/start') reach();
  if (point === 'tool' && event.type === 'tool/process') {
    const toolProcess = { pid: event.data.pid, ...(event.data.pgid !== undefined ? { pgid: event.data.pgid } : {}), ...(event.data.start !== undefined ? { start: event.data.start } : {}) };
    const wait = setInterval(() => {
      if (!existsSync(join(config.workspace, 'started.txt'))) return;
      clearInterval(wait);
      const toolPids = LEFT_BEHIND_PID_FILES.map((f) => Number(readFileSync(join(config.workspace, f), 'utf8').trim()));
      reach(() => ({ toolPids, toolProcess }));
    }, 10);
  }
});

connection.followup({ sessionId, text: point === 'compaction' ? `Now continue. ${'alpha beta gamma delta epsilon '.repeat(200)}` : 'Do the task.' });
await agent.whenIdle();
// Only a stop signal ends the turn early in these scenarios; anything else is a test failure.
const signal = stops.received;
await runtime.close(signal !== undefined ? { kind: 'signal', signal } : undefined);
stops.dispose();
clearInterval(keepAlive);
process.exit(signal !== undefined ? SIGNAL_EXIT_CODES[signal] : 3);
