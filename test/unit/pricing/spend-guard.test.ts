/**
 * The pre-request check on a real Session (issue 22): `request/price` is logged before each
 * request; a response whose provider reported no usage is marked `usage-not-reported` and counted
 * at its logged worst case; a request that could cross the budget throws BudgetStop with the facts.
 */
import { describe, expect, it } from 'vitest';
import { BudgetStop, SpendGuard, type Budget } from '../../../electron/agent/spend-guard.js';
import { PriceBook, parsePriceOverrides } from '../../../electron/pricing/price-list.js';
import { Session } from '../../../electron/session/session.js';
import type { RequestHeader } from '../../../shared/events.js';
import type { UserMessage } from '../../../shared/messages.js';
import { sessionCost } from '../../../shared/session-cost.js';
import { header, steppingClock } from '../../support/store-fixtures.js';

const BASE = 'http://127.0.0.1:9/v1';
// 10 $/Mtok in, 100 $/Mtok out.
const book = new PriceBook(parsePriceOverrides([{ baseUrl: BASE, model: 'm', inputMtok: 10, outputMtok: 100 }]));
const requestHeader: RequestHeader = { config: { provider: 'custom', model: 'm', maxTokens: 1000 } };
const prompt: UserMessage = { id: 'u1', role: 'user', content: [{ type: 'text', text: 'x'.repeat(4000) }], source: { kind: 'user' } };

function guard(budget: Budget | undefined): SpendGuard {
  return new SpendGuard({ quote: (route, at) => book.quote(route, at), fallback: book.fallback, budget: () => budget, now: () => Date.UTC(2026, 11, 1, 12) });
}

function step(session: Session, g: SpendGuard, turn: number, n: number, reported: boolean): void {
  session.append({ type: 'step/start', data: { turn, step: n } });
  g.beforeSend(session, { turn, step: n, provider: 'custom', model: 'm', baseUrl: BASE, header: requestHeader, messages: [prompt] });
  session.append({
    type: 'assistant/message',
    data: {
      turn,
      step: n,
      message: { id: `a${turn}.${n}`, role: 'assistant', content: [{ type: 'text', text: 'ok' }], source: { kind: 'model', provider: 'custom', model: 'm' } },
      ...(reported ? { usage: { inputTokens: 1000, outputTokens: 100 } } : {}),
    },
    surfaceOp: 'append',
  });
  session.append({ type: 'step/end', data: { turn, step: n } });
}

describe('spend guard', () => {
  it('counts a response with no reported usage at its worst case, and stops before crossing the budget', () => {
    const session = new Session({ header: header('sg1'), now: steppingClock() });
    session.append({ type: 'turn/start', data: { turn: 1 } });
    const g = guard({ sessionUsd: 0.35 });
    step(session, g, 1, 1, true);
    step(session, g, 1, 2, false);
    const price = session.events.filter((e) => e.type === 'request/price');
    expect(price).toHaveLength(2);
    // Input estimated by the context estimator: 4000 chars / 4 + 4 + 4 = 1008 tokens; cap 1000.
    expect(price[0]!.data).toMatchObject({ estimatedInputTokens: 1008, outputCap: 1000, quote: { kind: 'known', source: 'override' } });
    // Worst case: 1008 × 10 + 1000 × 100 = 110,080 µ$
    expect((price[0]!.data as { worstCaseUsd: number }).worstCaseUsd).toBeCloseTo(0.11008, 6);
    const cost = sessionCost(session.events);
    // Step 1: 1000 × 10 + 100 × 100 = 20,000 µ$; step 2 unreported → its worst case, 110,080 µ$.
    expect(cost.responses.map((r) => r.status)).toEqual(['priced', 'usage-not-reported']);
    expect(cost.total.usd).toBeCloseTo(0.13008, 6);
    expect(cost.total.unreportedCount).toBe(1);
    // Step 3: 0.13008 + 0.11008 = 0.24016 ≤ 0.35 → sent; it bills 0.02.
    step(session, g, 1, 3, true);
    session.append({ type: 'step/start', data: { turn: 1, step: 4 } });
    let stop: unknown;
    try {
      g.beforeSend(session, { turn: 1, step: 4, provider: 'custom', model: 'm', baseUrl: BASE, header: requestHeader, messages: [prompt] });
    } catch (error) {
      stop = error;
    }
    // Spent 0.02 + 0.11008 + 0.02 = 0.15008; + 0.11008 = 0.26016 ≤ 0.35: allowed, no stop yet.
    expect(stop).toBeUndefined();
    session.append({ type: 'step/end', data: { turn: 1, step: 4 } });
    // Step 4 got no response (e.g. it failed): nothing billed. Under a $0.20 budget step 5 is refused:
    // 0.15008 + 0.11008 > 0.20.
    session.append({ type: 'step/start', data: { turn: 1, step: 5 } });
    const tight = guard({ sessionUsd: 0.2 });
    try {
      tight.beforeSend(session, { turn: 1, step: 5, provider: 'custom', model: 'm', baseUrl: BASE, header: requestHeader, messages: [prompt] });
    } catch (error) {
      stop = error;
    }
    expect(stop).toBeInstanceOf(BudgetStop);
    const facts = (stop as BudgetStop).facts;
    expect(facts).toMatchObject({ limit: 'usd', scope: 'session', budget: 0.2 });
    expect(facts.spent).toBeCloseTo(0.15008, 6);
    expect(facts.worstCase).toBeCloseTo(0.11008, 6);
  });

  it('a turn budget counts only the running turn', () => {
    const session = new Session({ header: header('sg2'), now: steppingClock() });
    const g = guard({ turnUsd: 0.15 });
    session.append({ type: 'turn/start', data: { turn: 1 } });
    step(session, g, 1, 1, true); // 0.02 spent in turn 1
    session.append({ type: 'turn/end', data: { turn: 1, reason: { kind: 'completed' } } });
    session.append({ type: 'turn/start', data: { turn: 2 } });
    // Turn 2: 0 + 0.11008 ≤ 0.15 (turn 1's spend does not count)
    step(session, g, 2, 1, true);
    session.append({ type: 'step/start', data: { turn: 2, step: 2 } });
    // 0.02 + 0.11008 = 0.13008 ≤ 0.15: allowed
    expect(() => g.beforeSend(session, { turn: 2, step: 2, provider: 'custom', model: 'm', baseUrl: BASE, header: requestHeader, messages: [prompt] })).not.toThrow();
    session.append({ type: 'step/end', data: { turn: 2, step: 2 } });
    session.append({ type: 'step/start', data: { turn: 2, step: 3 } });
    // No response at step 2, so still 0.02 spent; a 0.12 turn budget stops: 0.02 + 0.11008 > 0.12.
    const tight = guard({ turnUsd: 0.12 });
    expect(() => tight.beforeSend(session, { turn: 2, step: 3, provider: 'custom', model: 'm', baseUrl: BASE, header: requestHeader, messages: [prompt] })).toThrow(
      /the turn has spent \$0\.0200 of its \$0\.1200 budget/,
    );
  });
});
