/**
 * The timeline's step marker carries the price logged for its request (issue 22), so the step
 * header can show the step's cost; an unknown price stays unknown (never $0).
 */
import { describe, expect, it } from 'vitest';
import { SpendGuard } from '../../../electron/agent/spend-guard.js';
import { PriceBook, parsePriceOverrides } from '../../../electron/pricing/price-list.js';
import { Session } from '../../../electron/session/session.js';
import { usageCost } from '../../../shared/pricing.js';
import { timelineOf, type StepRow } from '../../../shared/timeline.js';
import { header, steppingClock } from '../../support/store-fixtures.js';

const book = new PriceBook(parsePriceOverrides([{ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', inputMtok: 3, cacheReadMtok: 0.3, outputMtok: 15 }]));
const guard = new SpendGuard({ quote: (r, at) => book.quote(r, at), budget: () => undefined });

function oneStep(session: Session, model: string, reported = true): void {
  session.append({ type: 'turn/start', data: { turn: session.lastTurn + 1 } });
  const turn = session.lastTurn;
  session.append({ type: 'step/start', data: { turn, step: 1 } });
  guard.beforeSend(session, { turn, step: 1, provider: 'custom', model, baseUrl: 'http://127.0.0.1:9/v1', header: { config: { provider: 'custom', model, maxTokens: 100 } }, messages: [] });
  session.append({
    type: 'assistant/message',
    data: {
      turn,
      step: 1,
      message: { id: `a${turn}`, role: 'assistant', content: [{ type: 'text', text: 'hi' }], source: { kind: 'model', provider: 'custom', model } },
      ...(reported ? { usage: { inputTokens: 1000, cacheReadTokens: 3000, outputTokens: 200 } } : {}),
    },
    surfaceOp: 'append',
  });
  session.append({ type: 'step/end', data: { turn, step: 1 } });
  session.append({ type: 'turn/end', data: { turn, reason: { kind: 'completed' } } });
}

describe('timeline step price', () => {
  it('a priced step and an unpriced one', () => {
    const session = new Session({ header: header('tp1'), now: steppingClock() });
    oneStep(session, 'm');
    oneStep(session, 'other');
    const steps = timelineOf(session.events).rows.filter((r): r is StepRow => r.kind === 'step');
    expect(steps).toHaveLength(2);
    const [priced, unknown] = steps;
    expect(priced!.price).toMatchObject({ kind: 'known', source: 'override' });
    // 1000 × 3 + 3000 × 0.3 + 200 × 15 = 3000 + 900 + 3000 = 6900 µ$
    expect(priced!.price!.kind === 'known' && usageCost(priced!.usage!, priced!.price!).usd).toBeCloseTo(0.0069, 6);
    expect(unknown!.price).toMatchObject({ kind: 'unknown' });
  });

  it('a response with no usage from the provider is marked "usage not reported"', () => {
    const session = new Session({ header: header('tp2'), now: steppingClock() });
    oneStep(session, 'm', false);
    oneStep(session, 'm');
    const [unreported, reported] = timelineOf(session.events).rows.filter((r): r is StepRow => r.kind === 'step');
    expect(unreported).toMatchObject({ usageUnreported: true, price: { kind: 'known' } });
    expect(unreported!.usage).toBeUndefined();
    expect(reported!.usageUnreported).toBeUndefined();
  });
});
