/**
 * Provider presets as data (docs/architecture.md §5: model ids, context window and max output are
 * configuration, not constants), the settings one client is built from, and Ollama detection.
 *
 * Sources:
 * - DeepSeek: base URL, models, 1M context and 384K max output from "Models & Pricing"
 *   (https://api-docs.deepseek.com/quick_start/pricing); `deepseek-chat` / `deepseek-reasoner` are the
 *   legacy aliases of the V4 Flash model in non-thinking / thinking mode; thinking switch and effort
 *   values from "Thinking Mode" (https://api-docs.deepseek.com/guides/thinking_mode).
 * - OpenAI: base URL and `reasoning_effort` values `minimal|low|medium|high`; reasoning models take
 *   `max_completion_tokens` instead of the deprecated `max_tokens`
 *   (https://platform.openai.com/docs/api-reference/chat/create).
 * - OpenRouter: base URL and the `reasoning_effort` shorthand values
 *   (https://openrouter.ai/docs/api-reference/chat-completion, `ChatRequestReasoningEffort`).
 * - Ollama: OpenAI-compatible endpoint under `/v1` and the model list at `GET /api/tags`
 *   (https://github.com/ollama/ollama/blob/main/docs/openai.md, docs/api.md).
 * - Gemini: OpenAI-compatible base URL `https://generativelanguage.googleapis.com/v1beta/openai/`,
 *   `reasoning_effort` values, key in GEMINI_API_KEY (https://ai.google.dev/gemini-api/docs/openai).
 * - vLLM `vllm serve` listens on port 8000 (https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html);
 *   llama.cpp `llama-server` on 8080 (https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md);
 *   LM Studio on 1234 (https://lmstudio.ai/docs/app/api/endpoints/openai).
 */
import type { LlmCallConfig } from '../../shared/events.js';

/** The ids of the built-in presets. A settings object may name any of them. */
export type ProviderId = 'deepseek' | 'openai' | 'openrouter' | 'gemini' | 'ollama' | 'vllm' | 'llamacpp' | 'lmstudio' | 'custom';

/**
 * How a provider spells the parts of a request that differ between OpenAI-compatible servers.
 * - `thinking: 'deepseek'`: `thinking:{type}` + `reasoning_effort`, effort validated against
 *   `reasoningEfforts` (unknown → UNSUPPORTED_REASONING_EFFORT before any I/O);
 * - `thinking: 'effort'`: `reasoning_effort` passed through only when it is in `reasoningEfforts`,
 *   ignored otherwise;
 * - `thinking: 'none'`: thinking parameters are never sent.
 * `echo` — what assistant history messages carry back (docs/architecture.md §5 "the wire teaches the dialect"):
 * - `as-received` (every endpoint but the strict ones): reasoning goes back in the field it came in
 *   (`reasoning_content` / `reasoning`, plus `reasoning_details` as streamed), tool calls keep their
 *   provider extras (Gemini thought signatures); once any message of the request carries
 *   `reasoning_content`, every assistant message with tool calls carries it (`""` when it had
 *   none), as DeepSeek-compatible servers require;
 * - `deepseek`: as-received, and `reasoning_content` on every assistant message with tool calls
 *   or reasoning whatever field it arrived in (a preset that knows the server needs it);
 * - `strict` (OpenAI): nothing but standard fields — OpenAI rejects unknown message fields.
 * `assumeReasoningContent` — under `as-received`, what to send while the log knows nothing about the
 * endpoint's `reasoning_content` (docs/providers.md "A history any endpoint accepts"): `true` (custom and local servers, which may be
 * DeepSeek-style thinking endpoints) sends it on every assistant message with tool calls (`""` when
 * none is known), so a thinking endpoint accepts the first request; a strict server's refusal of
 * the field is corrected once (history-rejection.ts). Absent for hosted presets whose wire is known
 * not to want it (OpenRouter and Gemini stream `reasoning` / thought signatures instead).
 */
export interface WireDialect {
  readonly thinking: 'deepseek' | 'effort' | 'none';
  readonly reasoningEfforts: readonly string[];
  readonly defaultReasoningEffort?: string;
  readonly echo: 'as-received' | 'deepseek' | 'strict';
  readonly assumeReasoningContent?: true;
  readonly maxTokensField: 'max_tokens' | 'max_completion_tokens';
}

/** A model a preset knows. Limits are in tokens. */
export interface ModelPreset {
  readonly id: string;
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
  /** Overrides the dialect's default effort (e.g. `off` for the non-thinking `deepseek-chat` alias). */
  readonly defaultReasoningEffort?: string;
}

