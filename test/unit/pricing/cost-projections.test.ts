/**
 * The projections behind the app's cost displays (issue 22): the incremental SessionCostFold (the
 * host's per-session summary) gives what sessionCost gives for the whole log, fed in parts; the
 * host's SessionCostCache reads only the events appended since the last list; the turn-end row's
 * cost; the running turn's meter (cost so far, approval wait apart); the short labels.
 */
import { describe, expect, it } from 'vitest';
import { SpendGuard } from '../../../electron/agent/spend-guard.js';
import { SessionCostCache } from '../../../electron/host/services/session-costs.js';
import { PriceBook, parsePriceOverrides } from '../../../electron/pricing/price-list.js';
import { Session } from '../../../electron/session/session.js';
import type { SessionEvent } from '../../../shared/events.js';
import { turnMeter } from '../../../shared/live-cost.js';
import { compactUsd, costLabel, SessionCostFold, sessionCost } from '../../../shared/session-cost.js';
import { timelineOf, type StepRow, type ToolRow, type TurnEndRow } from '../../../shared/timeline.js';
import { header, steppingClock } from '../../support/store-fixtures.js';

const URL = 'http://127.0.0.1:9/v1';
const book = new PriceBook(parsePriceOverrides([{ baseUrl: URL, model: 'm', inputMtok: 3, cacheReadMtok: 0.3, outputMtok: 15 }]));
const guard = new SpendGuard({ quote: (r, at) => book.quote(r, at), budget: () => undefined });

/** One turn of one step with usage; `end` false leaves the turn open. */
function turnOf(session: Session, model: string, end = true): void {
  session.append({ type: 'turn/start', data: { turn: session.lastTurn + 1 } });
  const turn = session.lastTurn;
  session.append({ type: 'step/start', data: { turn, step: 1 } });
  guard.beforeSend(session, { turn, step: 1, provider: 'custom', model, baseUrl: URL, header: { config: { provider: 'custom', model, maxTokens: 100 } }, messages: [] });
  session.append({
    type: 'assistant/message',
    data: {
      turn,
      step: 1,
      message: { id: `a${turn}`, role: 'assistant', content: [{ type: 'text', text: 'hi' }], source: { kind: 'model', provider: 'custom', model } },
      usage: { inputTokens: 1000, cacheReadTokens: 3000, outputTokens: 200 },
    },
    surfaceOp: 'append',
  });
  session.append({ type: 'step/end', data: { turn, step: 1 } });
  if (end) session.append({ type: 'turn/end', data: { turn, reason: { kind: 'completed' } } });
}

describe('SessionCostFold and the host cache', () => {
  it('folded in parts, it gives what sessionCost gives for the whole log', () => {
    const session = new Session({ header: header('cp1'), now: steppingClock() });
    turnOf(session, 'm');
    turnOf(session, 'other');
    turnOf(session, 'm');
    const events = session.events as readonly SessionEvent[];
    const fold = new SessionCostFold();
    for (const e of events.slice(0, 7)) fold.add(e);
    for (const e of events.slice(7)) fold.add(e);
    expect(fold.count).toBe(events.length);
    expect(fold.result().total).toEqual(sessionCost(events).total);
    // Two priced turns at $0.0069 each, one unpriced.
    expect(fold.total().knownUsd).toBeCloseTo(0.0138, 8);
    expect(fold.total().unknownCount).toBe(1);
    expect(fold.total().usd).toBeUndefined();
  });

  it('the cache reads only what was appended since the last list, and not at all when nothing was', () => {
    const session = new Session({ header: header('cp2'), now: steppingClock() });
    turnOf(session, 'm');
    const reads: [number, number][] = [];
    const read = (from: number, to: number): readonly SessionEvent[] => {
      reads.push([from, to]);
      return (session.events as readonly SessionEvent[]).slice(from, to);
    };
    const cache = new SessionCostCache();
    const first = cache.totals('cp2', session.length, read)!;
    expect(first.usd).toBeCloseTo(0.0069, 8);
    const n = session.length;
    expect(cache.totals('cp2', session.length, read)).toBe(first);
    turnOf(session, 'm');
    expect(cache.totals('cp2', session.length, read)!.usd).toBeCloseTo(0.0138, 8);
    expect(reads).toEqual([
      [0, n],
      [n, session.length],
    ]);
    // A damaged log does not break the list: no cost for it.
    expect(
      cache.totals('bad', 3, () => {
        throw new Error('corrupt');
      }),
    ).toBeUndefined();
  });
});

