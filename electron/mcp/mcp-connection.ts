/**
 * One MCP server connection through the official SDK (@modelcontextprotocol/sdk `Client` with the
 * stdio or streamable HTTP transport; spec: https://modelcontextprotocol.io/specification).
 *
 * States: `starting` → `ready` (tools listed) or `failed` (could not start, or broke the protocol);
 * a ready server that exits or drops its connection is `closed`. `disabled` servers never start.
 * Every state change fires {@link McpServerConnection.onDidChange}, with a human-readable `error`
 * and the tail of the server's stderr, so people can see what went wrong.
 *
 * A call never hangs the turn: it ends with the server's answer, the caller's abort (the pipeline's
 * cancel or timeout), or a `ToolError` when the connection closes, the server exits, or it writes
 * something that is not JSON-RPC (the connection is then closed, which fails every call in flight at
 * once). The first call after a ready server broke restarts it; a server that keeps failing to
 * start is tried again at most every {@link RESTART_BACKOFF_MS}.
 *
 * Stdio servers get only a minimal environment (the SDK's default: HOME, PATH, SHELL, TERM, USER,
 * LOGNAME) plus their configured `env`, never Forkline's API keys. The process supervisor that keeps
 * tool processes from outliving Forkline (docs/architecture.md §6) is hooked in by the host.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Emitter, type Event } from '../../shared/event.js';
import { ToolError } from '../tools/tool.js';
import type { McpServerConfig } from './mcp-config.js';

export type McpServerState = 'starting' | 'ready' | 'failed' | 'closed' | 'disabled';

/** Minimum time between two automatic restarts of a broken server, in ms. */
export const RESTART_BACKOFF_MS = 2_000;
/** How long a stdio server may take to exit after its stdin closed, before SIGTERM (ms). */
const CLOSE_GRACE_MS = 500;
/** Bytes of stderr kept for the status view. */
const STDERR_TAIL_BYTES = 4_000;

export interface McpConnectionOptions {
  /** The workspace (default working folder of stdio servers; relative `cwd`s resolve against it). */
  readonly workspace: string;
  /** Client name/version sent in `initialize`. */
  readonly clientInfo?: { readonly name: string; readonly version: string };
  /** Called with the pid of each stdio server process started (for a process supervisor). */
  readonly onProcess?: (pid: number) => void;
  /**
   * Turns the environment of a stdio server into the one it is started with (a process
   * supervisor adds its marker, so the server and its children never outlive Forkline).
   */
  readonly processEnv?: (env: Record<string, string>) => Record<string, string>;
  readonly now?: () => number;
}

export class McpServerConnection {
  private client: Client | undefined;
  private transport: Transport | undefined;
  private starting: Promise<void> | undefined;
  private stateValue: McpServerState;
  private errorValue: string | undefined;
  private toolsValue: readonly Tool[] = [];
  private stderr = '';
  private lastStart = -Infinity;
  private everReady = false;
  /** A ready connection broke since the last start: the next call restarts it at once. */
  private brokeSinceStart = false;
  /** Aborts every call in flight when the connection breaks. */
  private readonly inFlight = new Set<AbortController>();
  private readonly changeEmitter = new Emitter<void>();
  private disposed = false;
  /** Fires on every state, error or tool-list change. */
  readonly onDidChange: Event<void> = this.changeEmitter.event;

  constructor(
    readonly config: McpServerConfig,
    private readonly options: McpConnectionOptions,
  ) {
    this.stateValue = config.disabled ? 'disabled' : 'starting';
  }

  get state(): McpServerState {
    return this.stateValue;
  }
  /** Why the server is not ready (or what it last did wrong). */
  get error(): string | undefined {
    return this.errorValue;
  }
  get tools(): readonly Tool[] {
    return this.toolsValue;
  }
  /** The last few KB the server wrote to stderr (stdio only). */
  get stderrTail(): string {
    return this.stderr;
  }
  /** True once the server was ready at least once (its tools are known). */
  get wasReady(): boolean {
    return this.everReady;
  }

