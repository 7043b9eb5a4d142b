/**
 * MCP server configuration (docs/architecture.md §8b): the `{"mcpServers": {name: server}}` JSON shape that Claude
 * Desktop, Claude Code, Cursor and Goose read, from three places — the Settings (user level), the
 * workspace's `.forkline/mcp.json`, and `--mcp-config FILE` on the command line. A later source
 * overrides a server of the same name from an earlier one (settings < workspace < command line).
 *
 * A server is either
 * - stdio: `{"command": "npx", "args": [...], "env": {...}, "cwd": "..."}` (`"type": "stdio"` optional), or
 * - streamable HTTP: `{"url": "https://…/mcp", "headers": {...}}` (`"type": "http"` or `"streamable-http"`).
 * The legacy HTTP+SSE transport (`"type": "sse"`) is refused with a clear message.
 *
 * Forkline's own keys (ignored by other clients): `approval` (`ask` | `allow` | `deny`, for every
 * tool of the server), `toolApproval` (`{"tool": "allow"}`), `timeoutMs` (per call, default
 * 120,000), `startupTimeoutMs` (default 15,000), `disabled`.
 *
 * `${VAR}` and `${VAR:-default}` in `command`, `args`, `env`, `cwd`, `url` and `headers` are read
 * from the environment (so secrets stay out of the file), as Claude Code does.
 */
import { z } from 'zod';
import type { ApprovalPolicyName } from '../../shared/events.js';
import { ForklineError } from '../../shared/errors.js';

/** Where a server's configuration came from. */
export type McpConfigSource = 'settings' | 'workspace' | 'cli';

interface McpServerCommon {
  readonly name: string;
  readonly source: McpConfigSource;
  /** The file it was read from (absent for Settings). */
  readonly file?: string;
  /** Policy for every tool of this server; absent = the session's policy (default ask). */
  readonly approval?: ApprovalPolicyName;
  /** Per tool (the server's own tool name) policy, over `approval`. */
  readonly toolApproval: Readonly<Record<string, ApprovalPolicyName>>;
  /** Deadline of one call in ms. */
  readonly timeoutMs: number;
  /** How long the first request waits for the server to start, in ms. */
  readonly startupTimeoutMs: number;
  readonly disabled: boolean;
}

export interface McpStdioServerConfig extends McpServerCommon {
  readonly transport: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Working folder of the server process (default: the workspace). */
  readonly cwd?: string;
}

