/**
 * The MCP servers of every open workspace (docs/architecture.md §8b). Sessions of one workspace share its server
 * connections: a workspace's servers start when its first agent starts ({@link McpHub.acquire}) and
 * stop when its last one stops.
 *
 * A workspace's servers are: the user-level servers from Settings, then the workspace's
 * `.forkline/mcp.json` (only when trusted — it names programs to run, and a cloned repository must not
 * start them by being opened), then the `--mcp-config` files of the command line; a later source
 * overrides a server of the same name. Trust is per file path and exact content (sha256): a changed
 * file must be trusted again.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { McpServerStatus } from '../../shared/api.js';
import { Emitter, type Event } from '../../shared/event.js';
import type { ForeignToolDefinition } from '../tools/registry.js';
import { describeTarget, mergeMcpServers, parseMcpConfigText, toolApprovalOf, type McpServerConfig } from './mcp-config.js';
import { McpServerConnection } from './mcp-connection.js';
import { mcpToolName, toolsOfServer } from './mcp-tools.js';

/** The workspace configuration file, relative to the workspace. */
export const WORKSPACE_MCP_FILE = join('.forkline', 'mcp.json');

export interface McpHubOptions {
  /** The user-level servers (Settings), read again on {@link McpHub.reload}. */
  readonly settingsServers: () => readonly McpServerConfig[];
  /** Servers from `--mcp-config` files (already parsed). */
  readonly cliServers?: readonly McpServerConfig[];
  /** Whether the workspace file `file` with content hash `sha256` is trusted. */
  readonly isTrusted: (file: string, sha256: string) => boolean;
  /** Environment for `${VAR}` expansion in workspace files. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Called with each stdio server's pid (a process supervisor). */
  readonly onProcess?: (pid: number) => void;
  /** Environment of each stdio server as it is started (a process supervisor adds its marker). */
  readonly processEnv?: (env: Record<string, string>) => Record<string, string>;
}

/** What the workspace file said, when it could not be used. */
interface WorkspaceFileIssue {
  readonly file: string;
  readonly sha256?: string;
  readonly servers: readonly McpServerConfig[];
  readonly error?: string;
}

/** The servers of one workspace. */
export class McpWorkspaceServers {
  private readonly connections = new Map<string, McpServerConnection>();
  private issue: WorkspaceFileIssue | undefined;
  private problems: string[] = [];
  private readonly changeEmitter = new Emitter<void>();
  readonly onDidChange: Event<void> = this.changeEmitter.event;

  constructor(
    readonly cwd: string,
    private readonly options: McpHubOptions,
  ) {
    this.reload();
  }

  /** Re-reads every source; starts new servers, restarts changed ones, stops removed ones. */
  reload(): void {
    const wanted = this.configs();
    const names = new Set(wanted.map((s) => s.name));
    for (const [name, connection] of this.connections) {
      if (!names.has(name)) {
        this.connections.delete(name);
        void connection.dispose();
      }
    }
    for (const config of wanted) {
      const existing = this.connections.get(config.name);
      if (existing && JSON.stringify(existing.config) === JSON.stringify(config)) continue;
      if (existing) void existing.dispose();
      const connection = new McpServerConnection(config, {
        workspace: this.cwd,
        ...(this.options.onProcess ? { onProcess: this.options.onProcess } : {}),
        ...(this.options.processEnv ? { processEnv: this.options.processEnv } : {}),
      });
      connection.onDidChange(() => this.changeEmitter.fire());
      this.connections.set(config.name, connection);
      void connection.start();
    }
    this.changeEmitter.fire();
  }

  private configs(): McpServerConfig[] {
    this.issue = undefined;
    const file = join(this.cwd, WORKSPACE_MCP_FILE);
    let workspace: McpServerConfig[] = [];
    let bytes: Buffer | undefined;
    try {
      bytes = readFileSync(file);
    } catch {
      bytes = undefined;
    }
    if (bytes !== undefined) {
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      try {
        const servers = parseMcpConfigText(bytes.toString('utf8'), 'workspace', file, this.options.env);
        if (this.options.isTrusted(file, sha256)) workspace = servers;
        else this.issue = { file, sha256, servers };
      } catch (error) {
        this.issue = { file, servers: [], error: error instanceof Error ? error.message : String(error) };
      }
    }
    return mergeMcpServers(this.options.settingsServers(), workspace, this.options.cliServers ?? []);
  }