export interface ProviderPreset {
  readonly id: ProviderId;
  readonly label: string;
  readonly baseUrl: string;
  /** Environment variable holding the API key in CLI/browser mode; absent = no key needed. */
  readonly apiKeyEnv?: string;
  readonly requiresApiKey: boolean;
  readonly defaultModel?: string;
  readonly models: readonly ModelPreset[];
  readonly dialect: WireDialect;
}

/** DeepSeek's effort ids; `off` disables thinking (reference runtime `llm-deepseek`). */
export const DEEPSEEK_REASONING_EFFORTS = ['off', 'low', 'high', 'max'] as const;
/** OpenAI's `reasoning_effort` values for reasoning models. */
export const OPENAI_REASONING_EFFORTS = ['minimal', 'low', 'medium', 'high'] as const;
/** Gemini's OpenAI-compatible `reasoning_effort` values (https://ai.google.dev/gemini-api/docs/openai#thinking). */
export const GEMINI_REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high'] as const;
/** OpenRouter's `reasoning_effort` shorthand values. */
export const OPENROUTER_REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;

const DEEPSEEK_CONTEXT = 1_000_000;
const DEEPSEEK_MAX_OUTPUT = 384_000;

/** The built-in presets, keyed by id. DeepSeek is the default provider. */
export const PROVIDER_PRESETS: { readonly [K in ProviderId]: ProviderPreset } = {
  deepseek: {
    id: 'deepseek',
    label: 'DeepSeek',
    baseUrl: 'https://api.deepseek.com',
    apiKeyEnv: 'DEEPSEEK_API_KEY',
    requiresApiKey: true,
    defaultModel: 'deepseek-v4-flash',
    models: [
      { id: 'deepseek-v4-flash', contextWindow: DEEPSEEK_CONTEXT, maxOutputTokens: DEEPSEEK_MAX_OUTPUT },
      { id: 'deepseek-v4-pro', contextWindow: DEEPSEEK_CONTEXT, maxOutputTokens: DEEPSEEK_MAX_OUTPUT },
      { id: 'deepseek-chat', contextWindow: DEEPSEEK_CONTEXT, maxOutputTokens: DEEPSEEK_MAX_OUTPUT, defaultReasoningEffort: 'off' },
      { id: 'deepseek-reasoner', contextWindow: DEEPSEEK_CONTEXT, maxOutputTokens: DEEPSEEK_MAX_OUTPUT, defaultReasoningEffort: 'high' },
    ],
    dialect: {
      thinking: 'deepseek',
      reasoningEfforts: DEEPSEEK_REASONING_EFFORTS,
      defaultReasoningEffort: 'high',
      echo: 'deepseek',
      maxTokensField: 'max_tokens',
    },
  },
  openai: {
    id: 'openai',
    label: 'OpenAI',
    baseUrl: 'https://api.openai.com/v1',
    apiKeyEnv: 'OPENAI_API_KEY',
    requiresApiKey: true,
    models: [],
    dialect: { thinking: 'effort', reasoningEfforts: OPENAI_REASONING_EFFORTS, echo: 'strict', maxTokensField: 'max_completion_tokens' },
  },
  openrouter: {
    id: 'openrouter',
    label: 'OpenRouter',
    baseUrl: 'https://openrouter.ai/api/v1',
    apiKeyEnv: 'OPENROUTER_API_KEY',
    requiresApiKey: true,
    models: [],
    dialect: { thinking: 'effort', reasoningEfforts: OPENROUTER_REASONING_EFFORTS, echo: 'as-received', maxTokensField: 'max_tokens' },
  },
  gemini: {
    id: 'gemini',
    label: 'Google Gemini (OpenAI-compatible)',
    baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai',
    apiKeyEnv: 'GEMINI_API_KEY',
    requiresApiKey: true,
    models: [],
    dialect: { thinking: 'effort', reasoningEfforts: GEMINI_REASONING_EFFORTS, echo: 'as-received', maxTokensField: 'max_tokens' },
  },
  ollama: {
    id: 'ollama',
    label: 'Ollama (local)',
    baseUrl: 'http://127.0.0.1:11434/v1',
    requiresApiKey: false,
    models: [],
    dialect: { thinking: 'none', reasoningEfforts: [], echo: 'as-received', assumeReasoningContent: true, maxTokensField: 'max_tokens' },
  },
  vllm: {
    id: 'vllm',
    label: 'vLLM (local server)',
    baseUrl: 'http://127.0.0.1:8000/v1',
    requiresApiKey: false,
    models: [],
    dialect: { thinking: 'none', reasoningEfforts: [], echo: 'as-received', assumeReasoningContent: true, maxTokensField: 'max_tokens' },
  },
  llamacpp: {
    id: 'llamacpp',
    label: 'llama.cpp server (local)',
    baseUrl: 'http://127.0.0.1:8080/v1',
    requiresApiKey: false,
    models: [],
    dialect: { thinking: 'none', reasoningEfforts: [], echo: 'as-received', assumeReasoningContent: true, maxTokensField: 'max_tokens' },
  },
  lmstudio: {
    id: 'lmstudio',
    label: 'LM Studio (local server)',
    baseUrl: 'http://127.0.0.1:1234/v1',
    requiresApiKey: false,
    models: [],
    dialect: { thinking: 'none', reasoningEfforts: [], echo: 'as-received', assumeReasoningContent: true, maxTokensField: 'max_tokens' },
  },
  custom: {
    id: 'custom',
    label: 'Custom OpenAI-compatible endpoint',
    baseUrl: '',
    requiresApiKey: false,
    models: [],
    dialect: { thinking: 'none', reasoningEfforts: [], echo: 'as-received', assumeReasoningContent: true, maxTokensField: 'max_tokens' },
  },
};

