/**
 * The options and helpers several commands share: where the store is (`--data-dir`), the model
 * and budget flags, opening the whole engine (loaded with `import()` only by the commands that
 * need it), the model-ready check, and session ids from prefixes. Light on purpose: a command
 * that only reads the store (ls, show) loads this file but none of the engine.
 */
import type { ProviderChoice } from '../../shared/api.js';
import type { ApprovalPolicyName } from '../../shared/events.js';
import { visibleInline } from '../../shared/visible-text.js';
import type { ApprovalAnswerer } from '../agent/approval-gate.js';
import { defaultDataDir } from '../host/data-dir.js';
import type { Runtime } from '../host/runtime.js';
import type { ModelLimitValues } from '../llm/model-limits.js';
import { dialectOf, providerPreset } from '../llm/providers.js';
import { LlmConfigurationError, thinkingFields } from '../llm/reasoning-effort.js';
import { cliOtlpEndpoint, resolveCliApproval, type CliApproval } from './cli-config.js';
import type { OptionValues } from './command.js';
import { UsageError } from './error-line.js';
import { resolveSessionPrefix } from './id-prefix.js';
import { budgetFromFlags, cliPriceOverrides } from './pricing-options.js';

/** `--data-dir DIR`: every command that opens the store. */
export const DATA_OPTIONS = {
  'data-dir': { type: 'string' },
} as const;

/** `--approval`: also read by help (the policy in force). */
export const APPROVAL_OPTIONS = {
  approval: { type: 'string' },
  ...DATA_OPTIONS,
} as const;

/** Everything that configures the engine (model, limits, approval, MCP, budgets): the commands that open it. */
export const ENGINE_OPTIONS = {
  provider: { type: 'string' },
  'base-url': { type: 'string' },
  model: { type: 'string' },
  effort: { type: 'string' },
  'context-window': { type: 'string' },
  'max-output': { type: 'string' },
  'mcp-config': { type: 'string', multiple: true },
  budget: { type: 'string' },
  'turn-budget': { type: 'string' },
  'max-tokens-total': { type: 'string' },
  ...APPROVAL_OPTIONS,
} as const;

export type DataOptionValues = OptionValues<typeof DATA_OPTIONS>;
export type EngineOptionValues = OptionValues<typeof ENGINE_OPTIONS>;

/** The store folder: --data-dir, else the platform default. */
export function dataDirOf(values: DataOptionValues): string {
  return values['data-dir'] ?? defaultDataDir();
}

/** The route the model flags ask for (empty when none is given). */
export function modelOverrides(values: EngineOptionValues): Partial<ProviderChoice> {
  const baseUrl = values['base-url'];
  const provider = values.provider ?? (baseUrl !== undefined ? 'custom' : undefined);
  const out: { -readonly [K in keyof ProviderChoice]?: ProviderChoice[K] } = {};
  if (provider !== undefined) {
    out.provider = provider;
    out.baseUrl = baseUrl ?? providerPreset(provider).baseUrl;
    const defaultModel = providerPreset(provider).defaultModel;
    if (defaultModel !== undefined) out.model = defaultModel;
  }
  if (baseUrl !== undefined) out.baseUrl = baseUrl;
  if (values.model !== undefined) out.model = values.model;
  if (values.effort !== undefined) out.reasoningEffort = values.effort;
  return out;
}

/** --context-window / --max-output as token counts. @throws UsageError for anything but a positive integer. */
function limitOverrides(values: EngineOptionValues): ModelLimitValues {
  const read = (flag: 'context-window' | 'max-output'): number | undefined => {
    const raw = values[flag];
    if (raw === undefined) return undefined;
    const n = Number(raw.replace(/_/g, ''));
    if (!Number.isSafeInteger(n) || n <= 0) throw new UsageError(`--${flag} must be a positive number of tokens (got ${raw})`);
    return n;
  };
  const contextWindow = read('context-window');
  const maxOutputTokens = read('max-output');
  if (contextWindow !== undefined && maxOutputTokens !== undefined && maxOutputTokens >= contextWindow) {
    throw new UsageError(`--max-output ${maxOutputTokens} leaves no room for the prompt in --context-window ${contextWindow}`);
  }
  return { ...(contextWindow !== undefined ? { contextWindow } : {}), ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}) };
}

/** --approval. @throws UsageError for anything but ask, allow or deny. */
function approvalPolicy(values: OptionValues<typeof APPROVAL_OPTIONS>): ApprovalPolicyName | undefined {
  const value = values.approval;
  if (value === undefined) return undefined;
  if (value !== 'ask' && value !== 'allow' && value !== 'deny') throw new UsageError(`--approval must be ask, allow or deny (got ${value})`);
  return value;
}

