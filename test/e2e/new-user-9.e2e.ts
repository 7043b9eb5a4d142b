/**
 * A new user's first hour, part 9 (the keyboard-only trial at 1000×700 and 1440×900, custom
 * endpoint, no key): the session list.
 * - The same task started in two folders gave two rows with one title and nothing to tell them
 *   apart: such rows now say their folder (as many path parts as tell them apart).
 * - A focused (or hovered) row's five action buttons sat beside its title and left it two letters
 *   wide in a 220 px sidebar ("sum([…"): they now take a line of their own under it.
 * - Settings' Cancel / Save sat in the middle of the dialog (after "Data folder", before the
 *   sections that save their own), so Tab went Approvals → Cancel → Save → Add price: they are now
 *   the dialog's footer, always in view and last in Tab order.
 * - Compact and "Replay on this build" were offered on a session with no turn: disabled now, saying why.
 * Screenshots: test-results/new-user-9-*.png.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startConnectedApp, type E2eApp } from './support/e2e-harness.js';
import { waitForFocus } from './support/keyboard-focus.js';
import { layoutProblems, NARROW_AND_WIDE } from './support/layout-checks.js';

let app: E2eApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe.each(NARROW_AND_WIDE)('the session list at $width×$height', (size) => {
  const tag = `${size.width}x${size.height}`;

  it('rows whose titles read alike name their folders, and a focused row keeps its title readable', async () => {
    const started = await startConnectedApp({ viewport: size });
    app = started.app;
    const { page } = started;
    const title = 'sum([]) returns undefined; make it return 0';
    const conn = app.runtime.host.connect(() => undefined);
    const folders = ['project', 'project3'].map((name) => join(app!.workspace, name));
    for (const folder of folders) mkdirSync(folder, { recursive: true });
    const [a, b] = folders.map((cwd) => conn.createSession({ cwd, title }).id);
    const lone = conn.createSession({ cwd: app.workspace, title: 'a title of its own' }).id;
    conn.dispose();
    await page.reload();
    const row = (id: string) => page.locator(`[data-testid="session-row"][data-session-id="${id}"]`);
    await row(lone!).waitFor();
    expect(await row(a!).getByTestId('session-folder').textContent()).toBe('in project');
    expect(await row(b!).getByTestId('session-folder').textContent()).toBe('in project3');
    expect(await row(lone).getByTestId('session-folder').count()).toBe(0);

    // Keyboard: focus the first row (the sidebar's Tab stop), then ↓ to the next.
    await row(a!).getByTestId('session-open').focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowUp');
    await waitForFocus(page, 'session-open');
    const focused = page.locator('[data-testid="session-row"]:focus-within');
    await focused.getByTestId('session-rename-button').waitFor();
    const [titleBox, rowBox] = await Promise.all([focused.getByTestId('session-title').boundingBox(), focused.boundingBox()]);
    // The title keeps most of the row; the actions are under it, all inside the row.
    expect(titleBox!.width).toBeGreaterThan(rowBox!.width * 0.6);
    const actions = await focused.locator('.row-actions').boundingBox();
    expect(actions!.y).toBeGreaterThanOrEqual(titleBox!.y + titleBox!.height - 1);
    expect(actions!.x + actions!.width).toBeLessThanOrEqual(rowBox!.x + rowBox!.width + 1);
    await app.screenshot(`new-user-9-${tag}-session-list`);
    expect(await layoutProblems(page)).toEqual([]);

    // A session with no turn yet has nothing to compact or replay: both say so, disabled.
    await page.keyboard.press('Enter');
    await page.getByTestId('session-name').waitFor();
    for (const id of ['compact-button', 'replay-button']) {
      const button = page.getByTestId(id);
      expect(await button.isDisabled()).toBe(true);
      expect(await button.getAttribute('title')).toMatch(/^Nothing to (compact|replay) yet: the session has no turns$/);
    }
  });

  it("Settings' Cancel and Save are the dialog's footer: in view at once, and last in Tab order", async () => {
    const started = await startConnectedApp({ viewport: size });
    app = started.app;
    const { page, byTestId } = started;
    await page.keyboard.press('Control+,');
    const dialog = byTestId('settings-dialog');
    await dialog.waitFor();
    const save = byTestId('settings-save');
    await save.waitFor();
    // In view without scrolling the dialog, at its bottom edge.
    const [saveBox, dialogBox] = await Promise.all([save.boundingBox(), dialog.boundingBox()]);
    expect(saveBox!.y + saveBox!.height).toBeLessThanOrEqual(dialogBox!.y + dialogBox!.height);
    expect(saveBox!.y).toBeGreaterThan(dialogBox!.y + dialogBox!.height - 60);
    expect(await byTestId('settings-footer').locator('button').allTextContents()).toEqual(['Cancel', 'Save']);
    // Shift+Tab from the dialog's first control wraps to its last: Save.
    await page.locator('[data-testid="settings-dialog"] .dialog-close').focus();
    await page.keyboard.press('Shift+Tab');
    await waitForFocus(page, 'settings-save');
    await app.screenshot(`new-user-9-${tag}-settings-footer`);
  });
});
