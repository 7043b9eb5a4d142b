import { describe, expect, it } from 'vitest';
import type { CompareResult } from '../../../shared/api.js';
import { commonHistoryLabel, commonHistoryLength, compareFigures, sharedHistoryLabel, transcriptAfter, turnsBefore, type Lineage } from '../../../shared/branch-compare.js';
import { branchStats } from '../../../shared/branch-stats.js';
import { timelineOf } from '../../../shared/timeline.js';
import { branchCostLabel } from '../../../shared/session-cost.js';
import { LogBuilder } from './timeline-events.js';

/** One completed turn: a prompt, a read_file call, an answer. */
function turn(log: LogBuilder, n: number, prompt: string, answer: string): void {
  log.add('turn/start', { turn: n });
  log.add('step/start', { turn: n, step: 1 });
  log.user(prompt);
  log.message(n, 1, [{ type: 'tool-call', id: `c${n}`, name: 'read_file', arguments: '{"path":"a.txt"}' }], { usage: { inputTokens: 100, outputTokens: 10, cacheReadTokens: 60 } });
  const call = log.toolCall(n, 1, `c${n}`, 'read_file', '{"path":"a.txt"}');
  log.toolResult(n, 1, `c${n}`, '1: alpha', { callSeq: call });
  log.add('step/end', { turn: n, step: 1 });
  log.add('step/start', { turn: n, step: 2 });
  log.message(n, 2, [{ type: 'text', text: answer }], { usage: { inputTokens: 120, outputTokens: 5 } });
  log.add('step/end', { turn: n, step: 2 });
  log.add('turn/end', { turn: n, reason: { kind: 'completed' } }, { dt: 500 });
}

describe('compare projections', () => {
  const log = new LogBuilder();
  turn(log, 1, 'What is in a.txt?', 'alpha');
  const boundary = log.events.length;
  turn(log, 2, 'Make it uppercase', 'Done.');
  const rows = timelineOf(log.events).rows;

  it('keeps only what a branch added after the boundary: turns, prompts, answers, tools', () => {
    const after = transcriptAfter(rows, boundary);
    expect(after.map((r) => r.kind)).toEqual(['turn', 'user', 'tool', 'text', 'turn-end']);
    expect(after.every((r) => r.seq >= boundary)).toBe(true);
    expect(after.find((r) => r.kind === 'user')).toMatchObject({ text: 'Make it uppercase' });
    expect(transcriptAfter(rows, log.events.length)).toEqual([]);
  });

  it('counts the turns of the common history', () => {
    expect(turnsBefore(rows, boundary)).toBe(1);
    expect(turnsBefore(rows, 0)).toBe(0);
    expect(turnsBefore(rows, log.events.length)).toBe(2);
    expect(commonHistoryLabel(boundary, 1)).toBe(`${boundary} shared events (1 turn)`);
    expect(commonHistoryLabel(1)).toBe('1 shared event');
    expect(commonHistoryLabel(0)).toMatch(/no shared history/);
  });

  it('builds the figures table from both branches\u2019 stats and marks differences', () => {
    const result: Pick<CompareResult, 'a' | 'b'> = {
      a: { sessionId: 'a', stats: branchStats(log.events, boundary) },
      b: { sessionId: 'b', stats: branchStats(log.events.slice(0, boundary), boundary) },
    };
    const figures = compareFigures(result);
    expect(figures.map((f) => f.key)).toEqual(['turns', 'steps', 'toolCalls', 'inputTokens', 'cacheReadTokens', 'outputTokens', 'reasoningTokens', 'cost', 'duration', 'lastTurnEnd', 'firstPrompt']);
    const byKey = new Map(figures.map((f) => [f.key, f]));
    expect(byKey.get('turns')).toMatchObject({ a: '1', b: '0', differs: true, numeric: true });
    expect(byKey.get('steps')).toMatchObject({ a: '2', b: '0' });
    expect(byKey.get('toolCalls')).toMatchObject({ a: '1', b: '0' });
    // Total input: 220 uncached + 60 cached.
    expect(byKey.get('inputTokens')).toMatchObject({ a: '280', b: '0' });
    // No price was logged for a's responses: unknown, never $0; b ran no steps: no cost, never $0 either.
    expect(byKey.get('cost')).toMatchObject({ a: 'price unknown', b: 'no steps' });
    expect(byKey.get('cacheReadTokens')).toMatchObject({ a: '60', b: '0' });
    expect(byKey.get('outputTokens')).toMatchObject({ a: '15', b: '0' });
    expect(byKey.get('duration')!.a).toMatch(/s$/);
    expect(byKey.get('duration')!.b).toBe('—');
    expect(byKey.get('lastTurnEnd')).toMatchObject({ a: 'completed', b: '—', numeric: false });
    expect(byKey.get('firstPrompt')).toMatchObject({ a: 'Make it uppercase', b: '—' });
    const same = compareFigures({ a: result.a, b: result.a });
    expect(same.some((f) => f.differs)).toBe(false);
  });
});

