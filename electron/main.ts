/**
 * Electron main process: window, menu, single-instance lock, security settings, and the Host wired
 * to the IPC transport (docs/architecture.md §2, §9). Everything else runs under plain Node (electron/host,
 * electron/agent, …) and is shared with the CLI and browser mode.
 *
 * Security: contextIsolation and sandbox on, nodeIntegration off, a strict Content-Security-Policy,
 * navigation and `window.open` blocked, every IPC call's sender checked, API keys kept with
 * `safeStorage` — on Linux without a keyring (safeStorage's `basic_text` backend, a fixed password)
 * only after the user agreed, else for this run only. A data folder the app cannot use (another
 * user's, or a damaged `sessions.db`) is reported in a dialog, and nothing in it is changed.
 */
import { app, BrowserWindow, dialog, ipcMain, Menu, safeStorage, session, shell } from 'electron';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConsentedKeyVault } from './host/consented-key-vault.js';
import { createRuntime, type Runtime } from './host/runtime.js';
import { ForklineError } from '../shared/errors.js';
import { EncryptedFileKeyVault, MemoryKeyVault, type KeyVault } from './host/settings-store.js';
import { registerIpcTransport, type IpcTransport } from './host/transport/ipc-main.js';
import { SqliteSessionStore } from './store/sqlite-session-store.js';
import type { CancelCause } from '../shared/events.js';

const here = dirname(fileURLToPath(import.meta.url));

/** Where the built files are, relative to dist/main/main.js. */
export const APP_PATHS = {
  preload: join(here, '..', 'preload', 'preload.cjs'),
  rendererIndex: join(here, '..', 'renderer', 'index.html'),
};

export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** The web preferences of every Forkline window. */
export function secureWebPreferences(preload: string): Electron.WebPreferences {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    spellcheck: false,
  };
}

/** True only for the app's own page. */
export function isAppUrl(url: string): boolean {
  return url === pathToFileURL(APP_PATHS.rendererIndex).href || url.startsWith(`${pathToFileURL(APP_PATHS.rendererIndex).href}?`) || url.startsWith(`${pathToFileURL(APP_PATHS.rendererIndex).href}#`);
}

/**
 * Where API keys are kept: safeStorage-encrypted `keys.json`. On Linux, when safeStorage uses its
 * `basic_text` backend (no keyring: the "encryption" key is a constant), keys are written only
 * after the user agrees (Electron docs, `safeStorage.getSelectedStorageBackend`).
 */
export function keyVault(userData: string): KeyVault {
  if (!safeStorage.isEncryptionAvailable()) return new MemoryKeyVault();
  const file = new EncryptedFileKeyVault(join(userData, 'keys.json'), {
    encrypt: (plain) => safeStorage.encryptString(plain),
    decrypt: (encrypted) => safeStorage.decryptString(encrypted),
  });
  if (process.platform !== 'linux' || safeStorage.getSelectedStorageBackend() !== 'basic_text') return file;
  return new ConsentedKeyVault(file, () => {
    const answer = dialog.showMessageBoxSync({
      type: 'warning',
      buttons: ['Keep for this session only', 'Store without a keyring'],
      defaultId: 0,
      cancelId: 0,
      title: 'No keyring for API keys',
      message: 'This system has no keyring (GNOME Keyring, KWallet) that Forkline can use.',
      detail: 'A stored key would only be obfuscated: anyone who can read your files could read it. Keep it in memory until Forkline quits, or store it anyway?',
    });
    return answer === 1;
  });
}

/**
 * better-sqlite3 built for Electron's ABI, when packaging prepared one (see README: it must be
 * rebuilt against Electron headers on a networked build machine). Falls back to the default build.
 */
function electronNativeBinding(): string | undefined {
  const candidate = join(process.resourcesPath ?? here, 'native', `electron-${process.versions.modules}`, 'better_sqlite3.node');
  return existsSync(candidate) ? candidate : undefined;
}

