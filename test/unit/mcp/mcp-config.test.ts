import { describe, expect, it } from 'vitest';
import { describeTarget, mergeMcpServers, parseMcpConfigText, parseMcpServers, toolApprovalOf } from '../../../electron/mcp/mcp-config.js';
import { callResultToOutput, mcpToolName } from '../../../electron/mcp/mcp-tools.js';

describe('MCP configuration', () => {
  it('reads stdio and streamable HTTP servers in the usual mcpServers shape, with Forkline options', () => {
    const servers = parseMcpServers(
      {
        mcpServers: {
          files: { command: 'npx', args: ['-y', '@scope/files', '--root', '${ROOT:-/tmp}'], env: { TOKEN: '${TOKEN}' }, approval: 'allow', toolApproval: { delete: 'ask' } },
          web: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${TOKEN}' }, timeoutMs: 5000 },
          plain: { url: 'http://127.0.0.1:9000/mcp' },
          off: { command: 'x', disabled: true },
        },
        other: 'keys are ignored',
      },
      'settings',
      'Settings',
      { TOKEN: 't0k' },
    );
    expect(servers.map((s) => [s.name, s.transport, s.source])).toEqual([
      ['files', 'stdio', 'settings'],
      ['web', 'http', 'settings'],
      ['plain', 'http', 'settings'],
      ['off', 'stdio', 'settings'],
    ]);
    const files = servers[0]!;
    expect(files.transport === 'stdio' && files.args).toEqual(['-y', '@scope/files', '--root', '/tmp']);
    expect(files.transport === 'stdio' && files.env).toEqual({ TOKEN: 't0k' });
    expect(toolApprovalOf(files, 'read')).toBe('allow');
    expect(toolApprovalOf(files, 'delete')).toBe('ask');
    expect(toolApprovalOf(servers[1]!, 'x')).toBeUndefined();
    expect(servers[1]!.transport === 'http' && servers[1]!.headers).toEqual({ Authorization: 'Bearer t0k' });
    expect(servers[1]!.timeoutMs).toBe(5000);
    expect(servers[2]!.timeoutMs).toBe(120_000);
    expect(servers[3]!.disabled).toBe(true);
    // Secrets in env and headers are never shown.
    expect(describeTarget(files)).toBe('npx -y @scope/files --root /tmp');
    expect(describeTarget(servers[1]!)).toBe('https://example.com/mcp');
  });

  it('refuses what it cannot use, naming the file, the server and the field', () => {
    const bad =
      (value: unknown, env: Record<string, string> = {}) =>
      () =>
        parseMcpServers(value, 'cli', 'mcp.json', env);
    expect(bad({ servers: {} })).toThrow(/mcp\.json: expected a JSON object with an "mcpServers" object/);
    expect(bad({ mcpServers: { 'a b': { command: 'x' } } })).toThrow(/server name "a b" must be/);
    expect(bad({ mcpServers: { a: {} } })).toThrow(/server "a" needs a "command" \(stdio\) or a "url"/);
    expect(bad({ mcpServers: { a: { command: 'x', args: 'not-a-list' } } })).toThrow(/server "a": .*args/);
    expect(bad({ mcpServers: { a: { type: 'sse', url: 'http://x/sse' } } })).toThrow(/legacy HTTP\+SSE transport/);
    expect(bad({ mcpServers: { a: { url: 'ftp://x' } } })).toThrow(/must be http:\/\/ or https:\/\//);
    expect(bad({ mcpServers: { a: { command: 'x', env: { K: '${MISSING}' } } } })).toThrow(/env K uses \$\{MISSING\}, which is not set/);
    expect(bad({ mcpServers: { a: { command: 'x', approval: 'sometimes' } } })).toThrow(/server "a"/);
    expect(() => parseMcpConfigText('{"mcpServers": {', 'cli', '/tmp/m.json')).toThrow(/\/tmp\/m\.json is not valid JSON/);
    try {
      parseMcpConfigText('[]', 'cli', '/tmp/m.json');
    } catch (error) {
      expect((error as { code?: string }).code).toBe('MCP_CONFIG_INVALID');
    }
  });

  it('a later source overrides a server of the same name', () => {
    const settings = parseMcpServers({ mcpServers: { a: { command: 'one' }, b: { command: 'two' } } }, 'settings', 'S');
    const cli = parseMcpServers({ mcpServers: { a: { url: 'http://127.0.0.1:1/mcp' } } }, 'cli', 'c.json');
    expect(mergeMcpServers(settings, cli).map((s) => [s.name, s.source, s.transport])).toEqual([
      ['a', 'cli', 'http'],
      ['b', 'settings', 'stdio'],
    ]);
  });
});

describe('MCP tools', () => {
  it('namespaces names per server within 64 safe characters', () => {
    expect(mcpToolName('files', 'read_file')).toBe('mcp__files__read_file');
    const odd = mcpToolName('files', 'read.file/v2');
    expect(odd).toMatch(/^mcp__files__read_file_v2_[0-9a-f]{6}$/);
    expect(odd).not.toBe(mcpToolName('files', 'read_file_v2'));
    const long = mcpToolName('a-very-long-server-name-here', 'x'.repeat(80));
    expect(long.length).toBeLessThanOrEqual(64);
    expect(long).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('turns call results into text the model reads', () => {
    const out = callResultToOutput(
      {
        content: [
          { type: 'text', text: 'line one' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'resource', resource: { uri: 'file:///a.txt', text: 'file text' } },
          { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAAA', mimeType: 'application/octet-stream' } },
          { type: 'resource_link', uri: 'file:///c', name: 'c' },
          { type: 'text', text: 'bad \uD800 surrogate' },
        ],
      },
      's',
      't',
    );
    expect(out.content.split('\n')).toEqual([
      'line one',
      '[image image/png, 3 bytes — not shown]',
      'file text',
      '[resource file:///b.bin (application/octet-stream) — binary, not shown]',
      '[resource link c: file:///c]',
      'bad \uFFFD surrogate',
    ]);
    expect(out.isError).toBe(false);
    expect(out.meta).toEqual({ mcpServer: 's', mcpTool: 't', contentTypes: ['text', 'image', 'resource', 'resource', 'resource_link', 'text'] });
    expect(callResultToOutput({ content: [], structuredContent: { n: 1 } }, 's', 't').content).toBe('{"n":1}');
    expect(callResultToOutput({ content: [], isError: true }, 's', 't')).toMatchObject({ content: 'The tool failed without a message.', isError: true });
  });
});
