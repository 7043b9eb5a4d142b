/**
 * Fan-out, the N-way board, apply and rewind (issue 21), by keyboard alone, in Chromium against
 * browser mode (real host, SQLite, git checkpoints, the scripted model server). Each case makes
 * its own base session (one finished turn in a copy of examples/fix-sum, whose test fails), so the
 * cases are independent. Models are keyed by name: model-b fixes sum.js, the others do not.
 * Screenshots: test-results/60-fanout-form.png, 61-board-running.png, 62-board-ranked.png,
 * 63-board-applied.png (1400×900); 64-board-1000.png, 65-rewound-1000.png (1000×700); and from
 * "Fan out…" in the command palette: 66-board-provisional.png, 67-board-files.png (1400×900),
 * 68-board-2col-1000.png (the 2-column case, cost column), 69-board-ab-1000.png, and
 * cost-board-branch-meters-1000.png (a branch's meter, sidebar costs, session + per-turn budget) (1000×700).
 * Prices are set for model-a and model-b (USD per million tokens); model-c and model-d have none,
 * so their cost shows "price unknown". model-c answers slowly, so the others finish first.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textResponse, usage, type ReplyStep } from '../support/scripted-llm/index.js';
import { ROOT, startE2eApp, type E2eApp } from './support/e2e-harness.js';
import { runCommand, waitForFocus } from './support/keyboard-focus.js';
import { fixSumReply, type ScriptedMessage } from '../support/fix-sum-replies.js';

let app: E2eApp;

/** Every reply reports usage: 1,000 input and 50 output tokens. */
const USAGE = usage(1000, 50);
/** USD per million tokens for the priced models (model-c and model-d have no price). */
const PRICES = [
  { model: 'model-a', inputMtok: 1, outputMtok: 2 },
  { model: 'model-b', inputMtok: 3, outputMtok: 4 },
];

/** model-b fixes sum.js; the others write notes of their own; the answer streams in pieces (model-c's slowly). */
const reply = (model: string, messages: readonly ScriptedMessage[]): ReplyStep => {
  const step = fixSumReply(model, messages, {
    notesPath: (m) => `notes-${m}.txt`,
    finalReply: (m) => textResponse(`done (${m}): ${'a few words of streamed text. '.repeat(20)}`, { split: 12, ...(m === 'model-c' ? { frameDelayMs: 300 } : {}) }),
  });
  return { ...step, usage: USAGE };
};

beforeAll(async () => {
  app = await startE2eApp({ approvalPolicy: 'allow', models: ['model-a', 'model-b', 'model-c', 'model-d'] });
  app.llm.setHandler((request) => reply(String(request.body.model), request.body.messages as ScriptedMessage[]));
  app.runtime.host.options.settings.update({ prices: PRICES.map((p) => ({ ...p, baseUrl: app.llm.baseUrl })) });
}, 60_000);
afterAll(async () => {
  await app?.close();
});

/** A fresh base session: a copy of examples/fix-sum and one finished, checkpointed turn. */
async function baseSession(): Promise<{ id: string; folder: string }> {
  const folder = mkdtempSync(join(app.dir, 'project-'));
  cpSync(join(ROOT, 'examples/fix-sum'), folder, { recursive: true });
  const connection = app.runtime.host.connect(() => undefined);
  try {
    const s = await connection.createSession({ cwd: folder });
    connection.followup({ sessionId: s.id, text: 'say hello' });
    await app.runtime.host.agentFor(s.id)!.whenIdle();
    const end = Date.now() + 15_000;
    while (!app.runtime.host.agentFor(s.id)!.session.events.some((e) => e.type === 'workspace/checkpoint')) {
      if (Date.now() > end) throw new Error('no checkpoint');
      await new Promise((r) => setTimeout(r, 50));
    }
    return { id: s.id, folder };
  } finally {
    connection.dispose();
  }
}

/** Presses Tab (Shift+Tab when `back`) until the element with `testId` (inside `within`, when given) holds focus. */
async function tabTo(page: Page, testId: string, options: { back?: boolean; within?: string; max?: number } = {}): Promise<void> {
  for (let i = 0; i < (options.max ?? 80); i++) {
    const here = await page.evaluate(
      ([id, within]) => {
        const el = document.activeElement as HTMLElement | null;
        return el?.dataset['testid'] === id && (!within || el.closest(within) !== null);
      },
      [testId, options.within ?? ''] as const,
    );
    if (here) return;
    await page.keyboard.press(options.back ? 'Shift+Tab' : 'Tab');
  }
  throw new Error(`Tab did not reach ${testId}`);
}

