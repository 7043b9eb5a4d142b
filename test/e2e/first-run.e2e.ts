/**
 * First run, with no key and the scripted server as the only model: the start screen shows the
 * provider setup card; a send without a working provider (from an open session or the start
 * screen) starts no turn and opens the card instead, keeping the message; the card lists the
 * endpoint's models, sends one real test request, saves the provider, and the held first prompt
 * starts a session in the chosen folder — titled by the prompt — whose answer streams, without a
 * session having been opened first. Browser mode without its token, or with a stale one, shows a
 * clear page instead of reconnecting forever. Screenshots: test-results/first-run-*.png.
 */
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startScriptedLlm, textResponse } from '../support/scripted-llm/index.js';
import { SCREENSHOTS, startE2eApp, type E2eApp } from './support/e2e-harness.js';
import { layoutProblems, seriousAxeViolations } from './support/layout-checks.js';

let app: E2eApp;
let page: Page;
const byTestId = (id: string) => page.getByTestId(id);
const PROMPT = 'Say hello from the first run';

beforeAll(async () => {
  app = await startE2eApp({ provider: 'unconfigured', approvalPolicy: 'ask' });
  page = app.page;
});
afterAll(async () => {
  await app?.close();
});

describe('first run with no key', () => {
  it('shows the provider setup card on the start screen, fitting every window size', async () => {
    await byTestId('provider-setup').waitFor();
    expect(await byTestId('provider-setup').textContent()).toContain('DeepSeek needs an API key');
    expect(await byTestId('setup-provider').inputValue()).toBe('deepseek');
    for (const size of [
      { width: 900, height: 600 },
      { width: 1000, height: 700 },
      { width: 1400, height: 900 },
    ]) {
      await page.setViewportSize(size);
      await app.screenshot(`first-run-${size.width}x${size.height}-setup-card`);
      expect(await layoutProblems(page)).toEqual([]);
    }
    for (const theme of ['dark', 'light']) {
      await page.evaluate((t) => (document.documentElement.dataset['theme'] = t), theme);
      expect(await seriousAxeViolations(page)).toEqual([]);
    }
    await page.evaluate(() => (document.documentElement.dataset['theme'] = 'dark'));
  });

  it('a send from an open session starts no turn: it opens the setup card and keeps the message', async () => {
    const conn = app.runtime.host.connect(() => undefined);
    const session = conn.createSession({ cwd: app.workspace });
    conn.dispose();
    await page.locator(`[data-testid="session-row"][data-session-id="${session.id}"] [data-testid="session-open"]`).click();
    await byTestId('composer-input').fill('this goes nowhere yet');
    await byTestId('composer-input').press('Enter');
    await byTestId('provider-setup-dialog').waitFor();
    expect(await byTestId('provider-setup-dialog').textContent()).toContain('nothing was sent — your message stays in the composer');
    expect(await byTestId('composer-input').inputValue()).toBe('this goes nowhere yet');
    await app.screenshot('first-run-setup-dialog');
    expect(app.runtime.store.readAll(session.id)).toEqual([]);
    expect(app.runtime.host.agentFor(session.id)).toBeUndefined();
    await page.keyboard.press('Escape');
    await byTestId('provider-setup-dialog').waitFor({ state: 'detached' });
    // Back to the start screen; nothing was run, so there is no "error MISSING_CREDENTIAL" turn anywhere.
    await conn.deleteSession({ sessionId: session.id });
    await page.reload();
    await byTestId('provider-setup').waitFor();
  });

  it('configures the scripted server from the card, then the held first prompt starts a session whose answer streams', async () => {
    // The start composer: a folder and the first prompt.
    await byTestId('start-choose-folder').click();
    await byTestId('folder-path').fill(app.workspace);
    await byTestId('folder-path').press('Enter');
    await page.waitForFunction((p) => document.querySelector('[data-testid="folder-browser"] .dialog-buttons .mono')?.textContent === p, app.workspace);
    await byTestId('folder-path').press('Enter');
    await byTestId('folder-browser').waitFor({ state: 'detached' });
    expect(await byTestId('start-folder').inputValue()).toBe(app.workspace);
    await byTestId('start-input').fill(PROMPT);
    await byTestId('start-input').press('Enter');
    // No provider works yet: nothing starts, the message waits for the card.
    await page.waitForFunction(() => document.querySelector('[data-testid="provider-setup"]')?.textContent?.includes('Your message is kept'));
    expect(app.runtime.repository.list()).toEqual([]);

    // Pick the custom endpoint (the scripted server), connect and test.
    await byTestId('setup-provider').selectOption('custom');
    await byTestId('setup-base-url').fill(app.llm.baseUrl);
    await byTestId('setup-model').fill('');
    const before = app.llm.requests.length;
    app.llm.enqueue(textResponse('pong'));
    await byTestId('setup-connect').click();
    await page.locator('[data-testid="setup-test"][data-state="ok"]').waitFor({ timeout: 15_000 });
    expect(await byTestId('setup-model').inputValue()).toBe('scripted-model');
    expect(await byTestId('setup-models').getAttribute('data-source')).toBe('endpoint');
    expect(await byTestId('setup-test').textContent()).toMatch(/scripted-model answered in \d+ ms/);
    expect(app.llm.requests.length).toBe(before + 1);
    await app.screenshot('first-run-tested');

    // Save: the held prompt starts the session and its answer streams in (~2 s of small pieces).
    app.llm.enqueue(reply({ text: 'Hello from the first run! This answer streams in small pieces so it can be watched.', split: 3, frameDelayMs: 80 }));
    await byTestId('setup-save').click();
    await byTestId('session-view').waitFor();
    const end = page.locator('[data-testid="turn-end"][data-turn="1"]');
    // On a loaded machine the view may open only after the answer ended; then the step's chunk count
    // below still shows it streamed (many chunks, not one reply).
    const sawStreaming = await Promise.race([
      page
        .locator('[data-testid="assistant-text"][data-streaming="true"]')
        .waitFor({ timeout: 15_000 })
        .then(() => true),
      end.waitFor({ timeout: 15_000 }).then(() => false),
    ]);
    if (sawStreaming) await app.screenshot('first-run-streaming');
    await end.waitFor({ timeout: 15_000 });
    const chunks = Number(/(\d+) chunks/.exec((await page.locator('[data-testid="step-marker"][data-turn="1"]').first().textContent()) ?? '')?.[1] ?? 0);
    expect(chunks).toBeGreaterThan(10);
    expect(await end.getAttribute('data-reason')).toBe('completed');
    expect(await page.locator('[data-testid="assistant-text"]').last().textContent()).toContain('Hello from the first run!');
    // The new session lives in the chosen folder and is titled by its first prompt.
    const sessions = app.runtime.repository.list();
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.header).toMatchObject({ cwd: app.workspace, title: PROMPT });
    expect(await byTestId('session-name').textContent()).toBe(PROMPT);
    expect(app.runtime.settings.active).toMatchObject({ provider: 'custom', baseUrl: app.llm.baseUrl, model: 'scripted-model' });
    await app.screenshot('first-run-answered');
  });

  it('finds a local Ollama when one answers on 127.0.0.1:11434', async (ctx) => {
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(false));
      probe.listen(11434, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (!free) return ctx.skip();
    const ollama = await startScriptedLlm({ port: 11434, models: ['llama3.2:3b', 'qwen2.5-coder:7b'] });
    try {
      await page.keyboard.press('Control+k');
      await page.keyboard.type('set up a model provider');
      await page.keyboard.press('Enter');
      await byTestId('setup-ollama-found').waitFor({ timeout: 10_000 });
      expect(await byTestId('setup-ollama-found').textContent()).toContain('2 models');
      await byTestId('setup-use-ollama').click();
      expect(await byTestId('setup-provider').inputValue()).toBe('ollama');
      expect(await byTestId('setup-model').inputValue()).toBe('llama3.2:3b');
      await app.screenshot('first-run-ollama-found');
      await page.keyboard.press('Escape');
    } finally {
      await ollama.close();
    }
  });
});

describe('browser mode without its token', () => {
  it('says the link needs its token, or that its token is not accepted, instead of reconnecting forever', async () => {
    const base = app.server.url.split('?')[0]!;
    const other = await app.browser.newContext({ viewport: { width: 1000, height: 700 } });
    const p = await other.newPage();
    await p.goto(base);
    await p.locator('[data-testid="token-page"][data-reason="missing-token"]').waitFor();
    expect(await p.locator('[data-testid="token-page"]').textContent()).toContain('This link needs its token');
    expect(await p.getByTestId('connection-banner').count()).toBe(0);
    await p.screenshot({ path: join(SCREENSHOTS, 'first-run-missing-token.png') });
    await p.goto(`${base}?token=${'0'.repeat(64)}`);
    await p.locator('[data-testid="token-page"][data-reason="wrong-token"]').waitFor({ timeout: 15_000 });
    expect(await p.locator('[data-testid="token-page"]').textContent()).toContain('token is not accepted');
    expect(await seriousAxeViolations(p)).toEqual([]);
    await p.screenshot({ path: join(SCREENSHOTS, 'first-run-wrong-token.png') });
    await other.close();
  });
});
