import { describe, expect, it } from 'vitest';
import type { HostPush } from '../../../shared/api.js';
import { appendEvents, emptyLog } from '../../../renderer/state/event-log.js';
import { sequenceEvents } from '../../../renderer/state/event-sequencer.js';
import { FrameBatcher, sharedFrameScheduler } from '../../../renderer/state/frame-batcher.js';
import { applyPushes, applySubscribeResult, createSessionStore, TOOL_OUTPUT_CAP } from '../../../renderer/state/session-store.js';
import { createTimelineProjector } from '../../../renderer/state/timeline-projector.js';
import { ev, evs, ManualFrames, subscribeResult } from './fakes.js';

describe('sequenceEvents', () => {
  it('applies seq === lastSeq + 1 only, drops duplicates, stops at a hole', () => {
    expect(sequenceEvents(-1, evs(0, 2))).toMatchObject({ lastSeq: 2, duplicates: 0 });
    const r = sequenceEvents(2, [ev(1), ev(2), ev(3), ev(3), ev(4), ev(6), ev(7)]);
    expect(r.accepted.map((e) => e.seq)).toEqual([3, 4]);
    expect(r).toMatchObject({ lastSeq: 4, duplicates: 3, hole: { expected: 5, got: 6 } });
    expect(sequenceEvents(4, [])).toEqual({ accepted: [], lastSeq: 4, duplicates: 0 });
  });
});

describe('event log', () => {
  it('appends with shared storage; old views stay valid; appending to an old view copies', () => {
    const l0 = emptyLog();
    const l1 = appendEvents(l0, evs(0, 2));
    const l2 = appendEvents(l1, evs(3, 4));
    expect([l0.length, l1.length, l2.length]).toEqual([0, 3, 5]);
    expect(l1.bySeq(3)).toBeUndefined();
    expect(l2.bySeq(3)?.seq).toBe(3);
    expect(l2.slice(1, 3).map((e) => e.seq)).toEqual([1, 2]);
    const branch = appendEvents(l1, [ev(3, 'x/other')]);
    expect(branch.bySeq(3)?.type).toBe('x/other');
    expect(l2.bySeq(3)?.type).toBe('session/title');
    expect(appendEvents(l2, [])).toBe(l2);
    expect(() => appendEvents(l2, [ev(9)])).toThrow(/does not continue/);
    expect(appendEvents(emptyLog(), evs(10, 11)).baseSeq).toBe(10);
  });
});

describe('FrameBatcher', () => {
  it('collects items and flushes them once per frame, in order', () => {
    const frames = new ManualFrames();
    const flushed: number[][] = [];
    const b = new FrameBatcher<number>((items) => flushed.push(items), frames.schedule);
    for (let i = 0; i < 128; i++) b.push(i);
    expect(frames.scheduled).toBe(1);
    expect(b.pending).toBe(128);
    frames.frame();
    b.push(200);
    b.push(201);
    frames.frame();
    frames.frame();
    expect(flushed.map((f) => f.length)).toEqual([128, 2]);
    expect(flushed[0]!.slice(0, 3)).toEqual([0, 1, 2]);
    expect(frames.scheduled).toBe(2);
  });

  it('flushNow cancels the frame; dispose drops the queue', () => {
    const frames = new ManualFrames();
    const flushed: number[][] = [];
    const b = new FrameBatcher<number>((items) => flushed.push(items), frames.schedule);
    b.push(1);
    b.flushNow();
    expect(frames.pending).toBe(0);
    b.push(2);
    b.dispose();
    frames.frame();
    b.push(3);
    expect(flushed).toEqual([[1]]);
  });

  it('batchers sharing a frame flush in one base callback, in order; a cancelled one is skipped, a throwing one does not stop the rest', async () => {
    const frames = new ManualFrames();
    const shared = sharedFrameScheduler(frames.schedule);
    const flushed: string[] = [];
    const batchers = ['a', 'b', 'c', 'd'].map(
      (name) =>
        new FrameBatcher<number>((items) => {
          if (name === 'c') throw new Error('c failed');
          flushed.push(`${name}${items.join('')}`);
        }, shared),
    );
    const errors: unknown[] = [];
    const onError = (error: unknown): void => {
      errors.push(error);
    };
    process.on('uncaughtException', onError);
    try {
      batchers.forEach((b, i) => {
        b.push(i);
        b.push(i + 1);
      });
      batchers[1]!.flushNow(); // cancels b's share only
      expect(frames.scheduled).toBe(1);
      frames.frame();
      await new Promise((resolve) => setTimeout(resolve, 0));
    } finally {
      process.off('uncaughtException', onError);
    }
    expect(flushed).toEqual(['b12', 'a01', 'd34']);
    expect(errors).toHaveLength(1);
    // The next pushes schedule a new frame; when every share is cancelled the base frame is too.
    batchers[0]!.push(9);
    expect(frames.scheduled).toBe(2);
    batchers[0]!.flushNow();
    expect(frames.pending).toBe(0);
  });
});

