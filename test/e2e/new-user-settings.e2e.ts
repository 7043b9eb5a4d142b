/**
 * A new user's settings that stick (issue 25), end to end in Chromium against browser mode, each
 * case at 1000×700 and 1440×900 and each on its own app (split from new-user.e2e.ts so the two
 * files run side by side): the theme follows the system until the person picks one, and the pick
 * is a setting; browser mode says how long a key entered there lasts; an old tab whose server is
 * gone stops reconnecting; an import summary toast leaves after 8 s unless focus is on it.
 * Screenshots: test-results/new-user-*.png.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT_LOGS } from '../support/import-fixtures.js';
import type { Locator, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, SCREENSHOTS, startConnectedApp, type E2eApp, type E2eOptions } from './support/e2e-harness.js';
import { createRuntime } from '../../electron/host/runtime.js';
import { startBrowserServer } from '../../electron/host/transport/ws-server.js';
import { layoutProblems, NARROW_AND_WIDE } from './support/layout-checks.js';
import { runCommand } from './support/keyboard-focus.js';

const SIZES = NARROW_AND_WIDE;

let app: E2eApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function start(size: { width: number; height: number }, options: E2eOptions = {}): Promise<{ app: E2eApp; page: Page; byTestId: (id: string) => Locator }> {
  const started = await startConnectedApp({ viewport: size, ...options });
  app = started.app;
  return started;
}

describe.each(SIZES)('settings that stick at $width×$height', (size) => {
  it('the theme follows the system until the person picks one, and the pick is kept', async () => {
    const { app: a } = await start(size);
    const context = await a.browser.newContext({ viewport: size, colorScheme: 'light' });
    const page = await context.newPage();
    await page.goto(a.server.url);
    await page.getByTestId('sidebar').waitFor();
    const theme = (): Promise<string | undefined> => page.evaluate(() => document.documentElement.dataset['theme']);
    expect(await theme()).toBe('light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(theme).toBe('dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await expect.poll(theme).toBe('light');
    // An explicit pick wins over the system from then on, also after a reload.
    await page.getByTestId('theme-toggle').click();
    expect(await theme()).toBe('dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.reload();
    await page.getByTestId('sidebar').waitFor();
    expect(await theme()).toBe('dark');
    await page.screenshot({ path: join(SCREENSHOTS, `new-user-${size.width}x${size.height}-theme.png`) });
    await context.close();
  });

  it('browser mode says where a key is entered that it lasts until the server stops, and after a restart that it was lost', async () => {
    const { app: a, page, byTestId } = await start(size, { provider: 'unconfigured' });
    await page.keyboard.press('Control+,');
    await byTestId('settings-dialog').waitFor();
    expect(await byTestId('settings-key-memory').textContent()).toMatch(/No OS keychain here \(browser mode\).*DEEPSEEK_API_KEY/);
    await byTestId('settings-api-key').focus();
    await page.keyboard.type('sk-test-kept-in-memory');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="settings-key-status"][data-has-key="true"]').waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, `new-user-${size.width}x${size.height}-key-memory.png`) });
    // The server restarts on the same data folder: the key is gone, and Settings says so.
    const runtime = createRuntime({ dataDir: join(a.dir, 'data'), env: {}, writeWindowMs: 10 });
    const server = await startBrowserServer({ host: runtime.host, staticDir: join(ROOT, 'dist/renderer') });
    try {
      const context = await a.browser.newContext({ viewport: size });
      const fresh = await context.newPage();
      await fresh.goto(server.url);
      await fresh.getByTestId('sidebar').waitFor();
      await fresh.keyboard.press('Control+,');
      await fresh.getByTestId('settings-dialog').waitFor();
      expect(await fresh.getByTestId('settings-key-status').getAttribute('data-has-key')).toBe('false');
      expect(await fresh.getByTestId('settings-key-status').textContent()).not.toContain('needs no key');
      expect(await fresh.getByTestId('settings-key-lost').textContent()).toMatch(/before the server restarted is gone.*DEEPSEEK_API_KEY/);
      expect(await fresh.getByTestId('settings-key-memory').count()).toBe(0);
      await fresh.screenshot({ path: join(SCREENSHOTS, `new-user-${size.width}x${size.height}-key-lost.png`) });
      expect(await layoutProblems(fresh)).toEqual([]);
      await context.close();
    } finally {
      await server.close();
      await runtime.close();
    }
  });

  it('an old tab whose server is gone stops reconnecting after a bounded time and says to open the newly printed URL', async () => {
    const { app: a, byTestId } = await start(size);
    // The bound is 60 s; `reconnect=3` shortens it for this test.
    const page = a.page;
    await page.goto(`${a.server.url}&reconnect=3`);
    await byTestId('sidebar').waitFor();
    // Every state the banner shows, in order (the reconnecting state lasts only the 3 s bound, which
    // a poll on a loaded machine can miss).
    await page.evaluate(() => {
      const states: string[] = [];
      (window as unknown as { bannerStates: string[] }).bannerStates = states;
      const record = (): void => {
        const state = document.querySelector('[data-testid="connection-banner"]')?.getAttribute('data-state');
        if (state && states[states.length - 1] !== state) states.push(state);
      };
      new MutationObserver(record).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-state'] });
    });
    await a.server.close();
    await page.locator('[data-testid="connection-banner"][data-state="gave-up"]').waitFor({ timeout: 40_000 });
    const states = await page.evaluate(() => (window as unknown as { bannerStates: string[] }).bannerStates);
    expect(states.slice(-2)).toEqual(['reconnecting', 'gave-up']);
    expect(await byTestId('connection-gave-up').textContent()).toMatch(/stopped reconnecting.*open the new URL it printed/);
    await app!.screenshot(`new-user-${size.width}x${size.height}-gave-up`);
    expect(await layoutProblems(page)).toEqual([]);
    // Nothing more is tried: the banner stays.
    await page.waitForTimeout(2_000);
    expect(await page.locator('[data-testid="connection-banner"]').getAttribute('data-state')).toBe('gave-up');
    // The button is in the Tab order.
    await byTestId('connection-retry').focus();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('connection-retry');
  }, 90_000);

  it('a theme picked in one browser is a setting: another browser (no local storage) opens with it', async () => {
    const { app: a } = await start(size);
    const first = await a.browser.newContext({ viewport: size, colorScheme: 'light' });
    const page = await first.newPage();
    await page.goto(a.server.url);
    await page.getByTestId('sidebar').waitFor();
    expect(await page.evaluate(() => document.documentElement.dataset['theme'])).toBe('light');
    await runCommand(page, 'dark theme');
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset['theme'])).toBe('dark');
    await expect.poll(() => a.runtime.settings.view().theme).toBe('dark');
    await first.close();
    const second = await a.browser.newContext({ viewport: size, colorScheme: 'light' });
    const other = await second.newPage();
    await other.goto(a.server.url);
    await other.getByTestId('sidebar').waitFor();
    await expect.poll(() => other.evaluate(() => document.documentElement.dataset['theme'])).toBe('dark');
    // The system changing does not override the pick.
    await other.emulateMedia({ colorScheme: 'light' });
    await other.waitForTimeout(300);
    expect(await other.evaluate(() => document.documentElement.dataset['theme'])).toBe('dark');
    await other.screenshot({ path: join(SCREENSHOTS, `new-user-${size.width}x${size.height}-theme-setting.png`) });
    await second.close();
  });

  it('an import summary toast leaves after 8 s, not 20 s, but stays while focus is on its Dismiss button', async () => {
    const { page, byTestId } = await start(size);
    const text = readFileSync(join(AGENT_LOGS, 'claude-code', 'cc_hello-world-script.jsonl'), 'utf8');
    const drop = async (name: string): Promise<void> => {
      const transfer = await page.evaluateHandle(
        ({ name, text }) => {
          const dt = new DataTransfer();
          dt.items.add(new File([text], name, { type: 'application/x-ndjson' }));
          return dt;
        },
        { name, text },
      );
      await page.dispatchEvent('[data-testid="app"]', 'dragenter', { dataTransfer: transfer });
      await page.dispatchEvent('[data-testid="app"]', 'dragover', { dataTransfer: transfer });
      await page.dispatchEvent('[data-testid="app"]', 'drop', { dataTransfer: transfer });
    };
    await drop('first.jsonl');
    const toast = page.locator('[data-testid="toast"]').filter({ hasText: 'Imported first.jsonl' });
    await toast.waitFor();
    await app!.screenshot(`new-user-${size.width}x${size.height}-import-toast`);
    await toast.waitFor({ state: 'detached', timeout: 11_000 });
    // Held by focus: it stays until focus leaves, then goes.
    await drop('second.jsonl');
    const second = page.locator('[data-testid="toast"]').filter({ hasText: 'Imported second.jsonl' });
    await second.waitFor();
    await second.getByTestId('toast-dismiss').focus();
    await page.waitForTimeout(9_000);
    expect(await second.getAttribute('data-paused')).toBe('true');
    await page.keyboard.press('Enter');
    await second.waitFor({ state: 'detached' });
    expect(await byTestId('toast').count()).toBe(0);
  }, 60_000);
});
