/**
 * Issue 22: a compaction's summary request logs its own `request/price` (naming its
 * `compactionId`; between turns with turn and step 0, inside its bracket), and the projections
 * count the summary at it: sessionCost, the turn-end row, the running turn's meter. A summary that
 * was billed but not used (`compaction/end` with `usage`) counts too. The log's invariant admits a
 * between-turn price only inside the bracket it names.
 *
 * Prices by hand: model `m` at $3 / $0.30 (cache read) / $15 per million; a step reports 1,000
 * uncached + 3,000 cached input and 200 output: 0.003 + 0.0009 + 0.003 = $0.0069; a summary
 * reports 10,000 uncached input and 500 output: 0.03 + 0.0075 = $0.0375.
 */
import { describe, expect, it } from 'vitest';
import { SpendGuard } from '../../../electron/agent/spend-guard.js';
import { PriceBook, parsePriceOverrides } from '../../../electron/pricing/price-list.js';
import { Session } from '../../../electron/session/session.js';
import type { TokenUsage } from '../../../shared/chunks.js';
import type { SessionEvent } from '../../../shared/events.js';
import { turnMeter } from '../../../shared/live-cost.js';
import { sessionCost } from '../../../shared/session-cost.js';
import { timelineOf, type CompactionRow, type TurnEndRow } from '../../../shared/timeline.js';
import { header, steppingClock } from '../../support/store-fixtures.js';

const URL = 'http://127.0.0.1:9/v1';
const book = new PriceBook(parsePriceOverrides([{ baseUrl: URL, model: 'm', inputMtok: 3, cacheReadMtok: 0.3, outputMtok: 15 }]));
const guard = new SpendGuard({ quote: (r, at) => book.quote(r, at), budget: () => undefined });
const STEP_USD = 0.0069;
const SUMMARY_USD = 0.0375;
const SUMMARY_USAGE: TokenUsage = { inputTokens: 10_000, outputTokens: 500 };

const priceFor = (session: Session, turn: number, step: number, compactionId?: string) =>
  guard.beforeSend(session, {
    turn,
    step,
    ...(compactionId !== undefined ? { compactionId } : {}),
    provider: 'custom',
    model: 'm',
    baseUrl: URL,
    header: { config: { provider: 'custom', model: 'm', maxTokens: 100 } },
    messages: [],
  });

/** A compaction bracket for `turn` (null: between turns) whose summary reports SUMMARY_USAGE; `used` false: the summary is rejected. */
function compaction(session: Session, id: string, turn: number | null, step: number, used = true): void {
  session.append({ type: 'compaction/start', data: { compactionId: id, turn, shadowedTokenCount: 5000, maxTokens: 100 } });
  priceFor(session, turn ?? 0, turn === null ? 0 : step, id);
  if (used) {
    session.append({
      type: 'compaction/summary',
      data: {
        compactionId: id,
        summary: [{ type: 'text', text: 's' }],
        shadowedRange: { start: 0, end: 0 },
        shadowedSeqs: [0],
        shadowedTokenCount: 5000,
        provider: 'custom',
        model: 'm',
        usage: SUMMARY_USAGE,
      },
    });
    session.append({ type: 'compaction/end', data: { compactionId: id, turn } });
  } else {
    session.append({ type: 'compaction/end', data: { compactionId: id, turn, error: 'the summary is not smaller than what it would replace', usage: SUMMARY_USAGE } });
  }
}

/** One turn of one step; `withCompaction` compacts inside the step before its request. */
function turnOf(session: Session, options: { withCompaction?: string; end?: boolean } = {}): void {
  session.append({ type: 'turn/start', data: { turn: session.lastTurn + 1 } });
  const turn = session.lastTurn;
  session.append({ type: 'step/start', data: { turn, step: 1 } });
  session.append({ type: 'request/header', data: { reason: 'initial', header: { config: { provider: 'custom', model: 'm' } } } });
  if (options.withCompaction) compaction(session, options.withCompaction, turn, 1);
  priceFor(session, turn, 1);
  session.append({
    type: 'assistant/message',
    data: {
      turn,
      step: 1,
      message: { id: `a${turn}`, role: 'assistant', content: [{ type: 'text', text: 'hi' }], source: { kind: 'model', provider: 'custom', model: 'm' } },
      usage: { inputTokens: 1000, cacheReadTokens: 3000, outputTokens: 200 },
    },
    surfaceOp: 'append',
  });
  session.append({ type: 'step/end', data: { turn, step: 1 } });
  if (options.end !== false) session.append({ type: 'turn/end', data: { turn, reason: { kind: 'completed' } } });
}

