/**
 * Settings: the active provider choice (preset, base URL, model, reasoning effort) and the approval
 * policy, persisted as JSON in the data folder; API keys live in a {@link KeyVault} (Electron
 * `safeStorage` in the desktop app, environment variables in CLI / browser mode) and are never
 * written to the settings file or sent to the renderer.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ProviderChoice, ProviderPresetView, SettingsView } from '../../shared/api.js';
import { ForklineError } from '../../shared/errors.js';
import type { ApprovalPolicyName } from '../../shared/events.js';
import type { JsonValue } from '../../shared/json.js';
import { parseMcpServers, type McpServerConfig } from '../mcp/mcp-config.js';
import type { AgentModelConfig } from '../agent/agent.js';
import {
  DEFAULT_PROVIDER,
  PROVIDER_PRESETS,
  defaultReasoningEffort,
  dialectOf,
  modelLimits,
  providerPreset,
  resolveApiKey,
  type ProviderSettings,
} from '../llm/providers.js';

/** Where API keys are kept. */
export interface KeyVault {
  get(provider: string): string | undefined;
  /** Stores (or with undefined, forgets) a key. */
  set(provider: string, key: string | undefined): void;
  /** True when keys survive a restart. */
  readonly persistent: boolean;
}

/** Keys held in memory for this run only (CLI / browser mode: keys normally come from env vars). */
export class MemoryKeyVault implements KeyVault {
  private readonly keys = new Map<string, string>();
  readonly persistent = false;
  get(provider: string): string | undefined {
    return this.keys.get(provider);
  }
  set(provider: string, key: string | undefined): void {
    if (key === undefined || key === '') this.keys.delete(provider);
    else this.keys.set(provider, key);
  }
}

/** Encryption functions, e.g. Electron `safeStorage.encryptString` / `decryptString`. */
export interface StringCipher {
  encrypt(plain: string): Buffer;
  decrypt(encrypted: Buffer): string;
}

/** Keys encrypted with an OS-backed cipher (Electron safeStorage) in a JSON file (mode 0600). */
export class EncryptedFileKeyVault implements KeyVault {
  readonly persistent = true;
  private cache: Record<string, string> | undefined;
  constructor(
    private readonly file: string,
    private readonly cipher: StringCipher,
  ) {}
  private load(): Record<string, string> {
    if (this.cache) return this.cache;
    this.cache = existsSync(this.file) ? (JSON.parse(readFileSync(this.file, 'utf8')) as Record<string, string>) : {};
    return this.cache;
  }
  get(provider: string): string | undefined {
    const stored = this.load()[provider];
    return stored === undefined ? undefined : this.cipher.decrypt(Buffer.from(stored, 'base64'));
  }
  set(provider: string, key: string | undefined): void {
    const all = { ...this.load() };
    if (key === undefined || key === '') delete all[provider];
    else all[provider] = this.cipher.encrypt(key).toString('base64');
    writeJsonAtomic(this.file, all, 0o600);
    this.cache = all;
  }
}

interface PersistedSettings {
  readonly version: 1;
  readonly active: ProviderChoice;
  readonly approvalPolicy: ApprovalPolicyName;
  /** User-level MCP servers: the `mcpServers` object of the usual JSON shape, as the user wrote it. */
  readonly mcpServers?: Readonly<Record<string, JsonValue>>;
  /** Workspace MCP files the user trusted: absolute path → sha256 of the trusted bytes. */
  readonly trustedMcpConfigs?: Readonly<Record<string, string>>;
}

export interface SettingsStoreOptions {
  /** Settings JSON file; undefined keeps settings in memory only. */
  readonly file?: string;
  readonly vault: KeyVault;
  /** Environment (API key variables). */
  readonly env: { readonly [name: string]: string | undefined };
  /** Overrides on top of the file (CLI flags: --model, --base-url, --approval). */
  readonly overrides?: { readonly active?: Partial<ProviderChoice>; readonly approvalPolicy?: ApprovalPolicyName };
  readonly dataDir: string;
}

function defaultChoice(): ProviderChoice {
  const preset = PROVIDER_PRESETS[DEFAULT_PROVIDER];
  return { provider: preset.id, baseUrl: preset.baseUrl, model: preset.defaultModel ?? '' };
}

export class SettingsStore {
  private settings: PersistedSettings;

  constructor(private readonly options: SettingsStoreOptions) {
    let loaded: PersistedSettings = { version: 1, active: defaultChoice(), approvalPolicy: 'ask' };
    if (options.file && existsSync(options.file)) {
      try {
        const parsed = JSON.parse(readFileSync(options.file, 'utf8')) as Partial<PersistedSettings>;
        loaded = {
          version: 1,
          active: { ...loaded.active, ...parsed.active },
          approvalPolicy: parsed.approvalPolicy ?? 'ask',
          ...(isRecord(parsed.mcpServers) ? { mcpServers: parsed.mcpServers } : {}),
          ...(isRecord(parsed.trustedMcpConfigs) ? { trustedMcpConfigs: parsed.trustedMcpConfigs as Record<string, string> } : {}),
        };
      } catch (error) {
        console.error(`settings file ${options.file} is unreadable; using defaults (the file is left as it is):`, error);
      }
    }
    const over = options.overrides;
    if (over?.active?.provider !== undefined && over.active.provider !== loaded.active.provider) {
      const preset = providerPreset(over.active.provider);
      loaded = { ...loaded, active: { provider: over.active.provider, baseUrl: preset.baseUrl, model: preset.defaultModel ?? '' } };
    }
    this.settings = {
      ...loaded,
      active: { ...loaded.active, ...stripUndefined(over?.active ?? {}) },
      approvalPolicy: over?.approvalPolicy ?? loaded.approvalPolicy,
    };
  }

