/**
 * What endpoints publish about their models, read from real HTTP servers on 127.0.0.1 that answer
 * with each server kind's documented shapes (sources in electron/llm/model-catalog.ts): OpenRouter,
 * vLLM, llama.cpp (`/props` wins over `n_ctx_train`), LM Studio, Ollama (`/api/ps`, `num_ctx`, the
 * default), a bare OpenAI-compatible list, and an endpoint that is down.
 */
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchModelCatalog, OLLAMA_DEFAULT_CONTEXT } from '../../../electron/llm/model-catalog.js';
import { resolveModelLimits } from '../../../electron/llm/model-limits.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A JSON server: `routes['GET /v1/models']` etc.; POST bodies are passed to function routes. */
async function serve(routes: Record<string, unknown | ((body: string) => unknown)>): Promise<{ origin: string; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const key = `${req.method} ${req.url}`;
      seen.push(`${key} ${req.headers.authorization ?? ''}`.trim());
      const route = routes[key];
      if (route === undefined) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":"not found"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(typeof route === 'function' ? (route as (b: string) => unknown)(body) : route));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address() as { port: number };
  return { origin: `http://127.0.0.1:${address.port}`, seen };
}

describe('fetchModelCatalog', () => {
  it('OpenRouter: context_length and top_provider.max_completion_tokens, with the key sent', async () => {
    const { origin, seen } = await serve({
      'GET /api/v1/models': {
        data: [
          { id: 'anthropic/claude-sonnet-4.5', context_length: 1000000, top_provider: { context_length: 1000000, max_completion_tokens: 64000 } },
          { id: 'openai/gpt-4o', context_length: 128000, top_provider: { max_completion_tokens: 16384 } },
        ],
      },
    });
    const catalog = await fetchModelCatalog({ provider: 'openrouter', baseUrl: `${origin}/api/v1`, apiKey: 'sk-or' });
    expect(catalog.models).toEqual([
      { id: 'anthropic/claude-sonnet-4.5', contextWindow: 1000000, maxOutput: 64000 },
      { id: 'openai/gpt-4o', contextWindow: 128000, maxOutput: 16384 },
    ]);
    expect(catalog.source).toContain('context_length, top_provider.max_completion_tokens');
    expect(seen).toEqual(['GET /api/v1/models Bearer sk-or']);
  });

  it('vLLM: max_model_len', async () => {
    const { origin } = await serve({ 'GET /v1/models': { object: 'list', data: [{ id: 'Qwen/Qwen3-8B', object: 'model', owned_by: 'vllm', root: 'Qwen/Qwen3-8B', max_model_len: 32768 }] } });
    const catalog = await fetchModelCatalog({ provider: 'custom', baseUrl: `${origin}/v1` });
    expect(catalog.models).toEqual([{ id: 'Qwen/Qwen3-8B', contextWindow: 32768 }]);
  });

  it('llama.cpp: the runtime n_ctx from /props wins over n_ctx_train', async () => {
    const { origin } = await serve({
      'GET /v1/models': { object: 'list', data: [{ id: 'qwen2.5-coder-7b.gguf', object: 'model', owned_by: 'llamacpp', meta: { n_ctx_train: 32768, n_params: 7615616512 } }] },
      'GET /props': { default_generation_settings: { n_ctx: 8192, params: {} }, total_slots: 1 },
    });
    const catalog = await fetchModelCatalog({ provider: 'custom', baseUrl: `${origin}/v1` });
    expect(catalog.models).toEqual([{ id: 'qwen2.5-coder-7b.gguf', contextWindow: 8192 }]);
    expect(catalog.source).toContain('/props');
  });

  it('LM Studio: the loaded context length', async () => {
    const { origin } = await serve({
      'GET /v1/models': { data: [{ id: 'qwen3-4b', object: 'model' }] },
      'GET /api/v0/models': { data: [{ id: 'qwen3-4b', type: 'llm', state: 'loaded', max_context_length: 40960, loaded_context_length: 4096 }] },
    });
    const catalog = await fetchModelCatalog({ provider: 'lmstudio', baseUrl: `${origin}/v1` });
    expect(catalog.models).toEqual([{ id: 'qwen3-4b', contextWindow: 4096 }]);
  });

  it("Ollama: a loaded model's context_length, else num_ctx, else the default — never above what the model was trained for", async () => {
    const { origin } = await serve({
      'GET /v1/models': {
        object: 'list',
        data: [
          { id: 'qwen3:8b', object: 'model', owned_by: 'library' },
          { id: 'llama3.2:latest', object: 'model', owned_by: 'library' },
          { id: 'tiny:1b', object: 'model', owned_by: 'library' },
        ],
      },
      'GET /api/tags': { models: [{ name: 'qwen3:8b' }, { name: 'llama3.2:latest' }, { name: 'tiny:1b' }, { name: 'extra:2b' }] },
      'GET /api/ps': { models: [{ name: 'qwen3:8b', model: 'qwen3:8b', context_length: 16384 }] },
      'POST /api/show': (body: string) => {
        const model = (JSON.parse(body) as { model: string }).model;
        if (model === 'llama3.2:latest') return { parameters: 'stop "<|eot_id|>"\nnum_ctx 8192', model_info: { 'general.architecture': 'llama', 'llama.context_length': 131072 } };
        if (model === 'tiny:1b') return { parameters: '', model_info: { 'general.architecture': 'gemma3', 'gemma3.context_length': 2048 } };
        return { parameters: '', model_info: { 'general.architecture': 'qwen3', 'qwen3.context_length': 40960 } };
      },
    });
    const catalog = await fetchModelCatalog({ provider: 'ollama', baseUrl: `${origin}/v1` });
    expect(catalog.models).toEqual([
      { id: 'extra:2b', contextWindow: OLLAMA_DEFAULT_CONTEXT },
      { id: 'llama3.2:latest', contextWindow: 8192 },
      { id: 'qwen3:8b', contextWindow: 16384 },
      { id: 'tiny:1b', contextWindow: 2048 },
    ]);
    expect(catalog.source).toMatch(/OLLAMA_CONTEXT_LENGTH/);
  });

  it('a bare list has ids only; the DeepSeek preset fills in its table', async () => {
    const { origin } = await serve({ 'GET /models': { object: 'list', data: [{ id: 'deepseek-v4-flash', object: 'model', owned_by: 'deepseek' }] } });
    const catalog = await fetchModelCatalog({ provider: 'deepseek', baseUrl: origin });
    expect(catalog.models.find((m) => m.id === 'deepseek-v4-flash')).toEqual({ id: 'deepseek-v4-flash', contextWindow: 1_000_000, maxOutput: 384_000 });
    expect(catalog.source).toContain('DeepSeek preset table');
  });

  it('an endpoint that is down: no models, and the reason in `source` (never a throw)', async () => {
    const { origin } = await serve({});
    servers.splice(0).forEach((s) => s.close());
    const catalog = await fetchModelCatalog({ provider: 'custom', baseUrl: `${origin}/v1`, timeoutMs: 1000 });
    expect(catalog.models).toEqual([]);
    expect(catalog.source).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/v1\/models failed: /);
  });
});