/** Opens session `id` from the sessions list by keyboard (the palette's "session list", arrows to the row, Enter). */
async function openByKeyboard(page: Page, id: string): Promise<void> {
  const row = page.locator(`[data-testid="session-row"][data-session-id="${id}"]`);
  await row.waitFor();
  await runCommand(page, 'session list');
  await waitForFocus(page, 'session-open');
  for (let i = 0; i < 40; i++) {
    if (await page.evaluate((sid) => (document.activeElement as HTMLElement | null)?.closest<HTMLElement>('[data-session-id]')?.dataset['sessionId'] === sid, id)) break;
    await page.keyboard.press('ArrowDown');
  }
  await page.keyboard.press('Enter');
  await page.locator(`[data-testid="session-row"][data-session-id="${id}"][data-selected="true"]`).waitFor();
  await page.getByTestId('session-view').waitFor();
}

/**
 * Opens the fan-out form under turn 1 by keyboard and fills it: `count` branches, the prompt, check
 * `node test.js`. `open`: by Tab to the turn end's button (default), the palette's "Fan out…", or its shortcut.
 */
async function fanOut(page: Page, count: number, shot?: string, open: 'tab' | 'palette' | 'shortcut' = 'tab'): Promise<void> {
  const end = page.locator('[data-testid="turn-end"][data-turn="1"]');
  await end.waitFor();
  if (open === 'palette') await runCommand(page, 'fan out');
  else if (open === 'shortcut') await page.keyboard.press('Control+Shift+O');
  else {
    await tabTo(page, 'fanout-button', { within: '[data-testid="turn-end"][data-turn="1"]' });
    await page.keyboard.press('Enter');
  }
  await waitForFocus(page, 'fanout-count').catch(async (e: unknown) => {
    await app.screenshot('debug-fanout-form');
    throw e;
  });
  for (let i = 2; i < count; i++) await page.keyboard.press('ArrowDown');
  expect(await page.getByTestId('fanout-variant').count()).toBe(count);
  await page.keyboard.press('Tab');
  await waitForFocus(page, 'fanout-prompt');
  await page.keyboard.type('fix the failing test');
  // The check proposed from the project (package.json's test script), replaced by the direct command.
  await expect.poll(() => page.getByTestId('fanout-check').inputValue(), { timeout: 10_000 }).toBe('npm test --silent');
  await tabTo(page, 'fanout-check');
  await page.keyboard.press('Control+a');
  await page.keyboard.type('node test.js');
  for (let i = 0; i < count; i++) expect(await page.getByTestId(`fanout-model-${i}`).inputValue()).toBe(`model-${'abcd'[i]}`);
  if (shot) await app.screenshot(shot);
  await tabTo(page, 'fanout-start');
  await page.keyboard.press('Enter');
  await page.getByTestId('board-view').waitFor({ timeout: 30_000 });
}

/** Waits until every board column is idle with its check run and ranked. */
async function boardSettled(page: Page, count: number): Promise<void> {
  await page.waitForFunction(
    (n) => {
      const cols = [...document.querySelectorAll<HTMLElement>('[data-testid="board-column"]')];
      return cols.length === n && cols.every((c) => c.dataset['status'] === 'idle' && c.dataset['rank'] !== '' && c.querySelector('[data-testid="board-check"]')?.textContent !== 'not run');
    },
    count,
    { timeout: 90_000 },
  );
}

