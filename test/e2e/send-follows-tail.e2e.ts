/**
 * Sending from the composer brings the timeline to the latest (keyboard-only trial at 1000×700): a
 * follow-up sent while the timeline was scrolled up left the view where it was, with only
 * "↓ latest" showing, and the person had to press End to see their turn. Now a sent message — a
 * new turn, a follow-up queued behind a running turn, steering — jumps the timeline to its newest
 * row and follows the tail again: the person's message row comes into sight and the answer after it.
 * Screenshot: test-results/send-follows-tail.png.
 */
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textResponse, type ScriptStep } from '../support/scripted-llm/index.js';
import { startConnectedApp, type E2eApp } from './support/e2e-harness.js';
import { waitForFocus } from './support/keyboard-focus.js';

let app: E2eApp;
let page: Page;
let byTestId: (id: string) => Locator;
let sessionId: string;
/** Model answers held until the test lets them go (a turn surely runs while the test acts). */
const gates: (() => void)[] = [];

const PARAGRAPH = 'A long answer, so that the timeline is taller than its view and can be scrolled up. '.repeat(8);

beforeAll(async () => {
  ({ app, page, byTestId } = await startConnectedApp({ viewport: { width: 1000, height: 700 }, approvalPolicy: 'allow' }));
  app.llm.setHandler(async (request): Promise<ScriptStep> => {
    const messages = request.body.messages as { role: string; content: unknown }[];
    const lastUser = messages.findLast((m) => m.role === 'user');
    if (JSON.stringify(lastUser?.content ?? '').includes('hold')) await new Promise<void>((resolve) => gates.push(resolve));
    return textResponse(`${PARAGRAPH} (answer ${request.number})`, { split: 200 });
  });
  const connection = app.runtime.host.connect(() => undefined);
  sessionId = connection.createSession({ cwd: app.workspace, title: 'A long session' }).id;
  for (let i = 1; i <= 4; i++) {
    connection.followup({ sessionId, text: `question ${i}` });
    await app.runtime.host.agentFor(sessionId)!.whenIdle();
  }
  connection.dispose();
  await page.reload();
  await page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"] [data-testid="session-open"]`).click();
  await page.locator('[data-testid="turn-end"][data-turn="4"]').waitFor();
}, 60_000);
afterAll(async () => {
  for (const open of gates.splice(0)) open();
  await app?.close();
});

/** Scrolls the timeline to its top from the keyboard (Home on a row), so it no longer follows the tail. */
async function scrollUp(): Promise<void> {
  await page.locator('[data-testid="timeline-row"][tabindex="0"]').focus();
  await page.keyboard.press('Home');
  await byTestId('follow-tail-button').waitFor();
  await page.waitForFunction(() => document.querySelector('[data-testid="timeline"]')!.scrollTop === 0);
}

/** Whether the user-message row with `text` is wholly inside the timeline's view. */
function userRowInView(text: string): Promise<boolean> {
  return page.evaluate((t) => {
    const timeline = document.querySelector<HTMLElement>('[data-testid="timeline"]')!;
    const box = timeline.getBoundingClientRect();
    const row = [...document.querySelectorAll('[data-testid="timeline-row"][data-kind="user"]')].find((r) => r.textContent?.includes(t));
    if (!row) return false;
    const r = row.getBoundingClientRect();
    return r.top >= box.top - 1 && r.bottom <= box.top + timeline.clientHeight + 1;
  }, text);
}

/** The view is at the bottom of the timeline (following its tail). */
function atBottom(): Promise<boolean> {
  return page.evaluate(() => {
    const el = document.querySelector<HTMLElement>('[data-testid="timeline"]')!;
    return el.scrollHeight - el.scrollTop - el.clientHeight <= 40;
  });
}

describe('sending from the composer shows the latest', () => {
  it('a new turn sent while scrolled up: the message row comes into sight and the answer is followed', async () => {
    await scrollUp();
    await byTestId('composer-input').focus();
    await page.keyboard.type('question 5');
    await page.keyboard.press('Enter');
    await expect.poll(() => userRowInView('question 5'), { timeout: 10_000 }).toBe(true);
    await byTestId('follow-tail-button').waitFor({ state: 'detached' });
    await page.locator('[data-testid="turn-end"][data-turn="5"]').waitFor({ timeout: 20_000 });
    await expect.poll(atBottom, { timeout: 5_000 }).toBe(true);
    expect(await byTestId('follow-tail-button').count()).toBe(0);
    await waitForFocus(page, 'composer-input');
    await app.screenshot('send-follows-tail');
  });

  it('a follow-up queued behind a running turn while scrolled up: the view follows, and shows it when its turn starts', async () => {
    // Turn 6 waits for the test inside its model request.
    await byTestId('composer-input').focus();
    await page.keyboard.type('question 6, hold');
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="session-status"][data-status="running"]').waitFor();
    await expect.poll(() => gates.length, { timeout: 10_000 }).toBe(1);
    await scrollUp();
    await byTestId('composer-input').focus();
    await page.keyboard.type('question 7');
    await page.keyboard.press('Enter');
    await byTestId('inbox-item').waitFor();
    await byTestId('follow-tail-button').waitFor({ state: 'detached', timeout: 10_000 });
    await expect.poll(atBottom, { timeout: 5_000 }).toBe(true);
    expect(await userRowInView('question 6, hold')).toBe(true);
    // Turn 6 answers; the queued follow-up becomes turn 7, in sight.
    gates.shift()!();
    await page.locator('[data-testid="turn-end"][data-turn="7"]').waitFor({ timeout: 20_000 });
    await expect.poll(() => userRowInView('question 7'), { timeout: 10_000 }).toBe(true);
    await expect.poll(atBottom, { timeout: 5_000 }).toBe(true);
    expect(await byTestId('follow-tail-button').count()).toBe(0);
  });

  it('steering a running turn while scrolled up brings the view to the latest too', async () => {
    await byTestId('composer-input').focus();
    await page.keyboard.type('question 8, hold');
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="session-status"][data-status="running"]').waitFor();
    await expect.poll(() => gates.length, { timeout: 10_000 }).toBe(1);
    await scrollUp();
    await byTestId('composer-input').focus();
    await page.keyboard.type('and mention the tests');
    await page.keyboard.press('Control+Enter');
    await byTestId('follow-tail-button').waitFor({ state: 'detached', timeout: 10_000 });
    await expect.poll(atBottom, { timeout: 5_000 }).toBe(true);
    gates.shift()!();
    await page.locator('[data-testid="turn-end"][data-turn="8"]').waitFor({ timeout: 20_000 });
    await expect.poll(atBottom, { timeout: 5_000 }).toBe(true);
  });
});
