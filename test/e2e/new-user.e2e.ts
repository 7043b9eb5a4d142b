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
 *   shows one boundary separator (settings that stick: new-user-settings.e2e.ts).
 * Screenshots: test-results/new-user-*.png.
 */
import type { Locator, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { httpError, reply, textResponse, toolCallResponse } from '../support/scripted-llm/index.js';
import { startConnectedApp, type E2eApp, type E2eOptions } from './support/e2e-harness.js';
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
    // Numbered as the timeline numbers its steps (turn.step).
    expect(await byTestId('activity-step').textContent()).toBe('step 1.1');
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
    // A custom endpoint is named by its host, the full label and URL in the title.
    expect(await byTestId('run-provider').textContent()).toBe(new URL(a.runtime.settings.active.baseUrl).host);
    expect(await byTestId('run-provider').getAttribute('title')).toMatch(/^Custom OpenAI-compatible endpoint: http:\/\/127\.0\.0\.1:\d+\/v1$/);
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

  it('a turn whose retries all failed says how often it was tried and shows what the provider said, whole, without a hover', async () => {
    const { app: a, page, byTestId } = await start(size);
    await openNewSession(a, page);
    const said = 'scripted-llm: the script has nothing for its next step (conversation position 3 of 2); add a reply to the script or start the server again';
    // Retry-After of 1 ms: the five retries go at once.
    for (let i = 0; i < 6; i++) a.llm.enqueue(httpError(500, { error: { message: said, type: 'server_error' } }, { headers: { 'retry-after-ms': '1' } }));
    await byTestId('composer-input').fill('add a test for multiply_numbers');
    await byTestId('composer-input').press('Enter');
    await page.locator('[data-testid="turn-end"][data-turn="1"][data-reason="error"]').waitFor({ timeout: 30_000 });
    expect(await byTestId('failed-turn-what').textContent()).toBe(
      "The provider had a server error (HTTP 500). Tried 6 times. If the provider's message says why, fix that; otherwise retry later or pick another model in Settings.",
    );
    const whole = byTestId('failed-turn-said');
    expect(await whole.textContent()).toContain(said);
    // Wrapped on its own line, not clipped: every character is on screen.
    expect(await whole.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
    await app!.screenshot(`new-user-${tag}-retries-failed`);
    expect(await layoutProblems(page)).toEqual([]);
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
    // Focus moves in the effect after the inspector unmounts (a frame later on a loaded machine).
    await expect.poll(() => page.evaluate(() => (document.activeElement as HTMLElement | null)?.closest('[data-region]')?.getAttribute('data-region')), { timeout: 5_000 }).toBe('dock');
    await page.keyboard.press('Escape');
    await byTestId('side-dock').waitFor({ state: 'detached' });
    // Focus moves in the effect after the dock unmounts (a frame later on a loaded machine).
    await expect.poll(() => page.evaluate(() => document.activeElement !== document.body), { timeout: 5_000 }).toBe(true);
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
