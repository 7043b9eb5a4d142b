import { describe, expect, it } from 'vitest';
import type { SessionSummary } from '../../../shared/api.js';
import { branchTree, forkPairs, lineageRootId, lineageSessions, promptLabel, type ForkPromptState } from '../../../shared/branch-tree.js';

function s(id: string, extra: Partial<SessionSummary> = {}): SessionSummary {
  return { id, createdAt: 0, updatedAt: 0, eventCount: 10, status: 'idle', cwd: '/w', ...extra };
}

const ready = (parentPrompt?: string, childPrompt?: string): ForkPromptState => ({
  state: 'ready',
  prompts: { ...(parentPrompt !== undefined ? { parentPrompt } : {}), ...(childPrompt !== undefined ? { childPrompt } : {}) },
});

// S with three forks after turn 1 (one in its own folder), a grandchild under fork 1, and an unrelated session.
const list = [
  s('other', { title: 'Unrelated', updatedAt: 99 }),
  s('S', { title: 'What is in a.txt?', updatedAt: 50 }),
  s('f2', { title: 'What is in a.txt? (fork 2)', parentSession: 'S', seedLength: 12, createdAt: 20 }),
  s('f1', { title: 'What is in a.txt? (fork 1)', parentSession: 'S', seedLength: 12, createdAt: 10 }),
  s('f3', { title: 'What is in a.txt? (fork 3)', parentSession: 'S', seedLength: 12, createdAt: 30, cwd: '/data/worktrees/f3' }),
  s('g1', { title: 'Deeper', parentSession: 'f1', seedLength: 20, createdAt: 40 }),
];

describe('lineage', () => {
  it('finds the root of any member and only its descendants', () => {
    expect(lineageRootId(list, 'g1')).toBe('S');
    expect(lineageRootId(list, 'S')).toBe('S');
    expect(lineageRootId(list, 'other')).toBe('other');
    expect(lineageRootId(list, 'missing')).toBeUndefined();
    expect(
      lineageSessions(list, 'S')
        .map((x) => x.id)
        .sort(),
    ).toEqual(['S', 'f1', 'f2', 'f3', 'g1']);
    // A parent that is not listed (deleted) makes its child a root.
    expect(lineageRootId([s('orphan', { parentSession: 'gone' })], 'orphan')).toBe('orphan');
  });

  it('survives parent cycles', () => {
    const cyclic = [s('a', { parentSession: 'b' }), s('b', { parentSession: 'a' })];
    expect(['a', 'b']).toContain(lineageRootId(cyclic, 'a'));
    expect(
      branchTree(cyclic, 'a')
        .map((n) => n.session.id)
        .sort(),
    ).toEqual(['a', 'b']);
  });

  it('lists one fork pair per child in the lineage', () => {
    expect(forkPairs(list, 'f2')).toEqual(
      expect.arrayContaining([
        { parent: 'S', child: 'f1' },
        { parent: 'S', child: 'f2' },
        { parent: 'S', child: 'f3' },
        { parent: 'f1', child: 'g1' },
      ]),
    );
    expect(forkPairs(list, 'f2')).toHaveLength(4);
    expect(forkPairs(list, 'other')).toEqual([]);
  });
});

describe('branchTree', () => {
  it('is rooted at the lineage root with children in fork order, and marks the open session', () => {
    const nodes = branchTree(list, 'f2');
    expect(nodes.map((n) => [n.session.id, n.depth, n.isRoot, n.isOpen, n.parentId])).toEqual([
      ['S', 0, true, false, undefined],
      ['f1', 1, false, false, 'S'],
      ['g1', 2, false, false, 'f1'],
      ['f2', 1, false, true, 'S'],
      ['f3', 1, false, false, 'S'],
    ]);
    expect(nodes.find((n) => n.session.id === 'f3')!.ownFolder).toBe(true);
    expect(nodes.filter((n) => n.ownFolder).map((n) => n.session.id)).toEqual(['f3']);
    expect(branchTree(list, 'missing')).toEqual([]);
  });

  it('labels each fork by its first prompt after the fork point, the root by its own continuation', () => {
    const prompts = new Map<string, ForkPromptState>([
      ['f1', ready('Make a.txt uppercase', 'Add a README.md')],
      ['f2', ready('Make a.txt uppercase')],
      ['f3', { state: 'loading' }],
      ['g1', { state: 'error', message: 'boom' }],
    ]);
    const byId = new Map(branchTree(list, 'S', prompts).map((n) => [n.session.id, n]));
    expect(byId.get('S')).toMatchObject({ title: 'What is in a.txt?', prompt: 'Make a.txt uppercase' });
    expect(byId.get('f1')).toMatchObject({ title: 'What is in a.txt? (fork 1)', prompt: 'Add a README.md' });
    expect(byId.get('f2')!.prompt).toBeUndefined();
    expect(byId.get('f2')!.promptNote).toBe('no prompt since the fork yet');
    expect(byId.get('f3')!.promptNote).toBe('loading first prompt…');
    expect(byId.get('g1')!.promptNote).toBe('first prompt unavailable');
  });

  it('a root without forks needs no prompt note', () => {
    const [only] = branchTree([s('solo', { title: 'Solo' })], 'solo');
    expect(only).toMatchObject({ isRoot: true, isOpen: true, title: 'Solo', childCount: 0 });
    expect(only!.prompt).toBeUndefined();
    expect(only!.promptNote).toBeUndefined();
  });

  it('the root label comes from its earliest fork point', () => {
    const forks = [s('R', { title: 'R' }), s('late', { parentSession: 'R', seedLength: 40, createdAt: 1 }), s('early', { parentSession: 'R', seedLength: 8, createdAt: 2 })];
    const prompts = new Map<string, ForkPromptState>([
      ['late', ready('third prompt', 'x')],
      ['early', ready('second prompt', 'y')],
    ]);
    expect(branchTree(forks, 'late', prompts)[0]!.prompt).toBe('second prompt');
  });
});

describe('promptLabel', () => {
  it('is one line, shortened with an ellipsis, undefined when blank', () => {
    expect(promptLabel('  fix the\n\n build  ')).toBe('fix the build');
    expect(promptLabel('   ')).toBeUndefined();
    expect(promptLabel(undefined)).toBeUndefined();
    const long = promptLabel('x'.repeat(200), 10)!;
    expect(long).toHaveLength(10);
    expect(long.endsWith('…')).toBe(true);
  });
});
