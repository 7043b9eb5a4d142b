/**
 * Property tests for fork boundaries (docs/architecture.md §8; dsh-contracts §8.4, §10.9): over random logs of
 * closed and open turns, `checkForkBoundary` accepts exactly the seqs between turns, and
 * `forkBoundaryAt` (what `fork --at SEQ` cuts) returns exactly the turn end at or before the anchor
 * — the child never holds an event after its boundary turn's `turn/end` — or refuses with
 * OPEN_TURN / NO_SUCH_SEQ / FORK_UNAVAILABLE and a hint listing real turn ends.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../shared/events.js';
import { checkForkBoundary, checkForkBoundaryWith, forkBoundaryAt } from '../../../electron/session/fork-boundary.js';
import { SessionForkError } from '../../../shared/errors.js';
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
          expect(
            codeOf(() => checkForkBoundary(events, bad)),
            String(bad),
          ).toBe('INVALID_BOUNDARY');
        }
        // Default boundary = last event: legal iff the log ends between turns.
        expect(codeOf(() => checkForkBoundary(events, undefined))).toBe(isBetweenTurns(events, events.length - 1) ? undefined : 'OPEN_TURN');
      }),
      { numRuns: 200 },
    );
    expect(sawOpen).toBeGreaterThan(100);
    expect(sawLegal).toBeGreaterThan(100);
  });

  it('forkBoundaryAt cuts exactly at the turn end at or before the anchor, or refuses with the nearest turn ends', () => {
    let exact = 0;
    let refusedOpen = 0;
    fc.assert(
      fc.property(fc.array(segmentArb, { minLength: 1, maxLength: 8 }), fc.option(fc.integer({ min: 0, max: 120 }), { nil: undefined }), fc.boolean(), (segments, drawn, atTurnEnd) => {
        const events = build(segments);
        const ends = events.filter((e) => e.type === 'turn/end').map((e) => e.seq);
        // Half the anchors are the seqs `show` prints for turn ends.
        const anchor = atTurnEnd && drawn !== undefined && ends.length > 0 ? ends[drawn % ends.length]! : drawn;
        let result: number | undefined;
        let error: unknown;
        try {
          result = forkBoundaryAt(events.length, (seq) => events[seq], anchor);
        } catch (e) {
          error = e;
        }
        if (error !== undefined) {
          expect(error).toBeInstanceOf(SessionForkError);
          const refusal = error as SessionForkError;
          // Every hinted seq is a real turn end, and the message names them.
          for (const t of refusal.turnEnds) {
            expect(events[t.seq]!.type).toBe('turn/end');
            expect(refusal.message).toContain(`turn ${t.turn} ended at seq ${t.seq}`);
          }
          if (anchor === undefined) {
            expect(ends).toEqual([]);
            expect(refusal.code).toBe('FORK_UNAVAILABLE');
          } else if (anchor >= events.length) {
            expect(refusal.code).toBe('NO_SUCH_SEQ');
            expect(refusal.turnEnds.map((t) => t.seq)).toEqual(ends.slice(-2));
          } else if (!isBetweenTurns(events, anchor)) {
            refusedOpen++;
            expect(refusal.code).toBe('OPEN_TURN');
            // The hint names the turn ends on both sides of the open turn that exist.
            const previous = ends.filter((s) => s < anchor).slice(-1);
            const next = ends.filter((s) => s > anchor).slice(0, 1);
            for (const s of [...previous, ...next]) expect(refusal.turnEnds.map((t) => t.seq)).toContain(s);
          } else {
            expect(refusal.code).toBe('FORK_UNAVAILABLE');
            expect(ends.filter((s) => s <= anchor)).toEqual([]);
          }
          return;
        }
        const b = result!;
        expect(events[b]!.type).toBe('turn/end');
        expect(codeOf(() => checkForkBoundary(events, b))).toBeUndefined();
        if (anchor === undefined) {
          expect(b).toBe(ends[ends.length - 1]);
        } else {
          expect(anchor).toBeLessThan(events.length);
          expect(isBetweenTurns(events, anchor)).toBe(true);
          // The turn end at or before the anchor, with no turn starting in between.
          expect(b).toBe(ends.filter((s) => s <= anchor).at(-1));
          for (let s = b + 1; s <= anchor; s++) expect(events[s]!.type).not.toBe('turn/start');
          if (events[anchor]!.type === 'turn/end') {
            exact++;
            expect(b).toBe(anchor);
          }
        }
      }),
      { numRuns: 400 },
    );
    // Both interesting branches were exercised (random data: about 80 each per 400 runs; a run
    // once drew 47, so the floor is set well below the mean to keep this from flaking).
    expect(exact).toBeGreaterThan(20);
    expect(refusedOpen).toBeGreaterThan(20);
  });
});
