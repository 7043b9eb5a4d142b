/**
 * Settings: the active provider choice (preset, base URL, model, reasoning effort) and the approval
 * policy, persisted as JSON in the data folder; API keys live in a {@link KeyVault} (Electron
 * `safeStorage` in the desktop app, environment variables in CLI / browser mode) and are never
 * written to the settings file or sent to the renderer.
 *
 * The approval policy in the settings file is the UI's (desktop app, browser mode); the CLI passes
 * its own policy as an override (docs/security.md: settings scopes). Overrides apply to this run only and
 * are never written back to the file.
 *
 * A provider's API key is only sent to an endpoint the user configured for it (docs/security.md): the
 * preset's own base URL, or a base URL the user chose (settings file, Settings dialog, CLI flag).
 * A route taken from a session's log ({@link SettingsStore.useForThisRun}) is not such a choice.
 *
 * Size: just over 500 lines because every persisted setting (route, approvals, limits, MCP, prices,
 * budgets, theme, live trace export) is read, validated and written in this one class, so the file
 * format has one owner.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ModelLimitSetting, OtlpSetting, PriceOverrideSetting, ProviderChoice, ProviderPresetView, SessionBudget, SettingsView, ThemeSetting } from '../../shared/api.js';
import { otlpEndpointError } from '../../shared/otlp-endpoint.js';
import { parsePriceOverrides, PriceOverrideError, type PriceOverride } from '../pricing/price-list.js';
import { ForklineError } from '../../shared/errors.js';
import type { ApprovalPolicyName } from '../../shared/events.js';
import type { JsonValue } from '../../shared/json.js';
import { parseMcpServers, type McpServerConfig } from '../mcp/mcp-config.js';
import type { AgentModelConfig } from '../agent/agent.js';
import { limitKey, type ModelLimitValues } from '../llm/model-limits.js';
import { DEFAULT_PROVIDER, PROVIDER_PRESETS, defaultReasoningEffort, dialectOf, modelPreset, providerPreset, resolveApiKey, type ProviderSettings } from '../llm/providers.js';

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
  /** The person's limits per endpoint + model. */
  readonly modelLimits?: readonly ModelLimitSetting[];
  /** User-level MCP servers: the `mcpServers` object of the usual JSON shape, as the user wrote it. */
  readonly mcpServers?: Readonly<Record<string, JsonValue>>;
  /** Workspace MCP files the user trusted: absolute path → sha256 of the trusted bytes. */
  readonly trustedMcpConfigs?: Readonly<Record<string, string>>;
  /** The person's price overrides (docs/providers.md "Prices, overrides and budgets"), in the cli.json `prices` shape. */
  readonly prices?: readonly PriceOverrideSetting[];
  /** Budgets set per session in the app: session id → limits. */
  readonly sessionBudgets?: Readonly<Record<string, SessionBudget>>;
  /**
   * Providers whose key was saved in Settings into a vault that does not survive a restart
   * (browser mode): names only, never a key. Lets the next run say that the key was lost.
   */
  readonly memoryKeys?: readonly string[];
  /** The UI theme the person picked; absent = follow the system. */
  readonly theme?: ThemeSetting;
  /** Live OTLP/HTTP export of running sessions' traces (issue 26), e.g. `http://127.0.0.1:4318`. */
  readonly otlpEndpoint?: string | undefined;
  /** Whether live export includes message content (opt-in; default off). */
  readonly otlpIncludeContent?: boolean | undefined;
}

export interface SettingsStoreOptions {
  /** Settings JSON file; undefined keeps settings in memory only. */
  readonly file?: string;
  readonly vault: KeyVault;
  /** Environment (API key variables). */
  readonly env: { readonly [name: string]: string | undefined };
  /**
   * Overrides on top of the file (CLI flags: --model, --base-url, --approval; `limits` =
   * --context-window / --max-output for whatever model runs, this run only).
   */
  readonly overrides?: { readonly active?: Partial<ProviderChoice>; readonly approvalPolicy?: ApprovalPolicyName; readonly limits?: ModelLimitValues };
  readonly dataDir: string;
}

function defaultChoice(): ProviderChoice {
  const preset = PROVIDER_PRESETS[DEFAULT_PROVIDER];
  return { provider: preset.id, baseUrl: preset.baseUrl, model: preset.defaultModel ?? '' };
}

