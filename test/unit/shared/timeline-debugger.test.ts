import { describe, expect, it } from 'vitest';
import { foldEvents, createTimeline, timelineOf, type CompactionRow, type EventRow, type StepRow } from '../../../shared/timeline.js';
import type { SessionEvent } from '../../../shared/events.js';
import { LogBuilder } from './timeline-events.js';

describe('timeline facts for the debugger views', () => {
  it('gives each step the context window in effect (request/context), also when logged inside the step', () => {
    const log = new LogBuilder();
    log.add('turn/start', { turn: 1 });
    log.add('step/start', { turn: 1, step: 1 });
    log.add('request/context', { provider: 'deepseek', model: 'deepseek-v4-flash', contextWindow: 128_000 });
    log.add('step/end', { turn: 1, step: 1 });
    log.add('step/start', { turn: 1, step: 2 });
    log.add('request/context', { provider: 'custom', model: 'x' });
    const steps = timelineOf(log.events).rows.filter((r): r is StepRow => r.kind === 'step');
    expect(steps.map((s) => s.contextWindow)).toEqual([128_000, undefined]);
  });

  it('keeps a compaction attempt’s planned range, token estimates, failure and rejected summary', () => {
    const log = new LogBuilder();
    log.add('turn/start', { turn: 1 });
    const a = log.user('first');
    log.add('request/context', { provider: 'p', model: 'm', contextWindow: 8_000 });
    log.add('compaction/start', {
      compactionId: 'c',
      turn: null,
      shadowedSeqs: [a],
      shadowedRange: { start: a, end: a },
      shadowedTokenCount: 900,
      tokensBefore: 7_000,
      maxTokens: 512,
      instruction: 'summarise',
    });
    log.add('compaction/end', { compactionId: 'c', turn: null, error: 'the summary is not smaller than what it would replace', rejectedSummary: [{ type: 'text', text: '## Too long' }] });
    const row = timelineOf(log.events).rows.find((r): r is CompactionRow => r.kind === 'compaction')!;
    expect(row).toMatchObject({
      state: 'failed',
      shadowedSeqs: [a],
      tokensBefore: 7_000,
      maxTokens: 512,
      contextWindow: 8_000,
      rejectedSummary: '## Too long',
      error: 'the summary is not smaller than what it would replace',
    });
    const failed = new LogBuilder();
    failed.add('compaction/start', { compactionId: 'd', turn: null });
    failed.add('compaction/end', { compactionId: 'd', turn: null, error: 'the summary request failed: RATE_LIMIT: slow down', failure: { code: 'RATE_LIMIT', message: 'slow down', status: 429 } });
    expect(timelineOf(failed.events).rows[0]).toMatchObject({ kind: 'compaction', failure: { code: 'RATE_LIMIT', status: 429 } });
  });

  it('shows todo/write as a list and unknown events with a cut payload preview', () => {
    const events = [
      {
        seq: 0,
        type: 'todo/write',
        time: 1,
        data: {
          todos: [
            { content: 'a', status: 'completed' },
            { content: 'b', status: 'weird' },
          ],
        },
      },
      { seq: 1, type: 'provider/truncation-warning', time: 2, data: { message: 'the server cut the prompt to 4096 tokens', reportedTokens: 4096 }, ignorable: true },
      { seq: 2, type: 'plugin/blob', time: 3, data: { blob: '😀'.repeat(400) }, ignorable: true },
    ] as unknown as SessionEvent[];
    const rows = timelineOf(events).rows as EventRow[];
    expect(rows[0]!.todos).toEqual([
      { content: 'a', status: 'completed' },
      { content: 'b', status: 'pending' },
    ]);
    expect(rows[1]!.label).toBe('provider/truncation-warning: the server cut the prompt to 4096 tokens');
    expect(rows[1]!.preview).toContain('"reportedTokens":4096');
    expect(rows[2]!.preview!.length).toBeLessThanOrEqual(160);
    expect(rows[2]!.preview).not.toMatch(/[\ud800-\udbff]…$/);
  });

  it('folds a log that starts in the middle (a tail view) and records where it starts', () => {
    const log = new LogBuilder();
    log.add('turn/start', { turn: 1 });
    log.add('step/start', { turn: 1, step: 1 });
    log.user('q');
    for (let i = 0; i < 10; i++) log.chunk(1, 1, { type: 'text-delta', index: 0, text: `w${i} ` });
    log.message(1, 1, [{ type: 'text', text: 'whole answer' }]);
    log.add('step/end', { turn: 1, step: 1 });
    const tail = log.events.slice(6);
    const t = foldEvents(createTimeline(), tail);
    expect(t.firstSeq).toBe(6);
    const text = t.rows.find((r) => r.kind === 'text');
    expect(text).toMatchObject({ text: 'whole answer', streaming: false, partial: false });
    expect(t.rows[0]).toMatchObject({ kind: 'step', implicit: true });
  });
});
