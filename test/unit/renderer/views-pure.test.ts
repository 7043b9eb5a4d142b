import { describe, expect, it } from 'vitest';
import { timelineOf } from '../../../shared/timeline.js';
import { visibleRows } from '../../../renderer/views/timeline/row-filter.js';
import { findRows as findRowsBy, turnOutline } from '../../../shared/timeline-find.js';
import { rowSearchText } from '../../../renderer/views/timeline/row-text.js';
import { diffLines, diffStat, unifiedDiffText } from '../../../renderer/views/timeline/unified-diff.js';
import { LogBuilder } from '../shared/timeline-events.js';
import { composerProviderLabel } from '../../../renderer/views/session/provider-label.js';

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
  const summary = log.add('compaction/summary', {
    compactionId: 'c',
    summary: [{ type: 'text', text: 'S' }],
    shadowedRange: { start: original, end: original },
    shadowedSeqs: [original],
    shadowedTokenCount: 5,
    provider: 'p',
    model: 'm',
  });
  log.user('<summary>S</summary>', { kind: 'compaction', compactionId: 'c' }, { surfaceOp: { op: 'replace', start: original, end: original }, sourceEventSeqs: [start, summary, original] });
  log.add('compaction/end', { compactionId: 'c', turn: 1 });
  log.chunk(1, 1, { type: 'text-delta', index: 0, text: 'ok' });
  log.message(1, 1, [{ type: 'text', text: 'ok' }]);
  const rows = timelineOf(log.events).rows;

  it('shows everything by default and hides log-only events on request', () => {
    expect(visibleRows(rows, { showLogEvents: true, modelView: false })).toBe(rows);
    expect(visibleRows(rows, { showLogEvents: false, modelView: false }).map((r) => r.kind)).toEqual(['turn', 'user', 'step', 'text', 'retry', 'compaction', 'text']);
  });

  it('model view shows what the model sees next: the summary first, then the rest, without shadowed, failed or log-only rows', () => {
    expect(visibleRows(rows, { showLogEvents: true, modelView: true }).map((r) => r.kind)).toEqual(['compaction', 'turn', 'step', 'text']);
  });

  it('model view leaves no empty turn or step markers behind a compaction', () => {
    const big = new LogBuilder();
    const shadowed: number[] = [];
    for (let turn = 1; turn <= 30; turn++) {
      big.add('turn/start', { turn });
      big.add('step/start', { turn, step: 1 });
      shadowed.push(big.user(`prompt ${turn}`));
      big.chunk(turn, 1, { type: 'text-delta', index: 0, text: `answer ${turn}` });
      shadowed.push(big.message(turn, 1, [{ type: 'text', text: `answer ${turn}` }]));
      big.add('step/end', { turn, step: 1 });
      big.add('turn/end', { turn, reason: { kind: 'completed' } });
    }
    const kept = shadowed.splice(-2);
    const start = big.add('compaction/start', { compactionId: 'k', turn: null });
    const summary = big.add('compaction/summary', {
      compactionId: 'k',
      summary: [{ type: 'text', text: '## Summary' }],
      shadowedRange: { start: shadowed[0], end: shadowed.at(-1) },
      shadowedSeqs: shadowed,
      shadowedTokenCount: 500,
      provider: 'p',
      model: 'm',
    });
    big.user('checkpoint', { kind: 'compaction', compactionId: 'k' }, { surfaceOp: { op: 'replace', start: shadowed[0]!, end: shadowed.at(-1)! }, sourceEventSeqs: [start, summary, ...shadowed] });
    big.add('compaction/end', { compactionId: 'k', turn: null });
    const view = visibleRows(timelineOf(big.events).rows, { showLogEvents: false, modelView: true });
    expect(view.map((r) => r.kind)).toEqual(['compaction', 'turn', 'user', 'step', 'text']);
    expect([view[2]!.seq, (view[4] as { messageSeq?: number }).messageSeq]).toEqual(kept);
  });
});