describe('turn cost and the live meter', () => {
  it('the turn-end row carries the turn cost; unknown prices are counted, never $0', () => {
    const session = new Session({ header: header('cp3'), now: steppingClock() });
    turnOf(session, 'm');
    turnOf(session, 'other');
    const ends = timelineOf(session.events).rows.filter((r): r is TurnEndRow => r.kind === 'turn-end');
    expect(ends[0]!.cost!.usd).toBeCloseTo(0.0069, 8);
    expect(ends[1]!.cost).toEqual({ knownUsd: 0, unknownCount: 1 });
  });

  it('the meter of the running turn: cost and tokens so far, the approval wait apart from the tool time', () => {
    const session = new Session({ header: header('cp4'), now: steppingClock() });
    turnOf(session, 'm', false);
    const turn = session.lastTurn;
    const logged = session.events as readonly SessionEvent[];
    let seq = logged.length;
    let time = logged.at(-1)!.time;
    /** The tail of the log as the agent would write it, 1 s apart (written directly: the timeline folds any log). */
    const next = (type: string, data: unknown): SessionEvent => ({ seq: seq++, time: (time += 1000), type, data }) as unknown as SessionEvent;
    const waitingTail = [
      next('step/start', { turn, step: 2 }),
      next('tool/call', { turn, step: 2, callId: 'c1', name: 'bash', arguments: '{"command":"ls"}' }),
      next('approval/asked', { id: 'ap1', callId: 'c1', toolName: 'bash' }),
    ];
    let rows = timelineOf([...logged, ...waitingTail]).rows;
    const waiting = turnMeter(rows, turn);
    expect(waiting.knownUsd).toBeCloseTo(0.0069, 8);
    expect(waiting.tokens).toBe(4200);
    expect(waiting.waitingSince).toBe(waitingTail[2]!.time);
    const decided = next('approval/decided', { id: 'ap1', outcome: 'allowed-once' });
    time += 2000;
    const result = next('tool/result', { turn, step: 2, message: { id: 'r1', role: 'user', source: { kind: 'tool', callId: 'c1' }, content: [{ type: 'tool-result', callId: 'c1', text: 'ok' }] } });
    rows = timelineOf([...logged, ...waitingTail, decided, result]).rows;
    const after = turnMeter(rows, turn);
    expect(after.waitingSince).toBeUndefined();
    expect(after.approvalWaitMs).toBe(1000);
    const step = rows.find((r): r is StepRow => r.kind === 'step' && r.step === 2)!;
    expect(step.approvalWaitMs).toBe(1000);
    const tool = rows.find((r): r is ToolRow => r.kind === 'tool')!;
    expect(tool.approvalWaitMs).toBe(1000);
    // The tool row's duration still spans call → result (1 s + 1 s wait + 3 s); the display takes the wait out.
    expect(tool.durationMs).toBe(5000);
    // Another turn's rows are not counted.
    expect(turnMeter(rows, turn + 1).billedSteps).toBe(0);
  });
});

describe('labels', () => {
  it('says a price is unknown instead of $0, and keeps narrow places short', () => {
    const base = { knownUsd: 0, unknownCount: 0, unreportedCount: 0, inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0, tokens: 0 };
    expect(costLabel(undefined)).toBe('');
    expect(costLabel({ ...base, usd: 0 })).toBe('');
    expect(costLabel({ ...base, usd: 0.0022, knownUsd: 0.0022, tokens: 10 })).toBe('$0.002200');
    expect(costLabel({ ...base, usd: 0.0022, knownUsd: 0.0022, tokens: 10 }, { compact: true })).toBe('$0.0022');
    expect(costLabel({ ...base, knownUsd: 0.5, unknownCount: 2, tokens: 10 })).toBe('≥ $0.5000 (2 unpriced)');
    expect(costLabel({ ...base, unknownCount: 1, tokens: 12_300 })).toBe('12.3k tokens, price unknown');
    // A response without reported usage is counted at its worst case: the figure is an upper bound, and says so.
    expect(costLabel({ ...base, unknownCount: 1, unreportedCount: 1, tokens: 2_150 })).toBe('≤ 2.15k tokens, price unknown');
    expect(costLabel({ ...base, unknownCount: 1, unreportedCount: 1, tokens: 2_150 }, { compact: true })).toBe('≤ 2.15k tok');
    expect(costLabel({ ...base, usd: 0.01, knownUsd: 0.01, unreportedCount: 1, tokens: 10 })).toBe('≤ $0.0100');
    // An imported log whose responses recorded no usage: not "≤ 0 tok".
    expect(costLabel({ ...base, unknownCount: 3, unreportedCount: 3, tokens: 0 }, { compact: true })).toBe('usage unknown');
    expect(costLabel({ ...base, unknownCount: 3, unreportedCount: 3, tokens: 0 })).toBe('usage unknown');
    expect(compactUsd(1.234)).toBe('$1.23');
  });
});
