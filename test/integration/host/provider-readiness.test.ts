/**
 * Provider readiness through the real host connection, the real `openai` client and the scripted
 * OpenAI-compatible server: `testConnection` reports refusals with the model client's failure code
 * (never throwing), and the host refuses a send without a key before any turn starts (no "error
 * MISSING_CREDENTIAL" turn for a request that was never sent). Model lists are covered by
 * model-limits.test.ts.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../../electron/host/runtime.js';
import type { HostConnection } from '../../../electron/host/host-connection.js';
import { httpError, startScriptedLlm, type ScriptedLlm } from '../../support/scripted-llm/index.js';

let llm: ScriptedLlm;
let dir: string;
let runtime: Runtime;
let connection: HostConnection;
/** A port nothing listens on (a server started and closed). */
let deadUrl: string;

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
});
afterAll(async () => {
  connection.dispose();
  await runtime.close();
  await llm.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('testConnection', () => {
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
