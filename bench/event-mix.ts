/**
 * The chunk-heavy event mix used by the benchmarks: turns shaped like real agent turns (inbox
 * splice, turn/start, claim, step/start, user/message, request/header, hundreds of reasoning and
 * text deltas, a streamed tool call, assistant/message citing its chunks, tool/call, tool/result,
 * a second step with a streamed answer, turn/end), recorded once through a real Session so every
 * input is valid. `flushAfter` marks the durability barriers the agent flushes at (before a model
 * request, before a tool body, at turn end).
 */
import type { EventInput, SessionEvent } from '../shared/events.js';
import { Session } from '../electron/session/session.js';
import { AgentLogWriter, header } from '../test/support/store-fixtures.js';

export interface EventMix {
  readonly inputs: readonly EventInput[];
  readonly events: readonly SessionEvent[];
  /** Indexes (= seqs) after which the agent awaits a flush. */
  readonly flushAfter: ReadonlySet<number>;
  /** The append batches the barriers produce: [start, end) seq ranges. */
  readonly batches: readonly (readonly [number, number])[];
}

/** Token-like deltas of 2–9 characters. */
function tokens(n: number, seed: number): string[] {
  const vocab = [' the', ' file', ' function', 'Error', ' we', ' need', ' to', ' update', '()', ' test', ' import', ' const', ' =', ';\n', ' résumé', ' ✓'];
  return Array.from({ length: n }, (_, i) => vocab[(i * 7 + seed) % vocab.length]!);
}

/**
 * @param targetEvents at least this many events (whole turns).
 * @param firstTurnEndsNear when given, the first turn is shortened so it ends close to this seq
 *   (the fork benchmark needs a boundary near seq 100).
 */
export function chunkHeavyMix(targetEvents: number, firstTurnEndsNear?: number): EventMix {
  let t = 1_780_000_000_000;
  const session = new Session({ header: header('mix'), now: () => (t += 3) });
  const w = new AgentLogWriter(session);
  const flushAfter = new Set<number>();
  const barrier = () => flushAfter.add(session.length - 1);
  while (session.length < targetEvents) {
    const turn = session.lastTurn + 1;
    w.inboxInsert(`Task ${turn}: fix the failing test in src/module${turn}.ts`);
    w.turnStart();
    w.claim();
    barrier(); // pre-step
    w.stepStart();
    w.user(`Task ${turn}: fix the failing test in src/module${turn}.ts`);
    w.requestHeader(turn === 1 ? 'initial' : 'change');
    barrier(); // before the model request
    const callId = `call_${turn}`;
    const args = tokens(30, turn).map((s) => s.replace(/"/g, ''));
    const short = turn === 1 && firstTurnEndsNear !== undefined;
    const scale = short ? Math.max(1, Math.floor((firstTurnEndsNear - 40) / 3)) : 0;
    const r1 = w.stream({ reasoning: tokens(short ? scale : 300, turn), text: tokens(short ? 1 : 60, turn + 1), toolCalls: [{ id: callId, name: 'edit_file', args }] });
    w.assistantMessage(r1);
    const call = w.toolCall(callId, 'edit_file', args.join(''));
    barrier(); // before the tool body
    w.toolResult(call, `Edited src/module${turn}.ts: replaced 3 lines.`);
    w.stepEnd();
    barrier(); // pre-step
    w.stepStart();
    barrier(); // before the model request
    const r2 = w.stream({ reasoning: tokens(short ? scale : 80, turn + 2), text: tokens(short ? scale : 150, turn + 3) });
    w.assistantMessage(r2);
    w.stepEnd();
    w.turnEnd();
    barrier(); // turn end
  }
  const events = session.events;
  const inputs = events.map((e) => {
    const input: Record<string, unknown> = { type: e.type, data: e.data };
    if (e.surfaceOp !== undefined) input['surfaceOp'] = e.surfaceOp;
    if (e.sourceEventSeqs !== undefined) input['sourceEventSeqs'] = e.sourceEventSeqs;
    return input as unknown as EventInput;
  });
  const batches: [number, number][] = [];
  let start = 0;
  for (const end of [...flushAfter].sort((a, b) => a - b)) {
    if (end + 1 > start) batches.push([start, end + 1]);
    start = end + 1;
  }
  if (start < events.length) batches.push([start, events.length]);
  return { inputs, events, flushAfter, batches };
}
