/**
 * The host's side of context limits and model listing (issue 9): the window in force in docs/architecture.md §5
 * order (setting → published, lowered by learned) for the real runtime against the scripted
 * server's model list; learned limits survive a restart (model-limits.json); per-model settings;
 * `listModels` and `testConnection` through the dispatcher, with their argument checks.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../../electron/host/runtime.js';
import { dispatch } from '../../../electron/host/dispatch.js';
import { httpError, startScriptedLlm, textResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';

let llm: ScriptedLlm;
let dir: string;
let runtime: Runtime | undefined;

beforeAll(async () => {
  llm = await startScriptedLlm({ models: [{ id: 'published-model', context_length: 65536, top_provider: { max_completion_tokens: 8192 } }, 'bare-model'] });
});
afterAll(async () => {
  await llm.close();
});
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function open(model: string, limits?: { contextWindow?: number; maxOutputTokens?: number }): Runtime {
  dir ??= mkdtempSync(join(tmpdir(), 'forkline-limits-'));
  runtime = createRuntime({ dataDir: dir, env: {}, overrides: { active: { provider: 'custom', baseUrl: llm.baseUrl, model }, ...(limits ? { limits } : {}) } });
  return runtime;
}

describe('the context window in force', () => {
  it('published by the endpoint when nobody set one; a learned limit lowers it and is remembered across restarts', async () => {
    dir = mkdtempSync(join(tmpdir(), 'forkline-limits-'));
    let rt = open('published-model');
    expect(await rt.host.modelConfig()).toMatchObject({ model: 'published-model', contextWindow: 65536, contextSource: 'published', maxOutputTokens: 8192 });
    expect(rt.host.limitStore.learn(llm.baseUrl, 'published-model', 16000, 'overflow-error')).toBe(true);
    expect(rt.host.limitStore.learn(llm.baseUrl, 'published-model', 32000, 'overflow-error')).toBe(false); // learned limits only go down
    await rt.close();
    const file = join(dir, 'model-limits.json');
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).learned[`${llm.baseUrl}|published-model`]).toMatchObject({ contextWindow: 16000, how: 'overflow-error' });
    rt = open('published-model');
    expect(await rt.host.modelConfig()).toMatchObject({ contextWindow: 16000, contextSource: 'learned' });
  });

  it('a prompt cut silently once is a suspicion, not the window: it is in force from the second, listed in Settings, and can be forgotten', async () => {
    let rt = open('published-model');
    expect(rt.host.limitStore.learn(llm.baseUrl, 'published-model', 2511, 'truncated-prompt')).toBe(true);
    // One count could be a server that miscounts: new sessions keep the published window.
    expect(await rt.host.modelConfig()).toMatchObject({ contextWindow: 65536, contextSource: 'published' });
    const connection = rt.host.connect(() => undefined);
    const seenOnce = await dispatch(connection, { id: 1, method: 'getSettings', params: {} });
    expect(seenOnce).toMatchObject({ ok: true, result: { learnedLimits: [{ baseUrl: llm.baseUrl, model: 'published-model', contextWindow: 2511, how: 'truncated-prompt', inForce: false }] } });
    connection.dispose();
    await rt.close();
    // The sighting survives a restart; a second one (another request, another session) confirms it, at the lower window.
    rt = open('published-model');
    expect(rt.host.limitStore.learn(llm.baseUrl, 'published-model', 3000, 'truncated-prompt')).toBe(true);
    expect(await rt.host.modelConfig()).toMatchObject({ contextWindow: 2511, contextSource: 'learned' });
    expect(JSON.parse(readFileSync(join(dir, 'model-limits.json'), 'utf8')).learned[`${llm.baseUrl}|published-model`]).toMatchObject({ contextWindow: 2511, how: 'truncated-prompt', seen: 2 });
    const again = rt.host.connect(() => undefined);
    const forgotten = await dispatch(again, { id: 2, method: 'updateSettings', params: { forgetLearnedLimit: { baseUrl: llm.baseUrl, model: 'published-model' } } });
    expect(forgotten).toMatchObject({ ok: true, result: { learnedLimits: [] } });
    again.dispose();
    expect(await rt.host.modelConfig()).toMatchObject({ contextWindow: 65536, contextSource: 'published' });
    expect(JSON.parse(readFileSync(join(dir, 'model-limits.json'), 'utf8')).learned).toEqual({});
    // An overflow error states the window: in force at once.
    expect(rt.host.limitStore.learn(llm.baseUrl, 'published-model', 16000, 'overflow-error')).toBe(true);
    expect(await rt.host.modelConfig()).toMatchObject({ contextWindow: 16000, contextSource: 'learned' });
  });

  it('--context-window / --max-output win over everything and set the requested max output', async () => {
    const rt = open('published-model', { contextWindow: 8000, maxOutputTokens: 1000 });
    rt.host.limitStore.learn(llm.baseUrl, 'published-model', 4000, 'truncated-prompt');
    expect(await rt.host.modelConfig()).toMatchObject({ contextWindow: 8000, contextSource: 'setting', maxOutputTokens: 1000, maxTokens: 1000 });
  });

  it('a per-model setting saved from Settings applies to that endpoint + model only', async () => {
    const rt = open('bare-model');
    expect((await rt.host.modelConfig()).contextWindow).toBeUndefined();
    const connection = rt.host.connect(() => undefined);
    const saved = await dispatch(connection, { id: 1, method: 'updateSettings', params: { modelLimits: { baseUrl: `${llm.baseUrl}/`, model: 'bare-model', contextWindow: 12000 } } });
    expect(saved).toMatchObject({ ok: true, result: { modelLimits: [{ baseUrl: llm.baseUrl, model: 'bare-model', contextWindow: 12000 }] } });
    expect(await rt.host.modelConfig()).toMatchObject({ contextWindow: 12000, contextSource: 'setting' });
    expect(rt.settings.limitSetting(llm.baseUrl, 'other-model')).toEqual({});
    // An entry with neither number removes it.
    await dispatch(connection, { id: 2, method: 'updateSettings', params: { modelLimits: { baseUrl: llm.baseUrl, model: 'bare-model' } } });
    expect(rt.settings.view().modelLimits).toEqual([]);
    const bad = await dispatch(connection, { id: 3, method: 'updateSettings', params: { modelLimits: { baseUrl: llm.baseUrl, model: 'bare-model', contextWindow: -5 } } });
    expect(bad).toMatchObject({ ok: false, error: { code: 'INVALID_PARAMS' } });
    connection.dispose();
  });
});

describe('listModels and testConnection on HostApi', () => {
  it("lists the endpoint's models with their windows", async () => {
    const rt = open('bare-model');
    const connection = rt.host.connect(() => undefined);
    const listed = await dispatch(connection, { id: 1, method: 'listModels', params: { provider: 'custom', baseUrl: llm.baseUrl } });
    expect(listed).toMatchObject({ ok: true, result: { models: [{ id: 'bare-model' }, { id: 'published-model', contextWindow: 65536, maxOutput: 8192 }] } });
    expect((listed as { result: { source: string } }).result.source).toContain('/models');
    expect(await dispatch(connection, { id: 2, method: 'listModels', params: { provider: 'custom' } })).toMatchObject({ ok: false, error: { code: 'INVALID_SETTINGS' } });
    expect(await dispatch(connection, { id: 3, method: 'listModels', params: { provider: 'custom', baseUrl: 'not a url' } })).toMatchObject({ ok: false, error: { code: 'INVALID_PARAMS' } });
    connection.dispose();
  });

  it('tests a connection with one tiny request and reports the exact provider error', async () => {
    const rt = open('bare-model');
    const connection = rt.host.connect(() => undefined);
    llm.enqueue(textResponse('OK'));
    const ok = await dispatch(connection, { id: 1, method: 'testConnection', params: { provider: 'custom', baseUrl: llm.baseUrl, model: 'bare-model', apiKey: 'sk-typed' } });
    expect(ok).toMatchObject({ ok: true, result: { ok: true, model: 'bare-model' } });
    const sent = llm.requests.at(-1)!;
    expect(sent.body).toMatchObject({ model: 'bare-model', max_tokens: 16 });
    expect(sent.body.tools).toBeUndefined();
    expect(sent.headers.authorization).toBe('Bearer sk-typed');
    llm.enqueue(httpError(404, { error: { message: 'The model `nope` does not exist or you do not have access to it.', type: 'invalid_request_error', code: 'model_not_found' } }));
    const missing = await dispatch(connection, { id: 2, method: 'testConnection', params: { provider: 'custom', baseUrl: llm.baseUrl, model: 'nope' } });
    expect(missing).toEqual({ id: 2, ok: true, result: { ok: false, code: 'INVALID_REQUEST', message: '404 The model `nope` does not exist or you do not have access to it.' } });
    const down = await dispatch(connection, { id: 3, method: 'testConnection', params: { provider: 'custom', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' } });
    expect(down).toMatchObject({ ok: true, result: { ok: false, code: 'TRANSPORT' } });
    const keyless = await dispatch(connection, { id: 4, method: 'testConnection', params: { provider: 'openai', model: 'gpt-4o' } });
    expect(keyless).toMatchObject({ ok: true, result: { ok: false, code: 'MISSING_CREDENTIAL' } });
    connection.dispose();
  });
});