describe('resolveModelLimits', () => {
  it('setting wins; learned only lowers published or preset; max output setting → learned → published → preset', () => {
    expect(resolveModelLimits({ setting: { contextWindow: 8000 }, learned: { contextWindow: 4000 }, published: { contextWindow: 128000 } })).toEqual({ contextWindow: 8000, contextSource: 'setting' });
    expect(resolveModelLimits({ learned: { contextWindow: 4000 }, published: { contextWindow: 128000, maxOutputTokens: 16000 } })).toEqual({
      contextWindow: 4000,
      contextSource: 'learned',
      maxOutputTokens: 16000,
    });
    expect(resolveModelLimits({ learned: { contextWindow: 200000 }, published: { contextWindow: 128000 } })).toEqual({ contextWindow: 128000, contextSource: 'published' });
    expect(resolveModelLimits({ learned: { contextWindow: 2051 } })).toEqual({ contextWindow: 2051, contextSource: 'learned' });
    expect(resolveModelLimits({ preset: { contextWindow: 1_000_000, maxOutputTokens: 384_000 } })).toEqual({ contextWindow: 1_000_000, contextSource: 'preset', maxOutputTokens: 384_000 });
    expect(resolveModelLimits({ setting: { maxOutputTokens: 0 }, published: {} })).toEqual({});
  });
});