/** The CLI's approval policy: --approval, else cli.json, else ask (never the UI's setting). */
export function cliApproval(values: OptionValues<typeof APPROVAL_OPTIONS>): CliApproval {
  return resolveCliApproval(approvalPolicy(values), dataDirOf(values));
}

/**
 * The whole engine (agent, model client, tools, MCP), loaded only by the commands that use it.
 * `scope: 'cli'` (every command but serve) runs with the CLI's approval policy; `'ui'` (serve) with
 * the UI's setting unless --approval is given.
 * @throws UsageError for a bad model, limit, approval or budget flag.
 */
export async function openRuntime(values: EngineOptionValues, extra: { approvalAnswerer?: ApprovalAnswerer; scope?: 'cli' | 'ui' } = {}): Promise<Runtime> {
  const { scope = 'cli', ...rest } = extra;
  const approval = scope === 'cli' ? cliApproval(values).policy : approvalPolicy(values);
  const active = modelOverrides(values);
  const limits = limitOverrides(values);
  const { createRuntime } = await import('../host/runtime.js');
  const mcpConfigFiles = values['mcp-config'] ?? [];
  const budget = budgetFromFlags(values);
  const overrides = cliPriceOverrides(dataDirOf(values));
  // Live OTLP export: the CLI's own cli.json `otlpEndpoint`; serve uses settings.json's.
  const otlpEndpoint = scope === 'cli' ? cliOtlpEndpoint(dataDirOf(values)) : undefined;
  return createRuntime({
    ...(otlpEndpoint !== undefined ? { otlpEndpoint } : {}),
    dataDir: dataDirOf(values),
    pricing: { overrides, ...(budget ? { budget } : {}) },
    overrides: { ...(Object.keys(active).length > 0 ? { active } : {}), ...(approval ? { approvalPolicy: approval } : {}), ...(Object.keys(limits).length > 0 ? { limits } : {}) },
    ...(mcpConfigFiles.length > 0 ? { mcpConfigFiles: [...mcpConfigFiles] } : {}),
    ...rest,
  });
}

/** Refuses to start a turn that can only fail for lack of a key or a model. @throws UsageError naming what is missing. */
export function checkModelReady(runtime: Runtime): void {
  const { provider, model, baseUrl } = runtime.settings.active;
  const preset = providerPreset(provider);
  if (model.trim() === '') throw new UsageError(`no model is set for ${preset.label}: pass --model`);
  if (baseUrl.trim() === '') throw new UsageError('no base URL is set: pass --base-url');
  try {
    thinkingFields(dialectOf(runtime.settings.providerSettings()), runtime.settings.active.reasoningEffort);
  } catch (error) {
    if (error instanceof LlmConfigurationError) throw new UsageError(error.message);
    throw error;
  }
  const withheld = runtime.settings.keyWithheldReason();
  if (withheld !== undefined) {
    throw new UsageError(
      `${visibleInline(withheld)}. Pass --base-url ${visibleInline(baseUrl)} (with --provider ${visibleInline(provider)}) to send it there, or --provider ${visibleInline(provider)} alone to use ${preset.baseUrl || 'its endpoint'}.`,
    );
  }
  if (preset.requiresApiKey && runtime.settings.apiKey(provider) === undefined) {
    throw new UsageError(`no API key for ${preset.label}: set ${preset.apiKeyEnv ?? 'the API key'} in the environment` + ` (or use --base-url with a local OpenAI-compatible server such as Ollama).`);
  }
}

/**
 * A session id from a full id or a unique prefix of any length (cli/id-prefix.ts).
 * @throws SessionIdError when none or several sessions match (listing the candidates).
 */
export function resolveSessionId(runtime: { readonly repository: Runtime['repository'] }, idOrPrefix: string): string {
  const repository = runtime.repository;
  return resolveSessionPrefix(
    idOrPrefix,
    (id) => repository.get(id) !== undefined,
    () => repository.list().map((r) => ({ id: r.header.id, ...(r.header.title !== undefined ? { title: r.header.title } : {}), updatedAt: r.updatedAt })),
  );
}

/** What the work functions of cli/commands/fanout.ts need. */
export interface CommandContext {
  readonly runtime: Runtime;
  /** A full id from an id or unique prefix. */
  readonly resolveId: (idOrPrefix: string) => string;
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

/** A {@link CommandContext} over `runtime`, writing to the process's stdout / stderr. */
export function commandContext(runtime: Runtime): CommandContext {
  return { runtime, resolveId: (id) => resolveSessionId(runtime, id), out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) };
}

/** A whole number of at least `min` from a flag's value, or undefined when absent. @throws UsageError */
export function intFlag(flag: string, raw: string | undefined, min: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min) throw new UsageError(`--${flag} must be a whole number of at least ${min} (got ${raw})`);
  return n;
}
