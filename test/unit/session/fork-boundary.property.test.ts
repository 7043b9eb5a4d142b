/**
 * Property tests for fork boundaries (DESIGN §8; dsh-contracts §8.4, §10.9): over random logs of
 * closed and open turns, `checkForkBoundary` accepts exactly the seqs between turns, and
 * `boundaryForAnchor` never returns a seq inside an open turn (nor clips backwards).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../shared/events.js';
import { boundaryForAnchor, checkForkBoundary, checkForkBoundaryWith } from '../../../electron/session/fork-boundary.js';
import { Session } from '../../../electron/session/session.js';
import { AgentLogWriter, header, steppingClock } from '../../support/store-fixtures.js';

type Segment =
  | { kind: 'between'; what: 'inbox' | 'title' | 'checkpoint' }
  | { kind: 'turn'; steps: number; tools: boolean; open: 'no' | 'turn' | 'step' | 'call'; reason: 'completed' | 'aborted' | 'interrupted' | 'blocked' };

const segmentArb: fc.Arbitrary<Segment> = fc.oneof(
  fc.constantFrom<'inbox' | 'title' | 'checkpoint'>('inbox', 'title', 'checkpoint').map<Segment>((what) => ({ kind: 'between', what })),
  fc
    .record({
      steps: fc.integer({ min: 0, max: 3 }),
      tools: fc.boolean(),
      open: fc.constantFrom<'no' | 'turn' | 'step' | 'call'>('no', 'no', 'no', 'turn', 'step', 'call'),
      reason: fc.constantFrom<'completed' | 'aborted' | 'interrupted' | 'blocked'>('completed', 'aborted', 'interrupted', 'blocked'),
    })
    .map<Segment>((r) => ({ kind: 'turn', ...r })),
);

/** Builds a valid log (invariants enforced); only the last turn may be left open. */
function build(segments: readonly Segment[]): SessionEvent[] {
  const session = new Session({ header: header('fb'), now: steppingClock() });
  const w = new AgentLogWriter(session);
  segments.forEach((seg, i) => {
    const last = i === segments.length - 1;
    if (seg.kind === 'between') {
      if (session.state.openTurn !== undefined) return;
      if (seg.what === 'inbox') w.inboxInsert('queued');
      else if (seg.what === 'title') session.append({ type: 'session/title', data: { title: 't' } });
      else session.append({ type: 'workspace/checkpoint', data: { turn: session.lastTurn, commit: 'c' } });
      return;
    }
    const open = last ? seg.open : 'no';
    w.turnStart();
    w.claim();
    if (open === 'turn') return;
    for (let s = 0; s < Math.max(seg.steps, open === 'no' ? 0 : 1); s++) {
      w.stepStart();
      if (s === 0) w.user('go');
      const r = w.stream({ text: ['a', 'b', 'c'], toolCalls: seg.tools ? [{ id: `c${i}_${s}`, name: 'bash', args: ['{}'] }] : [] });
      w.assistantMessage(r);
      if (seg.tools) {
        const call = w.toolCall(`c${i}_${s}`, 'bash', '{}');
        if (open === 'call' && s === 0) return;
        w.toolResult(call, 'ok');
      }
      if (open === 'step' && s === 0) return;
      w.stepEnd();
    }
    if (open !== 'no') return; // an 'open' turn whose scenario did not stop earlier
    w.turnEnd(seg.reason === 'aborted' ? { kind: 'aborted', cause: { kind: 'user' } } : { kind: seg.reason });
  });
  // If the last turn was requested open but ran to the end of its steps, it stays open anyway.
  return [...session.events];
}

/** Naive rule: a seq is between turns when, counting events 0..seq, every turn/start has its turn/end. */
function isBetweenTurns(events: readonly SessionEvent[], seq: number): boolean {
  let open = 0;
  for (let i = 0; i <= seq; i++) {
    if (events[i]!.type === 'turn/start') open++;
    if (events[i]!.type === 'turn/end') open--;
  }
  return open === 0;
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

describe('fork boundaries (property)', () => {
  it('checkForkBoundary accepts exactly the between-turn seqs and refuses the rest with OPEN_TURN', () => {
    let sawOpen = 0;
    let sawLegal = 0;
    fc.assert(
      fc.property(fc.array(segmentArb, { minLength: 1, maxLength: 8 }), (segments) => {
        const events = build(segments);
        for (let seq = 0; seq < events.length; seq++) {
          const legal = isBetweenTurns(events, seq);
          const code = codeOf(() => checkForkBoundary(events, seq));
          expect(code, `seq ${seq} (${events[seq]!.type})`).toBe(legal ? undefined : 'OPEN_TURN');
          if (legal) {
            expect(checkForkBoundary(events, seq)).toBe(seq + 1);
            sawLegal++;
          } else sawOpen++;
          // The lazy variant agrees and reads only from the boundary backwards.
          const read: number[] = [];
          const lazy = codeOf(() => checkForkBoundaryWith(events.length, (s) => (read.push(s), events[s]), seq));
          expect(lazy).toBe(code);
          expect(Math.max(...read)).toBe(seq);
        }
        for (const bad of [-1, events.length, events.length + 3, 0.5, Number.NaN, Number.MAX_SAFE_INTEGER + 2]) {
          expect(codeOf(() => checkForkBoundary(events, bad)), String(bad)).toBe('INVALID_BOUNDARY');
        }
        // Default boundary = last event: legal iff the log ends between turns.
        expect(codeOf(() => checkForkBoundary(events, undefined))).toBe(isBetweenTurns(events, events.length - 1) ? undefined : 'OPEN_TURN');
      }),
      { numRuns: 200 },
    );
    expect(sawOpen).toBeGreaterThan(100);
    expect(sawLegal).toBeGreaterThan(100);
  });

  it('boundaryForAnchor returns a legal boundary at or after the anchor, or nothing (never inside an open turn)', () => {
    fc.assert(
      fc.property(fc.array(segmentArb, { minLength: 1, maxLength: 8 }), fc.option(fc.integer({ min: -3, max: 120 }), { nil: undefined }), (segments, anchor) => {
        const events = build(segments);
        const b = boundaryForAnchor(events, anchor);
        const ends = events.filter((e) => e.type === 'turn/end').map((e) => e.seq);
        const pastEnd = anchor === undefined || anchor >= events.length;
        const firstEnd = pastEnd ? ends[ends.length - 1] : ends.find((s) => s >= Math.max(0, anchor));
        if (firstEnd === undefined) {
          expect(b).toBeUndefined();
          return;
        }
        expect(b).toBeDefined();
        expect(isBetweenTurns(events, b!)).toBe(true);
        expect(codeOf(() => checkForkBoundary(events, b))).toBeUndefined();
        expect(b!).toBeGreaterThanOrEqual(firstEnd);
        if (!pastEnd) expect(b!).toBeGreaterThanOrEqual(anchor);
        // Extended over trailing between-turn events, up to (not including) the next turn/start.
        for (let s = firstEnd + 1; s <= b!; s++) expect(events[s]!.type).not.toBe('turn/start');
        if (b! + 1 < events.length) expect(events[b! + 1]!.type).toBe('turn/start');
      }),
      { numRuns: 300 },
    );
  });
});
