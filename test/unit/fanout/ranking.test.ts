/** Ranking (issue 21): check passed > fewer failures > smaller diff > lower cost > shorter time; ties by id; explained. */
import { describe, expect, it } from 'vitest';
import { rankBranches, type RankFigures } from '../../../electron/fanout/ranking.js';
import { mergeText } from '../../../electron/workspace/apply.js';

const b = (session: string, over: Partial<RankFigures> = {}): RankFigures => ({ session, checkPassed: false, failures: 1, diffLines: 10, tokens: 100, durationMs: 1000, ...over });

describe('rankBranches', () => {
  it('orders by each criterion in turn and says which one decided', () => {
    const ranked = rankBranches([
      b('e-slow', { durationMs: 2000 }),
      b('a-nocheck', { checkPassed: undefined, failures: undefined }),
      b('c-bigdiff', { diffLines: 50 }),
      b('d-costly', { tokens: 500 }),
      b('f-pass', { checkPassed: true, failures: 0, diffLines: 99, tokens: 9999 }),
      b('b-fails3', { failures: 3 }),
      b('g-fast'),
    ]);
    expect(ranked.map((r) => r.branch.session)).toEqual(['f-pass', 'g-fast', 'e-slow', 'd-costly', 'c-bigdiff', 'b-fails3', 'a-nocheck']);
    expect(ranked.map((r) => r.reasons[1]?.split(':')[1]?.trim().split(' ')[0])).toEqual(['check', 'shorter', 'lower', 'smaller', 'fewer', 'check', undefined]);
    expect(ranked[0]!.reasons[1]).toBe('ranked above g-fast: check passed (vs failed in g-fast)');
  });

  it('ranks a branch with no steps last, whatever its check, diff and cost, and says why', () => {
    // The empty fork has the smallest diff, no cost and (on an unchanged folder that already passes) a passing check:
    // every later criterion would put it first.
    const ranked = rankBranches([
      b('a-empty', { billedResponses: 0, checkPassed: true, failures: 0, diffLines: 0, tokens: 0, costUsd: 0, durationMs: 0 }),
      b('b-failed', { billedResponses: 3, costUsd: 0.0024 }),
      b('c-nocheck', { billedResponses: 1, checkPassed: undefined, failures: undefined }),
      b('d-error', { billedResponses: 0, checkPassed: undefined, failures: undefined, diffLines: 0, tokens: 0, durationMs: 300 }),
    ]);
    expect(ranked.map((r) => r.branch.session)).toEqual(['b-failed', 'c-nocheck', 'a-empty', 'd-error']);
    expect(ranked[1]!.reasons).toEqual([expect.stringMatching(/^check not run/), 'ranked above a-empty: a-empty has no steps (it produced nothing)']);
    const noSteps = 'no steps since its fork point: ranked below every branch with steps (a branch that produced nothing cannot be the best)';
    // Two empty branches are ordered between themselves by the other criteria.
    expect(ranked[2]!.reasons).toEqual([expect.stringMatching(/^check passed/), noSteps, 'ranked above d-error: check passed (vs not run in d-error)']);
    expect(ranked[3]!.reasons).toEqual([expect.stringMatching(/^check not run/), noSteps]);
    // A report that does not say how many responses were billed is not taken for an empty one.
    expect(rankBranches([b('x', { diffLines: 50 }), b('y', { diffLines: 0 })]).map((r) => r.branch.session)).toEqual(['y', 'x']);
  });

  it('is deterministic: ties are ordered by session id whatever the input order', () => {
    const one = rankBranches([b('y'), b('x')]);
    const two = rankBranches([b('x'), b('y')]);
    expect(one.map((r) => r.branch.session)).toEqual(['x', 'y']);
    expect(two).toEqual(one);
    expect(one[0]!.reasons[1]).toContain('tied with y on every criterion');
  });

  it('says the deciding difference at a precision that shows it', () => {
    // The trial's case: the same figures but the time, 40 ms against 48 ms.
    const same = { checkPassed: undefined, failures: undefined, diffLines: 0, tokens: 2544, durationMs: 40 };
    const time = rankBranches([b('bbbbbbbb', { ...same, durationMs: 48 }), b('aaaaaaaa', same)]);
    expect(time[0]!.reasons).toEqual(['check not run, n/a failure(s), 0 changed line(s), 2,544 tokens, 40 ms', 'ranked above bbbbbbbb: shorter time: 40 ms vs 48 ms in bbbbbbbb']);
    expect(time[1]!.reasons[0]).toBe('check not run, n/a failure(s), 0 changed line(s), 2,544 tokens, 48 ms');
    const cost = rankBranches([b('aaaaaaaa', { ...same, costUsd: 0.012345, billedResponses: 1 }), b('bbbbbbbb', { ...same, costUsd: 0.012349, billedResponses: 1 })]);
    expect(cost[0]!.reasons[1]).toBe('ranked above bbbbbbbb: lower cost: $0.012345 vs $0.012349 in bbbbbbbb');
    const tokens = rankBranches([b('aaaaaaaa', { ...same, tokens: 12_344 }), b('bbbbbbbb', { ...same, tokens: 12_345 })]);
    expect(tokens[0]!.reasons[1]).toBe('ranked above bbbbbbbb: lower cost: 12,344 vs 12,345 tokens in bbbbbbbb');
  });
});

describe('mergeText', () => {
  const base = 'a\nb\nc\nd\ne\n';
  it('merges changes to different lines and keeps both', () => {
    expect(mergeText('A\nb\nc\nd\ne\n', base, 'a\nb\nc\nd\nE\n')).toEqual({ text: 'A\nb\nc\nd\nE\n', conflicts: [] });
  });
  it('reports the same lines changed differently as a hunk', () => {
    const r = mergeText('a\nB1\nc\nd\ne\n', base, 'a\nB2\nc\nd\ne\n');
    expect(r.conflicts).toEqual(['@@ fork point lines 2-2, folder line 2, branch line 2 @@\n<<<<<<< folder\nB1\n=======\nB2\n>>>>>>> branch\n']);
  });
  it('the same change on both sides is no conflict', () => {
    expect(mergeText('a\nX\nc\nd\ne\n', base, 'a\nX\nc\nd\ne\n').conflicts).toEqual([]);
  });
});