/** Creates the main window with the secure settings and the IPC transport. */
export function createMainWindow(runtime: Runtime): { window: BrowserWindow; transport: IpcTransport } {
  const window = new BrowserWindow({
    width: 1400,
    height: 900,
    minWidth: 900,
    minHeight: 560,
    title: 'Forkline',
    backgroundColor: '#15171c',
    show: false,
    webPreferences: secureWebPreferences(APP_PATHS.preload),
  });
  const contents = window.webContents;
  contents.on('will-navigate', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (/^https:\/\//.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  const transport = registerIpcTransport({ ipcMain, host: runtime.host, webContents: contents, isAppUrl });
  contents.on('did-start-loading', () => transport.reset());
  window.once('ready-to-show', () => window.show());
  void window.loadFile(APP_PATHS.rendererIndex);
  return { window, transport };
}

/**
 * SIGTERM and SIGHUP (a logout, `kill`, a closed launching terminal) quit the app the way the
 * window's close does (docs/reliability.md): `before-quit` cancels running turns with the signal as their
 * cause, logs their closers and flushes every session. A second signal, or a shutdown that takes
 * longer than `forceAfterMs`, exits at once with 128 + the signal number (the next start recovers
 * whatever was left open; tool processes die with the app either way, process-supervisor.ts).
 * @returns the cause to pass to `Runtime.close` once a signal arrived (else undefined).
 */
export function quitOnSignals(target: Pick<NodeJS.Process, 'on' | 'exit'>, quit: () => void, forceAfterMs = 10_000): () => CancelCause | undefined {
  let cause: CancelCause | undefined;
  for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
    target.on(signal, () => {
      const code = signal === 'SIGTERM' ? 143 : 129;
      if (cause) target.exit(code);
      cause = { kind: 'signal', signal };
      setTimeout(() => target.exit(code), forceAfterMs).unref();
      quit();
    });
  }
  return () => cause;
}

/** Boots the desktop app. */
export async function bootstrap(): Promise<void> {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  await app.whenReady();
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } });
  });
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  const userData = app.getPath('userData');
  const nativeBinding = electronNativeBinding();
  let mainWindow: BrowserWindow | undefined;
  let runtime: Runtime;
  try {
    runtime = createRuntime({
      dataDir: userData,
      keyVault: keyVault(userData),
      ...(nativeBinding ? { store: new SqliteSessionStore(join(userData, 'sessions.db'), { nativeBinding }) } : {}),
      chooseWorkspace: async () => {
        const options: Electron.OpenDialogOptions = { title: 'Choose a workspace folder', properties: ['openDirectory', 'createDirectory'] };
        const result = mainWindow ? await dialog.showOpenDialog(mainWindow, options) : await dialog.showOpenDialog(options);
        return result.canceled || result.filePaths.length === 0 ? null : result.filePaths[0]!;
      },
    });
  } catch (error) {
    // A damaged sessions.db or an unsafe data folder: say so plainly (no stack trace) and change nothing.
    if (!ForklineError.isInstance(error)) throw error;
    dialog.showErrorBox('Forkline cannot open its data folder', `${error.message}\n\n[${error.code}]`);
    app.quit();
    return;
  }
  Menu.setApplicationMenu(
    Menu.buildFromTemplate([...(process.platform === 'darwin' ? [{ role: 'appMenu' as const }] : []), { role: 'fileMenu' }, { role: 'editMenu' }, { role: 'viewMenu' }, { role: 'windowMenu' }]),
  );
  let transport: IpcTransport | undefined;
  const open = () => {
    transport?.dispose();
    const created = createMainWindow(runtime);
    mainWindow = created.window;
    transport = created.transport;
    mainWindow.on('closed', () => {
      transport?.dispose();
      transport = undefined;
      mainWindow = undefined;
    });
  };
  open();
  app.on('second-instance', () => {
    if (!mainWindow) return open();
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  });
  app.on('activate', () => {
    if (!mainWindow) open();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  // Only under the real Electron runtime: a test process must keep its own signal handling.
  const signalCause = process.versions['electron'] !== undefined ? quitOnSignals(process, () => app.quit()) : () => undefined;
  let quitting = false;
  app.on('before-quit', (event) => {
    if (quitting) return;
    quitting = true;
    event.preventDefault();
    void runtime.close(signalCause()).finally(() => app.quit());
  });
}

void bootstrap();
