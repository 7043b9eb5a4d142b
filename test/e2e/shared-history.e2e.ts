/**
 * A root session against its fork, on the board and in the compare view, end to end in Chromium
 * against browser mode, keyboard only, at 1000×700 and 1440×900: the history both share (the
 * root's first two turns, before the fork point) is shown once, folded — "shared history: 2 turns
 * up to turn 2" — and opens by keyboard; each column starts at the fork point. A new user's trial
 * found the board showing the root's whole history beside the fork's, identical turns to scroll.
 * The root's turn 1 writes a file, and the fork has a folder of its own (as in a later trial): that
 * change is shared history too, so the root's column says "Files: no changes since the fork point"
 * beside "0 changed lines" (it listed the turn-1 change), is named by its route though it logged no
 * request header after the fork point (it showed its title), keeps its "(the session forked from)"
 * marker and short id visible when its title is cut, and no ranking reason shows two equal-looking
 * times ("shorter time: 0.0 s vs 0.0 s" for 40 ms against 48 ms).
 * Screenshots: test-results/shared-history-*.png.
 */
import type { Locator, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { textResponse, toolCallResponse } from '../support/scripted-llm/index.js';
import { startConnectedApp, type E2eApp } from './support/e2e-harness.js';
import { runCommand, waitForFocus } from './support/keyboard-focus.js';
import { layoutProblems, NARROW_AND_WIDE } from './support/layout-checks.js';

const SIZES = NARROW_AND_WIDE;

let app: E2eApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** A root with three turns (turn 1 writes notes.txt) and its fork after turn 2, in a folder of its own, which ran a turn 3 of its own. */
async function rootAndFork(a: E2eApp): Promise<{ root: string; fork: string }> {
  const conn = a.runtime.host.connect(() => undefined);
  const root = conn.createSession({ cwd: a.workspace, title: 'Root' }).id;
  for (const turn of [1, 2, 3]) {
    if (turn === 1) a.llm.enqueue(toolCallResponse([{ id: 'call_notes', name: 'write_file', arguments: JSON.stringify({ path: 'notes.txt', content: 'one\ntwo\n' }) }]));
    a.llm.enqueue(textResponse(`Root answer ${turn}.`));
    conn.followup({ sessionId: root, text: `Root question ${turn}` });
    await a.runtime.host.agentFor(root)!.whenIdle();
  }
  const events = conn
    .exportSession({ sessionId: root })
    .jsonl.trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as { type?: string; seq?: number; data?: { turn?: number } });
  const end2 = events.find((e) => e.type === 'turn/end' && e.data?.turn === 2)!.seq!;
  const fork = (await conn.forkSession({ sessionId: root, atSeq: end2, worktree: true })).id;
  a.llm.enqueue(textResponse('Fork answer 3.'));
  conn.followup({ sessionId: fork, text: 'Fork question 3' });
  await a.runtime.host.agentFor(fork)!.whenIdle();
  conn.dispose();
  return { root, fork };
}

const turnsIn = (scope: Locator): Promise<string[]> => scope.locator('[data-testid="compare-turn"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-turn') ?? ''));
const promptsIn = (scope: Locator): Promise<string[]> => scope.locator('[data-testid="compare-user"] .message-text').allTextContents();

/** The folded line, its opening by keyboard (Enter on its button) and what it then shows. */
async function checkSharedHistory(page: Page, within: string): Promise<void> {
  const shared = page.locator(`${within} [data-testid="shared-history"]`);
  await shared.waitFor();
  expect(await shared.locator('[data-testid="shared-history-body"]').count()).toBe(0);
  await expect.poll(() => shared.getByTestId('shared-history-toggle').textContent()).toContain('shared history: 2 turns up to turn 2');
  // Exactly one shared history, whatever the number of columns.
  expect(await page.locator(`${within} [data-testid="shared-history"]`).count()).toBe(1);
  await shared.getByTestId('shared-history-toggle').focus();
  await page.keyboard.press('Enter');
  const body = shared.getByTestId('shared-history-body');
  await body.locator('[data-testid="compare-turn"]').first().waitFor();
  expect(await turnsIn(body)).toEqual(['1', '2']);
  expect(await promptsIn(body)).toEqual(['Root question 1', 'Root question 2']);
  expect(await shared.getByTestId('shared-history-toggle').getAttribute('aria-expanded')).toBe('true');
  await page.keyboard.press('Enter');
  await body.waitFor({ state: 'detached' });
}

