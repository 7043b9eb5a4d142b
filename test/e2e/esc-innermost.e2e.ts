/**
 * Esc closes the innermost thing focus is in, never something else (keyboard-only trial at
 * 1000×700: with the compare view and the Branches panel open, an Esc closed the panel and left
 * the comparison open, and the person had meant the comparison). Every control of the compare view
 * — its Branch A / B drop-downs, swap, Branches, Refresh, Close, the transcripts' links — closes the
 * comparison with Esc and leaves the panel open; every control of the Branches panel — a branch,
 * its tick box (an Esc there closed the comparison behind the panel), its "compare", "Compare N/8",
 * the close button — closes the panel and leaves the comparison open.
 */
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textResponse } from '../support/scripted-llm/index.js';
import { startConnectedApp, type E2eApp } from './support/e2e-harness.js';
import { runCommand } from './support/keyboard-focus.js';

let app: E2eApp;
let page: Page;
let byTestId: (id: string) => Locator;
let parent: string;
let fork: string;

beforeAll(async () => {
  ({ app, page, byTestId } = await startConnectedApp({ viewport: { width: 1000, height: 700 }, approvalPolicy: 'allow' }));
  app.llm.setHandler(() => textResponse('Noted.'));
  const connection = app.runtime.host.connect(() => undefined);
  parent = connection.createSession({ cwd: app.workspace, title: 'Plan' }).id;
  connection.followup({ sessionId: parent, text: 'Write down a plan' });
  await app.runtime.host.agentFor(parent)!.whenIdle();
  fork = (await connection.forkSession({ sessionId: parent })).id;
  connection.followup({ sessionId: fork, text: 'Now carry it out' });
  await app.runtime.host.agentFor(fork)!.whenIdle();
  connection.dispose();
  await page.reload();
  await page.locator(`[data-testid="session-row"][data-session-id="${fork}"] [data-testid="session-open"]`).click();
  await page.locator('[data-testid="turn-end"][data-turn="2"]').waitFor();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

/** The compare view of the fork and its parent, and the Branches panel, both open (opened from the keyboard). */
async function bothOpen(): Promise<void> {
  if ((await byTestId('compare-view').count()) === 0) {
    await runCommand(page, 'compare with the parent');
    await page.locator(`[data-testid="compare-view"][data-a="${parent}"][data-b="${fork}"][data-state="ready"]`).waitFor({ timeout: 10_000 });
  }
  if ((await byTestId('branch-picker').count()) === 0) {
    await runCommand(page, 'show branches');
    await byTestId('branch-picker').waitFor();
  }
  // Two branches ticked, so "Compare 2/8" takes focus too.
  for (const box of await page.locator('[data-testid="branch-node-check"]').all()) if (!(await box.isChecked())) await box.check();
}

/** Each focusable control inside `scope` as a selector that finds it again after the views reopen. */
async function controlsIn(scope: string): Promise<string[]> {
  return page.evaluate((sel) => {
    const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';
    const found: string[] = [];
    for (const el of document.querySelector(sel)!.querySelectorAll<HTMLElement>(FOCUSABLE)) {
      if (el.getClientRects().length === 0) continue;
      const id = el.dataset['testid'];
      if (!id) continue;
      const own = el.dataset['sessionId'];
      const owner = el.parentElement?.closest<HTMLElement>('[data-session-id]')?.dataset['sessionId'];
      const selector = own ? `${sel} [data-testid="${id}"][data-session-id="${own}"]` : owner ? `${sel} [data-session-id="${owner}"] [data-testid="${id}"]` : `${sel} [data-testid="${id}"]`;
      if (!found.includes(selector)) found.push(selector);
    }
    return found;
  }, scope);
}

describe('Esc with the compare view and the Branches panel open', () => {
  it('in the compare view closes the comparison, never the panel', async () => {
    await bothOpen();
    const controls = await controlsIn('[data-testid="compare-view"]');
    expect(controls).toContain('[data-testid="compare-view"] [data-testid="compare-pick-a"]');
    expect(controls.length).toBeGreaterThan(6);
    for (const control of controls) {
      await bothOpen();
      await page.locator(control).first().focus();
      await page.keyboard.press('Escape');
      await byTestId('compare-view').waitFor({ state: 'detached', timeout: 5_000 });
      expect(await byTestId('branch-picker').count(), `Esc on ${control}`).toBe(1);
    }
  });

  it('in the Branches panel closes the panel, never the comparison', async () => {
    await bothOpen();
    const controls = await controlsIn('[data-testid="side-dock"]');
    expect(controls.some((c) => c.includes('branch-node-check'))).toBe(true);
    expect(controls.some((c) => c.includes('branch-compare-selected'))).toBe(true);
    for (const control of controls) {
      await bothOpen();
      await page.locator(control).first().focus();
      await page.keyboard.press('Escape');
      await byTestId('branch-picker').waitFor({ state: 'detached', timeout: 5_000 });
      expect(await byTestId('compare-view').count(), `Esc on ${control}`).toBe(1);
      // Focus goes back into the comparison (the area left), not to the page.
      await page.waitForFunction(() => document.activeElement?.closest('[data-region="compare"]') !== null, undefined, { timeout: 5_000 });
    }
  });
});
