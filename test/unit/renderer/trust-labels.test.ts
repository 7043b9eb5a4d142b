/**
 * Trust signals of the timeline: one row per approval, one reason label per turn end, real
 * durations or "unknown", no time to first token for a request that was never answered. Built from
 * real projections of hand-written logs.
 */
import { describe, expect, it } from 'vitest';
import { timelineOf, type StepRow, type ToolRow, type TurnEndRow } from '../../../shared/timeline.js';
import { visibleRows } from '../../../renderer/views/timeline/row-filter.js';
import { approvalLabel, showsTtft, stepFinishLabel, toolDurationLabel, turnDurationLabel } from '../../../renderer/views/timeline/trust-labels.js';
import { LogBuilder } from '../shared/timeline-events.js';

function approvalLog(): LogBuilder {
  const log = new LogBuilder();
  log.add('turn/start', { turn: 1 });
  log.add('step/start', { turn: 1, step: 1 });
  log.user('write it');
  log.chunk(1, 1, { type: 'tool-call-delta', index: 0, id: 'w1', name: 'write_file', argumentsDelta: '{"path":"a"}' });
  log.chunk(1, 1, { type: 'finish', reason: { kind: 'tool-calls' } });
  log.message(1, 1, [{ type: 'tool-call', id: 'w1', name: 'write_file', arguments: '{"path":"a"}' }]);
  log.add('approval/asked', { id: 'ap1', callId: 'w1', toolName: 'write_file', reason: 'changes files in the workspace' });
  return log;
}

describe('one row per approval', () => {
  it('shows an approval on its tool row only, pending and decided, in every filter', () => {
    const log = approvalLog();
    for (const filter of [
      { showLogEvents: true, modelView: false },
      { showLogEvents: false, modelView: false },
    ]) {
      const rows = visibleRows(timelineOf(log.events).rows, filter);
      expect(rows.filter((r) => r.kind === 'approval')).toEqual([]);
      expect((rows.find((r) => r.kind === 'tool') as ToolRow).approval).toEqual({ id: 'ap1' });
    }
    log.add('approval/decided', { id: 'ap1', outcome: 'rejected' });
    const rows = visibleRows(timelineOf(log.events).rows, { showLogEvents: true, modelView: false });
    expect(rows.filter((r) => r.kind === 'approval')).toEqual([]);
    expect(approvalLabel((rows.find((r) => r.kind === 'tool') as ToolRow).approval!.outcome)).toMatchObject({ text: 'rejected', tone: 'bad' });
  });

  it('keeps the approval row when its call has no row', () => {
    const log = new LogBuilder();
    log.add('turn/start', { turn: 1 });
    log.add('step/start', { turn: 1, step: 1 });
    log.add('approval/asked', { id: 'ap9', callId: 'gone', toolName: 'bash' });
    const rows = visibleRows(timelineOf(log.events).rows, { showLogEvents: false, modelView: false });
    expect(rows.filter((r) => r.kind === 'approval')).toHaveLength(1);
    expect(approvalLabel(undefined).text).toBe('awaiting approval');
  });
});

describe('durations', () => {
  const tool = (state: ToolRow['state'], extra: Partial<Pick<ToolRow, 'durationMs' | 'errorCode' | 'crash'>>) => toolDurationLabel({ state, ...extra });

  it('never shows a made-up or zero figure', () => {
    expect(tool('done', { durationMs: 1250 }).text).toBe('1.25 s');
    expect(tool('done', { durationMs: 0 }).text).toBe('<1 ms');
    expect(tool('error', { durationMs: 0, errorCode: 'ABORTED' }).text).toBe('killed after <1 ms');
    expect(tool('error', { durationMs: 2400, errorCode: 'ABORTED' }).text).toBe('killed after 2.40 s');
    expect(tool('error', { durationMs: 86_400_000, errorCode: 'TOOL_OUTCOME_UNKNOWN', crash: 'outcome-unknown' }).text).toBe('unknown');
    expect(tool('error', { durationMs: 0, errorCode: 'TOOL_NOT_STARTED', crash: 'not-started' }).text).toBe('not run');
    expect(tool('error', { durationMs: 0, errorCode: 'ABORTED_BEFORE_DISPATCH' }).text).toBe('not run');
    expect(tool('error', {}).text).toBe('unknown');
    expect(tool('running', {}).text).toBe('…');
    expect(tool('streaming', {}).text).toBe('');
  });

  it('a turn closed by crash recovery has no known duration, and one reason label', () => {
    const log = new LogBuilder();
    log.add('turn/start', { turn: 1 });
    log.add('turn/end', { turn: 1, reason: { kind: 'interrupted' } }, { dt: 3_600_000 });
    log.add('turn/start', { turn: 2 });
    log.add('turn/end', { turn: 2, reason: { kind: 'completed' } }, { dt: 900 });
    const ends = timelineOf(log.events).rows.filter((r): r is TurnEndRow => r.kind === 'turn-end');
    expect(ends[0]!.crash).toBe('interrupted');
    expect(turnDurationLabel(ends[0]!)!.text).toBe('duration unknown');
    expect(turnDurationLabel(ends[1]!)!.text).toBe('900 ms');
  });
});

describe('step labels', () => {
  it('says a finish once and shows a ttft only when something was answered', () => {
    expect(stepFinishLabel('aborted ABORTED')).toBe('aborted');
    expect(stepFinishLabel('error TIMEOUT')).toBe('error TIMEOUT');
    expect(stepFinishLabel('stop')).toBeUndefined();
    const log = new LogBuilder();
    log.add('turn/start', { turn: 1 });
    log.add('step/start', { turn: 1, step: 1 });
    log.chunk(1, 1, { type: 'finish', reason: { kind: 'error', failure: { code: 'UNSUPPORTED_REASONING_EFFORT', message: 'no' } } }, 3);
    log.add('step/end', { turn: 1, step: 1 });
    log.add('step/start', { turn: 1, step: 2 });
    log.chunk(1, 2, { type: 'text-delta', index: 0, text: 'hi' }, 40);
    log.chunk(1, 2, { type: 'finish', reason: { kind: 'stop' } });
    const steps = timelineOf(log.events).rows.filter((r): r is StepRow => r.kind === 'step');
    expect(showsTtft(steps[0]!)).toBe(false);
    expect(showsTtft(steps[1]!)).toBe(true);
  });
});
