/**
 * The renderer's AppActions against the real host (SQLite store, live agents, the real `openai`
 * client and the scripted server), joined by the real dispatch over an in-memory bridge (STYLE V8):
 * a send without a working provider starts nothing and opens the setup card; once a provider is
 * saved the held first prompt starts its session, titled by the prompt; a host that refuses a
 * send (MISSING_CREDENTIAL, settings seen by the page out of date) is handled the same way.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostBridge, HostPush } from '../../../shared/api.js';
import { dispatch } from '../../../electron/host/dispatch.js';
import type { HostConnection } from '../../../electron/host/host-connection.js';
import { createRuntime, type Runtime } from '../../../electron/host/runtime.js';
import { createHostClient } from '../../../renderer/host/host-client.js';
import { AppRuntime } from '../../../renderer/state/app-runtime.js';
import { startScriptedLlm, textResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';

let llm: ScriptedLlm;
let dir: string;
let workspace: string;
let host: Runtime;
let connection: HostConnection;
let app: AppRuntime;

beforeAll(async () => {
  llm = await startScriptedLlm();
  dir = mkdtempSync(join(tmpdir(), 'forkline-actions-'));
  workspace = join(dir, 'ws');
  mkdirSync(workspace);
  // First run: the default provider (DeepSeek) and no key.
  host = createRuntime({ dataDir: join(dir, 'data'), env: {}, writeWindowMs: 5 });
  const listeners = new Set<(push: HostPush) => void>();
  connection = host.host.connect((push) => listeners.forEach((l) => l(push)));
  let id = 0;
  const bridge: HostBridge = {
    call: (request) => dispatch(connection, { id: ++id, method: request.method, params: request.params }),
    onPush: (listener) => (listeners.add(listener), () => listeners.delete(listener)),
  };
  const open = { state: 'open' as const, attempt: 0, openCount: 1 };
  app = new AppRuntime({
    client: createHostClient(bridge),
    connection: { status: () => open, onStatus: () => () => undefined },
    schedule: (callback) => {
      const t = setTimeout(callback, 0);
      return () => clearTimeout(t);
    },
  });
  await app.loadSettings();
});
afterAll(async () => {
  app.dispose();
  connection.dispose();
  await host.close();
  await llm.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('sending without a working provider', () => {
  it('holds the start prompt, opens the setup card, and starts the session once a provider is saved', async () => {
    expect(await app.actions.startSession(workspace, '  Say hello  ')).toBe('held');
    expect(app.app.getState()).toMatchObject({ setupOpen: true, setupReason: 'send' });
    expect(app.actions.pendingText).toBe('Say hello');
    expect(host.repository.list()).toEqual([]);

    await app.client.updateSettings({ active: { provider: 'custom', baseUrl: llm.baseUrl, model: 'scripted-model' } });
    llm.enqueue(textResponse('Hello!'));
    await app.actions.providerConfigured();
    expect(app.app.getState().setupOpen).toBe(false);
    const [record] = host.repository.list();
    expect(record!.header).toMatchObject({ cwd: workspace, title: 'Say hello' });
    expect(app.app.getState().selectedId).toBe(record!.header.id);
    const agent = host.host.agentFor(record!.header.id)!;
    await agent.whenIdle();
    expect(agent.session.events.filter((e) => e.type === 'turn/end').map((e) => e.data.reason.kind)).toEqual(['completed']);
  });

  it('a send the host refuses for a missing key is held too, and starts nothing', async () => {
    const sessionId = host.repository.list()[0]!.header.id;
    await app.client.updateSettings({ active: { provider: 'openai', baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o' } });
    // The page still believes a key is there (stale settings): the host is the one to refuse.
    const view = await app.client.getSettings({});
    app.app.getState().setSettings({ ...view, keys: { ...view.keys, openai: true } });
    app.app.getState().openSetup(false);
    const before = host.host.agentFor(sessionId)!.session.length;
    expect(await app.actions.send(sessionId, 'another turn', 'followup')).toBe('held');
    expect(app.app.getState()).toMatchObject({ setupOpen: true, setupReason: 'send' });
    expect(host.host.agentFor(sessionId)!.session.length).toBe(before);
  });
});
