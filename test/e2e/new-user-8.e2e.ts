/**
 * A new user's first hour, part 8 (the keyboard-only trial at 1000×700 and 1440×900, custom
 * endpoint, no key), two keys that did nothing:
 * - the request inspector's sections are a tab list, but ← → did not move between them (only Tab
 *   did): now ← → go to the previous / next tab and Home / End to the first / last, as in the side
 *   dock;
 * - the compare view opened from the palette puts focus on the Branch A drop-down, and Esc there
 *   did nothing (a drop-down was taken for a text field, whose Esc is its own): a closed drop-down's
 *   Esc now closes the comparison, and focus goes back to the open session.
 * Screenshots: test-results/new-user-8-*.png.
 */
import type { Locator, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { textResponse } from '../support/scripted-llm/index.js';
import { startConnectedApp, type E2eApp } from './support/e2e-harness.js';
import { runCommand, waitForFocus } from './support/keyboard-focus.js';
import { NARROW_AND_WIDE } from './support/layout-checks.js';

let app: E2eApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** An app with a session that has run one turn, and a fork of it that has run one too, the fork open. */
async function startWithFork(size: { width: number; height: number }): Promise<{ page: Page; byTestId: (id: string) => Locator; parent: string; fork: string }> {
  const started = await startConnectedApp({ viewport: size, approvalPolicy: 'allow' });
  app = started.app;
  const a = started.app;
  a.llm.setHandler(() => textResponse('Noted.'));
  const conn = a.runtime.host.connect(() => undefined);
  const parent = conn.createSession({ cwd: a.workspace }).id;
  conn.followup({ sessionId: parent, text: 'Write down a plan' });
  await a.runtime.host.agentFor(parent)!.whenIdle();
  const fork = (await conn.forkSession({ sessionId: parent })).id;
  conn.followup({ sessionId: fork, text: 'Now carry it out' });
  await a.runtime.host.agentFor(fork)!.whenIdle();
  conn.dispose();
  const { page } = started;
  await page.reload();
  await page.locator(`[data-testid="session-row"][data-session-id="${fork}"] [data-testid="session-open"]`).click();
  await page.locator('[data-testid="turn-end"][data-turn="2"]').waitFor();
  return { page, byTestId: started.byTestId, parent, fork };
}

describe.each(NARROW_AND_WIDE)('keys that did nothing at $width×$height', (size) => {
  const tag = `${size.width}x${size.height}`;

  it('the request inspector’s tabs follow ← → Home End', async () => {
    const { page, byTestId } = await startWithFork(size);
    // Setup (not about keys): the inspector of the last step.
    await page.locator('[data-testid="request-button"]').last().click();
    await byTestId('request-inspector').waitFor();
    await byTestId('request-tab-request').focus();
    const selected = (): Promise<string | null> => page.locator('[data-testid^="request-tab-"][aria-selected="true"]').getAttribute('data-testid');
    await page.keyboard.press('ArrowRight');
    await waitForFocus(page, 'request-tab-messages');
    expect(await selected()).toBe('request-tab-messages');
    await byTestId('request-inspector').locator('.panel-body').waitFor();
    await app!.screenshot(`new-user-8-${tag}-inspector-tabs`);
    await page.keyboard.press('End');
    await waitForFocus(page, 'request-tab-playground');
    expect(await selected()).toBe('request-tab-playground');
    await page.keyboard.press('ArrowRight');
    await waitForFocus(page, 'request-tab-request');
    await page.keyboard.press('ArrowLeft');
    await waitForFocus(page, 'request-tab-playground');
    await page.keyboard.press('Home');
    await waitForFocus(page, 'request-tab-request');
    expect(await selected()).toBe('request-tab-request');
  });

  it('Esc on the compare view’s Branch A drop-down closes the comparison and hands focus back', async () => {
    const { page, byTestId, parent, fork } = await startWithFork(size);
    await runCommand(page, 'compare with the parent');
    await page.locator(`[data-testid="compare-view"][data-a="${parent}"][data-b="${fork}"][data-state="ready"]`).waitFor({ timeout: 10_000 });
    await byTestId('compare-pick-a').focus();
    await app!.screenshot(`new-user-8-${tag}-compare-picker`);
    await page.keyboard.press('Escape');
    await byTestId('compare-view').waitFor({ state: 'detached', timeout: 5_000 });
    await waitForFocus(page, 'composer-input', 5_000);
  });

  it('the palette opens the outline and the request inspector; ↑ ↓ move between the outline’s turns', async () => {
    const { page, byTestId } = await startWithFork(size);
    await runCommand(page, 'show the outline');
    await byTestId('turn-outline').waitFor();
    const entries = page.locator('[data-testid="turn-outline"] .outline-button');
    expect(await entries.count()).toBeGreaterThanOrEqual(2);
    await entries.first().focus();
    await page.keyboard.press('ArrowDown');
    expect(await entries.nth(1).evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('ArrowUp');
    expect(await entries.first().evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('End');
    expect(await entries.last().evaluate((el) => el === document.activeElement)).toBe(true);
    await runCommand(page, 'inspect the last request');
    await byTestId('request-inspector').waitFor();
    await waitForFocus(page, 'request-inspector-close', 5_000);
    expect(await byTestId('request-label').textContent()).toMatch(/2\.1/);
  });
});