/** The default provider (docs/architecture.md §5). */
export const DEFAULT_PROVIDER: ProviderId = 'deepseek';
/** Default stream idle timeout, ms (reference runtime `streamIdleTimeoutMs`). */
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;
/**
 * Default first-byte timeout, ms: how long a response may stay silent after its headers before the
 * attempt ends as TIMEOUT (docs/providers.md "Silence": a provider that sends headers and then nothing). Much shorter
 * than the idle timeout, since a working server starts its body (a token, a keep-alive comment)
 * within seconds; with one TIMEOUT retry (retry-policy.ts) the person learns within about 90 s.
 */
export const DEFAULT_FIRST_BYTE_TIMEOUT_MS = 45_000;

/**
 * Everything one {@link OpenAiCompatibleClient} is built from.
 * `provider` names a preset (unknown names behave like `custom`); `baseUrl` is the OpenAI-style
 * base (the client appends `/chat/completions`); `apiKey` is resolved by the host (safeStorage or
 * the preset's env var, see {@link resolveApiKey}); limits are in tokens; `idleTimeoutMs` (default
 * 300000) bounds silence on the wire; `reasoningEffort` is the fallback when the request header
 * does not set one; `extraHeaders` are sent on every request; `dialect` makes a custom endpoint
 * speak like a preset (e.g. a DeepSeek-compatible proxy: `dialect: 'deepseek'`).
 */
export interface ProviderSettings {
  readonly provider: string;
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly model: string;
  readonly contextWindow?: number;
  readonly maxOutputTokens?: number;
  readonly idleTimeoutMs?: number;
  /** Silence allowed after the response headers until the first body byte, ms (default {@link DEFAULT_FIRST_BYTE_TIMEOUT_MS}, never above `idleTimeoutMs`). */
  readonly firstByteTimeoutMs?: number;
  readonly reasoningEffort?: string;
  readonly extraHeaders?: { readonly [name: string]: string };
  readonly dialect?: ProviderId;
}

/** The preset a provider name refers to; unknown names map to `custom`. */
export function providerPreset(provider: string): ProviderPreset {
  return Object.hasOwn(PROVIDER_PRESETS, provider) ? PROVIDER_PRESETS[provider as ProviderId] : PROVIDER_PRESETS.custom;
}

/** The wire dialect of a settings object (`settings.dialect` wins over the provider's own). */
export function dialectOf(settings: Pick<ProviderSettings, 'provider' | 'dialect'>): WireDialect {
  return providerPreset(settings.dialect ?? settings.provider).dialect;
}

/** The preset entry of a model, if its provider knows it. */
export function modelPreset(provider: string, model: string): ModelPreset | undefined {
  return providerPreset(provider).models.find((m) => m.id === model);
}

/**
 * Context window and max output of the configured model: settings first, then the preset. (The
 * full order, with published and learned limits, is `resolveModelLimits` in model-limits.ts.)
 */
export function modelLimits(settings: ProviderSettings): { contextWindow?: number; maxOutputTokens?: number } {
  const preset = modelPreset(settings.provider, settings.model);
  const out: { contextWindow?: number; maxOutputTokens?: number } = {};
  const contextWindow = settings.contextWindow ?? preset?.contextWindow;
  const maxOutputTokens = settings.maxOutputTokens ?? preset?.maxOutputTokens;
  if (contextWindow !== undefined) out.contextWindow = contextWindow;
  if (maxOutputTokens !== undefined) out.maxOutputTokens = maxOutputTokens;
  return out;
}

