import { describe, expect, it } from 'vitest';
import type { SessionSummary } from '../../../shared/api.js';
import { branchTree } from '../../../shared/branch-tree.js';
import { distinctNames, fanoutBranchTitle, fanoutVariantNumber } from '../../../shared/distinct-names.js';

const ID1 = '1111aaaa-0000-4000-8000-000000000001';
const ID2 = '2222bbbb-0000-4000-8000-000000000002';

function summary(id: string, extra: Partial<SessionSummary> = {}): SessionSummary {
  return { id, createdAt: 1, updatedAt: 1, eventCount: 6, status: 'idle', ...extra };
}

describe('names that read apart', () => {
  it('leaves names used once alone and gives shared ones a folder, a hint or a short-id suffix', () => {
    expect(
      distinctNames([
        { id: ID1, name: 'a' },
        { id: ID2, name: 'b' },
      ]),
    ).toEqual(['a', 'b']);
    // Fan-out folders are the sessions' ids: the short id, not the uuid folder.
    expect(
      distinctNames([
        { id: ID1, name: 'fix', cwd: `/data/worktrees/${ID1}` },
        { id: ID2, name: 'fix', cwd: `/data/worktrees/${ID2}` },
      ]),
    ).toEqual(['fix · 1111aaaa', 'fix · 2222bbbb']);
    expect(
      distinctNames([
        { id: ID1, name: 'fix', cwd: '/src/app-one' },
        { id: ID2, name: 'fix', cwd: '/src/app-two' },
      ]),
    ).toEqual(['fix · app-one', 'fix · app-two']);
    expect(
      distinctNames([
        { id: ID1, name: 'model-a', hint: 'variant 1' },
        { id: ID2, name: 'model-a', hint: 'variant 2' },
      ]),
    ).toEqual(['model-a · variant 1', 'model-a · variant 2']);
  });

  it('names fan-out branches of identical variants by their place in the fan-out', () => {
    const labels = ['model=m', 'model=m', 'model=n'];
    expect(labels.map((_, i) => fanoutBranchTitle(labels, i, 'fix the test'))).toEqual(['variant 1 · model=m · fix the test', 'variant 2 · model=m · fix the test', 'model=n · fix the test']);
    expect(fanoutVariantNumber('variant 2 · model=m · fix the test')).toBe(2);
    expect(fanoutVariantNumber('model=n · fix the test')).toBeUndefined();
  });

  it('the branch picker’s nodes of one title read apart', () => {
    const sessions = [
      summary('root0000-0000', { title: 'Parent', cwd: '/src/app' }),
      summary(ID1, { title: 'model=m · fix', parentSession: 'root0000-0000', cwd: `/w/${ID1}`, createdAt: 2 }),
      summary(ID2, { title: 'model=m · fix', parentSession: 'root0000-0000', cwd: `/w/${ID2}`, createdAt: 3 }),
    ];
    const titles = branchTree(sessions, ID1).map((n) => n.title);
    expect(titles).toEqual(['Parent', 'model=m · fix · 1111aaaa', 'model=m · fix · 2222bbbb']);
  });
});
