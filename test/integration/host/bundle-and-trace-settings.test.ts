/**
 * Issue 26 through the real host dispatch (schemas, handlers; SQLite store, the real `openai`
 * client against the scripted server):
 * - `exportBundle` returns the bundle of a session and its fork (read with `readDownload`), the configured API key
 *   redacted, and the real importer takes it;
 * - `updateSettings({ otlp })`: a bad endpoint is refused naming what is wrong (nothing saved); a
 *   127.0.0.1 receiver's URL applies at once (the next turn's spans arrive, with content only when
 *   opted in); an empty endpoint turns it off (a turn run then is never sent, also not after it is
 *   turned on again).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BundleDownload, DownloadChunk, HostMethodName, SettingsView } from '../../../shared/api.js';
import { importBundle } from '../../../electron/bundle/bundle-import.js';
import { openStoredSessions } from '../../../electron/cli/stored-sessions.js';
import { dispatch } from '../../../electron/host/dispatch.js';
import type { HostConnection } from '../../../electron/host/host-connection.js';
import { createRuntime, type Runtime } from '../../../electron/host/runtime.js';
import { startScriptedLlm, textResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';
import { startReceiver, type Receiver } from '../telemetry/otlp-receiver.js';

const KEY = 'sk-host-bundle-configured-4c1d9e';

let llm: ScriptedLlm;
let receiver: Receiver;
let dir: string;
let runtime: Runtime;
let connection: HostConnection;
let nextId = 0;

async function call<T = unknown>(method: HostMethodName, params: unknown): Promise<T> {
  const response = await dispatch(connection, { id: ++nextId, method, params });
  if ('error' in response && response.error) throw Object.assign(new Error(response.error.message), response.error);
  return (response as { result: T }).result;
}

async function turn(id: string, text: string): Promise<void> {
  await call('followup', { sessionId: id, text });
  await runtime.host.agentFor(id)!.whenIdle();
}

beforeAll(async () => {
  llm = await startScriptedLlm({});
  llm.setHandler(() => textResponse('noted'));
  receiver = await startReceiver();
  dir = mkdtempSync(join(tmpdir(), 'forkline-host-bundle-'));
  runtime = createRuntime({
    dataDir: join(dir, 'data'),
    env: {},
    overrides: { active: { provider: 'custom', baseUrl: llm.baseUrl, model: 'scripted-model' }, approvalPolicy: 'allow' },
    writeWindowMs: 5,
  });
  connection = runtime.host.connect(() => undefined);
  await call('setApiKey', { provider: 'deepseek', apiKey: KEY });
}, 60_000);
afterAll(async () => {
  connection.dispose();
  await runtime.close();
  await receiver.close();
  await llm.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('exportBundle', () => {
  it('returns the session and its fork as a bundle, the configured key redacted, and the importer takes it', async () => {
    const id = (await call<{ id: string }>('createSession', { cwd: dir })).id;
    await turn(id, `remember the key ${KEY} for later`);
    const fork = (await call<{ id: string }>('forkSession', { sessionId: id })).id;
    await expect(call('exportBundle', { sessionId: 'no-such-session' })).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    await expect(call('exportBundle', { sessionId: id, withFiles: 'yes' })).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    const bundle = await call<BundleDownload>('exportBundle', { sessionId: id, withFiles: false });
    expect(bundle.fileName).toMatch(/\.bundle\.jsonl$/);
    expect(bundle).toMatchObject({ sessions: 2, checkpoints: 0 });
    let text = '';
    for (let done = false; !done;) {
      const chunk = await call<DownloadChunk>('readDownload', { downloadId: bundle.downloadId });
      text += chunk.text;
      done = chunk.done;
    }
    expect(bundle.bytes).toBe(Buffer.byteLength(text, 'utf8'));
    expect(bundle.redacted).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain(KEY);
    expect(text).toContain('remember the key');
    const file = join(dir, 'from-host.bundle.jsonl');
    writeFileSync(file, text);
    const target = openStoredSessions(join(dir, 'target'), {});
    try {
      const result = await importBundle({ repository: target.repository }, file);
      expect(result.sessions.map((s) => s.id).sort()).toEqual([id, fork].sort());
      expect(target.repository.get(fork)!.header.parentSession).toBe(id);
    } finally {
      await target.close();
    }
  }, 60_000);
});

describe('updateSettings({ otlp })', () => {
  it('refuses a bad endpoint naming it, applies a good one at once, and turns off with an empty one', async () => {
    await expect(call('updateSettings', { otlp: { endpoint: 'localhost 4318' } })).rejects.toMatchObject({ code: 'INVALID_SETTINGS', message: expect.stringContaining('is not a URL') });
    await expect(call('updateSettings', { otlp: { endpoint: 'file:///tmp/x' } })).rejects.toMatchObject({
      code: 'INVALID_SETTINGS',
      message: expect.stringContaining('must start with http:// or https://'),
    });
    expect((await call<SettingsView>('getSettings', {})).otlp).toEqual({ includeContent: false });

    const view = await call<SettingsView>('updateSettings', { otlp: { endpoint: receiver.url, includeContent: true } });
    expect(view.otlp).toEqual({ endpoint: receiver.url, includeContent: true });
    const id = (await call<{ id: string }>('createSession', { cwd: dir })).id;
    await turn(id, 'a traced prompt');
    await expect
      .poll(
        () =>
          receiver.spans
            .filter((s) => s.attributes['gen_ai.conversation.id'] === id)
            .map((s) => s.name)
            .sort(),
        { timeout: 30_000 },
      )
      .toEqual(['chat scripted-model', 'invoke_agent forkline']);
    // Content was opted in.
    expect(JSON.stringify(receiver.spans)).toContain('a traced prompt');

    expect((await call<SettingsView>('updateSettings', { otlp: { endpoint: '' } })).otlp).toEqual({ includeContent: false });
    await turn(id, 'an untraced prompt');
    // On again: only the turn after it arrives (the one run while it was off was never queued).
    await call('updateSettings', { otlp: { endpoint: receiver.url, includeContent: true } });
    await turn(id, 'traced once more');
    await expect.poll(() => JSON.stringify(receiver.spans).includes('traced once more'), { timeout: 30_000 }).toBe(true);
    expect(JSON.stringify(receiver.spans)).not.toContain('an untraced prompt');
    expect(receiver.spans.filter((s) => s.name === 'invoke_agent forkline').length).toBe(2);
  }, 60_000);
});
