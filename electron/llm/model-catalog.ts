/**
 * What an endpoint publishes about its models: ids, context windows and max output tokens
 * (docs/architecture.md §5 "what the endpoint publishes"). Reads, per server kind:
 *
 * | server | request | fields | source |
 * |---|---|---|---|
 * | any OpenAI-compatible | `GET {base}/models` | `data[].id` | https://platform.openai.com/docs/api-reference/models/list |
 * | OpenRouter | same | `context_length`, `top_provider.context_length`, `top_provider.max_completion_tokens` | https://openrouter.ai/docs/api-reference/list-available-models |
 * | vLLM | same | `max_model_len` | vLLM `ModelCard` (https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html) |
 * | llama.cpp | same, then `GET {origin}/props` | `meta.n_ctx_train`; `/props` `default_generation_settings.n_ctx` (the runtime window, wins) | https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md |
 * | Groq, Together and others | same | `context_window`, `context_length`, `max_completion_tokens` | their model-list docs |
 * | LM Studio | `GET {origin}/api/v0/models` | `loaded_context_length` (wins), `max_context_length` | https://lmstudio.ai/docs/app/api/endpoints/rest |
 * | Ollama | `GET {origin}/api/tags`, `POST {origin}/api/show`, `GET {origin}/api/ps` | `/api/ps` `context_length` of a loaded model (wins); `num_ctx` in `/api/show` `parameters`; else Ollama's default 4096 (the model's trained `model_info["<arch>.context_length"]` is only the ceiling) | https://github.com/ollama/ollama/blob/main/docs/api.md, docs/faq.md ("How can I specify the context window size?") |
 *
 * Never throws for network or format trouble: what could not be read is left out and said in
 * `source`. Every request has a timeout (default 4 s).
 */
import { providerPreset } from './providers.js';

/** One model as listed. Limits in tokens, when the endpoint states them. */
export interface CatalogModel {
  readonly id: string;
  readonly contextWindow?: number;
  readonly maxOutput?: number;
}

/** A listing and a plain-words note on where its numbers came from. */
export interface ModelCatalog {
  readonly models: readonly CatalogModel[];
  readonly source: string;
  /** The endpoint answered `GET /models` with a list (else the models, if any, come from preset tables). */
  readonly listedByEndpoint: boolean;
}

export interface CatalogOptions {
  readonly provider: string;
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly fetch?: typeof fetch;
  /** Per request, ms (default 4000). */
  readonly timeoutMs?: number;
  /** Ollama: how many models get an `/api/show` call (default 25). */
  readonly detailLimit?: number;
}

/** Ollama's context window when neither the server nor the model sets one (docs/faq.md). */
export const OLLAMA_DEFAULT_CONTEXT = 4096;

type Json = { [key: string]: unknown };

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function count(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** The origin (scheme://host:port) of a base URL, for servers' native endpoints. */
export function originOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).origin;
  } catch {
    return baseUrl.replace(/\/+$/, '');
  }
}

function portOf(baseUrl: string): string | undefined {
  try {
    return new URL(baseUrl).port;
  } catch {
    return undefined;
  }
}

/** True when the provider or the URL (port 11434) says this is an Ollama server. */
export function looksLikeOllama(provider: string, baseUrl: string): boolean {
  return provider === 'ollama' || portOf(baseUrl) === '11434';
}

