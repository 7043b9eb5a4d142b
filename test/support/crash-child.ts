/**
 * Crash-test child process (run with `node --import tsx`). It drives a real Session through a real
 * SessionRepository + SqliteSessionStore in the order the agent loop appends events, flushing at the
 * durability barriers (turn end, pre-step, before a model request, before a tool body). At the named
 * failpoint it writes a marker file and blocks the thread forever; the parent test then SIGKILLs it.
 *
 * Usage: crash-child.ts <dbFile> <sessionId> <failpoint> <markerFile>
 *
 * Failpoints:
 * - `no-step`          turn open, inbox claimed, no step yet (pre-step barrier flushed)
 * - `mid-batch`        inside the SQLite transaction that writes the batch flushed before a tool
 *                      body (chunks, assistant/message, tool/call), after 3 rows were inserted
 * - `before-tool-call` assistant/message with 2 tool calls durable, no tool/call logged yet
 * - `in-tool-body`     tool/call durable (flushed before the body), crashed inside the body
 * - `mixed`            3 calls: first answered, second crashed in its body, third never started
 */
import { writeFileSync } from 'node:fs';
import { SessionRepository } from '../../electron/store/session-repository.js';
import { SqliteSessionStore, type RowWritten } from '../../electron/store/sqlite-session-store.js';
import { CRASH_FAILPOINTS, SCENARIO_CALLS, TURN1_DELTAS, TURN2_ARG_PARTS, TURN2_REASONING, TURN2_TEXT, type CrashFailpoint } from './crash-scenarios.js';
import { AgentLogWriter, words } from './store-fixtures.js';

function blockForever(marker: string, info: Record<string, unknown>): never {
  writeFileSync(marker, JSON.stringify({ pid: process.pid, ...info }));
  // Blocks this thread (and so any open SQLite transaction) until the parent kills the process.
  for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
}

async function main(): Promise<void> {
  const [file, id, failpoint, marker] = process.argv.slice(2) as [string, string, CrashFailpoint, string];
  if (!file || !id || !marker || !(CRASH_FAILPOINTS as readonly string[]).includes(failpoint)) {
    throw new Error(`usage: crash-child.ts <dbFile> <sessionId> <${CRASH_FAILPOINTS.join('|')}> <markerFile>`);
  }
  let armed = false;
  const store = new SqliteSessionStore(file, {
    onRowWritten: (row: RowWritten) => {
      if (armed && row.rowIndex === 2) blockForever(marker, { failpoint, row });
    },
  });
  const repository = new SessionRepository(store, { newId: () => `unused-${Date.now()}`, writeWindowMs: 50 });
  const live = repository.create({ id, cwd: '/work/crash' });
  const w = new AgentLogWriter(live.session);

  w.completedTurn('first task', TURN1_DELTAS);
  await live.flush(); // barrier at turn end

  w.inboxInsert('second task');
  w.turnStart();
  w.claim();
  await live.flush(); // pre-step barrier
  if (failpoint === 'no-step') blockForever(marker, { failpoint, length: live.session.length });

  w.stepStart();
  w.user('second task');
  w.requestHeader('change');
  await live.flush(); // barrier before the model request is dispatched

  const calls = Array.from({ length: SCENARIO_CALLS[failpoint] }, (_, i) => ({ id: `call_t2_${i}`, name: 'bash', args: [...TURN2_ARG_PARTS] }));
  const response = w.stream({ reasoning: words(TURN2_REASONING, 'plan'), text: words(TURN2_TEXT, 'doing'), toolCalls: calls });
  w.assistantMessage(response);
  if (failpoint === 'before-tool-call') {
    await live.flush(); // the write-behind window elapsed: the response is durable
    blockForever(marker, { failpoint, length: live.session.length });
  }

  for (let i = 0; i < calls.length; i++) {
    const call = w.toolCall(calls[i]!.id, 'bash', TURN2_ARG_PARTS.join(''));
    if (failpoint === 'mid-batch') armed = true;
    await live.flush(); // barrier before the tool body runs
    if (failpoint === 'in-tool-body' || (failpoint === 'mixed' && i === 1)) {
      blockForever(marker, { failpoint, length: live.session.length, toolCallSeq: call.seq });
    }
    w.toolResult(call, `ran call ${i}`);
  }
  w.stepEnd();
  w.turnEnd();
  await live.release();
  throw new Error(`failpoint ${failpoint} was never reached`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(2);
});