describe.each(SIZES)('the shared history of a root and its fork at $width×$height', (size) => {
  const tag = `${size.width}x${size.height}`;

  it('the board shows it once, folded, and each column from the fork point', async () => {
    const started = await startConnectedApp({ viewport: size, approvalPolicy: 'allow' });
    app = started.app;
    const { page, byTestId } = started;
    const { root, fork } = await rootAndFork(app);
    await page.reload();
    await page.locator(`[data-testid="session-row"][data-session-id="${root}"] [data-testid="session-open"]`).click();
    await page.locator('[data-testid="turn-end"][data-turn="3"]').waitFor();
    // The branch picker, keyboard only: tick both, then "Compare 2/8".
    await byTestId('branches-toggle').focus();
    await page.keyboard.press('Enter');
    await byTestId('branch-picker').waitFor();
    for (const id of [root, fork]) {
      const check = page.locator(`[data-testid="branch-node"][data-session-id="${id}"] [data-testid="branch-node-check"]`);
      await check.focus();
      await page.keyboard.press('Space');
      await expect.poll(() => check.isChecked()).toBe(true);
    }
    await byTestId('branch-compare-selected').focus();
    await page.keyboard.press('Enter');
    await byTestId('board-view').waitFor();
    const columns = page.locator('[data-testid="board-column"]');
    for (const [id, prompt] of [
      [root, 'Root question 3'],
      [fork, 'Fork question 3'],
    ] as const) {
      const transcript = page.locator(`[data-testid="board-column"][data-session-id="${id}"] [data-testid="board-transcript"]`);
      await transcript.locator('[data-testid="compare-user"]').first().waitFor();
      expect(await turnsIn(transcript)).toEqual(['3']);
      expect(await promptsIn(transcript)).toEqual([prompt]);
    }
    expect(await columns.count()).toBe(2);
    const column = (id: string) => page.locator(`[data-testid="board-column"][data-session-id="${id}"]`);
    // Every figure of a column from the fork point: the root's notes.txt (turn 1) is shared history, not its change.
    for (const id of [root, fork]) {
      await column(id).locator('[data-testid="board-files"][data-state="ready"]').waitFor();
      await column(id).locator('[data-testid="board-rank"]', { hasText: /#\d/ }).waitFor();
      expect(await column(id).getByTestId('board-files-summary').textContent()).toBe('Files: no changes since the fork point');
      expect(await column(id).getByTestId('board-diff').textContent()).toBe('0 changed lines');
      // Named by the route it ran on (the root's turn 3 logged no request header: the same agent sent it);
      // both ran on one route, so each adds its short id to read apart (shared/distinct-names.ts).
      expect(await column(id).getByTestId('board-variant').textContent()).toBe(`scripted-model · ${id.slice(0, 8)}`);
      expect(await column(id).getByTestId('board-time').textContent()).toMatch(/^\d[\d,]* ms$/);
    }
    // A reason's figures show the difference they name.
    for (const reason of await page.locator('[data-testid="board-reasons"] li').allTextContents()) expect(reason).not.toMatch(/: (\S+(?: m?s)?) vs \1 /);
    // The root says what it is, and its short id shows, whatever its title's room.
    const head = await column(root).locator('.board-column-head').boundingBox();
    for (const part of ['board-branch-root', 'board-branch-id'] as const) {
      const box = await column(root).getByTestId(part).boundingBox();
      expect(box && head && box.x >= head.x && box.x + box.width <= head.x + head.width, part).toBe(true);
      expect(
        await column(root)
          .getByTestId(part)
          .evaluate((el) => el.scrollWidth <= el.clientWidth + 1),
      ).toBe(true);
    }
    expect(await column(root).getByTestId('board-branch-root').textContent()).toBe('(the session forked from)');
    expect(await column(root).getByTestId('board-branch').getAttribute('title')).toBe(`(the session forked from) Root · session ${root}`);
    expect(await column(fork).getByTestId('board-branch-root').count()).toBe(0);
    await app.screenshot(`shared-history-${tag}-board`);
    expect(await layoutProblems(page)).toEqual([]);
    await checkSharedHistory(page, '[data-testid="board-view"]');
  });

  it('the compare view (from the palette) shows it once, folded, above both transcripts', async () => {
    const started = await startConnectedApp({ viewport: size, approvalPolicy: 'allow' });
    app = started.app;
    const { page } = started;
    const { fork } = await rootAndFork(app);
    await page.reload();
    await page.locator(`[data-testid="session-row"][data-session-id="${fork}"] [data-testid="session-open"]`).click();
    await page.locator('[data-testid="turn-end"][data-turn="3"]').waitFor();
    await runCommand(page, 'Compare with the parent');
    await page.locator('[data-testid="compare-view"][data-state="ready"]').waitFor({ timeout: 15_000 });
    for (const side of ['a', 'b'] as const) {
      const transcript = page.locator(`[data-testid="compare-transcript"][data-side="${side}"]`);
      await transcript.locator('[data-testid="compare-user"]').first().waitFor();
      expect(await turnsIn(transcript)).toEqual(['3']);
    }
    await app.screenshot(`shared-history-${tag}-compare`);
    await checkSharedHistory(page, '[data-testid="compare-view"]');
    await page.getByTestId('shared-history-toggle').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('shared-history-body').waitFor();
    await waitForFocus(page, 'shared-history-toggle');
    await app.screenshot(`shared-history-${tag}-compare-open`);
    expect(await layoutProblems(page)).toEqual([]);
  });
});