describe('a compaction summary request priced at its own logged price', () => {
  it('between turns: the invariant admits its price only inside the bracket it names, at turn 0 step 0', () => {
    const session = new Session({ header: header('cpl1'), now: steppingClock() });
    turnOf(session);
    expect(() => priceFor(session, 0, 0, 'nope')).toThrow(/names compaction nope, which is not open/);
    session.append({ type: 'compaction/start', data: { compactionId: 'c1', turn: null } });
    expect(() => priceFor(session, 1, 1, 'c1')).toThrow(/must name turn 0 step 0/);
    expect(() => priceFor(session, 0, 0)).toThrow(/must be inside an open step/);
    priceFor(session, 0, 0, 'c1');
    session.append({ type: 'compaction/end', data: { compactionId: 'c1', turn: null, error: 'x' } });
    expect(() => priceFor(session, 0, 0, 'c1')).toThrow(/which is not open/);
  });

  it('sessionCost, the turn-end row and the meter count it; a billed summary that was not used counts too', () => {
    const session = new Session({ header: header('cpl2'), now: steppingClock() });
    turnOf(session, { withCompaction: 'in-turn' });
    compaction(session, 'manual', null, 0);
    compaction(session, 'rejected', null, 0, false);
    turnOf(session, { end: false });
    const events = session.events as readonly SessionEvent[];

    const cost = sessionCost(events);
    expect(cost.responses.map((r) => [r.kind, r.turn, r.step, r.priceFrom, r.status])).toEqual([
      ['compaction', 1, 1, 'logged', 'priced'],
      ['step', 1, 1, 'logged', 'priced'],
      ['compaction', 0, 0, 'logged', 'priced'],
      ['compaction', 0, 0, 'logged', 'priced'],
      ['step', 2, 1, 'logged', 'priced'],
    ]);
    expect(Math.abs(cost.total.usd! - (2 * STEP_USD + 3 * SUMMARY_USD))).toBeLessThan(1e-9);
    expect(cost.turns.get(1)!.usd).toBeCloseTo(STEP_USD + SUMMARY_USD, 9);
    expect(cost.turns.get(0)!.usd).toBeCloseTo(2 * SUMMARY_USD, 9);

    const rows = timelineOf(session.events).rows;
    // The in-turn compaction's price went to its row, not to the step's.
    const inTurn = rows.find((r): r is CompactionRow => r.kind === 'compaction' && r.compactionId === 'in-turn')!;
    expect(inTurn.price).toMatchObject({ kind: 'known' });
    const rejected = rows.find((r): r is CompactionRow => r.kind === 'compaction' && r.compactionId === 'rejected')!;
    expect(rejected).toMatchObject({ state: 'failed', usage: SUMMARY_USAGE, price: { kind: 'known' } });
    const end1 = rows.find((r): r is TurnEndRow => r.kind === 'turn-end' && r.turn === 1)!;
    expect(end1.cost!.usd).toBeCloseTo(STEP_USD + SUMMARY_USD, 9);
    // The meter of turn 1 counts its compaction; turn 2's meter does not count the manual ones before it.
    expect(turnMeter(rows, 1).knownUsd).toBeCloseTo(STEP_USD + SUMMARY_USD, 9);
    expect(turnMeter(rows, 1).tokens).toBe(4200 + 10_500);
    expect(turnMeter(rows, 2).knownUsd).toBeCloseTo(STEP_USD, 9);
  });
});
