/**
 * The sidebar folds to its rail beside a side panel in a narrow window, end to end in Chromium
 * against browser mode, keyboard only. At 1000×700 with the turn outline and the events panel open
 * the timeline was squeezed to a sliver (≈280 px): below 1200 px an open side panel now folds the
 * sidebar, so the timeline keeps ≥ 420 px; the rail's first button unfolds it, and that choice holds
 * (the panel closed and opened again) until the window is wide again. At 1440×900 nothing folds.
 * Screenshots: test-results/sidebar-fold-*.png.
 */
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { textResponse } from '../support/scripted-llm/index.js';
import { startConnectedApp, type E2eApp } from './support/e2e-harness.js';
import { focused, waitForFocus } from './support/keyboard-focus.js';
import { layoutProblems } from './support/layout-checks.js';

let app: E2eApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function sessionWithTurns(a: E2eApp, turns: number): Promise<string> {
  const conn = a.runtime.host.connect(() => undefined);
  const id = conn.createSession({ cwd: a.workspace, title: 'Narrow window' }).id;
  for (let turn = 1; turn <= turns; turn++) {
    a.llm.enqueue(textResponse(`Answer ${turn}: the build runs the unit tests first, then the browser tests, and stops at the first failure.`));
    conn.followup({ sessionId: id, text: `Question ${turn}: what does the build do?` });
    await a.runtime.host.agentFor(id)!.whenIdle();
  }
  conn.dispose();
  return id;
}

const timelineWidth = (page: Page): Promise<number> => page.getByTestId('timeline').evaluate((el) => el.getBoundingClientRect().width);

/** Opens the turn outline and the events panel of the first answer, keyboard only. */
async function openOutlineAndEvents(page: Page): Promise<void> {
  await page.getByTestId('outline-button').focus();
  await page.keyboard.press('Enter');
  await page.getByTestId('turn-outline').waitFor();
  await page.locator('[data-testid="timeline-row"][data-kind="text"]').first().focus();
  await page.keyboard.press('Enter');
  await page.getByTestId('raw-inspector').waitFor();
}

/** Closes the panel in front with Esc from inside it; focus goes back to the timeline. */
async function closeEvents(page: Page): Promise<void> {
  await page.getByTestId('raw-inspector').locator('button').first().focus();
  await page.keyboard.press('Escape');
  await page.getByTestId('raw-inspector').waitFor({ state: 'detached' });
}

describe('the sidebar beside a side panel', () => {
  it('at 1000×700 it folds to its rail when the events panel opens, so the timeline keeps a usable width; unfolding it holds until the window is wide again', async () => {
    const started = await startConnectedApp({ viewport: { width: 1000, height: 700 } });
    app = started.app;
    const { page, byTestId } = started;
    const id = await sessionWithTurns(app, 3);
    await page.reload();
    await page.locator(`[data-testid="session-row"][data-session-id="${id}"] [data-testid="session-open"]`).click();
    await page.locator('[data-testid="turn-end"][data-turn="3"]').waitFor();
    await byTestId('sidebar').waitFor();

    await openOutlineAndEvents(page);
    // Folded to the rail, and focus stayed where the person was (the row that opened the panel).
    await page.locator('[data-testid="sidebar-rail"][data-for-room="true"]').waitFor();
    expect(await byTestId('sidebar').count()).toBe(0);
    expect((await focused(page)).testId).toBe('timeline-row');
    expect(await timelineWidth(page)).toBeGreaterThanOrEqual(420);
    await app.screenshot('sidebar-fold-1000x700-folded');
    expect(await layoutProblems(page)).toEqual([]);

    // The rail's first button unfolds it (keyboard): the sidebar comes back and its hide button takes focus.
    await byTestId('sidebar-expand').focus();
    await page.keyboard.press('Enter');
    await byTestId('sidebar').waitFor();
    await waitForFocus(page, 'sidebar-collapse');
    await app.screenshot('sidebar-fold-1000x700-kept-open');
    // That choice holds: the panel closed and opened again leaves the sidebar open.
    await closeEvents(page);
    await page.locator('[data-testid="timeline-row"][data-kind="text"]').first().focus();
    await page.keyboard.press('Enter');
    await byTestId('raw-inspector').waitFor();
    expect(await byTestId('sidebar').count()).toBe(1);
    expect(await byTestId('sidebar-rail').count()).toBe(0);

    // Wide again, then narrow again: the open panel folds it once more.
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.waitForFunction(() => window.innerWidth === 1440);
    expect(await byTestId('sidebar').count()).toBe(1);
    await page.setViewportSize({ width: 1000, height: 700 });
    await page.locator('[data-testid="sidebar-rail"][data-for-room="true"]').waitFor();
    expect(await timelineWidth(page)).toBeGreaterThanOrEqual(420);

    // With the panel closed the sidebar is back (folding was only for the panel's room).
    await closeEvents(page);
    await byTestId('sidebar').waitFor();
    expect(await layoutProblems(page)).toEqual([]);
  });

  it('hidden by the person (Ctrl+B) it stays a plain rail, and Ctrl+B shows it beside the panel', async () => {
    const started = await startConnectedApp({ viewport: { width: 1000, height: 700 } });
    app = started.app;
    const { page, byTestId } = started;
    const id = await sessionWithTurns(app, 1);
    await page.reload();
    await page.locator(`[data-testid="session-row"][data-session-id="${id}"] [data-testid="session-open"]`).click();
    await page.locator('[data-testid="turn-end"][data-turn="1"]').waitFor();
    await openOutlineAndEvents(page);
    await page.locator('[data-testid="sidebar-rail"][data-for-room="true"]').waitFor();
    // Ctrl+B from the timeline: shown (kept open beside the panel).
    await page.locator('[data-testid="timeline-row"][data-kind="text"]').first().focus();
    await page.keyboard.press('Control+b');
    await byTestId('sidebar').waitFor();
    // Ctrl+B again: hidden by the person, a plain rail.
    await page.keyboard.press('Control+b');
    await page.locator('[data-testid="sidebar-rail"][data-for-room="false"]').waitFor();
  });

  it('at 1440×900 the sidebar stays open beside the outline and a side panel', async () => {
    const started = await startConnectedApp({ viewport: { width: 1440, height: 900 } });
    app = started.app;
    const { page, byTestId } = started;
    const id = await sessionWithTurns(app, 3);
    await page.reload();
    await page.locator(`[data-testid="session-row"][data-session-id="${id}"] [data-testid="session-open"]`).click();
    await page.locator('[data-testid="turn-end"][data-turn="3"]').waitFor();
    await openOutlineAndEvents(page);
    expect(await byTestId('sidebar').count()).toBe(1);
    expect(await byTestId('sidebar-rail').count()).toBe(0);
    expect(await timelineWidth(page)).toBeGreaterThanOrEqual(420);
    await app.screenshot('sidebar-fold-1440x900-open');
    expect(await layoutProblems(page)).toEqual([]);
  });
});
