/**
 * The composition root for plain-Node entry points (CLI, browser mode) and the Electron main
 * process: picks the data folder, opens the SQLite store, and wires repository, settings, model
 * client factory, built-in tools and the Host. Nothing here is a global: callers own the result and
 * must `close()` it.
 */
import { LiveTraceSwitch } from '../telemetry/live-trace-switch.js';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { prepareDataFolder } from './data-folder.js';
import type { ProviderChoice } from '../../shared/api.js';
import type { ApprovalPolicyName, CancelCause } from '../../shared/events.js';
import type { ApprovalAnswerer } from '../agent/approval-gate.js';
import type { InvariantMode } from '../session/session.js';
import { OpenAiCompatibleClient } from '../llm/openai-compatible-client.js';
import type { ModelClient } from '../llm/model-client.js';
import type { ProviderSettings } from '../llm/providers.js';
import type { ModelLimitValues } from '../llm/model-limits.js';
import { McpConfigError, parseMcpConfigText, type McpServerConfig } from '../mcp/mcp-config.js';
import { McpHub } from '../mcp/mcp-hub.js';
import { SessionRepository } from '../store/session-repository.js';
import { SqliteSessionStore } from '../store/sqlite-session-store.js';
import type { SessionStore } from '../store/session-store.js';
import { createBuiltinTools } from '../tools/builtin-tools.js';
import { ProcessSupervisor } from '../tools/process-supervisor.js';
import { secretValuesOf } from '../tools/tool-environment.js';
import { WorkspaceCheckpoints } from '../workspace/checkpoints.js';
import { spendGuardFactory, type PricingOptions } from '../pricing/spend.js';
import { Host } from './host.js';
import { HostConnection } from './host-connection.js';
import { ModelLimitStore } from './model-limit-store.js';
import { TeamService } from './services/team-service.js';
export { defaultDataDir } from './data-dir.js';
import { MemoryKeyVault, SettingsStore, type KeyVault } from './settings-store.js';

export interface RuntimeOptions {
  /** Where sessions.db, settings.json and spilled outputs live (see {@link defaultDataDir}). */
  readonly dataDir: string;
  readonly env?: { readonly [name: string]: string | undefined };
  readonly overrides?: { readonly active?: Partial<ProviderChoice>; readonly approvalPolicy?: ApprovalPolicyName; readonly limits?: ModelLimitValues };
  readonly keyVault?: KeyVault;
  readonly chooseWorkspace?: () => Promise<string | null>;
  readonly approvalAnswerer?: ApprovalAnswerer;
  /** Replaces the real model client (tests drive the scripted server through the real one instead). */
  readonly createModelClient?: (settings: ProviderSettings) => ModelClient;
  /** Replaces the SQLite store (e.g. an Electron-ABI build through `nativeBinding`). */
  readonly store?: SessionStore;
  readonly invariants?: InvariantMode;
  readonly writeWindowMs?: number;
  /** See HostOptions.storeWatchMs (tests shorten it). */
  readonly storeWatchMs?: number;
  /** `--mcp-config` files: MCP servers for every workspace, over Settings and workspace files. */
  readonly mcpConfigFiles?: readonly string[];
  /** Price overrides and budgets (docs/providers.md "Prices, overrides and budgets"); without them, prices come from the bundled list and nothing is limited. */
  readonly pricing?: PricingOptions;
  /** Live OTLP export endpoint (issue 26; the CLI's cli.json `otlpEndpoint`); wins over settings.json's. */
  readonly otlpEndpoint?: string;
  /** The team store service: `false` turns it off (the CLI's one-shot commands); numbers tune the publisher's timings (ms). */
  readonly team?: false | { readonly pollMs?: number; readonly retryMs?: number; readonly maxRetryMs?: number };
}

export interface Runtime {
  readonly dataDir: string;
  readonly store: SessionStore;
  readonly repository: SessionRepository;
  readonly settings: SettingsStore;
  readonly host: Host<HostConnection>;
  /** Supervises tool processes: none outlives this process, whatever ends it. */
  readonly supervisor: ProcessSupervisor;
  /**
   * Stops agents (a running turn is cancelled with `cause`, default `disposed`), persists every
   * live session, ends every supervised tool process, closes the store.
   */
  close(cause?: CancelCause): Promise<void>;
}

