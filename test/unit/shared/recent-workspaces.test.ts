import { describe, expect, it } from 'vitest';
import type { SessionSummary } from '../../../shared/api.js';
import { recentWorkspaces } from '../../../shared/recent-workspaces.js';

const s = (id: string, cwd: string | undefined, updatedAt: number): SessionSummary => ({ id, createdAt: 0, updatedAt, eventCount: 1, status: 'idle', ...(cwd !== undefined ? { cwd } : {}) });

describe('recentWorkspaces', () => {
  it('lists distinct folders by their latest activity, newest first, without the data folder', () => {
    const list = [s('a', '/home/me/old', 10), s('b', '/home/me/proj', 20), s('c', '/home/me/old', 30), s('d', '/data/forkline/worktrees/x', 99), s('e', undefined, 50), s('f', '/data/forkline', 98)];
    expect(recentWorkspaces(list, { excludeUnder: '/data/forkline/' })).toEqual(['/home/me/old', '/home/me/proj']);
    expect(recentWorkspaces(list, { limit: 1 })).toEqual(['/data/forkline/worktrees/x']);
    expect(recentWorkspaces([])).toEqual([]);
  });

  it('never offers the folder an imported log names (it is untrusted and may not exist here)', () => {
    const imported: SessionSummary = { ...s('i', '/tmp/from-someone-else', 100), origin: { kind: 'imported', format: 'claude-code', importedAt: 1 } };
    const forkOfImported = s('j', '/home/me/chosen-here', 90);
    expect(recentWorkspaces([imported, forkOfImported, s('k', '/home/me/proj', 10)])).toEqual(['/home/me/chosen-here', '/home/me/proj']);
  });
});
