/**
 * API keys in the desktop app (issue 8), with a mocked `electron` (the binary cannot run here,
 * STACK.md §6): on Linux, when safeStorage has no keyring (`basic_text` backend, a constant
 * password), a key is written to keys.json only after the user agrees in a dialog; declining keeps
 * it in memory for this run. With a keyring, keys are stored without asking.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';

const userData = mkdtempSync(join(tmpdir(), 'forkline-keys-electron-'));

const mocks = vi.hoisted(() => ({ backend: 'basic_text', answers: [] as number[], asked: 0 }));

vi.mock('electron', () => {
  class FakeContents {
    on() {
      return this;
    }
    setWindowOpenHandler() {}
    send() {}
    isDestroyed() {
      return false;
    }
  }
  class BrowserWindow {
    readonly webContents = new FakeContents();
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
    app: { requestSingleInstanceLock: () => true, whenReady: () => Promise.resolve(), getPath: () => userData, on: () => undefined, quit: () => undefined },
    BrowserWindow,
    ipcMain: { handle: () => undefined, removeHandler: () => undefined },
    dialog: {
      showOpenDialog: () => Promise.resolve({ canceled: true, filePaths: [] }),
      showMessageBoxSync: () => {
        mocks.asked++;
        return mocks.answers.shift() ?? 0;
      },
      showErrorBox: () => undefined,
    },
    Menu: { buildFromTemplate: (t: unknown) => t, setApplicationMenu: () => undefined },
    safeStorage: {
      isEncryptionAvailable: () => true,
      getSelectedStorageBackend: () => mocks.backend,
      encryptString: (plain: string) => Buffer.from(`enc:${plain}`),
      decryptString: (data: Buffer) => data.toString().replace(/^enc:/, ''),
    },
    session: { defaultSession: { webRequest: { onHeadersReceived: () => undefined }, setPermissionRequestHandler: () => undefined } },
    shell: { openExternal: () => Promise.resolve() },
  };
});

afterAll(() => rmSync(userData, { recursive: true, force: true }));
beforeEach(() => {
  rmSync(join(userData, 'keys.json'), { force: true });
  mocks.asked = 0;
});

describe.runIf(process.platform === 'linux')('desktop key storage without a keyring', () => {
  it('declined: the key is kept for this run only, keys.json is never written, and the user is asked once', async () => {
    const { keyVault } = await import('../../../electron/main.js');
    mocks.backend = 'basic_text';
    mocks.answers = [0];
    const vault = keyVault(userData);
    vault.set('deepseek', 'sk-secret');
    vault.set('openai', 'sk-other');
    expect(mocks.asked).toBe(1);
    expect(vault.get('deepseek')).toBe('sk-secret');
    expect(vault.persistent).toBe(false);
    expect(existsSync(join(userData, 'keys.json'))).toBe(false);
  });

  it('agreed: the key is stored (obfuscated) in keys.json', async () => {
    const { keyVault } = await import('../../../electron/main.js');
    mocks.backend = 'basic_text';
    mocks.answers = [1];
    const vault = keyVault(userData);
    vault.set('deepseek', 'sk-secret');
    expect(mocks.asked).toBe(1);
    expect(vault.persistent).toBe(true);
    expect(JSON.parse(readFileSync(join(userData, 'keys.json'), 'utf8'))).toHaveProperty('deepseek');
    expect(keyVault(userData).get('deepseek')).toBe('sk-secret');
  });

  it('with a keyring (libsecret), keys are stored without asking', async () => {
    const { keyVault } = await import('../../../electron/main.js');
    mocks.backend = 'gnome_libsecret';
    const vault = keyVault(userData);
    vault.set('deepseek', 'sk-secret');
    expect(mocks.asked).toBe(0);
    expect(existsSync(join(userData, 'keys.json'))).toBe(true);
  });
});