describe('find and outline', () => {
  const log = new LogBuilder();
  log.add('turn/start', { turn: 1 });
  log.add('step/start', { turn: 1, step: 1 });
  log.user('Why does parse() crash?\nIt says TypeError.');
  log.chunk(1, 1, { type: 'text-delta', index: 0, text: 'Let me look.' });
  log.message(1, 1, [{ type: 'text', text: 'Let me look.' }]);
  log.add('step/end', { turn: 1, step: 1 });
  log.add('turn/end', { turn: 1, reason: { kind: 'error', failure: { code: 'RATE_LIMIT', message: 'slow down' } } });
  log.add('turn/start', { turn: 2 });
  log.user('second prompt mentioning typeerror again');
  const rows = timelineOf(log.events).rows;
  const findRows = (r: typeof rows, q: string): number[] => findRowsBy(r, q, (row) => rowSearchText(row));

  it('finds rows by their text, case-insensitively, in order', () => {
    const hits = findRows(rows, 'TYPEERROR');
    expect(hits.map((i) => rows[i]!.kind)).toEqual(['user', 'user']);
    expect(findRows(rows, 'slow down').map((i) => rows[i]!.kind)).toEqual(['turn-end']);
    expect(findRows(rows, '   ')).toEqual([]);
  });

  it('outlines turns with their first prompt and how they ended', () => {
    expect(turnOutline(rows).map((i) => [i.turn, i.title, i.endKind])).toEqual([
      [1, 'Why does parse() crash? It says TypeError.', 'error'],
      [2, 'second prompt mentioning typeerror again', undefined],
    ]);
  });
});

describe('find reaches the words of every row kind', () => {
  const log = new LogBuilder();
  log.add('turn/start', { turn: 1 });
  log.add('step/start', { turn: 1, step: 1 });
  log.user('first prompt');
  log.add('instructions/loaded', { placement: 'system', files: [{ path: '/w/AGENTS.md', shownPath: 'AGENTS.md', scope: 'project', sha256: 'ab', bytes: 3 }] });
  log.add('llm/warning', { turn: 1, step: 1, code: 'PROMPT_TRUNCATED', message: 'the server cut the prompt', hint: 'set a smaller window' });
  log.add('import/elided', {});
  log.add('import/elided', {});
  log.chunk(1, 1, { type: 'text-delta', index: 0, text: 'partial answer' });
  log.message(1, 1, [{ type: 'text', text: 'partial answer' }]);
  log.add('step/end', { turn: 1, step: 1 });
  log.add('turn/end', { turn: 1, reason: { kind: 'max-tokens' } });
  const seed = log.add('session/end-seed', {});
  const rows = timelineOf(log.events).rows;
  const kinds = (q: string, seedLength?: number): string[] => findRowsBy(rows, q, (row) => rowSearchText(row, seedLength !== undefined ? { seedLength } : {})).map((i) => rows[i]!.kind);

  it('warnings, their hint, instructions, elided events, turn ends and the fork boundary', () => {
    expect(kinds('server cut the prompt')).toEqual(['warning']);
    expect(kinds('what to do: set a smaller')).toEqual(['warning']);
    expect(kinds('agents.md')).toEqual(['instructions']);
    expect(kinds('in the system prompt')).toEqual(['instructions']);
    expect(kinds('2 events elided')).toEqual(['elided']);
    expect(kinds('turn 1 ended')).toEqual(['turn-end']);
    expect(kinds('1 step')).toEqual(['turn']);
    expect(kinds('inherited from the parent', seed)).toEqual(['end-seed']);
    expect(kinds('inherited from the parent')).toEqual([]);
    expect(kinds('came from an earlier run')).toEqual(['end-seed']);
  });

  it('every row kind has searchable text', () => {
    for (const row of rows) expect(rowSearchText(row, { seedLength: seed }).trim(), row.kind).not.toBe('');
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

describe('composerProviderLabel', () => {
  it('names a custom endpoint by its host and a preset by its label without the parenthesis', () => {
    expect(composerProviderLabel('Custom OpenAI-compatible endpoint', 'custom', 'http://127.0.0.1:8787/v1')).toBe('127.0.0.1:8787');
    expect(composerProviderLabel('Custom OpenAI-compatible endpoint', 'custom', 'not a url')).toBe('Custom OpenAI-compatible endpoint');
    expect(composerProviderLabel('Ollama (local)', 'ollama', 'http://127.0.0.1:11434/v1')).toBe('Ollama');
    expect(composerProviderLabel('DeepSeek', 'deepseek', 'https://api.deepseek.com')).toBe('DeepSeek');
  });
});
