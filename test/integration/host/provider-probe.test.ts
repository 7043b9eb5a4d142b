/**
 * The first-run card's host calls against real parts: `listModels` and `testConnection` through the
 * real host connection, the real `openai` client and the scripted OpenAI-compatible server; and the
 * host refusing a send without a key before any turn starts (no "error MISSING_CREDENTIAL" turn for
 * a request that was never sent).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../../electron/host/runtime.js';
import type { HostConnection } from '../../../electron/host/host-connection.js';
import { httpError, startScriptedLlm, textResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';

let llm: ScriptedLlm;
let dir: string;
let runtime: Runtime;
let connection: HostConnection;
/** A port nothing listens on (a server started and closed). */
let deadUrl: string;
/** Answers the model list in OpenRouter's shape. */
let listServer: Server;
let listUrl: string;

beforeAll(async () => {
  llm = await startScriptedLlm({ models: ['scripted-model', 'scripted-large'] });
  dir = mkdtempSync(join(tmpdir(), 'forkline-probe-'));
  mkdirSync(join(dir, 'ws'));
  // No key anywhere, no overrides: the default provider (DeepSeek) needs a key it does not have.
  runtime = createRuntime({ dataDir: join(dir, 'data'), env: {}, writeWindowMs: 5 });
  connection = runtime.host.connect(() => undefined);
  const dead = createServer();
  await new Promise<void>((r) => dead.listen(0, '127.0.0.1', () => r()));
  deadUrl = `http://127.0.0.1:${(dead.address() as AddressInfo).port}/v1`;
  await new Promise<void>((r) => dead.close(() => r()));
  listServer = createServer((req, res) => {
    res.writeHead(req.headers.authorization === 'Bearer sk-or-test' ? 200 : 401, { 'content-type': 'application/json' });
    res.end(req.headers.authorization === 'Bearer sk-or-test' ? JSON.stringify({ data: [{ id: 'vendor/model-a', context_length: 131072, top_provider: { max_completion_tokens: 8192 } }, { id: 'vendor/model-b' }, { nonsense: true }] }) : '{"error":{"message":"bad key"}}');
  });
  await new Promise<void>((r) => listServer.listen(0, '127.0.0.1', () => r()));
  listUrl = `http://127.0.0.1:${(listServer.address() as AddressInfo).port}/api/v1`;
});
afterAll(async () => {
  connection.dispose();
  await runtime.close();
  await llm.close();
  await new Promise<void>((r) => listServer.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

describe('listModels', () => {
  it("lists an endpoint's models with the limits it publishes", async () => {
    expect(await connection.listModels({ provider: 'custom', baseUrl: llm.baseUrl })).toEqual({ models: [{ id: 'scripted-model' }, { id: 'scripted-large' }], source: 'endpoint' });
    await expect(connection.listModels({ provider: 'openrouter', baseUrl: listUrl })).rejects.toMatchObject({ code: 'AUTH' });
    connection.setApiKey({ provider: 'openrouter', apiKey: 'sk-or-test' });
    expect(await connection.listModels({ provider: 'openrouter', baseUrl: listUrl })).toEqual({
      models: [{ id: 'vendor/model-a', contextWindow: 131072, maxOutput: 8192 }, { id: 'vendor/model-b' }],
      source: 'endpoint',
    });
  });

  it("answers the preset's models when the endpoint cannot list, and a clear code when there are none", async () => {
    const deepseek = await connection.listModels({ provider: 'deepseek', baseUrl: deadUrl });
    expect(deepseek.source).toBe('preset');
    expect(deepseek.models.map((m) => m.id)).toContain('deepseek-v4-flash');
    expect(deepseek.models[0]).toMatchObject({ contextWindow: 1_000_000 });
    await expect(connection.listModels({ provider: 'custom', baseUrl: deadUrl })).rejects.toMatchObject({ code: 'TRANSPORT' });
    await expect(connection.listModels({ provider: 'custom' })).rejects.toMatchObject({ code: 'NO_BASE_URL' });
  });
});

describe('testConnection', () => {
  it('sends one real, minimal request and reports the time to the first chunk', async () => {
    const before = llm.requests.length;
    llm.enqueue(textResponse('pong'));
    const result = await connection.testConnection({ provider: 'custom', baseUrl: llm.baseUrl, model: 'scripted-model' });
    expect(result).toMatchObject({ ok: true, model: 'scripted-model' });
    expect(result.ok && result.latencyMs).toBeGreaterThanOrEqual(0);
    const sent = llm.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toMatchObject({ model: 'scripted-model', stream: true, max_tokens: 1 });
  });

  it('reports refusals with the model client failure code, never throwing', async () => {
    llm.enqueue(httpError(401, { error: { message: 'invalid api key' } }));
    expect(await connection.testConnection({ provider: 'custom', baseUrl: llm.baseUrl, model: 'scripted-model', apiKey: 'sk-wrong' })).toMatchObject({ ok: false, code: 'AUTH' });
    expect(await connection.testConnection({ provider: 'custom', baseUrl: deadUrl, model: 'x' })).toMatchObject({ ok: false, code: 'TRANSPORT' });
    const before = llm.requests.length;
    expect(await connection.testConnection({ provider: 'deepseek', baseUrl: llm.baseUrl, model: 'deepseek-v4-flash' })).toMatchObject({ ok: false, code: 'MISSING_CREDENTIAL' });
    expect(llm.requests.length).toBe(before);
  });
});

describe('sending without a working provider', () => {
  it('is refused with MISSING_CREDENTIAL before a turn starts; nothing is logged', async () => {
    const session = connection.createSession({ cwd: join(dir, 'ws') });
    expect(() => connection.followup({ sessionId: session.id, text: 'do something' })).toThrow(expect.objectContaining({ code: 'MISSING_CREDENTIAL' }));
    expect(() => connection.steer({ sessionId: session.id, text: 'do something' })).toThrow(expect.objectContaining({ code: 'MISSING_CREDENTIAL' }));
    expect(runtime.host.agentFor(session.id)).toBeUndefined();
    expect(runtime.store.readAll(session.id)).toEqual([]);
    // Not titled by a prompt that never ran.
    expect(runtime.repository.get(session.id)!.header.title).toBeUndefined();
  });
});
