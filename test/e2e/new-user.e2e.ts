/**
 * A new user's first hour (issue 25), end to end in Chromium against browser mode (the real host,
 * store and agents; the real `openai` client against the scripted model server), each case at
 * 1000×700 and 1440×900 and each on its own app, so any one can run alone:
 * - the folder picker never starts a session in another folder than the one typed: after
 *   "…/does-not-exist is not a folder", "Use this folder" is disabled and says why;
 * - while a turn runs, a line above the message box says what the agent is doing (thinking,
 *   writing the answer), for how long, roughly how many tokens streamed, and when the model has
 *   been silent for more than 15 s; "Thinking…" turns into "Thought" once the answer streams;
 * - the composer shows the provider, the model (a picker listing the endpoint's models) and the
 *   approval mode (ask / allow / deny), and changing them saves the settings;
 * - a failed turn says what failed in words and what to do, and offers it: a 401 opens Settings,
 *   and Retry sends the prompt again;
 * - Esc closes side panels; a disabled "Allow for this session" says why on screen; a fork that ran
 *   shows one boundary separator; the theme follows the system until the person picks one.
 * Screenshots: test-results/new-user-*.png.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT_LOGS } from '../support/import-fixtures.js';
import type { Locator, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { httpError, reply, textResponse, toolCallResponse } from '../support/scripted-llm/index.js';
import { ROOT, SCREENSHOTS, startConnectedApp, type E2eApp, type E2eOptions } from './support/e2e-harness.js';
import { createRuntime } from '../../electron/host/runtime.js';
import { startBrowserServer } from '../../electron/host/transport/ws-server.js';
import { layoutProblems, NARROW_AND_WIDE } from './support/layout-checks.js';
import { runCommand, waitForFocus } from './support/keyboard-focus.js';

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

/** A session made through the host, opened from the session list. */
async function openNewSession(a: E2eApp, page: Page): Promise<string> {
  const conn = a.runtime.host.connect(() => undefined);
  const id = conn.createSession({ cwd: a.workspace }).id;
  conn.dispose();
  await page.reload();
  await page.locator(`[data-testid="session-row"][data-session-id="${id}"] [data-testid="session-open"]`).click();
  await page.getByTestId('composer-input').waitFor();
  return id;
}

