import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_PROVIDER, detectOllama, dialectOf, modelLimits, presetSettings, PROVIDER_PRESETS, providerPreset, resolveApiKey } from '../../../electron/llm/providers.js';

describe('provider presets', () => {
  it('DeepSeek is the default, with its base URL, models and key variable', () => {
    expect(DEFAULT_PROVIDER).toBe('deepseek');
    const ds = PROVIDER_PRESETS.deepseek;
    expect(ds.baseUrl).toBe('https://api.deepseek.com');
    expect(ds.defaultModel).toBe('deepseek-v4-flash');
    expect(ds.models.map((m) => m.id)).toEqual(['deepseek-v4-flash', 'deepseek-v4-pro', 'deepseek-chat', 'deepseek-reasoner']);
    expect(ds.apiKeyEnv).toBe('DEEPSEEK_API_KEY');
    expect(PROVIDER_PRESETS.openai).toMatchObject({ baseUrl: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY' });
    expect(PROVIDER_PRESETS.openrouter).toMatchObject({ baseUrl: 'https://openrouter.ai/api/v1', apiKeyEnv: 'OPENROUTER_API_KEY' });
    expect(PROVIDER_PRESETS.ollama).toMatchObject({ baseUrl: 'http://127.0.0.1:11434/v1', requiresApiKey: false });
    expect(PROVIDER_PRESETS.ollama.apiKeyEnv).toBeUndefined();
  });

  it('unknown provider names behave like custom; a dialect override wins', () => {
    expect(providerPreset('vllm-box').id).toBe('custom');
    expect(dialectOf({ provider: 'custom' }).echo).toBe('as-received');
    expect(dialectOf({ provider: 'custom', dialect: 'deepseek' }).thinking).toBe('deepseek');
  });

  it('limits come from settings first, then the model preset', () => {
    expect(modelLimits({ provider: 'deepseek', baseUrl: '', model: 'deepseek-v4-pro' })).toEqual({ contextWindow: 1_000_000, maxOutputTokens: 384_000 });
    expect(modelLimits({ provider: 'deepseek', baseUrl: '', model: 'deepseek-v4-pro', contextWindow: 64_000 })).toEqual({ contextWindow: 64_000, maxOutputTokens: 384_000 });
    expect(modelLimits({ provider: 'ollama', baseUrl: '', model: 'qwen3' })).toEqual({});
  });

  it('resolves API keys from settings, then the preset env var (empty = missing)', () => {
    expect(resolveApiKey({ provider: 'deepseek', apiKey: 'sk-own' }, { DEEPSEEK_API_KEY: 'sk-env' })).toBe('sk-own');
    expect(resolveApiKey({ provider: 'deepseek' }, { DEEPSEEK_API_KEY: 'sk-env' })).toBe('sk-env');
    expect(resolveApiKey({ provider: 'deepseek' }, { DEEPSEEK_API_KEY: '' })).toBeUndefined();
    expect(resolveApiKey({ provider: 'openrouter' }, { OPENAI_API_KEY: 'x' })).toBeUndefined();
    expect(resolveApiKey({ provider: 'ollama' }, {})).toBeUndefined();
    expect(presetSettings('deepseek', {}, { DEEPSEEK_API_KEY: 'k' })).toEqual({
      provider: 'deepseek',
      baseUrl: 'https://api.deepseek.com',
      model: 'deepseek-v4-flash',
      idleTimeoutMs: 300_000,
      apiKey: 'k',
    });
  });
});

describe('detectOllama', () => {
  let server: Server | undefined;
  afterEach(async () => {
    if (server) await new Promise<void>((r) => server!.close(() => r()));
    server = undefined;
  });

  async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
    server = createServer(handler);
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    return `http://127.0.0.1:${address.port}`;
  }

  it('lists the local models from GET /api/tags', async () => {
    const origin = await serve((req, res) => {
      expect(req.url).toBe('/api/tags');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ models: [{ name: 'qwen3:8b', model: 'qwen3:8b' }, { name: 'llama3.2:latest' }] }));
    });
    expect(await detectOllama(fetch, { origin })).toEqual({ available: true, baseUrl: `${origin}/v1`, models: ['qwen3:8b', 'llama3.2:latest'] });
  });

  it('reports unavailable for a refused connection, a non-Ollama answer and a hang (short timeout)', async () => {
    const origin = await serve((req, res) => {
      if (req.url === '/api/tags') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"object":"list"}');
      }
    });
    expect(await detectOllama(fetch, { origin })).toMatchObject({ available: false, reason: 'not an Ollama /api/tags answer' });
    await new Promise<void>((r) => server!.close(() => r()));
    server = undefined;
    expect(await detectOllama(fetch, { origin })).toMatchObject({ available: false });

    const hanging = await serve(() => {});
    const started = Date.now();
    const result = await detectOllama(fetch, { origin: hanging, timeoutMs: 150 });
    expect(result.available).toBe(false);
    expect(Date.now() - started).toBeLessThan(1_000);
    server!.closeAllConnections();
  });
});
