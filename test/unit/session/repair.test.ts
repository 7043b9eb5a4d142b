/**
 * Crash-repair closers (docs/architecture.md §8; dsh-contracts §8.2, §10.2): exactly which events close a log
 * whose last turn is open, in which order, and that they satisfy the session invariant.
 */
import { describe, expect, it } from 'vitest';
import type { EventInput, SessionEvent } from '../../../shared/events.js';
import { interruptedTurnClosers, scanOpenState, TOOL_NOT_STARTED_TEXT, TOOL_OUTCOME_UNKNOWN_TEXT } from '../../../electron/session/repair.js';
import { Session } from '../../../electron/session/session.js';
import { AgentLogWriter, header, steppingClock } from '../../support/store-fixtures.js';

function open(): { s: Session; w: AgentLogWriter } {
  const s = new Session({ header: header('r'), now: steppingClock() });
  const w = new AgentLogWriter(s);
  w.completedTurn('earlier', 3);
  w.inboxInsert('now');
  w.turnStart();
  w.claim();
  return { s, w };
}

/** Applies the closers through the enforcing invariant and returns the appended events. */
function close(s: Session): SessionEvent[] {
  const closers = interruptedTurnClosers(s.events);
  const before = s.length;
  s.appendAll(closers);
  expect(interruptedTurnClosers(s.events)).toEqual([]);
  return s.events.slice(before);
}

function summary(closers: readonly EventInput[]): unknown[] {
  return closers.map((c) =>
    c.type === 'tool/result'
      ? ['tool/result', (c as EventInput<'tool/result'>).data.message.content[0].toolCallId, (c as EventInput<'tool/result'>).data.error?.code, c.sourceEventSeqs ?? null]
      : [c.type, c.data],
  );
}

describe('interruptedTurnClosers', () => {
  it('returns nothing for an empty or balanced log', () => {
    expect(interruptedTurnClosers([])).toEqual([]);
    const s = new Session({ header: header('b'), now: steppingClock() });
    new AgentLogWriter(s).completedTurn('done', 3);
    expect(interruptedTurnClosers(s.events)).toEqual([]);
  });

  it('open turn, no open step → only turn/end{interrupted}', () => {
    const { s } = open();
    expect(summary(interruptedTurnClosers(s.events))).toEqual([['turn/end', { turn: 2, reason: { kind: 'interrupted' } }]]);
    expect(close(s)).toHaveLength(1);
  });

  it('open step → step/end then turn/end', () => {
    const { s, w } = open();
    w.stepStart();
    w.user('now');
    w.stream({ text: ['par', 'tial', ' text'] }); // chunk-only interrupted stream: no assistant/message is made up
    expect(summary(interruptedTurnClosers(s.events))).toEqual([
      ['step/end', { turn: 2, step: 1 }],
      ['turn/end', { turn: 2, reason: { kind: 'interrupted' } }],
    ]);
    expect(close(s).map((e) => e.type)).toEqual(['step/end', 'turn/end']);
  });

  it('answers each unanswered call in block order: NOT_STARTED without a tool/call, OUTCOME_UNKNOWN citing it', () => {
    const { s, w } = open();
    w.stepStart();
    w.user('now');
    const r = w.stream({ toolCalls: ['a', 'b', 'c', 'd'].map((id) => ({ id, name: 'bash', args: ['{}'] })) });
    w.assistantMessage(r);
    const a = w.toolCall('a', 'bash', '{}');
    w.toolResult(a, 'done a');
    const b = w.toolCall('b', 'bash', '{}');
    const c = w.toolCall('c', 'bash', '{}');
    const closers = interruptedTurnClosers(s.events);
    expect(summary(closers)).toEqual([
      ['tool/result', 'b', 'TOOL_OUTCOME_UNKNOWN', [b.seq]],
      ['tool/result', 'c', 'TOOL_OUTCOME_UNKNOWN', [c.seq]],
      ['tool/result', 'd', 'TOOL_NOT_STARTED', null],
      ['step/end', { turn: 2, step: 1 }],
      ['turn/end', { turn: 2, reason: { kind: 'interrupted' } }],
    ]);
    const appended = close(s);
    const texts = appended.slice(0, 3).map((e) => (e as SessionEvent<'tool/result'>).data.message.content[0].content[0]!.text);
    expect(texts).toEqual([TOOL_OUTCOME_UNKNOWN_TEXT, TOOL_OUTCOME_UNKNOWN_TEXT, TOOL_NOT_STARTED_TEXT]);
    for (const e of appended.slice(0, 3)) {
      expect(e.surfaceOp).toBe('append');
      expect((e as SessionEvent<'tool/result'>).data.message.content[0].isError).toBe(true);
    }
    // Deterministic ids: a replay of the same log yields the same closers.
    expect(interruptedTurnClosers(s.events.slice(0, s.length - 5))).toEqual(interruptedTurnClosers(s.events.slice(0, s.length - 5)));
    expect((appended[0] as SessionEvent<'tool/result'>).data.message.id).toBe(`interrupted-tool-result-b-${appended[0]!.seq}`);
    // Nothing committed was touched, and every call is now answered in the projection.
    const calls = s.deriveMessages().flatMap((m) => (m.role === 'assistant' ? m.content.filter((x) => x.type === 'tool-call').map((x) => x.id) : []));
    const answered = s.deriveMessages().flatMap((m) => (m.source.kind === 'tool' ? [m.source.callId] : []));
    expect(answered.filter((id) => calls.includes(id)).sort()).toEqual(calls.sort());
  });

  it('a call whose step already closed, or an earlier turn, is not answered again; only the open turn is closed', () => {
    const { s, w } = open();
    w.stepStart();
    w.user('now');
    w.assistantMessage(w.stream({ toolCalls: [{ id: 'x', name: 'bash', args: ['{}'] }] }));
    w.toolResult(w.toolCall('x', 'bash', '{}'), 'ok');
    w.stepEnd();
    w.stepStart();
    expect(summary(interruptedTurnClosers(s.events)).map((c) => (c as unknown[])[0])).toEqual(['step/end', 'turn/end']);
    expect(scanOpenState(s.events)).toEqual({ turn: 2, step: 2, pending: [] });
  });

  it('tolerates a stray tool/call without a matching assistant block', () => {
    const { s, w } = open();
    w.stepStart();
    w.toolCall('ghost', 'bash', '{}');
    expect(summary(interruptedTurnClosers(s.events))).toEqual([
      ['step/end', { turn: 2, step: 1 }],
      ['turn/end', { turn: 2, reason: { kind: 'interrupted' } }],
    ]);
  });
});