describe.each(SIZES)('new user at $width×$height', (size) => {
  const tag = `${size.width}x${size.height}`;

  it('the folder picker refuses a folder that does not exist instead of using the one listed before', async () => {
    const { app: a, page, byTestId } = await start(size);
    await runCommand(page, 'new session');
    await byTestId('folder-browser').waitFor();
    await waitForFocus(page, 'folder-path');
    await page.waitForFunction(() => !document.querySelector('[data-testid="folder-list"][aria-busy="true"]'));
    const missing = `${a.workspace}/does-not-exist`;
    await page.keyboard.press('Control+a');
    await page.keyboard.type(missing);
    await page.keyboard.press('Enter');
    await byTestId('folder-error').waitFor();
    expect(await byTestId('folder-error').textContent()).toContain('is not a folder');
    // The listing below is still the home folder: using it would start the session there.
    expect(await byTestId('folder-choose').isDisabled()).toBe(true);
    expect(await byTestId('folder-choose-blocked').textContent()).toContain('choose a folder that exists');
    await app!.screenshot(`new-user-${tag}-folder-missing`);
    expect(await layoutProblems(page)).toEqual([]);
    // Enter again lists the typed path again (and fails again); nothing is started anywhere.
    await page.keyboard.press('Enter');
    await byTestId('folder-error').waitFor();
    expect(a.runtime.repository.list()).toEqual([]);
    // Typing a path that is not listed yet: the button waits for Enter too.
    await page.keyboard.press('Control+a');
    await page.keyboard.type(a.workspace);
    expect(await byTestId('folder-choose').isDisabled()).toBe(true);
    expect(await byTestId('folder-choose-blocked').textContent()).toContain('Press Enter to list');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector<HTMLButtonElement>('[data-testid="folder-choose"]')?.disabled === false);
    await page.keyboard.press('Enter');
    await byTestId('session-view').waitFor();
    const sessions = a.runtime.repository.list();
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.header.cwd).toBe(a.workspace);
  });

  it('says what the running turn is doing, for how long, how much streamed, and when the model goes silent', async () => {
    const { app: a, page, byTestId } = await start(size, { approvalPolicy: 'allow' });
    await openNewSession(a, page);
    const reasoning = 'Let me look at how the loader reads its defaults before answering. '.repeat(4);
    const text = 'The loader reads its defaults from config.json, then the environment overrides them. '.repeat(3);
    // Reasoning then answer in small pieces, then the stream goes silent (until the turn is cancelled).
    a.llm.enqueue(reply({ reasoning, text, split: 6, frameDelayMs: 90, cut: { after: Math.ceil(reasoning.length / 6) + 20, then: 'stall' } }));
    await byTestId('composer-input').fill('Where do the loader defaults come from?');
    await byTestId('composer-input').press('Enter');
    const line = byTestId('activity-line');
    await page.locator('[data-testid="activity-line"][data-phase="thinking"]').waitFor({ timeout: 15_000 });
    expect(await byTestId('activity-phase').textContent()).toBe('Thinking');
    expect(await page.locator('[data-testid="reasoning-row"] .who').textContent()).toBe('Thinking…');
    await app!.screenshot(`new-user-${tag}-activity-thinking`);
    // The answer streams: the reasoning row no longer says "Thinking…".
    await page.locator('[data-testid="activity-line"][data-phase="writing"]').waitFor({ timeout: 15_000 });
    expect(await page.locator('[data-testid="assistant-text"]').getAttribute('data-streaming')).toBe('true');
    expect(await page.locator('[data-testid="reasoning-row"]').getAttribute('data-streaming')).toBe('false');
    expect(await page.locator('[data-testid="reasoning-row"] .who').textContent()).toBe('Thought');
    expect(await byTestId('activity-tokens').textContent()).toMatch(/^≈\d+ tokens out$/);
    const elapsed = async (): Promise<number> => Number(/^(\d+) s$/.exec((await byTestId('activity-elapsed').textContent()) ?? '')?.[1] ?? NaN);
    const first = await elapsed();
    await page.waitForTimeout(2_100);
    expect(await elapsed()).toBeGreaterThan(first);
    expect(await line.getAttribute('data-stalled')).toBe('false');
    // Silent for more than 15 s: the line says so.
    await page.locator('[data-testid="activity-line"][data-stalled="true"]').waitFor({ timeout: 30_000 });
    expect(await byTestId('activity-stalled').textContent()).toMatch(/no data from the model for 1\d s .*Esc cancels/);
    await app!.screenshot(`new-user-${tag}-activity-stalled`);
    expect(await layoutProblems(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await page.locator('[data-testid="turn-end"][data-turn="1"]').waitFor({ timeout: 15_000 });
    await line.waitFor({ state: 'detached' });
  }, 90_000);

  it('the composer shows the provider, model and approval mode, and changing them saves the settings', async () => {
    const { app: a, page, byTestId } = await start(size, { models: ['scripted-model', 'scripted-large'] });
    await openNewSession(a, page);
    expect(await byTestId('run-provider').textContent()).not.toBe('');
    expect(await byTestId('run-model').inputValue()).toBe('scripted-model');
    expect(await byTestId('run-approval').inputValue()).toBe('ask');
    // Focusing the model picker lists the endpoint's models.
    await byTestId('run-model').focus();
    await page.locator('[data-testid="run-model"] option[value="scripted-large"]').waitFor({ state: 'attached' });
    await app!.screenshot(`new-user-${tag}-run-settings`);
    expect(await layoutProblems(page)).toEqual([]);
    await byTestId('run-model').selectOption('scripted-large');
    await expect.poll(() => a.runtime.settings.active.model).toBe('scripted-large');
    await byTestId('run-approval').selectOption('allow');
    await expect.poll(() => a.runtime.settings.approvalPolicy).toBe('allow');
    // The next turn runs on the picked model.
    a.llm.enqueue(textResponse('Done.'));
    await byTestId('composer-input').fill('hello');
    await byTestId('composer-input').press('Enter');
    await page.locator('[data-testid="turn-end"][data-turn="1"]').waitFor({ timeout: 15_000 });
    expect((a.llm.requests.at(-1)!.body as { model?: string }).model).toBe('scripted-large');
  });

  it('a failed turn says what failed and what to do, opens Settings for a refused key, and Retry sends the prompt again', async () => {
    const { app: a, page, byTestId } = await start(size);
    await openNewSession(a, page);
    a.llm.enqueue(httpError(401, { error: { message: 'Authentication Fails (no such user)', type: 'authentication_error', code: 'invalid_api_key' } }));
    await byTestId('composer-input').fill('Summarise the README');
    await byTestId('composer-input').press('Enter');
    await page.locator('[data-testid="turn-end"][data-turn="1"][data-reason="error"]').waitFor({ timeout: 20_000 });
    await page.locator('[data-testid="session-status"][data-status="idle"]').waitFor({ timeout: 20_000 });
    const help = byTestId('failed-turn');
    expect(await help.getAttribute('data-code')).toBe('AUTH');
    expect(await byTestId('failed-turn-what').textContent()).toContain('The provider refused the API key (HTTP 401). Check or replace the key in Settings');
    await app!.screenshot(`new-user-${tag}-failed-turn`);
    expect(await layoutProblems(page)).toEqual([]);
    await byTestId('failed-turn-settings').click();
    await byTestId('settings-dialog').waitFor();
    await page.keyboard.press('Escape');
    await byTestId('settings-dialog').waitFor({ state: 'detached' });
    // The key is fine again: Retry sends the same prompt as a new turn.
    a.llm.enqueue(textResponse('The README explains how to run Forkline.'));
    await byTestId('failed-turn-retry').click();
    await page.locator('[data-testid="turn-end"][data-turn="2"][data-reason="completed"]').waitFor({ timeout: 20_000 });
    const last = a.llm.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] };
    expect(JSON.stringify(last.messages.filter((m) => m.role === 'user').at(-1))).toContain('Summarise the README');
    await waitForFocus(page, 'composer-input');
    expect(await byTestId('failed-turn-retry').count()).toBe(0);
  });
});

