/**
 * A new user's first hour, part 7 (the keyboard-only trial at 1000×700, custom endpoint, no key):
 * "Continue in Forkline" and "New session" open the folder picker with focus on the first recent
 * workspace; a user who then typed a path typed into that button (nothing happened) and Enter chose
 * the recent folder instead of the typed one. Typing a character on the recent list now moves to the
 * path field, replacing its text, so the typed path is what Enter lists and then chooses.
 * Screenshot: test-results/new-user-7-picker-typed.png.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { startConnectedApp, type E2eApp } from './support/e2e-harness.js';
import { runCommand, waitForFocus } from './support/keyboard-focus.js';

const SIZE = { width: 1000, height: 700 } as const;
let app: E2eApp;
let page: Page;
let byTestId: (id: string) => Locator;

beforeAll(async () => {
  ({ app, page, byTestId } = await startConnectedApp({ viewport: SIZE }));
  app.runtime.host.connect(() => undefined).createSession({ cwd: app.workspace, title: 'An earlier session' });
  await page.reload();
  await page.locator('[data-testid="session-row"]').first().waitFor();
});

afterAll(async () => {
  await app?.close();
});

describe('folder picker, keyboard only', () => {
  it('typing on the focused recent workspace goes to the path field, and Enter uses the typed folder', async () => {
    const other = mkdtempSync(join(tmpdir(), 'forkline-typed-'));
    await runCommand(page, 'new session');
    await byTestId('folder-browser').waitFor();
    await waitForFocus(page, 'folder-recent');
    await page.keyboard.type(other);
    expect(await byTestId('folder-path').inputValue()).toBe(other);
    await page.keyboard.press('Enter');
    await byTestId('folder-browser').getByText(other, { exact: true }).first().waitFor();
    await app.screenshot('new-user-7-picker-typed');
    await page.keyboard.press('Enter');
    await byTestId('folder-browser').waitFor({ state: 'detached' });
    await page
      .getByText(`New session in ${basename(other)}`)
      .first()
      .waitFor();
  });

  it('↓ from the path field goes to the listing, ↑ ↓ move in it, ↑ on the first entry goes back', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'forkline-arrows-'));
    for (const name of ['alpha', 'beta', 'gamma']) mkdirSync(join(parent, name));
    await runCommand(page, 'new session');
    await byTestId('folder-browser').waitFor();
    await waitForFocus(page, 'folder-recent');
    await page.keyboard.type(parent);
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="folder-entry"]').first().waitFor();
    const focusedEntry = (): Promise<string | null> =>
      page.evaluate(() => (document.activeElement as HTMLElement | null)?.getAttribute('data-path') ?? document.activeElement?.getAttribute('data-testid') ?? null);
    await byTestId('folder-path').focus();
    await page.keyboard.press('ArrowDown');
    expect(await focusedEntry()).toBe('folder-up');
    await page.keyboard.press('ArrowDown');
    expect(await focusedEntry()).toBe(join(parent, 'alpha'));
    await page.keyboard.press('End');
    expect(await focusedEntry()).toBe(join(parent, 'gamma'));
    await page.keyboard.press('ArrowUp');
    expect(await focusedEntry()).toBe(join(parent, 'beta'));
    await page.keyboard.press('Home');
    expect(await focusedEntry()).toBe('folder-up');
    await page.keyboard.press('ArrowUp');
    expect(await focusedEntry()).toBe('folder-path');
    await page.keyboard.press('Escape');
    await byTestId('folder-browser').waitFor({ state: 'detached' });
  });
});
