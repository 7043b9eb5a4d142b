/**
 * Provider probing for the first-run card and Settings: which models an endpoint offers
 * (`listModels`) and whether a provider + model answers at all (`testConnection`).
 *
 * A small module with the HostApi shapes agreed with the providers work (issue 9), so that work's
 * implementation can replace it without touching callers.
 *
 * - `listModels` asks the OpenAI-compatible model list, `GET {baseUrl}/models` (OpenAI API reference
 *   "List models"; DeepSeek, OpenRouter, Ollama's `/v1` and vLLM / llama.cpp servers serve it), with
 *   the stored key. Context window / max output are read where the endpoint publishes them
 *   (OpenRouter: `context_length`, `top_provider.max_completion_tokens`; others: `context_window`,
 *   `max_context_length`, `max_output_tokens`). When the endpoint cannot list and the preset knows
 *   models, the preset's list is answered with `source: 'preset'`.
 * - `testConnection` sends one real, minimal streamed request (one user message "ping", at most
 *   one output token) through the same model client the agent uses, and reports the time to the
 *   first chunk, or the failure code the client mapped (AUTH, TRANSPORT, MISSING_CREDENTIAL, …).
 */
import { randomUUID } from 'node:crypto';
import { ForklineError } from '../../shared/errors.js';
import { codeForHttpStatus } from '../llm/failure.js';
import type { ModelClient } from '../llm/model-client.js';
import { providerPreset, type ProviderSettings } from '../llm/providers.js';

/** What the probe needs from the host: settings (stored keys, the active choice) and the model client factory. */
export interface ProviderProbeDeps {
  /** The stored (or environment) API key of a provider, if any. */
  readonly apiKey: (provider: string) => string | undefined;
  /** The active provider choice (its base URL is used when `provider` is the active one). */
  readonly active: () => { readonly provider: string; readonly baseUrl: string };
  readonly createModelClient: (settings: ProviderSettings) => ModelClient;
  readonly fetch?: typeof fetch;
  /** Timeout of the model-list request, ms (default 5000). */
  readonly listTimeoutMs?: number;
  /** Idle timeout of the test request, ms (default 20000). */
  readonly testTimeoutMs?: number;
  readonly now?: () => number;
}

export interface ModelList {
  readonly models: readonly { readonly id: string; readonly contextWindow?: number; readonly maxOutput?: number }[];
  /** `endpoint`: the server's own list; `preset`: the built-in list (the endpoint could not list). */
  readonly source: string;
}

export type ConnectionTest = { readonly ok: true; readonly model: string; readonly latencyMs: number } | { readonly ok: false; readonly code: string; readonly message: string };

