/**
 * In-session find (Ctrl+F) reaches the words of every row kind, end to end in Chromium against
 * browser mode, keyboard only, at 1000×700 and 1440×900: a warning row (and its "What to do"),
 * a turn's rule and its end reason, a fork boundary, a project-instructions row and an "N events
 * elided" row are found, scrolled to and marked like a tool's output. A new user's trial found
 * none of them (find searched only message, tool and a few other kinds).
 * Screenshots: test-results/find-rows-*.png.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { textResponse } from '../support/scripted-llm/index.js';
import { startConnectedApp, type E2eApp } from './support/e2e-harness.js';
import { waitForFocus } from './support/keyboard-focus.js';
import { layoutProblems, NARROW_AND_WIDE } from './support/layout-checks.js';

const SIZES = NARROW_AND_WIDE;

let app: E2eApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** The current find mark: its text and the kind of row it is in, when it is in the timeline's visible box. */
function mark(page: Page): Promise<{ text: string; kind: string | undefined; inView: boolean } | undefined> {
  return page.evaluate(() => {
    const m = CSS.highlights.get('forkline-find-current');
    const range = m ? ([...m][0] as Range | undefined) : undefined;
    if (!range || !range.startContainer.isConnected) return undefined;
    const r = range.getBoundingClientRect();
    const box = document.querySelector('[data-testid="timeline"]')!.getBoundingClientRect();
    return {
      text: range.toString(),
      kind: range.startContainer.parentElement?.closest<HTMLElement>('[data-testid="timeline-row"]')?.dataset['kind'],
      inView: r.height > 0 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1,
    };
  });
}

/** Types `query` into the (focused) find input, replacing what was there, and waits for its one match to be marked in a row of `kind`. */
async function findOne(page: Page, query: string, kind: string): Promise<void> {
  await page.keyboard.press('Control+a');
  await page.keyboard.type(query);
  await page.locator('[data-testid="find-count"]', { hasText: '1 of 1' }).waitFor({ timeout: 5_000 });
  expect(await page.locator(`[data-testid="timeline-row"][data-find="current"]`).getAttribute('data-kind')).toBe(kind);
  await expect.poll(() => mark(page), { timeout: 5_000 }).toEqual({ text: query, kind, inView: true });
}

async function openFromList(page: Page, id: string): Promise<void> {
  await page.reload();
  await page.locator(`[data-testid="session-row"][data-session-id="${id}"] [data-testid="session-open"]`).click();
  await page.getByTestId('session-view').waitFor();
  await page.locator('[data-testid="timeline-row"]').first().waitFor();
}

/**
 * A root session (with AGENTS.md in force) whose one turn stopped at the output cap, a fork of it,
 * and an import of the root's log with a warning in it and two events left out.
 */
async function sessions(a: E2eApp): Promise<{ fork: string; imported: string }> {
  writeFileSync(join(a.workspace, 'AGENTS.md'), 'Use tabs.\n');
  const conn = a.runtime.host.connect(() => undefined);
  const root = conn.createSession({ cwd: a.workspace, title: 'Root' }).id;
  a.llm.enqueue(textResponse('The answer was cut', { finish: 'length' }));
  conn.followup({ sessionId: root, text: 'Explain the build.' });
  await a.runtime.host.agentFor(root)!.whenIdle();
  const fork = (await conn.forkSession({ sessionId: root })).id;
  // The root's log, with its request header turned into a warning and two other log-only events left out.
  const lines = conn.exportSession({ sessionId: root }).jsonl.trimEnd().split('\n');
  const types = lines.map((line) => (JSON.parse(line) as { type?: string }).type);
  const header = types.indexOf('request/header');
  lines[header] = JSON.stringify({
    ...(JSON.parse(lines[header]!) as object),
    type: 'llm/warning',
    data: { turn: 1, step: 1, code: 'PROMPT_TRUNCATED', message: 'the server counted fewer prompt tokens than were sent', hint: 'set the model context window lower' },
  });
  const gap = [types.indexOf('request/context'), types.indexOf('request/price')];
  expect(gap).not.toContain(-1);
  const jsonl = `${lines.filter((_, i) => !gap.includes(i)).join('\n')}\n`;
  const imported = (await conn.importSession({ jsonl, fileName: 'root-with-gap.jsonl' })).sessionId;
  conn.dispose();
  return { fork, imported };
}

describe.each(SIZES)('find reaches every row kind at $width×$height', (size) => {
  const tag = `${size.width}x${size.height}`;

  it('finds the fork boundary, the instructions row, the turn rule and the turn end reason (keyboard only)', async () => {
    const started = await startConnectedApp({ viewport: size, approvalPolicy: 'allow' });
    app = started.app;
    const { page } = started;
    const { fork } = await sessions(app);
    await openFromList(page, fork);
    await page.locator('[data-testid="end-seed-row"][data-fork="true"]').waitFor();
    await page.keyboard.press('Control+f');
    await waitForFocus(page, 'find-input');
    await findOne(page, 'inherited from the parent', 'end-seed');
    await app.screenshot(`find-rows-${tag}-fork-boundary`);
    await findOne(page, 'AGENTS.md', 'instructions');
    await findOne(page, 'in the system prompt', 'instructions');
    await findOne(page, 'turn 1 ended', 'turn-end');
    expect(await page.locator('[data-testid="turn-end"][data-turn="1"] b').textContent()).toBe('max-tokens');
    // The end reason shows on the turn's rule, the step's finish badge and the turn's end row: Enter steps through them.
    await page.keyboard.press('Control+a');
    await page.keyboard.type('max-tokens');
    for (const [i, kind] of ['turn', 'step', 'turn-end'].entries()) {
      if (i > 0) await page.keyboard.press('Enter');
      await page.locator('[data-testid="find-count"]', { hasText: `${i + 1} of 3` }).waitFor();
      await expect.poll(() => mark(page), { timeout: 5_000 }).toEqual({ text: 'max-tokens', kind, inView: true });
    }
    await app.screenshot(`find-rows-${tag}-turn-end`);
    expect(await layoutProblems(page)).toEqual([]);
  });

  it('finds a warning (and its "What to do") and an "events elided" row in an imported log', async () => {
    const started = await startConnectedApp({ viewport: size, approvalPolicy: 'allow' });
    app = started.app;
    const { page } = started;
    const { imported } = await sessions(app);
    await openFromList(page, imported);
    await page.getByTestId('elided-row').waitFor();
    await page.getByTestId('warning-row').waitFor();
    await page.keyboard.press('Control+f');
    await waitForFocus(page, 'find-input');
    await findOne(page, 'fewer prompt tokens', 'warning');
    await findOne(page, 'What to do: set the model', 'warning');
    await findOne(page, 'PROMPT_TRUNCATED', 'warning');
    await app.screenshot(`find-rows-${tag}-warning`);
    const elided = (await page.getByTestId('elided-row').textContent())!;
    const count = /\((\d+ events? elided)\)/.exec(elided)![1]!;
    await findOne(page, count, 'elided');
    await app.screenshot(`find-rows-${tag}-elided`);
    expect(await layoutProblems(page)).toEqual([]);
  });
});