  /**
   * Waits until every server that is starting is ready or failed — each at most its
   * `startupTimeoutMs` — or `signal` aborts. A server that hangs on startup never blocks a turn longer.
   */
  async ready(signal?: AbortSignal): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.whenSettled(c.config.startupTimeoutMs, signal)));
  }

  /** The tools of every ready server, as foreign tools for the registry. */
  toolDefinitions(): ForeignToolDefinition[] {
    return [...this.connections.values()].flatMap((c) => toolsOfServer(c));
  }

  /** Records why some tools were left out of the registry (shown with the statuses). */
  noteProblems(problems: readonly string[]): void {
    if (problems.join('\n') === this.problems.join('\n')) return;
    this.problems = [...problems];
    this.changeEmitter.fire();
  }

  statuses(): McpServerStatus[] {
    const out: McpServerStatus[] = [];
    for (const c of this.connections.values()) {
      const cfg = c.config;
      const problems = this.problems.filter((p) => p.includes(`mcp__${cfg.name}__`));
      const error = [c.error, ...problems].filter((x): x is string => x !== undefined).join('; ');
      out.push({
        name: cfg.name,
        source: cfg.source,
        ...(cfg.file !== undefined ? { file: cfg.file } : {}),
        workspace: this.cwd,
        transport: cfg.transport,
        target: describeTarget(cfg),
        state: c.state,
        ...(error ? { error } : {}),
        tools: c.tools.map((t) => {
          const approval = toolApprovalOf(cfg, t.name);
          return { name: t.name, modelName: mcpToolName(cfg.name, t.name), ...(t.description ? { description: t.description } : {}), ...(approval ? { approval } : {}) };
        }),
      });
    }
    const issue = this.issue;
    if (issue) {
      if (issue.error !== undefined) {
        out.push({ name: '(workspace file)', source: 'workspace', file: issue.file, workspace: this.cwd, transport: 'stdio', target: issue.file, state: 'failed', error: issue.error, tools: [] });
      }
      for (const s of issue.servers) {
        if (this.connections.has(s.name)) continue;
        out.push({
          name: s.name,
          source: 'workspace',
          file: issue.file,
          workspace: this.cwd,
          transport: s.transport,
          target: describeTarget(s),
          state: 'untrusted',
          error: `not started: ${issue.file} is not trusted yet (trust it in Settings, or pass it with --mcp-config)`,
          tools: [],
          ...(issue.sha256 !== undefined ? { sha256: issue.sha256 } : {}),
        });
      }
    }
    return out;
  }

  /** Signals every stdio server process at once (process exit). */
  killNow(): void {
    for (const c of this.connections.values()) c.killNow();
  }

  async dispose(): Promise<void> {
    const all = [...this.connections.values()];
    this.connections.clear();
    this.changeEmitter.dispose();
    await Promise.all(all.map((c) => c.dispose()));
  }
}

/** A workspace's servers held by one agent; release when the agent stops. */
export interface McpLease {
  readonly servers: McpWorkspaceServers;
  release(): Promise<void>;
}

export class McpHub {
  private readonly workspaces = new Map<string, { servers: McpWorkspaceServers; users: number }>();
  private readonly changeEmitter = new Emitter<void>();
  /** Fires when any server of any workspace changed. */
  readonly onDidChange: Event<void> = this.changeEmitter.event;
  private closed = false;

  constructor(private readonly options: McpHubOptions) {}

  /** The servers of `cwd` (started on first use). */
  acquire(cwd: string): McpLease {
    let entry = this.workspaces.get(cwd);
    if (!entry) {
      const servers = new McpWorkspaceServers(cwd, this.options);
      servers.onDidChange(() => this.changeEmitter.fire());
      entry = { servers, users: 0 };
      this.workspaces.set(cwd, entry);
      this.changeEmitter.fire();
    }
    entry.users++;
    const held = entry;
    let released = false;
    return {
      servers: held.servers,
      release: async () => {
        if (released) return;
        released = true;
        held.users--;
        if (held.users > 0 || this.workspaces.get(cwd) !== held) return;
        this.workspaces.delete(cwd);
        await held.servers.dispose();
        if (!this.closed) this.changeEmitter.fire();
      },
    };
  }

  /** Applies changed configuration (Settings, trust) to every open workspace. */
  reload(): void {
    for (const { servers } of this.workspaces.values()) servers.reload();
    this.changeEmitter.fire();
  }

  /** Every open workspace's servers, then Settings servers no open workspace runs (`idle`). */
  statuses(): McpServerStatus[] {
    const out = [...this.workspaces.values()].flatMap(({ servers }) => servers.statuses());
    const running = new Set(out.filter((s) => s.source === 'settings').map((s) => s.name));
    for (const s of this.options.settingsServers()) {
      if (running.has(s.name)) continue;
      out.push({ name: s.name, source: 'settings', transport: s.transport, target: describeTarget(s), state: s.disabled ? 'disabled' : 'idle', tools: [] });
    }
    return out;
  }

  /**
   * Signals every stdio server of every workspace synchronously: for `process.on('exit')`, so no
   * server outlives Forkline even when it exits without closing the runtime (a second Ctrl+C).
   */
  killNow(): void {
    for (const { servers } of this.workspaces.values()) servers.killNow();
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.workspaces.values()];
    this.workspaces.clear();
    await Promise.all(all.map(({ servers }) => servers.dispose()));
    this.changeEmitter.dispose();
  }
}