/**
 * Opens everything in `options.dataDir` (made user-only first, see data-folder.ts) and wires it.
 * @throws McpConfigError MCP_CONFIG_INVALID when an `mcpConfigFiles` entry is missing or malformed
 *   (checked before anything is opened); ForklineError DATA_DIR_UNSAFE; StoreError
 *   STORE_UNREADABLE / SCHEMA_UNSUPPORTED for a bad `sessions.db`.
 */
export function createRuntime(options: RuntimeOptions): Runtime {
  const env = options.env ?? process.env;
  const cliServers = (options.mcpConfigFiles ?? []).flatMap((file) => readMcpConfigFile(file, env));
  prepareDataFolder(options.dataDir);
  const store = options.store ?? new SqliteSessionStore(join(options.dataDir, 'sessions.db'));
  const invariants: InvariantMode = options.invariants ?? (env['FORKLINE_INVARIANTS'] === 'off' ? 'off' : 'enforce');
  const repository = new SessionRepository(store, {
    newId: randomUUID,
    invariants,
    // Tests and development (FORKLINE_INVARIANTS=enforce) fail on a lone surrogate; production
    // replaces it with U+FFFD and notes it in the process log.
    illFormedText: env['FORKLINE_INVARIANTS'] === 'enforce' ? 'reject' : 'repair',
    ...(options.writeWindowMs !== undefined ? { writeWindowMs: options.writeWindowMs } : {}),
    // Concurrent sessions (a fan-out's branches) share one commit per event-loop turn.
    groupCommit: true,
  });
  // What an earlier import left: a half-written session if its process died, search documents for later.
  repository.removeAbandonedImports();
  repository.indexSearchInBackground();
  const settings = new SettingsStore({
    file: join(options.dataDir, 'settings.json'),
    vault: options.keyVault ?? new MemoryKeyVault(),
    env,
    dataDir: options.dataDir,
    ...(options.overrides ? { overrides: options.overrides } : {}),
  });
  const spillDir = join(options.dataDir, 'spill');
  const supervisor = new ProcessSupervisor();
  // Tool processes inherit this process's environment minus secrets (tool-environment.ts); these
  // values are also removed from every tool result, under whatever name they appear.
  // The environments' secrets are read once: nothing in this process changes its environment after
  // start, and reading process.env whole for every tool result was ~1.5% of a fan-out step's main thread.
  const envSecrets = [...secretValuesOf(env), ...secretValuesOf(process.env)];
  const toolSecrets = (): string[] => [...new Set([...settings.secretValues(), ...envSecrets])];
  const mcp = new McpHub({
    settingsServers: () => settings.mcpServers(),
    cliServers,
    isTrusted: (file, sha256) => settings.isMcpConfigTrusted(file, sha256),
    env,
    // Stdio servers run under the process supervisor: none of them (or their children) outlives
    // Forkline, whatever ends it.
    processEnv: (base) => definedValues(supervisor.env(base)),
    onProcess: (pid) => void supervisor.adopt(pid),
  });
  // Live OTLP export (issue 26): spans of running sessions streamed through a bounded queue. The
  // SDK loads (import()) only once an endpoint is set. The CLI's cli.json endpoint wins for its
  // run; otherwise Settings (changed live through updateSettings), else FORKLINE_OTLP_ENDPOINT.
  const switchboard = new LiveTraceSwitch({ lineage: (id) => repository.get(id)?.header });
  const fixedEndpoint = options.otlpEndpoint;
  const applyOtlp = (): void => {
    const setting = settings.otlpSetting();
    const endpoint = fixedEndpoint ?? setting.endpoint ?? env['FORKLINE_OTLP_ENDPOINT'];
    switchboard.configure({ ...(endpoint !== undefined ? { endpoint } : {}), includeContent: setting.includeContent === true });
  };
  applyOtlp();
  const liveTraces = { watch: (session: Parameters<LiveTraceSwitch['watch']>[0]) => switchboard.watch(session), reconfigure: applyOtlp, whenReady: () => switchboard.whenReady() };
  // The team store (issue 27): the Team section and the background publisher of shared workspaces.
  const hostRef: { current?: Host<HostConnection> } = {};
  const team =
    options.team === false ? undefined : new TeamService({ repository, dataDir: options.dataDir, env, onChange: () => hostRef.current?.broadcast({ kind: 'team/changed' }), ...(options.team ?? {}) });
  const maxRetries = env['FORKLINE_MAX_RETRIES'] !== undefined ? Number(env['FORKLINE_MAX_RETRIES']) : undefined;
  const host = new Host<HostConnection>({
    newConnection: (h, push) => new HostConnection(h, push),
    repository,
    settings,
    liveTraces,
    ...(team ? { team } : {}),
    createModelClient: options.createModelClient ?? ((s) => new OpenAiCompatibleClient(s)),
    createTools: (toolEnv) => createBuiltinTools({ bash: { secrets: toolSecrets, ...(toolEnv ? { environment: () => ({ ...process.env, ...toolEnv }) } : {}) } }),
    toolSecrets,
    newId: randomUUID,
    limitStore: new ModelLimitStore(join(options.dataDir, 'model-limits.json')),
    userInstructionsFile: join(options.dataDir, 'AGENTS.md'),
    playgroundDir: join(options.dataDir, 'playground'),
    mcp,
    ...(env['FORKLINE_CHECKPOINTS'] === 'off' ? {} : { checkpoints: new WorkspaceCheckpoints(join(options.dataDir, 'checkpoints.git')), worktreesDir: join(options.dataDir, 'worktrees') }),
    ...(maxRetries !== undefined && Number.isInteger(maxRetries) && maxRetries >= 0 ? { retryPolicy: { maxRetries } } : {}),
    ...(options.chooseWorkspace ? { chooseWorkspace: options.chooseWorkspace } : {}),
    ...(options.storeWatchMs !== undefined ? { storeWatchMs: options.storeWatchMs } : {}),
    ...(options.approvalAnswerer ? { approvalAnswerer: options.approvalAnswerer } : {}),
    supervisor,
    spendGuard: spendGuardFactory(options.pricing, { overrides: () => settings.priceOverrides() }),
    spill: (sessionId, callId, text) => {
      try {
        const dir = join(spillDir, sessionId.replace(/[^A-Za-z0-9._-]/g, '_'));
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        const file = join(dir, `${callId.replace(/[^A-Za-z0-9._-]/g, '_')}.txt`);
        writeFileSync(file, text, { mode: 0o600 });
        return file;
      } catch {
        return undefined;
      }
    },
  });
  hostRef.current = host;
  // A clean exit also ends MCP servers directly (the supervisor's watcher covers every other end).
  const killMcp = () => mcp.killNow();
  process.on('exit', killMcp);
  let closed = false;
  return {
    dataDir: options.dataDir,
    store,
    repository,
    settings,
    host,
    supervisor,
    close: async (cause?: CancelCause) => {
      if (closed) return;
      closed = true;
      await host.close(cause);
      await team?.close();
      await switchboard.shutdown();
      process.off('exit', killMcp);
      await repository.releaseAll();
      repository.dispose();
      store.close();
      await supervisor.close();
    },
  };
}

/** Reads a `--mcp-config` file. @throws McpConfigError when it is missing or malformed. */
function readMcpConfigFile(file: string, env: { readonly [name: string]: string | undefined }): McpServerConfig[] {
  const path = resolve(file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new McpConfigError(
      code === 'ENOENT' ? `no MCP configuration file ${file}` : code === 'EISDIR' ? `${file} is a folder, not an MCP configuration file` : `cannot read ${file}: ${(error as Error).message}`,
    );
  }
  return parseMcpConfigText(text, 'cli', path, env);
}

/** An environment without unset entries (what a spawn API typed `Record<string, string>` takes). */
function definedValues(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value;
  return out;
}