  /** Starts the server (idempotent while a start is running); resolves when ready or failed. */
  start(): Promise<void> {
    if (this.disposed || this.config.disabled) return Promise.resolve();
    if (this.starting) return this.starting;
    this.lastStart = (this.options.now ?? Date.now)();
    this.brokeSinceStart = false;
    this.starting = this.connect().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /** Resolves when the current start settled, or after `timeoutMs`, or when `signal` aborts. */
  async whenSettled(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    const pending = this.starting;
    if (!pending) return;
    await new Promise<void>((done) => {
      const timer = setTimeout(done, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', finish);
        done();
      };
      signal?.addEventListener('abort', finish, { once: true });
      void pending.then(finish, finish);
    });
  }

  private async connect(): Promise<void> {
    this.setState('starting', undefined);
    this.stderr = '';
    const client = new Client(this.options.clientInfo ?? { name: 'forkline', version: '0.1.0' }, {
      capabilities: {},
      listChanged: {
        tools: {
          onChanged: (error, tools) => {
            if (this.client !== client) return;
            if (error) this.errorValue = `could not refresh its tool list: ${error.message}`;
            else if (tools) this.toolsValue = tools;
            this.changeEmitter.fire();
          },
        },
      },
    });
    const missing = this.missingFolder();
    if (missing !== undefined) {
      this.setState('failed', missing);
      return;
    }
    const transport = this.createTransport();
    this.transport = transport;
    client.onerror = (error) => this.onProtocolError(client, error);
    client.onclose = () => this.onClosed(client);
    this.client = client;
    try {
      await client.connect(transport, { timeout: this.config.startupTimeoutMs });
      const pid = transport instanceof StdioClientTransport ? transport.pid : null;
      if (pid !== null) this.options.onProcess?.(pid);
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor !== undefined ? { cursor } : undefined, { timeout: this.config.startupTimeoutMs });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor !== undefined && tools.length < 10_000);
      if (this.client !== client || this.disposed) return;
      this.toolsValue = tools;
      this.everReady = true;
      this.setState('ready', undefined);
    } catch (error) {
      if (this.client !== client) return;
      this.client = undefined;
      this.setState('failed', this.withStderr(`could not start: ${this.describeStartError(error)}`));
      void client.close().catch(() => undefined);
    }
  }

  /** The working folder a stdio server would start in (the workspace, or its configured `cwd`). */
  private workingFolder(): string | undefined {
    const c = this.config;
    if (c.transport !== 'stdio') return undefined;
    return c.cwd !== undefined ? resolve(this.options.workspace, c.cwd) : this.options.workspace;
  }

  /**
   * Why a stdio server cannot start because its working folder is gone (a deleted or moved
   * workspace), else undefined. Checked before spawning: Node reports a missing `cwd` as
   * `spawn COMMAND ENOENT`, which blames the command.
   */
  private missingFolder(): string | undefined {
    const folder = this.workingFolder();
    if (folder === undefined) return undefined;
    let isFolder: boolean;
    try {
      isFolder = statSync(folder).isDirectory();
    } catch {
      isFolder = false;
    }
    if (isFolder) return undefined;
    const configured = this.config.transport === 'stdio' && this.config.cwd !== undefined;
    return configured
      ? `not started: its working folder ${folder} (the server's "cwd") does not exist`
      : `not started: the workspace folder ${folder} no longer exists (it was moved or deleted); sessions there cannot use this server`;
  }

  /** A start failure in words: a command that is not there says so, instead of `spawn X ENOENT`. */
  private describeStartError(error: unknown): string {
    const c = this.config;
    const code = (error as { code?: unknown } | null)?.code;
    if (c.transport === 'stdio' && (code === 'ENOENT' || code === 'EACCES')) {
      const where = /[\\/]/.test(c.command) ? c.command : `"${c.command}" on the PATH`;
      if (code === 'EACCES') return `the command ${where} is not executable (check its permissions)`;
      // The folder was checked just before; a folder deleted in between still reads as ENOENT.
      const gone = this.missingFolder();
      if (gone !== undefined) return gone.replace(/^not started: /, '');
      return `the command ${where} was not found; install it, or give its full path as the server's "command"`;
    }
    return describe(error);
  }

  private createTransport(): Transport {
    const c = this.config;
    if (c.transport === 'http') {
      return new StreamableHTTPClientTransport(new URL(c.url), { requestInit: { headers: { ...c.headers } } });
    }
    const transport = new StdioClientTransport({
      command: c.command,
      args: [...c.args],
      env: this.options.processEnv ? this.options.processEnv({ ...getDefaultEnvironment(), ...c.env }) : { ...getDefaultEnvironment(), ...c.env },
      cwd: this.workingFolder()!,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
    });
    return transport;
  }

  /** A line that is not JSON-RPC (or another transport failure) while connected. */
  private onProtocolError(client: Client, error: Error): void {
    if (this.client !== client) return;
    const malformed = error instanceof SyntaxError || error.name === 'ZodError' || /JSON|Unexpected token|ReadBuffer/i.test(error.message);
    // Streamable HTTP: the response stream of a call broke (the server died or the network dropped);
    // the SDK would otherwise leave the call waiting for an answer that cannot come.
    const dropped = this.config.transport === 'http' && /SSE stream disconnected|reconnect|fetch failed|terminated|ECONNRESET|ECONNREFUSED|socket/i.test(error.message);
    if (!malformed && !dropped) {
      this.errorValue = describe(error);
      this.changeEmitter.fire();
      return;
    }
    // The connection can no longer be trusted: fail every call in flight now and close it.
    this.client = undefined;
    const reason = malformed ? `sent data that is not JSON-RPC (${describe(error)}); the connection was closed` : `the connection to the server broke (${describe(error)})`;
    this.brokeSinceStart = true;
    this.setState(malformed ? 'failed' : 'closed', this.withStderr(reason));
    this.abortInFlight(reason);
    void client.close().catch(() => undefined);
  }

  private onClosed(client: Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    if (this.disposed) return;
    const reason = this.config.transport === 'stdio' ? 'the server process exited or closed its output' : 'the connection to the server closed';
    this.brokeSinceStart = true;
    this.setState('closed', this.withStderr(reason));
    this.abortInFlight(reason);
  }

  private abortInFlight(reason: string): void {
    for (const controller of this.inFlight) controller.abort(new ToolError('TOOL_ERROR', `MCP server "${this.config.name}": ${reason}`));
    this.inFlight.clear();
  }

  /**
   * Calls a tool of this server.
   * @param timeoutMs the SDK's own request deadline (the pipeline's deadline should fire first).
   * @throws ToolError TOOL_ERROR when the server is not running (after one restart attempt), breaks
   *   the connection during the call, or answers with a protocol error; the abort reason when `signal` aborts.
   */
  async callTool(name: string, args: Record<string, unknown>, signal: AbortSignal, timeoutMs: number): Promise<CallToolResult> {
    if (this.config.disabled) throw new ToolError('TOOL_ERROR', `MCP server "${this.config.name}" is disabled in its configuration.`);
    if (!this.client && !this.starting && (this.brokeSinceStart || (this.options.now ?? Date.now)() - this.lastStart >= RESTART_BACKOFF_MS)) void this.start();
    if (this.starting) await this.whenSettled(this.config.startupTimeoutMs, signal);
    if (signal.aborted) throw signal.reason;
    const client = this.client;
    if (!client || this.stateValue !== 'ready') {
      throw new ToolError('TOOL_ERROR', `MCP server "${this.config.name}" is not running (${this.errorValue ?? this.stateValue}). Tell the user; do not retry this tool until they fix the server.`);
    }
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    this.inFlight.add(controller);
    try {
      return (await client.callTool({ name, arguments: args }, undefined, { signal: controller.signal, timeout: timeoutMs })) as CallToolResult;
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (controller.signal.aborted) throw controller.signal.reason;
      if (ToolError.isInstance(error)) throw error;
      throw new ToolError('TOOL_ERROR', `MCP server "${this.config.name}" failed the call: ${describe(error)}`, { cause: error });
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.inFlight.delete(controller);
    }
  }

  private setState(state: McpServerState, error: string | undefined): void {
    this.stateValue = state;
    this.errorValue = error;
    this.changeEmitter.fire();
  }

  private withStderr(reason: string): string {
    const tail = this.stderr.trim().split('\n').slice(-3).join(' | ');
    return tail ? `${reason}; stderr: ${tail.slice(-500)}` : reason;
  }

  /**
   * Sends SIGTERM to the stdio server process now, synchronously (for process exit, when there is
   * no time to close the connection politely). No-op for HTTP servers and exited processes.
   */
  killNow(): void {
    const pid = this.transport instanceof StdioClientTransport ? this.transport.pid : null;
    if (pid === null) return;
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }

  /** Closes the connection (stdio: ends stdin, SIGTERM after 0.5 s, then SIGKILL as the SDK does). */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    const client = this.client;
    this.client = undefined;
    this.abortInFlight('the server was stopped');
    this.changeEmitter.dispose();
    if (!client) return;
    // The SDK ends stdin and waits up to 2 s before SIGTERM; a server that ignores its stdin
    // closing gets SIGTERM after CLOSE_GRACE_MS instead, so shutting down stays quick.
    const timer = setTimeout(() => this.killNow(), CLOSE_GRACE_MS);
    await client.close().catch(() => undefined);
    clearTimeout(timer);
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message.replace(/^MCP error -?\d+: /, '');
  return String(error);
}
