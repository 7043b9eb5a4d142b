/**
 * The composition root for plain-Node entry points (CLI, browser mode) and the Electron main
 * process: picks the data folder, opens the SQLite store, and wires repository, settings, model
 * client factory, built-in tools and the Host. Nothing here is a global: callers own the result and
 * must `close()` it.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ProviderChoice } from '../../shared/api.js';
import type { ApprovalPolicyName } from '../../shared/events.js';
import type { ApprovalAnswerer } from '../agent/approval-gate.js';
import type { InvariantMode } from '../session/session.js';
import { OpenAiCompatibleClient } from '../llm/openai-compatible-client.js';
import type { ModelClient } from '../llm/model-client.js';
import type { ProviderSettings } from '../llm/providers.js';
import { McpConfigError, parseMcpConfigText, type McpServerConfig } from '../mcp/mcp-config.js';
import { McpHub } from '../mcp/mcp-hub.js';
import { SessionRepository } from '../store/session-repository.js';
import { SqliteSessionStore } from '../store/sqlite-session-store.js';
import type { SessionStore } from '../store/session-store.js';
import { createBuiltinTools } from '../tools/builtin-tools.js';
import { WorkspaceCheckpoints } from '../workspace/checkpoints.js';
import { Host } from './host.js';
export { defaultDataDir } from './data-dir.js';
import { MemoryKeyVault, SettingsStore, type KeyVault } from './settings-store.js';

export interface RuntimeOptions {
  /** Where sessions.db, settings.json and spilled outputs live (see {@link defaultDataDir}). */
  readonly dataDir: string;
  readonly env?: { readonly [name: string]: string | undefined };
  readonly overrides?: { readonly active?: Partial<ProviderChoice>; readonly approvalPolicy?: ApprovalPolicyName };
  readonly keyVault?: KeyVault;
  readonly chooseWorkspace?: () => Promise<string | null>;
  readonly approvalAnswerer?: ApprovalAnswerer;
  /** Replaces the real model client (tests drive the scripted server through the real one instead). */
  readonly createModelClient?: (settings: ProviderSettings) => ModelClient;
  /** Replaces the SQLite store (e.g. an Electron-ABI build through `nativeBinding`). */
  readonly store?: SessionStore;
  readonly invariants?: InvariantMode;
  readonly writeWindowMs?: number;
  /** `--mcp-config` files: MCP servers for every workspace, over Settings and workspace files. */
  readonly mcpConfigFiles?: readonly string[];
}

export interface Runtime {
  readonly dataDir: string;
  readonly store: SessionStore;
  readonly repository: SessionRepository;
  readonly settings: SettingsStore;
  readonly host: Host;
  /** Stops agents, persists every live session, closes the store. */
  close(): Promise<void>;
}

/**
 * Opens the data folder and wires everything.
 * @throws McpConfigError MCP_CONFIG_INVALID when an `mcpConfigFiles` entry is missing or malformed
 *   (checked before anything is opened).
 */
export function createRuntime(options: RuntimeOptions): Runtime {
  const env = options.env ?? process.env;
  const cliServers = (options.mcpConfigFiles ?? []).flatMap((file) => readMcpConfigFile(file, env));
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const store = options.store ?? new SqliteSessionStore(join(options.dataDir, 'sessions.db'));
  const invariants: InvariantMode = options.invariants ?? (env['FORKLINE_INVARIANTS'] === 'off' ? 'off' : 'enforce');
  const repository = new SessionRepository(store, {
    newId: randomUUID,
    invariants,
    ...(options.writeWindowMs !== undefined ? { writeWindowMs: options.writeWindowMs } : {}),
  });
  const settings = new SettingsStore({
    file: join(options.dataDir, 'settings.json'),
    vault: options.keyVault ?? new MemoryKeyVault(),
    env,
    dataDir: options.dataDir,
    ...(options.overrides ? { overrides: options.overrides } : {}),
  });
  const spillDir = join(options.dataDir, 'spill');
  const mcp = new McpHub({
    settingsServers: () => settings.mcpServers(),
    cliServers,
    isTrusted: (file, sha256) => settings.isMcpConfigTrusted(file, sha256),
    env,
  });
  const maxRetries = env['FORKLINE_MAX_RETRIES'] !== undefined ? Number(env['FORKLINE_MAX_RETRIES']) : undefined;
  const host = new Host({
    repository,
    settings,
    createModelClient: options.createModelClient ?? ((s) => new OpenAiCompatibleClient(s)),
    createTools: () => createBuiltinTools(),
    newId: randomUUID,
    userInstructionsFile: join(options.dataDir, 'AGENTS.md'),
    mcp,
    ...(env['FORKLINE_CHECKPOINTS'] === 'off' ? {} : { checkpoints: new WorkspaceCheckpoints(join(options.dataDir, 'checkpoints.git')), worktreesDir: join(options.dataDir, 'worktrees') }),
    ...(maxRetries !== undefined && Number.isInteger(maxRetries) && maxRetries >= 0 ? { retryPolicy: { maxRetries } } : {}),
    ...(options.chooseWorkspace ? { chooseWorkspace: options.chooseWorkspace } : {}),
    ...(options.approvalAnswerer ? { approvalAnswerer: options.approvalAnswerer } : {}),
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
  // No MCP server outlives this process, however it exits (the process supervisor of DESIGN §6 may
  // take this over).
  const killMcp = () => mcp.killNow();
  process.on('exit', killMcp);
  let closed = false;
  return {
    dataDir: options.dataDir,
    store,
    repository,
    settings,
    host,
    close: async () => {
      if (closed) return;
      closed = true;
      await host.close();
      process.off('exit', killMcp);
      await repository.releaseAll();
      repository.dispose();
      store.close();
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
    throw new McpConfigError(code === 'ENOENT' ? `no MCP configuration file ${file}` : code === 'EISDIR' ? `${file} is a folder, not an MCP configuration file` : `cannot read ${file}: ${(error as Error).message}`);
  }
  return parseMcpConfigText(text, 'cli', path, env);
}
