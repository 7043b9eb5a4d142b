import { describe, expect, it } from 'vitest';
import type { SessionSummary } from '../../../shared/api.js';
import { displayTitle, folderHints, sessionTree } from '../../../shared/session-tree.js';

function s(id: string, extra: Partial<SessionSummary> = {}): SessionSummary {
  return { id, createdAt: 0, updatedAt: 0, eventCount: 0, status: 'idle', ...extra };
}

describe('sessionTree', () => {
  const list = [
    s('root-old', { title: 'Old root', updatedAt: 1 }),
    s('root-new', { title: 'New root', updatedAt: 9 }),
    s('child-2', { title: 'Second fork', parentSession: 'root-old', createdAt: 5 }),
    s('child-1', { title: 'First fork', parentSession: 'root-old', createdAt: 3 }),
    s('grandchild', { title: 'Deep', parentSession: 'child-1', createdAt: 4 }),
    s('orphan', { title: 'Orphan', parentSession: 'deleted', updatedAt: 5 }),
  ];

  it('orders roots newest first and children in fork order, with depths', () => {
    expect(sessionTree(list).map((r) => [r.session.id, r.depth, r.childCount])).toEqual([
      ['root-new', 0, 0],
      ['orphan', 0, 0],
      ['root-old', 0, 2],
      ['child-1', 1, 1],
      ['grandchild', 2, 0],
      ['child-2', 1, 0],
    ]);
  });

  it('search keeps the ancestors of matches as context', () => {
    expect(sessionTree(list, 'deep').map((r) => [r.session.id, r.contextOnly])).toEqual([
      ['root-old', true],
      ['child-1', true],
      ['grandchild', false],
    ]);
    expect(sessionTree(list, 'nothing')).toEqual([]);
  });

  it('survives parent cycles', () => {
    const cyclic = [s('a', { parentSession: 'b' }), s('b', { parentSession: 'a' })];
    expect(
      sessionTree(cyclic)
        .map((r) => r.session.id)
        .sort(),
    ).toEqual(['a', 'b']);
  });

  it('titles fall back to the first user message, then a short id', () => {
    expect(displayTitle({ id: 'abcdef123456', title: ' Named ' })).toBe('Named');
    expect(displayTitle({ id: 'abcdef123456' }, 'fix the\nbuild')).toBe('fix the build');
    expect(displayTitle({ id: 'abcdef123456' })).toBe('session abcdef12');
    expect(sessionTree([s('x1')], 'hello', new Map([['x1', 'Hello world']])).map((r) => r.session.id)).toEqual(['x1']);
  });

  it('labels an untitled fork by its place and its nearest titled ancestor, never stacking', () => {
    const lineage = [
      s('root', { title: 'sum([]) returns undefined', createdAt: 1 }),
      s('f1', { parentSession: 'root', createdAt: 2 }),
      s('f2', { parentSession: 'root', createdAt: 3, title: 'Return 0 for an empty list' }),
      s('f1a', { parentSession: 'f1', createdAt: 4 }),
      s('f1b', { parentSession: 'f1', createdAt: 5 }),
    ];
    const title = (id: string) =>
      displayTitle(
        lineage.find((x) => x.id === id)!,
        undefined,
        lineage,
      );
    expect(title('f1')).toBe('fork 1 of sum([]) returns undefined');
    expect(title('f2')).toBe('Return 0 for an empty list');
    // A fork of an untitled fork names the titled ancestor once, not "fork 1 · fork 1 · …".
    expect(title('f1b')).toBe('fork 2 of sum([]) returns undefined');
    expect(title('f1a')).not.toContain('fork 1 of fork');
    // Its own first prompt wins over the fallback.
    expect(displayTitle(lineage[1]!, 'try a reduce instead', lineage)).toBe('try a reduce instead');
    expect(displayTitle({ id: 'abcdef123456', cwd: '/home/me/proj/' })).toBe('New session in proj');
    expect(sessionTree(lineage, 'fork 2 of').map((r) => [r.session.id, r.contextOnly])).toEqual([
      ['root', true],
      ['f1', true],
      ['f1b', false],
    ]);
  });

  it('tells a fork titled like its parent apart from it (fork N first), leaving other titles as they are', () => {
    const lineage = [
      s('root', { title: 'What is in this folder?', createdAt: 1 }),
      s('other', { parentSession: 'root', createdAt: 2, title: 'Something else' }),
      s('same', { parentSession: 'root', createdAt: 3, title: 'What is in this folder?' }),
      s('lone', { title: 'What is in this folder?', createdAt: 4 }),
    ];
    const title = (id: string) =>
      displayTitle(
        lineage.find((x) => x.id === id)!,
        undefined,
        lineage,
      );
    expect(title('root')).toBe('What is in this folder?');
    expect(title('other')).toBe('Something else');
    expect(title('same')).toBe('fork 2 · What is in this folder?');
    // Not a fork: two sessions may share a title (only a fork and its parent are told apart).
    expect(title('lone')).toBe('What is in this folder?');
    // A first prompt (no stored title) equal to the parent's title counts too.
    expect(displayTitle(s('p', { parentSession: 'root', createdAt: 5 }), 'What is in this folder?', lineage)).toBe('fork · What is in this folder?');
  });
});

describe('folderHints', () => {
  const titles: Record<string, string> = { a: 'fix sum', b: 'fix sum', c: 'other', d: 'fix sum', e: 'same place', f: 'same place' };
  const titleOf = (id: string): string => titles[id]!;
  it('names the folder of sessions whose titles read alike, with as many path parts as tell them apart', () => {
    const hints = folderHints(
      [
        { id: 'a', cwd: '/work/trial/project' },
        { id: 'b', cwd: '/work/trial/project3' },
        { id: 'c', cwd: '/work/trial/project' },
        { id: 'd', cwd: '/home/me/project' },
        { id: 'e', cwd: '/x/y' },
        { id: 'f', cwd: '/x/y' },
      ],
      titleOf,
    );
    expect(Object.fromEntries(hints)).toEqual({ a: 'trial/project', b: 'trial/project3', d: 'me/project' });
  });
  it('says nothing for unique titles, and copes with Windows paths and a missing folder', () => {
    expect(folderHints([{ id: 'c', cwd: '/p' }], titleOf).size).toBe(0);
    expect(Object.fromEntries(folderHints([{ id: 'a', cwd: 'C:\\code\\app' }, { id: 'b' }], titleOf))).toEqual({ a: 'app', b: 'no folder' });
  });
});
