/**
 * The fan-out form fits the timeline and keeps focus in sight (keyboard-only trial at 1000×700):
 * "fan out…" under an earlier turn, Enter, put focus on the branch count scrolled above the
 * timeline (following the tail pushed the grown row up), and the form, as wide as its longest
 * line (a variant's model, effort, system addendum and own prompt side by side), spilled past the
 * timeline's right edge, so that Tab to "Check" scrolled the whole timeline sideways. Now, at
 * 1000×700, 800×600 and 1000×700 beside the Branches panel: nothing in the timeline reaches past
 * its edges, the focused control is in sight when the form opens (the whole form when it fits),
 * and Tab through every field keeps the timeline's sideways scroll at 0.
 * Screenshots: test-results/fanout-form-fit-<size>-open.png (as it opens) and -<size>.png (four branches).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textResponse } from '../support/scripted-llm/index.js';
import { startE2eApp, type E2eApp } from './support/e2e-harness.js';
import { runCommand, waitForFocus } from './support/keyboard-focus.js';
import { focusOutOfSight, layoutProblems, sidewaysOverflow } from './support/layout-checks.js';

let app: E2eApp;
let sessionId: string;

const LONG_ANSWER = 'The change is in sum.js: the total now starts at 0, so an empty list sums to 0. '.repeat(6);

beforeAll(async () => {
  app = await startE2eApp({ approvalPolicy: 'allow', models: ['model-with-a-rather-long-name-a', 'model-with-a-rather-long-name-b'] });
  app.llm.setHandler(() => textResponse(LONG_ANSWER, { split: 200 }));
  const connection = app.runtime.host.connect(() => undefined);
  sessionId = connection.createSession({ cwd: app.workspace, title: 'Two turns to fan out from' }).id;
  for (const text of ['make sum([]) return 0', 'what did you change?']) {
    connection.followup({ sessionId, text });
    await app.runtime.host.agentFor(sessionId)!.whenIdle();
  }
  connection.dispose();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

/** The timeline's sideways state, with anything sticking out named (the rows' last-resort clip seen through). */
async function expectNoSidewaysOverflow(page: Page, when: string): Promise<void> {
  const overflow = await sidewaysOverflow(page, '[data-testid="timeline"]', { seeThrough: '.vrow' });
  expect(overflow.outside, `${when}: elements past the timeline's edges`).toEqual([]);
  expect(overflow.scrollWidth, `${when}: the timeline's scroll width`).toBeLessThanOrEqual(overflow.clientWidth);
  expect(overflow.scrollLeft, `${when}: the timeline's sideways scroll`).toBe(0);
}

/** Shift+Tab from the composer (backwards through the timeline's rows) until "fan out…" under turn 1 holds focus. */
async function shiftTabToFanOut(page: Page): Promise<void> {
  for (let i = 0; i < 60; i++) {
    const there = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      return el?.dataset['testid'] === 'fanout-button' && el.closest('[data-testid="turn-end"][data-turn="1"]') !== null;
    });
    if (there) return;
    await page.keyboard.press('Shift+Tab');
  }
  throw new Error('Shift+Tab did not reach "fan out…" under turn 1');
}

const CASES = [
  { name: '1000x700', width: 1000, height: 700, panel: false },
  { name: '800x600', width: 800, height: 600, panel: false },
  { name: '1000x700-branches-panel', width: 1000, height: 700, panel: true },
] as const;

describe('the fan-out form in the timeline, keyboard only', () => {
  it.each(CASES)('fits, shows its focused control and never scrolls the timeline sideways at $name', async (size) => {
    const page = await app.openPage({ width: size.width, height: size.height });
    await page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"] [data-testid="session-open"]`).click();
    await page.locator('[data-testid="turn-end"][data-turn="2"]').waitFor();
    if (size.panel) {
      // "branches" alone: the palette ranks "Show branches" above the fan-out that mentions branches.
      await runCommand(page, 'branches');
      await page.getByTestId('branch-picker').waitFor();
    }
    await page.getByTestId('composer-input').focus();
    await shiftTabToFanOut(page);
    await page.keyboard.press('Enter');
    await waitForFocus(page, 'fanout-count');
    const form = page.getByTestId('fanout-form');
    // The count, and the whole form when it fits, come into sight (the view settles after the row is measured).
    await expect.poll(() => focusOutOfSight(page), { timeout: 5_000 }).toBeUndefined();
    const fits = await page.evaluate(() => {
      const f = document.querySelector('[data-testid="fanout-form"]')!.getBoundingClientRect();
      const t = document.querySelector<HTMLElement>('[data-testid="timeline"]')!;
      const box = t.getBoundingClientRect();
      return { fits: f.height <= t.clientHeight, inside: f.top >= box.top - 1 && f.bottom <= box.top + t.clientHeight + 1 };
    });
    if (fits.fits) expect(fits.inside, 'the whole form is in sight').toBe(true);
    // Its first line names the turn it forks at, and is in sight with the count (the row above may not be).
    expect(await form.getByTestId('fanout-turn').textContent()).toBe('Fan out from the end of turn 1');
    const titleShown = await page.evaluate(() => {
      const title = document.querySelector('[data-testid="fanout-turn"]')!.getBoundingClientRect();
      const box = document.querySelector('[data-testid="timeline"]')!.getBoundingClientRect();
      return title.top >= box.top - 1 && title.bottom <= box.bottom + 1;
    });
    expect(titleShown, 'the turn line is in sight as the form opens').toBe(true);
    await app.screenshot(`fanout-form-fit-${size.name}-open`);
    await expectNoSidewaysOverflow(page, 'form open');
    expect(await layoutProblems(page), 'controls cut off or overlapping').toEqual([]);
    // Four branches: four variant rows, each wrapped to the timeline's width.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => form.getByTestId('fanout-variant').count()).toBe(4);
    await page.getByTestId('fanout-prompt').focus();
    await page.keyboard.type('fix the failing test');
    await page.getByTestId('fanout-count').focus();
    await app.screenshot(`fanout-form-fit-${size.name}`);
    // Tab through every field to Start: the focused field is in sight, the timeline never scrolls sideways.
    const visited: string[] = [];
    for (let i = 0; i < 40; i++) {
      const id = await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset['testid'] ?? '');
      visited.push(id);
      expect(await focusOutOfSight(page), `focus on ${id}`).toBeUndefined();
      await expectNoSidewaysOverflow(page, `focus on ${id}`);
      if (id === 'fanout-start') break;
      await page.keyboard.press('Tab');
    }
    expect(visited).toEqual([
      'fanout-count',
      'fanout-prompt',
      // The scripted provider (custom) takes no reasoning effort: no effort select (as in Settings).
      ...[0, 1, 2, 3].flatMap((i) => [`fanout-model-${i}`, `fanout-system-${i}`, `fanout-variant-prompt-${i}`]),
      'fanout-check',
      'fanout-start',
    ]);
    expect(await layoutProblems(page), 'controls cut off or overlapping, on Start').toEqual([]);
    await page.keyboard.press('Escape');
    await form.waitFor({ state: 'detached' });
    await waitForFocus(page, 'fanout-button');
  });
});