export interface McpHttpServerConfig extends McpServerCommon {
  readonly transport: 'http';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

export const DEFAULT_MCP_CALL_TIMEOUT_MS = 120_000;
export const DEFAULT_MCP_STARTUP_TIMEOUT_MS = 15_000;

/** A configuration file or value that is not a usable `mcpServers` object. */
export class McpConfigError extends ForklineError {
  constructor(message: string) {
    super('MCP_CONFIG_INVALID', message);
    this.name = 'McpConfigError';
  }
}

const policy = z.enum(['ask', 'allow', 'deny']);
const stringMap = z.record(z.string(), z.string());
const serverSchema = z
  .object({
    type: z.enum(['stdio', 'http', 'streamable-http', 'streamableHttp', 'sse']).optional(),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    env: stringMap.optional(),
    cwd: z.string().optional(),
    url: z.string().min(1).optional(),
    headers: stringMap.optional(),
    approval: policy.optional(),
    toolApproval: z.record(z.string(), policy).optional(),
    timeoutMs: z.number().int().min(1).max(86_400_000).optional(),
    startupTimeoutMs: z.number().int().min(1).max(600_000).optional(),
    disabled: z.boolean().optional(),
  })
  .loose();
const fileSchema = z.object({ mcpServers: z.record(z.string(), z.unknown()) }).loose();

/** Server names become part of tool names: letters, digits, `_` and `-`. */
const SERVER_NAME = /^[A-Za-z0-9_-]{1,40}$/;

/**
 * Parses an `{"mcpServers": …}` value.
 * @param where names the source in messages (a file path, or "Settings").
 * @throws McpConfigError naming the server and field for anything malformed.
 */
export function parseMcpServers(value: unknown, source: McpConfigSource, where: string, env: Readonly<Record<string, string | undefined>> = process.env, file?: string): McpServerConfig[] {
  const top = fileSchema.safeParse(value);
  if (!top.success) throw new McpConfigError(`${where}: expected a JSON object with an "mcpServers" object, e.g. {"mcpServers": {"files": {"command": "npx", "args": ["-y", "some-mcp-server"]}}}`);
  const out: McpServerConfig[] = [];
  for (const [name, raw] of Object.entries(top.data.mcpServers)) {
    if (!SERVER_NAME.test(name)) throw new McpConfigError(`${where}: server name ${JSON.stringify(name)} must be 1–40 letters, digits, "_" or "-" (it becomes part of tool names)`);
    const parsed = serverSchema.safeParse(raw);
    if (!parsed.success) throw new McpConfigError(`${where}: server "${name}": ${z.prettifyError(parsed.error).replace(/\n/g, '; ')}`);
    const s = parsed.data;
    const expand = (text: string, field: string) => expandEnv(text, env, `${where}: server "${name}" ${field}`);
    const common = {
      name,
      source,
      ...(file !== undefined ? { file } : {}),
      ...(s.approval !== undefined ? { approval: s.approval } : {}),
      toolApproval: s.toolApproval ?? {},
      timeoutMs: s.timeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS,
      startupTimeoutMs: s.startupTimeoutMs ?? DEFAULT_MCP_STARTUP_TIMEOUT_MS,
      disabled: s.disabled === true,
    };
    if (s.type === 'sse')
      throw new McpConfigError(`${where}: server "${name}" uses the legacy HTTP+SSE transport, which Forkline does not support; use the server's streamable HTTP endpoint ("type": "http")`);
    const isHttp = s.type === 'http' || s.type === 'streamable-http' || s.type === 'streamableHttp' || (s.type === undefined && s.url !== undefined && s.command === undefined);
    if (isHttp) {
      if (s.url === undefined) throw new McpConfigError(`${where}: server "${name}" needs a "url"`);
      const url = expand(s.url, 'url');
      let parsedUrl: URL;
      try {
        parsedUrl = new URL(url);
      } catch {
        throw new McpConfigError(`${where}: server "${name}" has an invalid url ${JSON.stringify(url)}`);
      }
      if (parsedUrl.protocol !== 'http:' && parsedUrl.protocol !== 'https:') throw new McpConfigError(`${where}: server "${name}" url must be http:// or https:// (got ${parsedUrl.protocol})`);
      out.push({ ...common, transport: 'http', url, headers: mapValues(s.headers ?? {}, (v, k) => expand(v, `header ${k}`)) });
      continue;
    }
    if (s.command === undefined) throw new McpConfigError(`${where}: server "${name}" needs a "command" (stdio) or a "url" (streamable HTTP)`);
    out.push({
      ...common,
      transport: 'stdio',
      command: expand(s.command, 'command'),
      args: (s.args ?? []).map((a, i) => expand(a, `args[${i}]`)),
      env: mapValues(s.env ?? {}, (v, k) => expand(v, `env ${k}`)),
      ...(s.cwd !== undefined ? { cwd: expand(s.cwd, 'cwd') } : {}),
    });
  }
  return out;
}

/**
 * Parses a configuration file's text.
 * @throws McpConfigError for invalid JSON or shape (with the file path).
 */
export function parseMcpConfigText(text: string, source: McpConfigSource, file: string, env?: Readonly<Record<string, string | undefined>>): McpServerConfig[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new McpConfigError(`${file} is not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  return parseMcpServers(value, source, file, env, file);
}

/** Later lists override servers of the same name in earlier ones; order of first appearance is kept. */
export function mergeMcpServers(...lists: readonly (readonly McpServerConfig[])[]): McpServerConfig[] {
  const byName = new Map<string, McpServerConfig>();
  for (const list of lists) for (const server of list) byName.set(server.name, server);
  return [...byName.values()];
}

/** The effective approval policy of a tool: per tool, then per server; undefined = the session's. */
export function toolApprovalOf(server: McpServerConfig, tool: string): ApprovalPolicyName | undefined {
  return server.toolApproval[tool] ?? server.approval;
}

/** How the server is started, for people (env and header values are not shown: they may be secrets). */
export function describeTarget(server: McpServerConfig): string {
  if (server.transport === 'http') return server.url;
  return [server.command, ...server.args].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
}

function expandEnv(text: string, env: Readonly<Record<string, string | undefined>>, where: string): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
    if (fallback !== undefined) return fallback;
    throw new McpConfigError(`${where} uses \${${name}}, which is not set in the environment`);
  });
}

function mapValues(record: Readonly<Record<string, string>>, f: (value: string, key: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, f(v, k)]));
}