  get active(): ProviderChoice {
    return this.settings.active;
  }

  get approvalPolicy(): ApprovalPolicyName {
    return this.settings.approvalPolicy;
  }

  /** The API key for a provider: the vault first, then the preset's environment variable. */
  apiKey(provider: string): string | undefined {
    return resolveApiKey({ provider, ...(this.options.vault.get(provider) ? { apiKey: this.options.vault.get(provider)! } : {}) }, this.options.env);
  }

  /** Everything a model client needs for the active choice. */
  providerSettings(): ProviderSettings {
    const { provider, baseUrl, model, reasoningEffort } = this.settings.active;
    const key = this.apiKey(provider);
    return { provider, baseUrl, model, ...(key ? { apiKey: key } : {}), ...(reasoningEffort ? { reasoningEffort } : {}) };
  }

  /** The call configuration the agent logs in `request/header`. */
  modelConfig(): AgentModelConfig {
    const settings = this.providerSettings();
    const effort = settings.reasoningEffort ?? defaultReasoningEffort(settings);
    const limits = modelLimits(settings);
    return {
      provider: settings.provider,
      model: settings.model,
      baseUrl: settings.baseUrl,
      ...(effort !== undefined && dialectOf(settings).thinking !== 'none' ? { reasoningEffort: effort } : {}),
      ...(limits.contextWindow !== undefined ? { contextWindow: limits.contextWindow } : {}),
    };
  }

  /**
   * Applies a partial update and persists it.
   * @throws ForklineError INVALID_SETTINGS for an empty model or base URL; McpConfigError
   *   MCP_CONFIG_INVALID for `mcpServers` that are not a valid server map.
   */
  update(patch: { active?: ProviderChoice; approvalPolicy?: ApprovalPolicyName; mcpServers?: Readonly<Record<string, JsonValue>> }): void {
    if (patch.mcpServers !== undefined) parseMcpServers({ mcpServers: patch.mcpServers }, 'settings', 'Settings', this.options.env);
    const next: PersistedSettings = {
      ...this.settings,
      ...(patch.active ? { active: patch.active } : {}),
      ...(patch.approvalPolicy ? { approvalPolicy: patch.approvalPolicy } : {}),
      ...(patch.mcpServers !== undefined ? { mcpServers: patch.mcpServers } : {}),
    };
    if (next.active.model.trim() === '' || next.active.baseUrl.trim() === '') {
      throw new ForklineError('INVALID_SETTINGS', 'the model and the base URL must not be empty');
    }
    this.settings = next;
    this.save();
  }

  private save(): void {
    if (this.options.file) writeJsonAtomic(this.options.file, this.settings, 0o600);
  }

  /**
   * The user-level MCP servers. A settings file edited into an invalid shape gives none (reported
   * once on stderr) rather than stopping the app.
   */
  mcpServers(): McpServerConfig[] {
    const raw = this.settings.mcpServers;
    if (raw === undefined) return [];
    try {
      return parseMcpServers({ mcpServers: raw }, 'settings', `Settings (${this.options.file ?? 'in memory'})`, this.options.env);
    } catch (error) {
      if (!this.reportedMcpError) console.error(`forkline: ${error instanceof Error ? error.message : String(error)}; no user-level MCP servers are started`);
      this.reportedMcpError = true;
      return [];
    }
  }
  private reportedMcpError = false;

  /** Whether the workspace MCP file `file` with exactly these bytes (`sha256`) was trusted. */
  isMcpConfigTrusted(file: string, sha256: string): boolean {
    return this.settings.trustedMcpConfigs?.[file] === sha256;
  }

  /** Trusts a workspace MCP file with this content hash (and persists that). */
  trustMcpConfig(file: string, sha256: string): void {
    this.settings = { ...this.settings, trustedMcpConfigs: { ...this.settings.trustedMcpConfigs, [file]: sha256 } };
    this.save();
  }

  /** Uses `active` for the rest of this run without saving it (e.g. `forkline resume` reusing a session's route). */
  useForThisRun(active: ProviderChoice): void {
    this.settings = { ...this.settings, active };
  }

  setApiKey(provider: string, key: string): void {
    this.options.vault.set(provider, key === '' ? undefined : key);
  }

  view(): SettingsView {
    const presets: ProviderPresetView[] = Object.values(PROVIDER_PRESETS).map((p) => ({
      id: p.id,
      label: p.label,
      baseUrl: p.baseUrl,
      models: p.models.map((m) => ({ id: m.id, contextWindow: m.contextWindow, maxOutputTokens: m.maxOutputTokens })),
      ...(p.apiKeyEnv ? { apiKeyEnv: p.apiKeyEnv } : {}),
      needsKey: p.requiresApiKey,
      reasoningEfforts: [...p.dialect.reasoningEfforts],
    }));
    const keys: Record<string, boolean> = {};
    for (const p of presets) keys[p.id] = this.apiKey(p.id) !== undefined;
    return { presets, active: this.settings.active, approvalPolicy: this.settings.approvalPolicy, keys, dataDir: this.options.dataDir, mcpServers: this.settings.mcpServers ?? {} };
  }
}

function isRecord(value: unknown): value is Record<string, JsonValue> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function writeJsonAtomic(file: string, value: unknown, mode: number): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(value, null, 2) + '\n', { mode });
  renameSync(tmp, file);
}
