/**
 * How shared/session-cost.ts prices a compaction with no `request/price` of its own (a manual one,
 * between turns): at the price logged latest in the session for its model and endpoint
 * (`priceFrom: 'session'`); a model no price was ever logged for stays unknown (or takes the
 * fallback); with no reported usage, its own worst case (what it summarised + its output cap).
 *
 * Prices by hand: model `m` at $3 / $0.30 (cache read) / $15 per million; a step reports 1,000
 * uncached + 3,000 cached input and 200 output: 0.003 + 0.0009 + 0.003 = $0.0069.
 */
import { describe, expect, it } from 'vitest';
import { SpendGuard } from '../../../electron/agent/spend-guard.js';
import { PriceBook, parsePriceOverrides } from '../../../electron/pricing/price-list.js';
import { Session } from '../../../electron/session/session.js';
import type { TokenUsage } from '../../../shared/chunks.js';
import type { SessionEvent } from '../../../shared/events.js';
import { costLabel, sessionCost } from '../../../shared/session-cost.js';
import { header, steppingClock } from '../../support/store-fixtures.js';

const URL = 'http://127.0.0.1:9/v1';
const book = new PriceBook(parsePriceOverrides([{ baseUrl: URL, model: 'm', inputMtok: 3, cacheReadMtok: 0.3, outputMtok: 15 }]));
const guard = new SpendGuard({ quote: (r, at) => book.quote(r, at), budget: () => undefined });

function turnOf(session: Session, model: string): void {
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
  session.append({ type: 'turn/end', data: { turn, reason: { kind: 'completed' } } });
}

/** A manual compaction bracket (between turns) by `model`, its summary reporting `usage`. */
function manualCompaction(session: Session, model: string, usage: TokenUsage | undefined): void {
  const compactionId = `c${session.events.length}`;
  session.append({ type: 'compaction/start', data: { compactionId, turn: null, shadowedTokenCount: 5_000, maxTokens: 1_000 } });
  session.append({
    type: 'compaction/summary',
    data: {
      compactionId,
      summary: [{ type: 'text', text: 'summary' }],
      shadowedRange: { start: 0, end: 1 },
      shadowedSeqs: [0, 1],
      shadowedTokenCount: 5_000,
      provider: 'custom',
      model,
      maxTokens: 1_000,
      ...(usage ? { usage } : {}),
    },
  });
  session.append({ type: 'compaction/end', data: { compactionId, turn: null } });
}

describe('a compaction with no price of its own', () => {
  it('is priced at the price logged latest for its model and endpoint', () => {
    const session = new Session({ header: header('cc1'), now: steppingClock() });
    turnOf(session, 'm');
    manualCompaction(session, 'm', { inputTokens: 20_000, cacheReadTokens: 10_000, outputTokens: 500 });
    const cost = sessionCost(session.events as readonly SessionEvent[]);
    const compaction = cost.responses.find((r) => r.kind === 'compaction')!;
    // 20,000 × 3 + 10,000 × 0.3 + 500 × 15 = 60,000 + 3,000 + 7,500 µUSD = $0.0705.
    expect(compaction).toMatchObject({ status: 'priced', priceFrom: 'session', priceId: 'm', turn: 0 });
    expect(compaction.usd).toBeCloseTo(0.0705, 9);
    expect(cost.total.usd).toBeCloseTo(0.0069 + 0.0705, 9);
    expect(cost.total.unknownCount).toBe(0);
    expect(costLabel(cost.total)).toBe('$0.0774');
  });

  it('a model no price was logged for stays unknown, or takes the fallback', () => {
    const session = new Session({ header: header('cc2'), now: steppingClock() });
    turnOf(session, 'm');
    manualCompaction(session, 'never-priced', { inputTokens: 1_000, outputTokens: 100 });
    const cost = sessionCost(session.events as readonly SessionEvent[]);
    expect(cost.responses.find((r) => r.kind === 'compaction')).toMatchObject({ status: 'unknown' });
    expect(cost.total.usd).toBeUndefined();
    expect(costLabel(cost.total)).toBe('≥ $0.006900 (1 unpriced)');
    const fallback = sessionCost(session.events as readonly SessionEvent[], {
      fallback: () => ({ kind: 'known', snapshot: 'test', source: 'override', priceId: 'x', rates: { inputMtok: 1, outputMtok: 2 } }),
    });
    // 1,000 × 1 + 100 × 2 = 1,200 µUSD.
    expect(fallback.responses.find((r) => r.kind === 'compaction')).toMatchObject({ status: 'priced', priceFrom: 'current', usd: expect.closeTo(0.0012, 9) });
  });

  it('a model whose logged price is unknown stays unknown', () => {
    const session = new Session({ header: header('cc3'), now: steppingClock() });
    turnOf(session, 'other');
    manualCompaction(session, 'other', { inputTokens: 1_000, outputTokens: 100 });
    const cost = sessionCost(session.events as readonly SessionEvent[]);
    expect(cost.responses.map((r) => r.status)).toEqual(['unknown', 'unknown']);
    expect(cost.responses[1]).toMatchObject({ priceFrom: 'session' });
    expect(costLabel(cost.total)).toContain('price unknown');
  });

  it('with no reported usage it counts at its own worst case', () => {
    const session = new Session({ header: header('cc4'), now: steppingClock() });
    turnOf(session, 'm');
    manualCompaction(session, 'm', undefined);
    const compaction = sessionCost(session.events as readonly SessionEvent[]).responses.find((r) => r.kind === 'compaction')!;
    // 5,000 input at $3 + 1,000 output at $15: 0.015 + 0.015 = $0.03; 6,000 tokens.
    expect(compaction).toMatchObject({ status: 'usage-not-reported', priceFrom: 'session', tokens: 6_000 });
    expect(compaction.usd).toBeCloseTo(0.03, 9);
  });

  it('a re-pricing (--as) still prices it with the given price', () => {
    const session = new Session({ header: header('cc5'), now: steppingClock() });
    turnOf(session, 'm');
    manualCompaction(session, 'm', { inputTokens: 1_000, outputTokens: 0 });
    const cost = sessionCost(session.events as readonly SessionEvent[], { as: () => ({ kind: 'known', snapshot: 'as', source: 'list', priceId: 'y', rates: { inputMtok: 10, outputMtok: 10 } }) });
    expect(cost.responses.find((r) => r.kind === 'compaction')).toMatchObject({ priceFrom: 'as', usd: expect.closeTo(0.01, 9) });
  });
});
