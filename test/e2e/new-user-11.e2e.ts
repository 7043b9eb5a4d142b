/**
 * A new user's first hour, part 11 (the keyboard-only trial at 1000×700 and 800×600): the fan-out
 * and compare views.
 * - "Show branches" from the board (its button or the command palette) put focus on the sidebar's
 *   rail button: focus now goes into the opened Branches panel (its open node).
 * - The compare view's two pickers looked alike: they read "Branch A" / "Branch B", and two branches
 *   of one title (forks asked the same prompt, in folders named by uuids) read apart by a short id,
 *   there and in the Branches panel.
 * Screenshots: test-results/new-user-11-*.png.
 */
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { textResponse } from '../support/scripted-llm/index.js';
import { startConnectedApp, type E2eApp } from './support/e2e-harness.js';
import { focused, runCommand } from './support/keyboard-focus.js';

let app: E2eApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** Waits until focus is in F6 area `region` (the error names where it is instead). */
async function waitForRegion(page: Page, region: string): Promise<void> {
  try {
    await page.waitForFunction((r) => document.activeElement?.closest<HTMLElement>('[data-region]')?.dataset['region'] === r, region, { timeout: 10_000 });
  } catch {
    const f = await focused(page);
    throw new Error(`focus did not reach the ${region} area: it is on ${f.region ?? '-'}/${f.testId}`);
  }
}

describe('the board and compare view at 800×600, keyboard only', () => {
  it('"Show branches" from the board focuses the panel; A/B pickers are labelled and two forks of one title read apart', async () => {
    const started = await startConnectedApp({ viewport: { width: 800, height: 600 }, approvalPolicy: 'allow' });
    app = started.app;
    const { page, byTestId } = started;
    const a = app;
    const conn = a.runtime.host.connect(() => undefined);
    const parent = conn.createSession({ cwd: a.workspace, title: 'Parent' }).id;
    a.llm.setHandler(() => textResponse('Done.'));
    conn.followup({ sessionId: parent, text: 'What is here?' });
    await a.runtime.host.agentFor(parent)!.whenIdle();
    const forks: string[] = [];
    for (let i = 0; i < 2; i++) {
      const id = (await conn.forkSession({ sessionId: parent })).id;
      conn.followup({ sessionId: id, text: 'Try again' });
      await a.runtime.host.agentFor(id)!.whenIdle();
      forks.push(id);
    }
    conn.dispose();
    await page.reload();
    await page.locator(`[data-testid="session-row"][data-session-id="${forks[0]}"] [data-testid="session-open"]`).click();
    await page.locator('[data-testid="timeline-row"]').first().waitFor();
    // The Branches panel: the two forks (same title, same folder) read apart.
    await byTestId('branches-toggle').focus();
    await page.keyboard.press('Enter');
    await byTestId('branch-tree').waitFor();
    await waitForRegion(page, 'dock');
    const names = await page.getByTestId('branch-node-title').allTextContents();
    expect(names).toHaveLength(3);
    expect(new Set(names).size, `names: ${names.join(' | ')}`).toBe(3);
    for (const id of forks) {
      const check = page.locator(`[data-testid="branch-node"][data-session-id="${id}"] [data-testid="branch-node-check"]`);
      await check.focus();
      await page.keyboard.press('Space');
    }
    await byTestId('branch-compare-selected').focus();
    await page.keyboard.press('Enter');
    await byTestId('board-view').waitFor();
    // Close the panel (Esc in it), then open it again from the board's button: focus goes into it.
    await byTestId('branches-toggle').focus();
    await page.keyboard.press('Enter');
    await byTestId('branch-picker').waitFor({ state: 'detached' });
    await byTestId('branches-toggle').focus();
    await page.keyboard.press('Enter');
    await byTestId('branch-picker').waitFor();
    await waitForRegion(page, 'dock');
    await a.screenshot('new-user-11-board-branches-button');
    // And from the command palette.
    await page.keyboard.press('Escape');
    await byTestId('branch-picker').waitFor({ state: 'detached' });
    await byTestId('board-refresh').focus();
    await runCommand(page, 'branches');
    await byTestId('branch-picker').waitFor();
    await waitForRegion(page, 'dock');
    expect((await focused(page)).testId).toBe('branch-node');
    await page.keyboard.press('Escape');
    await byTestId('branch-picker').waitFor({ state: 'detached' });
    // A/B details: each picker says which side it is; the two forks' options read apart.
    await byTestId('board-pair-compare').focus();
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="compare-view"][data-state="ready"]').waitFor({ timeout: 15_000 });
    expect(await byTestId('compare-pick-a-label').textContent()).toBe('Branch A');
    expect(await byTestId('compare-pick-b-label').textContent()).toBe('Branch B');
    const picked = async (side: 'a' | 'b'): Promise<string> => byTestId(`compare-pick-${side}`).evaluate((el) => (el as HTMLSelectElement).selectedOptions[0]?.textContent ?? '');
    const [pa, pb] = [await picked('a'), await picked('b')];
    expect(pa).not.toBe(pb);
    const options = await byTestId('compare-pick-a').locator('option').allTextContents();
    expect(new Set(options).size, `options: ${options.join(' | ')}`).toBe(options.length);
    await a.screenshot('new-user-11-compare-pickers');
  }, 90_000);
});
