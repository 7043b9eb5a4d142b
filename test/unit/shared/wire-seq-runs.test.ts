/**
 * Seq runs on the WebSocket wire: a long consecutive `sourceEventSeqs` travels as [first, count]
 * and arrives as the same array; anything else travels as it is; the logged event is never
 * changed; a malformed run from the wire is left for the usual checks.
 */
import { describe, expect, it } from 'vitest';
import type { HostPush } from '../../../shared/api.js';
import type { SessionEvent } from '../../../shared/events.js';
import { packSeqRuns, SEQ_RUN_MIN, unpackSeqRuns } from '../../../shared/wire-seq-runs.js';
import { parseFrame } from '../../../renderer/host/ws-bridge.js';

const message = (seq: number, sources: number[] | undefined): SessionEvent =>
  ({
    seq,
    type: 'assistant/message',
    time: 1,
    data: { turn: 1, step: 1, message: { id: 'a', role: 'assistant', content: [{ type: 'text', text: 'hi' }] } },
    surfaceOp: 'append',
    ...(sources !== undefined ? { sourceEventSeqs: sources } : {}),
  }) as unknown as SessionEvent;

const push = (events: SessionEvent[]): HostPush => ({ kind: 'session/events', subscriptionId: 's', sessionId: 'x', events });
const range = (first: number, count: number): number[] => Array.from({ length: count }, (_, i) => first + i);

describe('seq runs on the wire', () => {
  it('packs a long consecutive run, keeps everything else, and arrives as the logged events', () => {
    const events = [message(100_010, range(5, 100_000)), message(7, range(3, SEQ_RUN_MIN - 1)), message(8, [1, 2, 4, ...range(10, 100)]), message(9, undefined)];
    const before = JSON.stringify(events);
    const wire = JSON.stringify({ push: packSeqRuns(push(events)) });
    // The logged events are not touched, and the wire form is small.
    expect(JSON.stringify(events)).toBe(before);
    expect(wire.length).toBeLessThan(2_000);
    expect(wire).toContain('"seqRun":[5,100000]');
    const parsed = parseFrame(wire);
    expect(parsed).toEqual({ push: push(events) });
  });

  it('leaves other pushes alone and a malformed run from the wire as it is', () => {
    const status: HostPush = { kind: 'sessions/changed' };
    expect(packSeqRuns(status)).toBe(status);
    const odd = JSON.parse(
      '{"kind":"session/events","subscriptionId":"s","sessionId":"x","events":[{"seq":1,"sourceEventSeqs":{"seqRun":[-1.5,2]}},{"seq":2,"sourceEventSeqs":{"seqRun":[0,-1]}}]}',
    ) as HostPush;
    const out = unpackSeqRuns(odd) as unknown as { events: { sourceEventSeqs: unknown }[] };
    expect(out.events.map((e) => e.sourceEventSeqs)).toEqual([{ seqRun: [-1.5, 2] }, { seqRun: [0, -1] }]);
  });
});