function baseUrlFor(deps: ProviderProbeDeps, provider: string, baseUrl: string | undefined): string {
  if (baseUrl !== undefined && baseUrl.trim() !== '') return baseUrl.trim();
  const active = deps.active();
  return active.provider === provider && active.baseUrl !== '' ? active.baseUrl : providerPreset(provider).baseUrl;
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

/** Reads one entry of an OpenAI-style `data` array (unknown fields ignored). */
function readModel(entry: unknown): ModelList['models'][number] | undefined {
  if (entry === null || typeof entry !== 'object') return undefined;
  const o = entry as Record<string, unknown>;
  const id = typeof o['id'] === 'string' ? o['id'] : typeof o['name'] === 'string' ? o['name'] : undefined;
  if (!id) return undefined;
  const top = o['top_provider'] !== null && typeof o['top_provider'] === 'object' ? (o['top_provider'] as Record<string, unknown>) : {};
  const contextWindow = positive(o['context_length']) ?? positive(o['context_window']) ?? positive(o['max_context_length']) ?? positive(top['context_length']);
  const maxOutput = positive(top['max_completion_tokens']) ?? positive(o['max_output_tokens']) ?? positive(o['max_completion_tokens']);
  return { id, ...(contextWindow !== undefined ? { contextWindow } : {}), ...(maxOutput !== undefined ? { maxOutput } : {}) };
}

function presetModels(provider: string): ModelList['models'] {
  return providerPreset(provider).models.map((m) => ({ id: m.id, contextWindow: m.contextWindow, maxOutput: m.maxOutputTokens }));
}

/**
 * The models `provider` offers at `baseUrl` (default: the active base URL for the active
 * provider, else the preset's).
 * @throws ForklineError NO_BASE_URL; the endpoint's failure (AUTH, TRANSPORT, TIMEOUT, HTTP_…,
 *   MALFORMED_RESPONSE) when it cannot list and the preset knows no models.
 */
export async function listModels(deps: ProviderProbeDeps, params: { provider: string; baseUrl?: string }): Promise<ModelList> {
  const baseUrl = baseUrlFor(deps, params.provider, params.baseUrl);
  if (baseUrl === '') throw new ForklineError('NO_BASE_URL', 'enter the base URL of the OpenAI-compatible endpoint (e.g. http://127.0.0.1:8000/v1)');
  const key = deps.apiKey(params.provider);
  const fallback = presetModels(params.provider);
  let failure: ForklineError;
  try {
    const response = await (deps.fetch ?? fetch)(`${baseUrl.replace(/\/+$/, '')}/models`, {
      headers: { Accept: 'application/json', ...(key ? { Authorization: `Bearer ${key}` } : {}) },
      signal: AbortSignal.timeout(deps.listTimeoutMs ?? 5000),
    });
    const text = await response.text();
    if (!response.ok) {
      failure = new ForklineError(codeForHttpStatus(response.status, text), `the model list answered HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`);
    } else {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      const data = body !== null && typeof body === 'object' ? (body as Record<string, unknown>)['data'] ?? (body as Record<string, unknown>)['models'] : undefined;
      if (Array.isArray(data)) {
        const models = data.map(readModel).filter((m): m is NonNullable<typeof m> => m !== undefined);
        const known = new Map(fallback.map((m) => [m.id, m]));
        // The preset's limits fill in what the endpoint does not publish.
        return { models: models.map((m) => ({ ...known.get(m.id), ...m })), source: 'endpoint' };
      }
      failure = new ForklineError('MALFORMED_RESPONSE', `${baseUrl}/models did not answer an OpenAI-style model list`);
    }
  } catch (error) {
    const timeout = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    failure = new ForklineError(timeout ? 'TIMEOUT' : 'TRANSPORT', timeout ? `${baseUrl} did not answer within ${deps.listTimeoutMs ?? 5000} ms` : `cannot reach ${baseUrl}: ${error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)}`);
  }
  if (fallback.length > 0) return { models: fallback, source: 'preset' };
  throw failure;
}

/** One minimal real request; never throws (failures are answered as `{ok:false, code, message}`). */
export async function testConnection(deps: ProviderProbeDeps, params: { provider: string; baseUrl?: string; model: string; apiKey?: string }): Promise<ConnectionTest> {
  const baseUrl = baseUrlFor(deps, params.provider, params.baseUrl);
  const apiKey = params.apiKey !== undefined && params.apiKey !== '' ? params.apiKey : deps.apiKey(params.provider);
  const settings: ProviderSettings = { provider: params.provider, baseUrl, model: params.model, idleTimeoutMs: deps.testTimeoutMs ?? 20_000, maxOutputTokens: 1, ...(apiKey ? { apiKey } : {}) };
  const now = deps.now ?? (() => performance.now());
  const controller = new AbortController();
  const started = now();
  try {
    const client = deps.createModelClient(settings);
    const stream = client.stream(
      {
        header: { config: { provider: params.provider, model: params.model, maxTokens: 1 } },
        messages: [{ id: randomUUID(), role: 'user', content: [{ type: 'text', text: 'ping' }], source: { kind: 'user' } }],
      },
      controller.signal,
    );
    for await (const chunk of stream) {
      if (chunk.type === 'finish') {
        const reason = chunk.reason;
        if (reason.kind === 'error' || reason.kind === 'aborted') {
          // An empty answer still proves the route, the key and the model work.
          if (reason.failure.code === 'EMPTY_RESPONSE') return { ok: true, model: params.model, latencyMs: Math.round(now() - started) };
          return { ok: false, code: reason.failure.code, message: reason.failure.message };
        }
        return { ok: true, model: params.model, latencyMs: Math.round(now() - started) };
      }
      if (chunk.type === 'text-delta' || chunk.type === 'reasoning-delta' || chunk.type === 'block-start' || chunk.type === 'tool-call-delta') {
        const latencyMs = Math.round(now() - started);
        controller.abort();
        return { ok: true, model: params.model, latencyMs };
      }
    }
    return { ok: false, code: 'STREAM_CLOSED', message: 'the stream ended without a finish' };
  } catch (error) {
    return { ok: false, code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) };
  } finally {
    controller.abort();
  }
}