export class SettingsStore {
  /** What this run uses (file + overrides + run-only route). */
  private settings: PersistedSettings;
  /** What the file holds (and `update` writes): overrides never leak into it. */
  private persisted: PersistedSettings;
  /** Base URLs (normalised) the user configured, per provider, besides the presets' own. */
  private readonly configuredEndpoints = new Map<string, Set<string>>();

  constructor(private readonly options: SettingsStoreOptions) {
    let loaded: PersistedSettings = { version: 1, active: defaultChoice(), approvalPolicy: 'ask' };
    if (options.file && existsSync(options.file)) {
      try {
        const parsed = JSON.parse(readFileSync(options.file, 'utf8')) as Partial<PersistedSettings>;
        loaded = {
          version: 1,
          active: { ...loaded.active, ...parsed.active },
          approvalPolicy: isApprovalPolicy(parsed.approvalPolicy) ? parsed.approvalPolicy : 'ask',
          ...(Array.isArray(parsed.modelLimits) ? { modelLimits: parsed.modelLimits.filter(isLimitSetting) } : {}),
          ...(isRecord(parsed.mcpServers) ? { mcpServers: parsed.mcpServers } : {}),
          ...(isRecord(parsed.trustedMcpConfigs) ? { trustedMcpConfigs: parsed.trustedMcpConfigs as Record<string, string> } : {}),
          ...(Array.isArray(parsed.prices) ? { prices: parsed.prices } : {}),
          ...(isRecord(parsed.sessionBudgets) ? { sessionBudgets: parsed.sessionBudgets as unknown as Record<string, SessionBudget> } : {}),
          ...(parsed.theme === 'light' || parsed.theme === 'dark' || parsed.theme === 'system' ? { theme: parsed.theme } : {}),
          ...(typeof parsed.otlpEndpoint === 'string' && /^https?:\/\//i.test(parsed.otlpEndpoint) ? { otlpEndpoint: parsed.otlpEndpoint } : {}),
          ...(parsed.otlpIncludeContent === true ? { otlpIncludeContent: true } : {}),
          ...(Array.isArray(parsed.memoryKeys) ? { memoryKeys: parsed.memoryKeys.filter((p): p is string => typeof p === 'string') } : {}),
        };
      } catch (error) {
        console.error(`settings file ${options.file} is unreadable; using defaults (the file is left as it is):`, error);
      }
    }
    this.persisted = loaded;
    this.noteConfigured(loaded.active);
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
    this.noteConfigured(this.settings.active);
  }

  private noteConfigured(choice: ProviderChoice): void {
    const url = normalizeEndpoint(choice.baseUrl);
    if (url === '') return;
    let set = this.configuredEndpoints.get(choice.provider);
    if (!set) this.configuredEndpoints.set(choice.provider, (set = new Set()));
    set.add(url);
  }

  /** Whether `provider`'s key may be sent to `baseUrl`: the preset's endpoint or one the user configured. */
  keyMaySendTo(provider: string, baseUrl: string): boolean {
    const url = normalizeEndpoint(baseUrl);
    const preset = providerPreset(provider);
    return (preset.id === provider && normalizeEndpoint(preset.baseUrl) === url) || (this.configuredEndpoints.get(provider)?.has(url) ?? false);
  }

  /**
   * When the active provider has a key that is withheld because the active endpoint was not
   * configured for it, the reason in words (else undefined).
   */
  keyWithheldReason(): string | undefined {
    const { provider, baseUrl } = this.settings.active;
    if (this.apiKey(provider) === undefined || this.keyMaySendTo(provider, baseUrl)) return undefined;
    const preset = providerPreset(provider);
    return `the ${preset.label} key (${preset.apiKeyEnv ?? 'from Settings'}) is only sent to ${preset.baseUrl || 'an endpoint you configured'} or an endpoint you configure for it, not to ${baseUrl}`;
  }

  get active(): ProviderChoice {
    return this.settings.active;
  }

  /** The live OTLP export endpoint from settings.json (issue 26), when one is set. */
  otlpEndpoint(): string | undefined {
    return this.settings.otlpEndpoint;
  }

  /** Live OTLP export as set in Settings: the endpoint (absent = off) and whether message content goes too. */
  otlpSetting(): OtlpSetting {
    return { ...(this.settings.otlpEndpoint !== undefined ? { endpoint: this.settings.otlpEndpoint } : {}), includeContent: this.settings.otlpIncludeContent === true };
  }

  get approvalPolicy(): ApprovalPolicyName {
    return this.settings.approvalPolicy;
  }

  /** The API key for a provider: the vault first, then the preset's environment variable. */
  apiKey(provider: string): string | undefined {
    return resolveApiKey({ provider, ...(this.options.vault.get(provider) ? { apiKey: this.options.vault.get(provider)! } : {}) }, this.options.env);
  }

  /** Every API key known (vault and environment, all providers): tools must never see these values. */
  secretValues(): string[] {
    const ids = new Set([...Object.keys(PROVIDER_PRESETS), this.settings.active.provider]);
    const keys = new Set<string>();
    for (const id of ids) {
      const key = this.apiKey(id);
      if (key !== undefined && key !== '') keys.add(key);
    }
    return [...keys];
  }

  /**
   * Everything a model client needs for the active choice, or for `choice` (e.g. a fan-out
   * variant's route); the key only for an endpoint configured for it.
   */
  providerSettings(choice: ProviderChoice = this.settings.active): ProviderSettings {
    const { provider, baseUrl, model, reasoningEffort } = choice;
    const key = this.keyMaySendTo(provider, baseUrl) ? this.apiKey(provider) : undefined;
    return { provider, baseUrl, model, ...(key ? { apiKey: key } : {}), ...(reasoningEffort ? { reasoningEffort } : {}) };
  }

  /**
   * The person's limits for an endpoint + model: this run's CLI flags (--context-window,
   * --max-output) first, then the saved per-model entry.
   */
  limitSetting(baseUrl: string, model: string): ModelLimitValues {
    const key = limitKey(baseUrl, model);
    const saved = (this.settings.modelLimits ?? []).find((m) => limitKey(m.baseUrl, m.model) === key);
    const run = this.options.overrides?.limits;
    const contextWindow = run?.contextWindow ?? saved?.contextWindow;
    const maxOutputTokens = run?.maxOutputTokens ?? saved?.maxOutputTokens;
    return { ...(contextWindow !== undefined ? { contextWindow } : {}), ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}) };
  }

  /**
   * The call configuration from settings alone: route, effort, the person's window (source
   * `setting`) or the preset's (source `preset`), and `maxTokens` when the person set a max output.
   * The host adds published and learned limits (see `resolveModelLimits`).
   */
  modelConfig(choice?: ProviderChoice): AgentModelConfig {
    const settings = this.providerSettings(choice);
    const effort = settings.reasoningEffort ?? defaultReasoningEffort(settings);
    const setting = this.limitSetting(settings.baseUrl, settings.model);
    const preset = modelPreset(settings.provider, settings.model);
    const contextWindow = setting.contextWindow ?? preset?.contextWindow;
    const maxOutputTokens = setting.maxOutputTokens ?? preset?.maxOutputTokens;
    return {
      provider: settings.provider,
      model: settings.model,
      baseUrl: settings.baseUrl,
      ...(effort !== undefined && dialectOf(settings).thinking !== 'none' ? { reasoningEffort: effort } : {}),
      ...(setting.maxOutputTokens !== undefined ? { maxTokens: setting.maxOutputTokens } : {}),
      ...(contextWindow !== undefined ? { contextWindow, contextSource: setting.contextWindow !== undefined ? ('setting' as const) : ('preset' as const) } : {}),
      ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    };
  }

  /**
   * Applies a partial update and persists it.
   * @throws ForklineError INVALID_SETTINGS for an empty model or base URL; McpConfigError
   *   MCP_CONFIG_INVALID for `mcpServers` that are not a valid server map.
   */
  update(patch: {
    active?: ProviderChoice;
    approvalPolicy?: ApprovalPolicyName;
    modelLimits?: ModelLimitSetting;
    mcpServers?: Readonly<Record<string, JsonValue>>;
    prices?: readonly PriceOverrideSetting[];
    theme?: ThemeSetting;
    otlp?: OtlpSetting;
  }): void {
    if (patch.mcpServers !== undefined) parseMcpServers({ mcpServers: patch.mcpServers }, 'settings', 'Settings', this.options.env);
    const otlpError = patch.otlp?.endpoint !== undefined ? otlpEndpointError(patch.otlp.endpoint) : undefined;
    if (otlpError !== undefined) throw new ForklineError('INVALID_SETTINGS', otlpError);
    const otlpEndpoint = patch.otlp?.endpoint?.trim();
    if (patch.prices !== undefined) checkPrices(patch.prices);
    let modelLimits: readonly ModelLimitSetting[] | undefined;
    if (patch.modelLimits) {
      const entry = patch.modelLimits;
      const key = limitKey(entry.baseUrl, entry.model);
      const others = (this.persisted.modelLimits ?? []).filter((m) => limitKey(m.baseUrl, m.model) !== key);
      const keep = entry.contextWindow !== undefined || entry.maxOutputTokens !== undefined;
      modelLimits = keep ? [...others, { ...entry, baseUrl: entry.baseUrl.replace(/\/+$/, '') }] : others;
    }
    const changes: Partial<PersistedSettings> = {
      ...(patch.active ? { active: patch.active } : {}),
      ...(patch.approvalPolicy ? { approvalPolicy: patch.approvalPolicy } : {}),
      ...(patch.mcpServers !== undefined ? { mcpServers: patch.mcpServers } : {}),
      ...(patch.theme !== undefined ? { theme: patch.theme } : {}),
      ...(modelLimits !== undefined ? { modelLimits } : {}),
      ...(patch.prices !== undefined ? { prices: patch.prices.map((p) => stripUndefined(p) as PriceOverrideSetting) } : {}),
      ...(patch.otlp !== undefined ? { otlpEndpoint: otlpEndpoint === '' ? undefined : otlpEndpoint, otlpIncludeContent: patch.otlp.includeContent === true ? true : undefined } : {}),
    };
    const next: PersistedSettings = { ...this.settings, ...changes };
    if (next.active.model.trim() === '' || next.active.baseUrl.trim() === '') {
      throw new ForklineError('INVALID_SETTINGS', 'the model and the base URL must not be empty');
    }
    this.settings = next;
    this.persisted = { ...this.persisted, ...changes };
    if (patch.active) this.noteConfigured(patch.active);
    this.save();
  }

  /**
   * The price overrides set in Settings, parsed for the price book. A file edited into an invalid
   * shape gives none (reported on stderr) rather than stopping the app.
   */
  priceOverrides(): readonly PriceOverride[] {
    const raw = this.settings.prices;
    if (this.parsedPrices && this.parsedPrices.raw === raw) return this.parsedPrices.parsed;
    let parsed: PriceOverride[] = [];
    try {
      parsed = parsePriceOverrides(raw ?? [], 'Settings prices');
    } catch (error) {
      console.error(`settings: ${(error as Error).message}; the Settings price overrides are not used`);
    }
    this.parsedPrices = { raw, parsed };
    return parsed;
  }
  /** The last parse of the Settings prices (same array: same result, so the price book is kept). */
  private parsedPrices: { raw: readonly PriceOverrideSetting[] | undefined; parsed: readonly PriceOverride[] } | undefined;

  /** The budget set for a session in the app, if any. */
  sessionBudget(sessionId: string): SessionBudget | undefined {
    return this.settings.sessionBudgets?.[sessionId];
  }

  /**
   * Sets or (with neither limit) clears a session's budget, and saves it.
   * @throws ForklineError INVALID_BUDGET for a limit that is not a positive number.
   */
  setSessionBudget(sessionId: string, budget: SessionBudget): void {
    for (const [field, value] of Object.entries(budget) as [keyof SessionBudget, number | undefined][]) {
      if (value !== undefined && !(Number.isFinite(value) && value > 0))
        throw new ForklineError(
          'INVALID_BUDGET',
          `${field === 'sessionUsd' ? 'the USD budget' : field === 'turnUsd' ? 'the per-turn USD budget' : 'the token budget'} must be a number above 0 (got ${value})`,
        );
    }
    const others = Object.fromEntries(Object.entries(this.persisted.sessionBudgets ?? {}).filter(([id]) => id !== sessionId));
    const clean = stripUndefined(budget) as SessionBudget;
    const sessionBudgets = Object.keys(clean).length > 0 ? { ...others, [sessionId]: clean } : others;
    this.settings = { ...this.settings, sessionBudgets };
    this.persisted = { ...this.persisted, sessionBudgets };
    this.save();
  }

  /** Writes what the file holds (never this run's overrides). */
  private save(): void {
    if (this.options.file) writeJsonAtomic(this.options.file, this.persisted, 0o600);
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
    const trustedMcpConfigs = { ...this.persisted.trustedMcpConfigs, [file]: sha256 };
    this.settings = { ...this.settings, trustedMcpConfigs };
    this.persisted = { ...this.persisted, trustedMcpConfigs };
    this.save();
  }

  /**
   * Uses `active` for the rest of this run without saving it (e.g. `forkline resume` reusing a
   * session's route). This is not a user's choice of endpoint: a key is only sent there when the
   * endpoint is configured for it anyway ({@link keyMaySendTo}).
   */
  useForThisRun(active: ProviderChoice): void {
    this.settings = { ...this.settings, active };
  }

  /**
   * Stores (or with '', forgets) a provider's key. With a vault that does not survive a restart,
   * the provider's name (never the key) is noted in the settings file, so the next run can say the
   * key was lost ({@link lostKeys}).
   */
  setApiKey(provider: string, key: string): void {
    this.options.vault.set(provider, key === '' ? undefined : key);
    if (this.options.vault.persistent) return;
    const others = (this.persisted.memoryKeys ?? []).filter((p) => p !== provider);
    const memoryKeys = key === '' ? others : [...others, provider];
    this.settings = { ...this.settings, memoryKeys };
    this.persisted = { ...this.persisted, memoryKeys };
    this.save();
  }

  /**
   * Providers whose key was saved in Settings in an earlier run of a memory-only vault and is gone
   * now (no key in the vault or the environment).
   */
  lostKeys(): string[] {
    if (this.options.vault.persistent) return [];
    return (this.persisted.memoryKeys ?? []).filter((p) => this.apiKey(p) === undefined);
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
    return {
      presets,
      active: this.settings.active,
      approvalPolicy: this.settings.approvalPolicy,
      keys,
      dataDir: this.options.dataDir,
      modelLimits: this.settings.modelLimits ?? [],
      mcpServers: this.settings.mcpServers ?? {},
      prices: this.settings.prices ?? [],
      keysPersist: this.options.vault.persistent,
      lostKeys: this.lostKeys(),
      ...(this.settings.theme ? { theme: this.settings.theme } : {}),
      otlp: this.otlpSetting(),
    };
  }
}