describe('session store', () => {
  it('applies a subscribe answer and then pushes, with dedupe and hole detection', () => {
    const store = createSessionStore('s1');
    expect(store.getState()).toMatchObject({ phase: 'loading', lastSeq: -1 });
    const r = applySubscribeResult(store, subscribeResult('sub1', evs(0, 4), { status: 'running', notices: ['recovered after a crash: 2 tool calls closed'], readOnly: true }));
    expect(r).toEqual({ hole: false, applied: 5, duplicates: 0 });
    expect(store.getState()).toMatchObject({ phase: 'ready', lastSeq: 4, status: 'running', readOnly: true, notices: ['recovered after a crash: 2 tool calls closed'] });
    let updates = 0;
    store.subscribe(() => updates++);
    const pushes: HostPush[] = [
      { kind: 'session/events', subscriptionId: 'sub1', sessionId: 's1', events: [ev(3), ev(4), ev(5)] },
      { kind: 'session/events', subscriptionId: 'sub1', sessionId: 's1', events: [ev(6)] },
      { kind: 'session/status', sessionId: 's1', status: 'idle' },
      { kind: 'tool/output', sessionId: 's1', turn: 1, step: 1, callId: 'c1', text: 'line 1\n' },
      { kind: 'tool/output', sessionId: 's1', turn: 1, step: 1, callId: 'c1', text: 'line 2\n' },
      { kind: 'session/inbox', sessionId: 's1', inbox: { nextTurn: [], nextStep: [{ id: 'm', role: 'user', content: [{ type: 'text', text: 'steer' }], source: { kind: 'steer' } }] } },
      { kind: 'session/approvals', sessionId: 's1', approvals: [{ id: 'a1', sessionId: 's1', callId: 'c2', toolName: 'bash', arguments: '{"command":"rm -rf x"}' }] },
    ];
    expect(applyPushes(store, pushes)).toEqual({ hole: false, applied: 2, duplicates: 2 });
    expect(updates).toBe(1);
    const s = store.getState();
    expect(s.lastSeq).toBe(6);
    expect(s.events.length).toBe(7);
    expect(s.status).toBe('idle');
    expect(s.toolOutput).toEqual({ c1: 'line 1\nline 2\n' });
    expect(s.inbox.nextStep).toHaveLength(1);
    expect(s.approvals[0]!.toolName).toBe('bash');
    const hole = applyPushes(store, [
      { kind: 'session/events', subscriptionId: 'sub1', sessionId: 's1', events: [ev(7), ev(9)] },
      { kind: 'session/events', subscriptionId: 'sub1', sessionId: 's1', events: [ev(10)] },
    ]);
    expect(hole).toEqual({ hole: true, applied: 1, duplicates: 0 });
    expect(store.getState().lastSeq).toBe(7);
  });

  it('keeps the text of queued messages a cancel dropped, whichever of the inbox and the splice arrives first', () => {
    const msg = (id: string, text: string, kind: 'user' | 'steer') => ({ id, role: 'user' as const, content: [{ type: 'text' as const, text }], source: { kind } });
    const inbox = { nextTurn: [msg('q1', 'then add a README note', 'user')], nextStep: [msg('s1', 'please be brief', 'steer')] };
    const spliced = (seq: number, target: 'next-turn' | 'next-step') => ev(seq, 'agent/inbox/spliced', { target, start: 0, removedCount: 1, inserted: [], outcome: 'canceled' });
    const store = createSessionStore('s1');
    applySubscribeResult(store, subscribeResult('sub1', evs(0, 2)));
    applyPushes(store, [{ kind: 'session/inbox', sessionId: 's1', inbox }]);
    expect(store.getState().dropped).toBeUndefined();
    // The emptied inbox first, then the splices that say what the cancel removed.
    applyPushes(store, [
      { kind: 'session/inbox', sessionId: 's1', inbox: { nextTurn: [], nextStep: [] } },
      { kind: 'session/events', subscriptionId: 'sub1', sessionId: 's1', events: [spliced(3, 'next-step'), spliced(4, 'next-turn')] },
    ]);
    const dropped = store.getState().dropped!;
    expect(dropped.nonce).toBe(1);
    expect(dropped.messages.map((m) => m.id)).toEqual(['s1', 'q1']);
    // A claim (no "canceled" outcome) drops nothing.
    applyPushes(store, [{ kind: 'session/events', subscriptionId: 'sub1', sessionId: 's1', events: [ev(5, 'agent/inbox/spliced', { target: 'next-turn', start: 0, removedCount: 1, inserted: [] })] }]);
    expect(store.getState().dropped!.nonce).toBe(1);
  });

  it('caps live tool output at its tail', () => {
    const store = createSessionStore('s1');
    const big = 'x'.repeat(TOOL_OUTPUT_CAP);
    applyPushes(store, [
      { kind: 'tool/output', sessionId: 's1', turn: 1, step: 1, callId: 'c', text: big },
      { kind: 'tool/output', sessionId: 's1', turn: 1, step: 1, callId: 'c', text: 'END' },
    ]);
    const out = store.getState().toolOutput['c']!;
    expect(out).toHaveLength(TOOL_OUTPUT_CAP);
    expect(out.endsWith('END')).toBe(true);
  });

  it("drops a call's live output when its result is committed", () => {
    const store = createSessionStore('s1');
    applySubscribeResult(store, subscribeResult('sub1', evs(0, 0)));
    const result = ev(1, 'tool/result', {
      turn: 1,
      step: 1,
      message: { id: 'r', role: 'user', source: { kind: 'tool', callId: 'c1' }, content: [{ type: 'tool-result', toolCallId: 'c1', content: [{ type: 'text', text: 'done' }], isError: false }] },
    });
    applyPushes(store, [
      { kind: 'tool/output', sessionId: 's1', turn: 1, step: 1, callId: 'c1', text: 'partial' },
      { kind: 'tool/output', sessionId: 's1', turn: 1, step: 1, callId: 'c2', text: 'other' },
      { kind: 'session/events', subscriptionId: 'sub1', sessionId: 's1', events: [result] },
    ]);
    expect(store.getState().toolOutput).toEqual({ c2: 'other' });
  });

  it('does not touch the store for pushes that change nothing', () => {
    const store = createSessionStore('s1');
    let updates = 0;
    store.subscribe(() => updates++);
    applyPushes(store, [{ kind: 'session/status', sessionId: 's1', status: 'idle' }]);
    expect(updates).toBe(0);
  });
});

describe('timeline projector', () => {
  it('folds only new events and restarts for a log that is not a continuation', () => {
    const projector = createTimelineProjector();
    const l1 = appendEvents(emptyLog(), evs(0, 2));
    const t1 = projector.project(l1);
    expect(t1.rows).toHaveLength(3);
    expect(projector.project(l1)).toBe(t1);
    const l2 = appendEvents(l1, evs(3, 3));
    const t2 = projector.project(l2);
    expect(t2.rows).toHaveLength(4);
    expect(t2.rows[0]).toBe(t1.rows[0]);
    const fresh = projector.project(appendEvents(emptyLog(), evs(0, 0)));
    expect(fresh.rows).toHaveLength(1);
  });
});