describe('branchCostLabel', () => {
  it('says a branch that billed nothing has no steps (or billed nothing), never $0; an unknown price as such', () => {
    expect(branchCostLabel({ costUsd: 0, billedResponses: 0, steps: 0 })).toBe('no steps');
    expect(branchCostLabel({ costUsd: 0, billedResponses: 0 })).toBe('no steps');
    expect(branchCostLabel({ costUsd: 0, billedResponses: 0, steps: 2 })).toBe('nothing billed');
    expect(branchCostLabel({ billedResponses: 3 })).toBe('price unknown');
    expect(branchCostLabel({ costUsd: 0.0024, billedResponses: 1 })).toBe('$0.002400');
    // A local model priced at zero by its user did bill responses: $0 is then the truth.
    expect(branchCostLabel({ costUsd: 0, billedResponses: 2 })).toBe('$0');
  });
});

describe('the shared history of several branches', () => {
  // root (40 events) → f1 forked at 20 → f11 forked at 30 of f1; f2 forked at 10 of root; other unrelated.
  const sessions: Record<string, Lineage> = {
    root: { eventCount: 40 },
    f1: { eventCount: 50, parentSession: 'root', seedLength: 20 },
    f11: { eventCount: 45, parentSession: 'f1', seedLength: 30 },
    f2: { eventCount: 12, parentSession: 'root', seedLength: 10 },
    other: { eventCount: 9 },
  };
  const common = (...ids: string[]): number => commonHistoryLength((id) => sessions[id], ids);

  it('is the fork point for a root and its fork, the lowest seed on the way for deeper forks, 0 for unrelated ones', () => {
    expect(common('root', 'f1')).toBe(20);
    expect(common('f1', 'root')).toBe(20);
    expect(common('f1', 'f11')).toBe(30);
    expect(common('root', 'f11')).toBe(20);
    expect(common('f11', 'f2')).toBe(10);
    expect(common('root', 'other')).toBe(0);
    expect(common('root', 'missing')).toBe(0);
    expect(common('root')).toBe(0);
  });

  it('for more than two, what all of them share', () => {
    expect(common('root', 'f1', 'f11')).toBe(20);
    expect(common('f11', 'f1', 'f2')).toBe(10);
    expect(common('root', 'f1', 'other')).toBe(0);
  });

  it('is labelled by its turns, up to the last one in it', () => {
    const log = new LogBuilder();
    turn(log, 1, 'first', 'one');
    turn(log, 2, 'second', 'two');
    const boundary = log.events.length;
    turn(log, 3, 'third', 'three');
    const rows = timelineOf(log.events).rows;
    expect(sharedHistoryLabel(rows, boundary)).toBe('shared history: 2 turns up to turn 2');
    expect(sharedHistoryLabel(rows, 2)).toBe('shared history: 2 events, no whole turn');
    expect(
      transcriptAfter(rows, 0, boundary)
        .filter((r) => r.kind === 'turn')
        .map((r) => (r as { turn: number }).turn),
    ).toEqual([1, 2]);
  });
});