describe('fan-out board by keyboard', () => {
  it('fans out 4 branches at 1400×900, shows them live and ranked, applies the best', async () => {
    const base = await baseSession();
    const page = await app.openPage({ width: 1400, height: 900 });
    await openByKeyboard(page, base.id);
    // The main thread's longest stall while the branches stream (requestAnimationFrame gaps).
    await page.evaluate(() => {
      const w = window as unknown as { __maxGap: number };
      w.__maxGap = 0;
      let last = performance.now();
      const tick = (t: number) => {
        w.__maxGap = Math.max(w.__maxGap, t - last);
        last = t;
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    await fanOut(page, 4, '60-fanout-form');
    expect(await page.getByTestId('board-column').count()).toBe(4);
    await page.getByTestId('board-check-command').filter({ hasText: 'node test.js' }).waitFor();
    await app.screenshot('61-board-running');
    await boardSettled(page, 4);
    const maxGap = await page.evaluate(() => (window as unknown as { __maxGap: number }).__maxGap);
    expect(maxGap).toBeLessThan(1000);
    const best = page.locator('[data-testid="board-column"][data-rank="1"]');
    expect(await best.getByTestId('board-variant').textContent()).toContain('model-b');
    expect(await best.getByTestId('board-check').textContent()).toContain('passed');
    expect(await page.locator('[data-testid="board-column"]:not([data-rank="1"]) [data-testid="board-check"]').first().textContent()).toContain('failed');
    await best.getByTestId('board-transcript').getByText('done (model-b)').first().waitFor();
    await app.screenshot('62-board-ranked');
    // Apply to my folder, by keyboard.
    await tabTo(page, 'board-apply', { within: '[data-testid="board-column"][data-rank="1"]' });
    await page.keyboard.press('Enter');
    const result = best.getByTestId('board-apply-result');
    await result.waitFor();
    expect(await result.getAttribute('data-applied')).toBe('true');
    expect(await result.textContent()).toContain('M sum.js');
    expect(readFileSync(join(base.folder, 'sum.js'), 'utf8')).toContain('let total = 0;');
    await app.screenshot('63-board-applied');
  }, 180_000);

  it('at 1000×700: a 3-branch fan-out board, discard one, and rewind the parent by keyboard', async () => {
    const base = await baseSession();
    const page = await app.openPage({ width: 1000, height: 700 });
    await openByKeyboard(page, base.id);
    await fanOut(page, 3);
    await boardSettled(page, 3);
    // Three columns fit beside the sidebar: nothing is hidden past the board's right edge (a trial saw the third cut off).
    expect(await page.getByTestId('board-columns').evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    await app.screenshot('64-board-1000');
    const loser = page.locator('[data-testid="board-column"][data-rank="2"]');
    const loserId = (await loser.getAttribute('data-session-id'))!;
    const loserFolder = app.runtime.repository.get(loserId)!.header.cwd!;
    await tabTo(page, 'board-discard', { within: '[data-testid="board-column"][data-rank="2"]' });
    await page.keyboard.press('Enter');
    await page.getByTestId('toast').filter({ hasText: 'Discarded' }).waitFor();
    expect(existsSync(loserFolder)).toBe(false);
    // Apply the winner, then rewind the parent to its turn 1: the folder is as before the apply.
    await tabTo(page, 'board-apply', { within: '[data-testid="board-column"][data-rank="1"]' });
    await page.keyboard.press('Enter');
    await page.getByTestId('board-apply-result').waitFor();
    expect(readFileSync(join(base.folder, 'sum.js'), 'utf8')).toContain('let total = 0;');
    await tabTo(page, 'board-close');
    await page.keyboard.press('Enter');
    await openByKeyboard(page, base.id);
    await tabTo(page, 'rewind-here-button', { within: '[data-testid="turn-end"][data-turn="1"]' });
    // Asked first (it restores the folder in place): Esc leaves everything as it was, focus back on the link.
    await page.keyboard.press('Enter');
    await page.getByTestId('confirm-dialog').waitFor();
    expect(await page.getByTestId('confirm-dialog').textContent()).toContain('The files as they are now and the later turns are kept');
    await page.keyboard.press('Escape');
    await page.getByTestId('confirm-dialog').waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'rewind-here-button');
    expect(readFileSync(join(base.folder, 'sum.js'), 'utf8')).toContain('let total = 0;');
    await page.keyboard.press('Enter');
    await page.getByTestId('confirm-dialog').waitFor();
    await page.keyboard.press('Tab'); // from Cancel to Rewind
    await page.keyboard.press('Enter');
    await page.waitForFunction((p) => document.querySelector('[data-testid="session-row"][data-selected="true"]')?.getAttribute('data-session-id') !== p, base.id, { timeout: 20_000 });
    expect(readFileSync(join(base.folder, 'sum.js'), 'utf8')).toContain('let total;');
    await app.screenshot('65-rewound-1000');
  }, 180_000);

  it("from the palette at 1400×900: ranked while running (marked), cost per branch, each branch's files, apply", async () => {
    const base = await baseSession();
    const page = await app.openPage({ width: 1400, height: 900 });
    await openByKeyboard(page, base.id);
    await fanOut(page, 3, undefined, 'palette');
    // model-c still streams while the others are done: they are ranked, it provisionally, and said so
    // (one check of the whole board at one moment, as the branches move on by themselves).
    await page.waitForFunction(
      () => {
        const cols = [...document.querySelectorAll<HTMLElement>('[data-testid="board-column"]')];
        const slow = cols.filter((c) => c.dataset['status'] === 'running' && c.dataset['provisional'] === 'true');
        const done = cols.filter((c) => c.dataset['status'] === 'idle' && c.dataset['provisional'] === 'false' && c.dataset['rank'] !== '');
        return (
          slow.length === 1 &&
          done.length === 2 &&
          slow[0]!.querySelector('[data-testid="board-variant"]')?.textContent?.includes('model-c') === true &&
          /^#\d so far$/.test(slow[0]!.querySelector('[data-testid="board-rank"]')?.textContent ?? '') &&
          document.querySelector('[data-testid="board-provisional-note"]') !== null
        );
      },
      undefined,
      { timeout: 60_000 },
    );
    await app.screenshot('66-board-provisional');
    await boardSettled(page, 3);
    expect(await page.locator('[data-testid="board-column"][data-provisional="true"]').count()).toBe(0);
    expect(await page.getByTestId('board-provisional-note').count()).toBe(0);
    // Cost from the logged usage and the user's prices, by hand: 3 requests of 1,000 in + 50 out each;
    // model-b at $3/$4 per Mtok: 3 × (0.003 + 0.0002) = $0.0096; model-a at $1/$2: 3 × (0.001 + 0.0001) = $0.0033.
    const best = page.locator('[data-testid="board-column"][data-rank="1"]');
    expect(await best.getByTestId('board-variant').textContent()).toContain('model-b');
    expect(await best.getByTestId('board-cost').textContent()).toBe('$0.009600');
    const byModel = (m: string) => page.locator('[data-testid="board-column"]').filter({ has: page.locator('[data-testid="board-variant"]', { hasText: m }) });
    expect(await byModel('model-a').getByTestId('board-cost').textContent()).toBe('$0.003300');
    expect(await byModel('model-c').getByTestId('board-cost').textContent()).toBe('price unknown');
    // The winner's files since the fork point, opened by keyboard: only sum.js, with the fix.
    const files = best.getByTestId('board-files');
    await page.locator('[data-testid="board-column"][data-rank="1"] [data-testid="board-files"][data-state="ready"][data-count="1"]').waitFor({ timeout: 20_000 });
    expect(await best.getByTestId('board-files-summary').textContent()).toBe('Files: 1 changed · +1 −1');
    await tabTo(page, 'board-files-summary', { within: '[data-testid="board-column"][data-rank="1"]' });
    await page.keyboard.press('Enter');
    await expect.poll(() => files.getAttribute('open')).toBe('');
    expect(await files.getByTestId('board-file').getAttribute('data-path')).toBe('sum.js');
    expect(await files.getByTestId('compare-diff').textContent()).toContain('let total = 0;');
    expect(await byModel('model-c').getByTestId('board-files-summary').textContent()).toBe('Files: 1 changed · +1 −0');
    await app.screenshot('67-board-files');
    await tabTo(page, 'board-apply', { within: '[data-testid="board-column"][data-rank="1"]' });
    await page.keyboard.press('Enter');
    await best.getByTestId('board-apply-result').waitFor();
    expect(readFileSync(join(base.folder, 'sum.js'), 'utf8')).toContain('let total = 0;');
  }, 180_000);

  it('by its shortcut at 1000×700: two branches are the 2-column board, with costs, and A/B details by keyboard', async () => {
    const base = await baseSession();
    const page = await app.openPage({ width: 1000, height: 700 });
    await openByKeyboard(page, base.id);
    await fanOut(page, 2, undefined, 'shortcut');
    await boardSettled(page, 2);
    expect(await page.getByTestId('board-view').getAttribute('data-count')).toBe('2');
    const costs = await page.getByTestId('board-cost').allTextContents();
    expect(costs.sort()).toEqual(['$0.003300', '$0.009600'].sort());
    await app.screenshot('68-board-2col-1000');
    const ids = await page.locator('[data-testid="board-column"]').evaluateAll((cols) => cols.map((c) => (c as HTMLElement).dataset['sessionId']));
    await tabTo(page, 'board-pair-compare');
    await page.keyboard.press('Enter');
    await page.locator(`[data-testid="compare-view"][data-a="${ids[0]}"][data-b="${ids[1]}"][data-state="ready"]`).waitFor({ timeout: 20_000 });
    await app.screenshot('69-board-ab-1000');
    // Back in a branch (Close, by keyboard): its meter and the sidebar's costs; a session
    // and a per-turn budget set by keyboard in the header's budget editor.
    await tabTo(page, 'compare-close');
    await page.keyboard.press('Enter');
    await page.getByTestId('compare-view').waitFor({ state: 'detached' });
    // Opened from the board, the comparison closes back to the board; Esc there closes the board.
    await page.getByTestId('board-view').waitFor();
    await tabTo(page, 'board-refresh');
    await page.keyboard.press('Escape');
    await page.getByTestId('board-view').waitFor({ state: 'detached' });
    await openByKeyboard(page, ids[1]!);
    await page.getByTestId('meter-cost').waitFor();
    await tabTo(page, 'budget-button');
    await page.keyboard.press('Enter');
    await waitForFocus(page, 'budget-input');
    await page.keyboard.type('1');
    await tabTo(page, 'budget-turn-input');
    await page.keyboard.type('-2');
    await page.keyboard.press('Enter');
    expect(await page.getByTestId('budget-error').textContent()).toBe('budget per turn (USD): "-2" is not a number');
    await page.keyboard.press('Control+a');
    await page.keyboard.type('0.05');
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="budget-button"]', { hasText: 'budget $1 / $0.05/turn' }).waitFor();
    expect(app.runtime.settings.sessionBudget(ids[1]!)).toEqual({ sessionUsd: 1, turnUsd: 0.05 });
    await app.screenshot('cost-board-branch-meters-1000');
  }, 180_000);
});
