/**
 * The Electron glue with a mocked `electron` module (the Electron binary cannot run here,
 * STACK.md §6): handlers registered, security options set, a call from a foreign frame rejected,
 * navigation and window.open blocked, and the preload exposing only the whitelisted bridge.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { HostBridge, RpcResponse } from '../../../shared/api.js';

const userData = mkdtempSync(join(tmpdir(), 'forkline-electron-'));

const mocks = vi.hoisted(() => {
  const handlers = new Map<string, (event: unknown, request: unknown) => Promise<unknown>>();
  const windows: { options: Record<string, unknown>; contents: FakeContents }[] = [];
  const exposed = new Map<string, unknown>();
  const invoked: unknown[] = [];
  class FakeContents {
    readonly listeners = new Map<string, ((...args: unknown[]) => void)[]>();
    openHandler: ((details: { url: string }) => { action: string }) | undefined;
    readonly sent: unknown[] = [];
    on(event: string, listener: (...args: unknown[]) => void) {
      this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
      return this;
    }
    emit(event: string, ...args: unknown[]) {
      for (const l of this.listeners.get(event) ?? []) l(...args);
    }
    setWindowOpenHandler(handler: (details: { url: string }) => { action: string }) {
      this.openHandler = handler;
    }
    send(channel: string, payload: unknown) {
      this.sent.push({ channel, payload });
    }
    isDestroyed() {
      return false;
    }
  }
  return { handlers, windows, exposed, invoked, FakeContents };
});

vi.mock('electron', () => {
  class BrowserWindow {
    readonly webContents = new mocks.FakeContents();
    constructor(readonly options: Record<string, unknown>) {
      mocks.windows.push({ options, contents: this.webContents });
    }
    once() {
      return this;
    }
    on() {
      return this;
    }
    loadFile() {
      return Promise.resolve();
    }
    show() {}
  }
  return {
    app: {
      requestSingleInstanceLock: () => true,
      whenReady: () => Promise.resolve(),
      getPath: () => userData,
      on: () => undefined,
      quit: () => undefined,
    },
    BrowserWindow,
    ipcMain: {
      handle: (channel: string, handler: (event: unknown, request: unknown) => Promise<unknown>) => mocks.handlers.set(channel, handler),
      removeHandler: (channel: string) => mocks.handlers.delete(channel),
    },
    dialog: { showOpenDialog: () => Promise.resolve({ canceled: true, filePaths: [] }) },
    Menu: { buildFromTemplate: (t: unknown) => t, setApplicationMenu: () => undefined },
    safeStorage: { isEncryptionAvailable: () => false },
    session: { defaultSession: { webRequest: { onHeadersReceived: () => undefined }, setPermissionRequestHandler: () => undefined } },
    shell: { openExternal: () => Promise.resolve() },
    contextBridge: { exposeInMainWorld: (key: string, api: unknown) => mocks.exposed.set(key, api) },
    ipcRenderer: {
      invoke: (channel: string, payload: unknown) => {
        mocks.invoked.push({ channel, payload });
        return Promise.resolve({ id: 1, ok: true, result: [] });
      },
      on: () => undefined,
      off: () => undefined,
    },
  };
});

afterAll(() => {
  rmSync(userData, { recursive: true, force: true });
});

describe('electron main process', () => {
  it('creates a sandboxed, context-isolated window and registers the IPC handler', async () => {
    const main = await import('../../../electron/main.js');
    await vi.waitFor(() => expect(mocks.windows).toHaveLength(1), { timeout: 30_000 });
    const prefs = mocks.windows[0]!.options['webPreferences'] as Record<string, unknown>;
    expect(prefs).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, webviewTag: false });
    expect(String(prefs['preload'])).toMatch(/preload\.cjs$/);
    expect(mocks.handlers.has('forkline:call')).toBe(true);
    expect(main.CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(main.CONTENT_SECURITY_POLICY).not.toContain('unsafe-eval');
  });

  it('rejects a call from a foreign frame, a sub-frame or another window, and serves the app page', async () => {
    const main = await import('../../../electron/main.js');
    const handler = mocks.handlers.get('forkline:call')!;
    const contents = mocks.windows[0]!.contents;
    const appUrl = pathToFileURL(main.APP_PATHS.rendererIndex).href;
    const request = { id: 7, method: 'listSessions', params: {} };
    const foreign = (await handler({ sender: contents, senderFrame: { url: 'https://evil.example/', parent: null } }, request)) as RpcResponse;
    expect(foreign).toMatchObject({ id: 7, ok: false, error: { code: 'FORBIDDEN_SENDER' } });
    const subFrame = (await handler({ sender: contents, senderFrame: { url: appUrl, parent: {} } }, request)) as RpcResponse;
    expect(subFrame).toMatchObject({ ok: false, error: { code: 'FORBIDDEN_SENDER' } });
    const otherWindow = (await handler({ sender: new mocks.FakeContents(), senderFrame: { url: appUrl, parent: null } }, request)) as RpcResponse;
    expect(otherWindow).toMatchObject({ ok: false, error: { code: 'FORBIDDEN_SENDER' } });
    const own = (await handler({ sender: contents, senderFrame: { url: appUrl, parent: null } }, request)) as RpcResponse;
    expect(own).toEqual({ id: 7, ok: true, result: [] });
    const unknown = (await handler({ sender: contents, senderFrame: { url: appUrl, parent: null } }, { id: 8, method: 'eval', params: {} })) as RpcResponse;
    expect(unknown).toMatchObject({ ok: false, error: { code: 'UNKNOWN_METHOD' } });
  });

  it('blocks navigation away from the app and window.open', async () => {
    const contents = mocks.windows[0]!.contents;
    let prevented = false;
    contents.emit('will-navigate', { preventDefault: () => (prevented = true) }, 'https://evil.example/');
    expect(prevented).toBe(true);
    expect(contents.openHandler!({ url: 'https://example.com' })).toEqual({ action: 'deny' });
  });

  it('SIGTERM and SIGHUP quit the app with the signal as the cancel cause; a second signal exits at once', async () => {
    const { quitOnSignals } = await import('../../../electron/main.js');
    const { EventEmitter } = await import('node:events');
    const fake = Object.assign(new EventEmitter(), { exitCodes: [] as number[] });
    const exit = (code?: number) => {
      fake.exitCodes.push(code ?? 0);
      return undefined as never;
    };
    let quits = 0;
    const cause = quitOnSignals({ on: fake.on.bind(fake) as unknown as NodeJS.Process['on'], exit }, () => quits++, 60_000);
    expect(cause()).toBeUndefined();
    fake.emit('SIGHUP');
    expect(quits).toBe(1);
    expect(cause()).toEqual({ kind: 'signal', signal: 'SIGHUP' });
    expect(fake.exitCodes).toEqual([]);
    fake.emit('SIGTERM');
    expect(fake.exitCodes).toEqual([143]);
  });

  it('the preload exposes one bridge that forwards only whitelisted methods', async () => {
    await import('../../../electron/preload.js');
    const bridge = mocks.exposed.get('forkline') as HostBridge;
    expect([...mocks.exposed.keys()]).toEqual(['forkline']);
    expect(Object.keys(bridge).sort()).toEqual(['call', 'onPush']);
    const refused = await bridge.call({ method: 'require', params: {} });
    expect(refused).toMatchObject({ ok: false, error: { code: 'UNKNOWN_METHOD' } });
    expect(mocks.invoked).toHaveLength(0);
    await bridge.call({ method: 'listSessions', params: {} });
    expect(mocks.invoked).toEqual([{ channel: 'forkline:call', payload: { id: 2, method: 'listSessions', params: {} } }]);
  });
});
