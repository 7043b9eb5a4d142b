import { describe, expect, it } from 'vitest';
import { timelineOf } from '../../../shared/timeline.js';
import { visibleRows } from '../../../renderer/views/timeline/row-filter.js';
import { diffLines, diffStat, unifiedDiffText } from '../../../renderer/views/timeline/unified-diff.js';
import { LogBuilder } from '../shared/timeline-events.js';

describe('row filter', () => {
  const log = new LogBuilder();
  log.add('turn/start', { turn: 1 });
  log.add('step/start', { turn: 1, step: 1 });
  const original = log.user('a long original request');
  log.add('request/header', { reason: 'initial', header: { config: { provider: 'p', model: 'm' } } });
  log.chunk(1, 1, { type: 'text-delta', index: 0, text: 'x' });
  log.chunk(1, 1, { type: 'finish', reason: { kind: 'error', failure: { code: 'SERVER', message: '' } } });
  log.add('llm/retry', { turn: 1, step: 1, attempt: 1, delayMs: 10, failure: { code: 'SERVER', message: '' } });
  const start = log.add('compaction/start', { compactionId: 'c', turn: 1 });
  const summary = log.add('compaction/summary', { compactionId: 'c', summary: [{ type: 'text', text: 'S' }], shadowedRange: { start: original, end: original }, shadowedSeqs: [original], shadowedTokenCount: 5, provider: 'p', model: 'm' });
  log.user('<summary>S</summary>', { kind: 'compaction', compactionId: 'c' }, { surfaceOp: { op: 'replace', start: original, end: original }, sourceEventSeqs: [start, summary, original] });
  log.add('compaction/end', { compactionId: 'c', turn: 1 });
  log.chunk(1, 1, { type: 'text-delta', index: 0, text: 'ok' });
  log.message(1, 1, [{ type: 'text', text: 'ok' }]);
  const rows = timelineOf(log.events).rows;

  it('shows everything by default and hides log-only events on request', () => {
    expect(visibleRows(rows, { showLogEvents: true, modelView: false })).toBe(rows);
    expect(visibleRows(rows, { showLogEvents: false, modelView: false }).map((r) => r.kind)).toEqual(['turn', 'step', 'user', 'text', 'retry', 'compaction', 'text']);
  });

  it('model view hides what compaction replaced, failed attempts and log-only rows', () => {
    expect(visibleRows(rows, { showLogEvents: true, modelView: true }).map((r) => r.kind)).toEqual(['turn', 'step', 'compaction', 'text']);
  });
});

describe('unified diff', () => {
  it('numbers lines and counts changes', () => {
    const lines = diffLines('config.txt', 'mode=DEBUG\nlevel=info\n', 'mode=RELEASE\nlevel=info\n');
    expect(lines).toEqual([
      { kind: 'hunk', text: '@@ -1,2 +1,2 @@' },
      { kind: 'del', text: 'mode=DEBUG', oldNo: 1 },
      { kind: 'add', text: 'mode=RELEASE', newNo: 1 },
      { kind: 'ctx', text: 'level=info', oldNo: 2, newNo: 2 },
    ]);
    expect(diffStat(lines)).toEqual({ added: 1, removed: 1 });
    expect(diffLines('a', 'same', 'same')).toEqual([]);
    expect(unifiedDiffText('a.txt', '', 'new\n')).toContain('+++ b/a.txt');
    expect(diffLines('n', 'a', 'b').some((l) => l.kind === 'note')).toBe(true);
  });
});