/** The default effort for a model under a dialect: the model's own, else the dialect's. */
export function defaultReasoningEffort(settings: Pick<ProviderSettings, 'provider' | 'model' | 'dialect'>): string | undefined {
  return modelPreset(settings.provider, settings.model)?.defaultReasoningEffort ?? dialectOf(settings).defaultReasoningEffort;
}

/**
 * The API key for CLI/browser mode: `settings.apiKey` when set, else the preset's environment
 * variable (DEEPSEEK_API_KEY, OPENAI_API_KEY, OPENROUTER_API_KEY, GEMINI_API_KEY) from `env`. Ollama and custom
 * presets need none. An empty string counts as missing.
 */
export function resolveApiKey(settings: Pick<ProviderSettings, 'provider' | 'apiKey'>, env: { readonly [name: string]: string | undefined }): string | undefined {
  if (settings.apiKey !== undefined && settings.apiKey !== '') return settings.apiKey;
  const name = providerPreset(settings.provider).apiKeyEnv;
  const value = name === undefined ? undefined : env[name];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * Settings for a preset with its defaults filled in: base URL, default model, the API key from
 * `env` (see {@link resolveApiKey}). Fields in `overrides` win.
 */
export function presetSettings(provider: ProviderId, overrides: Partial<ProviderSettings> = {}, env: { readonly [name: string]: string | undefined } = {}): ProviderSettings {
  const preset = PROVIDER_PRESETS[provider];
  const base: ProviderSettings = {
    provider,
    baseUrl: preset.baseUrl,
    model: preset.defaultModel ?? '',
    idleTimeoutMs: DEFAULT_IDLE_TIMEOUT_MS,
    ...overrides,
  };
  const apiKey = resolveApiKey(base, env);
  return apiKey === undefined ? base : { ...base, apiKey };
}

/**
 * The call configuration to log in `request/header` for these settings: provider, model, the
 * effective reasoning effort (the model's or dialect's default when the settings have none; omitted
 * for dialects without thinking parameters) and `maxOutputTokens` as `maxTokens`. Logging the
 * effective values keeps every request rebuildable from the log (docs/architecture.md §3).
 */
export function callConfigFor(settings: ProviderSettings): LlmCallConfig {
  const config: { -readonly [K in keyof LlmCallConfig]: LlmCallConfig[K] } = { provider: settings.provider, model: settings.model };
  const effort = dialectOf(settings).thinking === 'none' ? undefined : (settings.reasoningEffort ?? defaultReasoningEffort(settings));
  if (effort !== undefined) config.reasoningEffort = effort;
  if (settings.maxOutputTokens !== undefined) config.maxTokens = settings.maxOutputTokens;
  return config;
}

/** What {@link detectOllama} found. `models` are the local model names (`GET /api/tags`). */
export type OllamaDetection = { readonly available: true; readonly baseUrl: string; readonly models: readonly string[] } | { readonly available: false; readonly reason: string };

/**
 * Probes a local Ollama server: `GET {origin}/api/tags` with a short timeout (default 800 ms).
 * Never throws: a refused connection, a timeout, a non-2xx status or a body without a `models`
 * array gives `{available:false, reason}`. `origin` defaults to `http://127.0.0.1:11434`; the
 * returned `baseUrl` is the OpenAI-compatible one (`{origin}/v1`).
 */
export async function detectOllama(fetchImpl: typeof fetch = fetch, options: { readonly origin?: string; readonly timeoutMs?: number } = {}): Promise<OllamaDetection> {
  const origin = (options.origin ?? 'http://127.0.0.1:11434').replace(/\/+$/, '');
  try {
    const response = await fetchImpl(`${origin}/api/tags`, { signal: AbortSignal.timeout(options.timeoutMs ?? 800) });
    if (!response.ok) return { available: false, reason: `HTTP ${response.status}` };
    const body = (await response.json()) as { models?: unknown };
    if (!Array.isArray(body.models)) return { available: false, reason: 'not an Ollama /api/tags answer' };
    const models = body.models
      .map((m: unknown) => (typeof m === 'object' && m !== null ? ((m as { name?: unknown; model?: unknown }).name ?? (m as { model?: unknown }).model) : undefined))
      .filter((name): name is string => typeof name === 'string');
    return { available: true, baseUrl: `${origin}/v1`, models };
  } catch (error) {
    return { available: false, reason: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}