/** A session with one completed turn, made through the host (not opened). */
async function sessionWithTurn(a: E2eApp, prompt = 'What is in the workspace?'): Promise<string> {
  const conn = a.runtime.host.connect(() => undefined);
  const id = conn.createSession({ cwd: a.workspace }).id;
  a.llm.enqueue(textResponse('An empty folder.'));
  conn.followup({ sessionId: id, text: prompt });
  await a.runtime.host.agentFor(id)!.whenIdle();
  conn.dispose();
  return id;
}

describe.each(SIZES)('rough edges at $width×$height', (size) => {
  const tag = `${size.width}x${size.height}`;

  it('Esc closes the side panel in front, then the next, then the outline; focus stays in the session', async () => {
    const { app: a, page, byTestId } = await start(size);
    const id = await sessionWithTurn(a);
    await page.reload();
    await page.locator(`[data-testid="session-row"][data-session-id="${id}"] [data-testid="session-open"]`).click();
    await page.locator('[data-testid="turn-end"][data-turn="1"]').waitFor();
    // Setup (not about keys): the outline, the branches panel and the request inspector.
    await byTestId('outline-button').click();
    await byTestId('branches-toggle').click();
    await page.locator('[data-testid="request-button"]').first().click();
    await byTestId('request-inspector').waitFor();
    await byTestId('request-inspector-close').focus();
    await app!.screenshot(`new-user-${tag}-panels-open`);
    await page.keyboard.press('Escape');
    await byTestId('request-inspector').waitFor({ state: 'detached' });
    expect(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.closest('[data-region]')?.getAttribute('data-region'))).toBe('dock');
    await page.keyboard.press('Escape');
    await byTestId('side-dock').waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement !== document.body)).toBe(true);
    await byTestId('turn-outline-close').focus();
    await page.keyboard.press('Escape');
    await byTestId('turn-outline').waitFor({ state: 'detached' });
    await waitForFocus(page, 'outline-button');
  });

  it('an approval that cannot be allowed for the session says why on screen, not only in a tooltip', async () => {
    const { app: a, page, byTestId } = await start(size, { approvalPolicy: 'ask' });
    await openNewSession(a, page);
    a.llm.enqueue(toolCallResponse([{ id: 'c-1', name: 'bash', arguments: JSON.stringify({ command: 'ls; echo done' }) }]), textResponse('Listed.'));
    await byTestId('composer-input').fill('list the files');
    await byTestId('composer-input').press('Enter');
    await byTestId('approval-item').waitFor({ timeout: 20_000 });
    expect(await byTestId('approval-allow-session').isDisabled()).toBe(true);
    const why = byTestId('approval-session-why');
    expect(await why.isVisible()).toBe(true);
    expect(await why.textContent()).toContain('not a single simple command');
    await app!.screenshot(`new-user-${tag}-approval-why`);
    expect(await layoutProblems(page)).toEqual([]);
    await byTestId('approval-reject').click();
    await page.locator('[data-testid="turn-end"][data-turn="1"]').waitFor({ timeout: 20_000 });
  });

  it('a fork that has run shows one boundary separator, not "fork boundary" then "resumed here"', async () => {
    const { app: a, page } = await start(size);
    const parent = await sessionWithTurn(a);
    const conn = a.runtime.host.connect(() => undefined);
    const child = (await conn.forkSession({ sessionId: parent })).id;
    a.llm.enqueue(textResponse('Still empty.'));
    conn.followup({ sessionId: child, text: 'And now?' });
    await a.runtime.host.agentFor(child)!.whenIdle();
    conn.dispose();
    await page.reload();
    await page.locator(`[data-testid="session-row"][data-session-id="${child}"] [data-testid="session-open"]`).click();
    await page.locator('[data-testid="turn-end"][data-turn="2"]').waitFor({ timeout: 15_000 });
    await app!.screenshot(`new-user-${tag}-fork-boundary`);
    const separators = await page.locator('[data-testid="end-seed-row"]').evaluateAll((els) => els.map((e) => [e.getAttribute('data-fork'), e.textContent]));
    expect(separators).toHaveLength(1);
    expect(separators[0]![0]).toBe('true');
  });
});

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