/** Lists the endpoint's models with the limits it publishes. */
export async function fetchModelCatalog(options: CatalogOptions): Promise<ModelCatalog> {
  const fetchImpl = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 4000;
  const base = options.baseUrl.replace(/\/+$/, '');
  const origin = originOf(base);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.apiKey !== undefined && options.apiKey !== '') headers['authorization'] = `Bearer ${options.apiKey}`;
  const getJson = async (url: string, init: RequestInit = {}): Promise<{ ok: true; body: unknown } | { ok: false; reason: string }> => {
    try {
      const response = await fetchImpl(url, { ...init, headers: { ...headers, ...(init.headers as Record<string, string> | undefined) }, signal: AbortSignal.timeout(timeoutMs) });
      if (!response.ok) {
        const text = (await response.text().catch(() => '')).slice(0, 300);
        return { ok: false, reason: `HTTP ${response.status}${text ? `: ${text}` : ''}` };
      }
      return { ok: true, body: await response.json() };
    } catch (error) {
      return { ok: false, reason: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
    }
  };

  const notes: string[] = [];
  const byId = new Map<string, { id: string; contextWindow?: number; maxOutput?: number }>();
  const fields = new Set<string>();
  const listed = await getJson(`${base}/models`);
  let llamaCpp = false;
  if (listed.ok) {
    const data = isObject(listed.body) && Array.isArray(listed.body['data']) ? listed.body['data'] : Array.isArray(listed.body) ? listed.body : [];
    for (const entry of data) {
      if (!isObject(entry) || typeof entry['id'] !== 'string') continue;
      const top = isObject(entry['top_provider']) ? entry['top_provider'] : {};
      const meta = isObject(entry['meta']) ? entry['meta'] : undefined;
      if (meta !== undefined) llamaCpp = true;
      const picks: [string, number | undefined][] = [
        ['context_length', count(entry['context_length'])],
        ['top_provider.context_length', count(top['context_length'])],
        ['max_model_len', count(entry['max_model_len'])],
        ['context_window', count(entry['context_window'])],
        ['meta.n_ctx_train', count(meta?.['n_ctx_train'])],
      ];
      const window = picks.find(([, v]) => v !== undefined);
      const outPicks: [string, number | undefined][] = [
        ['top_provider.max_completion_tokens', count(top['max_completion_tokens'])],
        ['max_completion_tokens', count(entry['max_completion_tokens'])],
        ['max_output_tokens', count(entry['max_output_tokens'])],
      ];
      const out = outPicks.find(([, v]) => v !== undefined);
      if (window) fields.add(window[0]);
      if (out) fields.add(out[0]);
      byId.set(entry['id'], { id: entry['id'], ...(window ? { contextWindow: window[1]! } : {}), ...(out ? { maxOutput: out[1]! } : {}) });
    }
    notes.push(`GET ${base}/models${fields.size > 0 ? ` (${[...fields].join(', ')})` : ''}`);
  } else {
    notes.push(`GET ${base}/models failed: ${listed.reason}`);
  }

  if (llamaCpp || options.provider === 'llamacpp') {
    const props = await getJson(`${origin}/props`);
    const settings = props.ok && isObject(props.body) && isObject(props.body['default_generation_settings']) ? props.body['default_generation_settings'] : undefined;
    const nCtx = count(settings?.['n_ctx']) ?? (props.ok && isObject(props.body) ? count(props.body['n_ctx']) : undefined);
    if (nCtx !== undefined) {
      for (const model of byId.values()) model.contextWindow = nCtx;
      notes.push(`GET ${origin}/props (default_generation_settings.n_ctx, the server's runtime window)`);
    }
  }

  if (options.provider === 'lmstudio' || portOf(base) === '1234') {
    const v0 = await getJson(`${origin}/api/v0/models`);
    if (v0.ok && isObject(v0.body) && Array.isArray(v0.body['data'])) {
      for (const entry of v0.body['data']) {
        if (!isObject(entry) || typeof entry['id'] !== 'string') continue;
        const window = count(entry['loaded_context_length']) ?? count(entry['max_context_length']);
        const model = byId.get(entry['id']) ?? { id: entry['id'] };
        if (window !== undefined) model.contextWindow = window;
        byId.set(entry['id'], model);
      }
      notes.push(`GET ${origin}/api/v0/models (loaded_context_length, max_context_length)`);
    }
  }

  if (looksLikeOllama(options.provider, base)) {
    await addOllamaLimits(origin, byId, notes, getJson, options.detailLimit ?? 25);
  }

  const preset = providerPreset(options.provider);
  if (preset.models.length > 0) {
    for (const m of preset.models) {
      const model = byId.get(m.id) ?? { id: m.id };
      model.contextWindow ??= m.contextWindow;
      model.maxOutput ??= m.maxOutputTokens;
      byId.set(m.id, model);
    }
    notes.push(`${preset.label} preset table (provider docs)`);
  }
  return { models: [...byId.values()].sort((a, b) => a.id.localeCompare(b.id)), source: notes.join('; '), listedByEndpoint: listed.ok };
}

async function addOllamaLimits(
  origin: string,
  byId: Map<string, { id: string; contextWindow?: number; maxOutput?: number }>,
  notes: string[],
  getJson: (url: string, init?: RequestInit) => Promise<{ ok: true; body: unknown } | { ok: false; reason: string }>,
  detailLimit: number,
): Promise<void> {
  const tags = await getJson(`${origin}/api/tags`);
  if (tags.ok && isObject(tags.body) && Array.isArray(tags.body['models'])) {
    for (const m of tags.body['models']) {
      const name = isObject(m) ? (typeof m['name'] === 'string' ? m['name'] : typeof m['model'] === 'string' ? m['model'] : undefined) : undefined;
      if (name !== undefined && !byId.has(name)) byId.set(name, { id: name });
    }
  }
  const loaded = new Map<string, number>();
  const ps = await getJson(`${origin}/api/ps`);
  if (ps.ok && isObject(ps.body) && Array.isArray(ps.body['models'])) {
    for (const m of ps.body['models']) {
      if (!isObject(m)) continue;
      const name = typeof m['name'] === 'string' ? m['name'] : typeof m['model'] === 'string' ? m['model'] : undefined;
      const window = count(m['context_length']);
      if (name !== undefined && window !== undefined) loaded.set(name, window);
    }
  }
  let shown = 0;
  for (const model of [...byId.values()].slice(0, detailLimit)) {
    const show = await getJson(`${origin}/api/show`, { method: 'POST', body: JSON.stringify({ model: model.id }), headers: { 'content-type': 'application/json' } });
    if (!show.ok || !isObject(show.body)) continue;
    shown++;
    const numCtx = typeof show.body['parameters'] === 'string' ? count(/(?:^|\n)\s*num_ctx\s+(\d+)/.exec(show.body['parameters'])?.[1]) : undefined;
    const info = isObject(show.body['model_info']) ? show.body['model_info'] : {};
    const trained = Object.entries(info).find(([key]) => key.endsWith('.context_length'))?.[1];
    const ceiling = count(trained);
    const window = loaded.get(model.id) ?? numCtx ?? OLLAMA_DEFAULT_CONTEXT;
    model.contextWindow = ceiling !== undefined ? Math.min(window, ceiling) : window;
  }
  for (const [name, window] of loaded) {
    const model = byId.get(name);
    if (model && model.contextWindow === undefined) model.contextWindow = window;
  }
  if (shown > 0 || loaded.size > 0) {
    notes.push(`Ollama ${origin}: /api/ps context_length of loaded models, else num_ctx from /api/show, else Ollama's default ${OLLAMA_DEFAULT_CONTEXT} (raise with OLLAMA_CONTEXT_LENGTH or num_ctx)`);
  }
}
