/**
 * Settings → MCP rows (issue 25): statuses per workspace fold into one group per server
 * configuration, with the worst state, counts per state and every place.
 */
import { describe, expect, it } from 'vitest';
import type { McpServerStatus } from '../../../shared/api.js';
import { countsLabel, groupMcpServers, placesLabel } from '../../../renderer/views/settings/mcp-server-groups.js';

const status = (over: Partial<McpServerStatus>): McpServerStatus => ({ name: 'calc', source: 'settings', transport: 'stdio', target: 'node calc.mjs', state: 'ready', tools: [], ...over });

describe('groupMcpServers', () => {
  it('one group per configured server across workspaces, worst state first, tools from any place', () => {
    const groups = groupMcpServers([
      status({ workspace: '/a' }),
      status({ workspace: '/b', tools: [{ name: 'add', modelName: 'mcp__calc__add' }] }),
      status({ workspace: '/c', state: 'failed', error: 'not started: the workspace folder /c no longer exists' }),
      status({ name: 'repo', source: 'workspace', file: '/a/.forkline/mcp.json', workspace: '/a', state: 'untrusted', sha256: 'x' }),
      status({ name: 'repo', source: 'workspace', file: '/b/.forkline/mcp.json', workspace: '/b', state: 'untrusted', sha256: 'y' }),
    ]);
    expect(groups.map((g) => [g.name, g.places.length, g.state])).toEqual([
      ['calc', 3, 'failed'],
      ['repo', 1, 'untrusted'],
      ['repo', 1, 'untrusted'],
    ]);
    const calc = groups[0]!;
    expect(calc.tools.map((t) => t.name)).toEqual(['add']);
    expect(countsLabel(calc)).toBe('failed in 1 · ready in 2');
    expect(placesLabel(calc)).toBe('in 3 workspaces (one process each)');
    expect(placesLabel(groups[1]!)).toBe('in /a');
  });

  it('a different command line is a different row; places that agree have no counts', () => {
    const groups = groupMcpServers([status({ workspace: '/a' }), status({ workspace: '/b' }), status({ workspace: '/c', source: 'cli', target: 'node other.mjs' })]);
    expect(groups).toHaveLength(2);
    expect(countsLabel(groups[0]!)).toBe('');
    expect(groupMcpServers([status({ state: 'idle' })])[0]!.places).toEqual([{ state: 'idle' }]);
  });
});