/**
 * Checks price overrides as Settings sends them.
 * @throws ForklineError INVALID_PRICE_OVERRIDE naming the field (`prices[0].inputMtok: must not be negative`).
 */
function checkPrices(prices: readonly PriceOverrideSetting[]): void {
  try {
    parsePriceOverrides(prices);
  } catch (error) {
    if (error instanceof PriceOverrideError) throw new ForklineError('INVALID_PRICE_OVERRIDE', error.message);
    throw error;
  }
}

function isApprovalPolicy(value: unknown): value is ApprovalPolicyName {
  return value === 'ask' || value === 'allow' || value === 'deny';
}

function isRecord(value: unknown): value is Record<string, JsonValue> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** normalizeEndpoint's answers (a pure function of the string, asked on every model request: URL parsing was ~3% of a step). */
const normalizedEndpoints = new Map<string, string>();
const MAX_NORMALIZED_ENDPOINTS = 256;

/** A base URL in a comparable form: scheme and host lower-cased, default port and trailing slashes dropped. */
export function normalizeEndpoint(baseUrl: string): string {
  const known = normalizedEndpoints.get(baseUrl);
  if (known !== undefined) return known;
  const trimmed = baseUrl.trim();
  let normalized: string;
  try {
    const url = new URL(trimmed);
    normalized = `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}${url.search}`;
  } catch {
    normalized = trimmed.replace(/\/+$/, '');
  }
  if (normalizedEndpoints.size >= MAX_NORMALIZED_ENDPOINTS) normalizedEndpoints.clear();
  normalizedEndpoints.set(baseUrl, normalized);
  return normalized;
}

function isLimitSetting(value: unknown): value is ModelLimitSetting {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  const tokens = (n: unknown) => n === undefined || (typeof n === 'number' && Number.isSafeInteger(n) && n > 0);
  return typeof v['baseUrl'] === 'string' && typeof v['model'] === 'string' && tokens(v['contextWindow']) && tokens(v['maxOutputTokens']);
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
