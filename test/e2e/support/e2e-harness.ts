/**
 * Browser end-to-end harness: the real host (SQLite store in a temp folder, live agents, the real
 * `openai` client talking to the scripted model server) served in browser mode, and Debian's
 * Chromium driven by playwright-core. Screenshots go to test-results/.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll } from 'vitest';
import type { Runtime } from '../../../electron/host/runtime.js';
import type { BrowserServer } from '../../../electron/host/transport/ws-server.js';
import type * as E2eHost from './e2e-host.js';
import { startScriptedLlm, type ScriptedLlm, type ScriptedLlmOptions } from '../../support/scripted-llm/index.js';
import { findChromium } from '../../../scripts/chromium-path.js';
import { CHROMIUM_ENDPOINT_ENV, E2E_HOST_BUNDLE_ENV, chromiumLaunchOptions } from './chromium-launch.js';

export const ROOT = join(import.meta.dirname, '../../..');
export const SCREENSHOTS = join(ROOT, 'test-results');

export interface E2eApp {
  readonly dir: string;
  readonly workspace: string;
  readonly llm: ScriptedLlm;
  readonly runtime: Runtime;
  readonly server: BrowserServer;
  readonly browser: Browser;
  page: Page;
  /** Opens a fresh page on the app URL (a "reload" keeps the same host); default viewport 1400×900. */
  openPage(viewport?: { width: number; height: number }): Promise<Page>;
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * Launches Chromium the way STACK.md §5 verified on this machine: `CHROMIUM_PATH`, else the usual
 * Linux and macOS locations (scripts/chromium-path.js). Throws one line naming what to install when
 * there is none, instead of playwright's launch error.
 */
export function launchChromium(): Promise<Browser> {
  const found = findChromium();
  if (found.path === undefined) return Promise.reject(new Error(found.reason));
  return chromium.launch(chromiumLaunchOptions(found.path));
}

/**
 * The test file's connection to Chromium: made by the first app and shared by every app of the file
 * (each app gets fresh browser contexts — own cookies, storage and viewport — and closes them),
 * closed after the file. Under vitest the browser itself is the run's one Chromium, started by the
 * global setup (e2e-run.global.ts) and reached over its WebSocket; a launch costs about a
 * second of CPU, which 37 files paid 37 times. Without that setup (a plain script), a Chromium of its own.
 */
let fileBrowser: Promise<Browser> | undefined;
function sharedChromium(): Promise<Browser> {
  const endpoint = process.env[CHROMIUM_ENDPOINT_ENV];
  fileBrowser ??= endpoint ? chromium.connect(endpoint) : launchChromium();
  return fileBrowser;
}
/**
 * Under vitest (it sets VITEST): one connection per test file, closed after it (which leaves the
 * shared browser running). Elsewhere (the UI benchmarks, which run this harness as a plain script and
 * have no suite to hook): each app's Chromium is closed with the app.
 */
const UNDER_VITEST = process.env['VITEST'] !== undefined;
if (UNDER_VITEST) {
  afterAll(async () => {
    const browser = fileBrowser;
    fileBrowser = undefined;
    if (browser) await (await browser).close();
  });
}

export interface E2eOptions {
  readonly approvalPolicy?: 'ask' | 'allow' | 'deny';
  /** `scripted` (default): the provider is the scripted server; `unconfigured`: a first run — the default provider, no key. */
  readonly provider?: 'scripted' | 'unconfigured';
  readonly viewport?: { readonly width: number; readonly height: number };
  /** Entries of the scripted server's `GET /v1/models`. */
  readonly models?: ScriptedLlmOptions['models'];
}

/**
 * The runtime and browser-mode server: from this run's bundle when the global setup built one
 * (loaded natively, see e2e-host.ts), else from the sources (a plain script such as the UI benches).
 */
function hostModule(): Promise<typeof E2eHost> {
  const bundle = process.env[E2E_HOST_BUNDLE_ENV];
  return bundle ? (import(/* @vite-ignore */ pathToFileURL(bundle).href) as Promise<typeof E2eHost>) : import('./e2e-host.js');
}

export async function startE2eApp(options: E2eOptions = {}): Promise<E2eApp> {
  const { createRuntime, startBrowserServer } = await hostModule();
  const dir = mkdtempSync(join(tmpdir(), 'forkline-e2e-'));
  const workspace = join(dir, 'workspace');
  mkdirSync(workspace);
  mkdirSync(SCREENSHOTS, { recursive: true });
  const llm = await startScriptedLlm(options.models ? { models: options.models } : {});
  const runtime = createRuntime({
    dataDir: join(dir, 'data'),
    env: {},
    overrides: {
      ...(options.provider === 'unconfigured' ? {} : { active: { provider: 'custom', baseUrl: llm.baseUrl, model: 'scripted-model' } }),
      approvalPolicy: options.approvalPolicy ?? 'ask',
    },
    writeWindowMs: 10,
  });
  const server = await startBrowserServer({ host: runtime.host, staticDir: join(ROOT, 'dist/renderer') });
  const browser = await sharedChromium();
  const app: E2eApp = {
    dir,
    workspace,
    llm,
    runtime,
    server,
    browser,
    page: undefined as unknown as Page,
    async openPage(viewport = options.viewport ?? { width: 1400, height: 900 }) {
      // Reduced motion: the app then stops its decorative pulses (activity dots, the streaming caret),
      // which otherwise keep Chromium drawing frames in software the whole time a test waits.
      const context = await browser.newContext({ viewport, reducedMotion: 'reduce' });
      const page = await context.newPage();
      page.on('pageerror', (error) => console.error('page error:', error));
      await page.goto(server.url);
      app.page = page;
      return page;
    },
    async screenshot(name: string) {
      const file = join(SCREENSHOTS, `${name}.png`);
      await app.page.screenshot({ path: file, fullPage: false });
      return file;
    },
    async close() {
      // The contexts this app opened (openPage, and the tests' own newContext); the browser stays for the file's next app.
      await Promise.all(browser.contexts().map((context) => context.close()));
      if (!UNDER_VITEST) {
        fileBrowser = undefined;
        await browser.close();
      }
      await server.close();
      await runtime.close();
      await llm.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await app.openPage();
  return app;
}

/**
 * {@link startE2eApp}, then waits until the page is connected (the session list has answered: empty
 * or listing); returns the app, its page and a `getByTestId` shorthand.
 */
export async function startConnectedApp(options: E2eOptions = {}): Promise<{ app: E2eApp; page: Page; byTestId: (id: string) => Locator }> {
  const app = await startE2eApp(options);
  const page = app.page;
  await page.locator('[data-testid="sidebar-empty"], [data-testid="session-list"]').first().waitFor();
  return { app, page, byTestId: (id: string) => page.getByTestId(id) };
}
