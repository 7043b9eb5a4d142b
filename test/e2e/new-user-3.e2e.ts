/**
 * A new user's first hour, part 3 (issue 25, the repeated trial): what the trial from README on a
 * clean clone (keyboard only, 1000×700, a custom endpoint, no key) still tripped on, end to end in
 * Chromium against browser mode (the real host and store; the real `openai` client against the
 * scripted model server):
 * - importing a log while another imported session is open moves focus into the new session's
 *   timeline (it dropped to the page body: the next Tab started from the top of the window);
 * - the import summary toast stays small and covers none of the session it opened (its lines covered
 *   over a fifth of the timeline for 8 s, hiding the rows just opened; toasts now have their own strip
 *   under the timeline, new-user-5.e2e.ts); its lines open from the keyboard.
 * Screenshots: test-results/new-user-3-*.png.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_LOGS } from '../support/import-fixtures.js';
import { startE2eApp, type E2eApp } from './support/e2e-harness.js';
import { focused, runCommand } from './support/keyboard-focus.js';

const SIZE = { width: 1000, height: 700 } as const;

let app: E2eApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('importing from the keyboard at 1000×700', () => {
  it('a second import, made while the first imported session is open, puts focus in the new session', async () => {
    app = await startE2eApp({ viewport: SIZE });
    const page = app.page;
    await page.locator('[data-testid="sidebar-empty"], [data-testid="session-list"]').first().waitFor();
    const logs = [join(AGENT_LOGS, 'claude-code/cc_coverage-test-fix.jsonl'), join(AGENT_LOGS, 'codex/codex_synthetic_tool-calls-escalation-aborted.rollout.jsonl')];
    const titles = ['Add a function called multiply_numbers', 'Create a test file'];
    for (const [i, log] of logs.entries()) {
      const chooser = page.waitForEvent('filechooser');
      await runCommand(page, 'import a session log');
      await (await chooser).setFiles(log);
      await page.getByTestId('session-view').filter({ hasText: titles[i]! }).waitFor({ timeout: 30_000 });
      // Read-only (imported): focus goes to its timeline, never to the page body.
      await page
        .waitForFunction(() => document.activeElement?.closest('[data-testid="timeline"]') !== null, undefined, { timeout: 10_000 })
        .catch(async () => {
          throw new Error(`after import ${i + 1} focus is on ${JSON.stringify(await focused(page))}, not in the timeline`);
        });
      await app.screenshot(`new-user-3-import-${i + 1}-focus`);
    }
    const now = await focused(page);
    expect(now.testId).toBe('timeline-row');
    // The focused row belongs to the session now shown (the Codex log), so the arrows move in it.
    expect(await page.evaluate(() => document.activeElement?.closest('[data-testid="session-view"]')?.textContent?.includes('Create a test file'))).toBe(true);
  }, 90_000);

  it('the import summary toast covers none of the timeline; its lines open from the keyboard', async () => {
    app = await startE2eApp({ viewport: SIZE });
    const page = app.page;
    await page.locator('[data-testid="sidebar-empty"], [data-testid="session-list"]').first().waitFor();
    const chooser = page.waitForEvent('filechooser');
    await runCommand(page, 'import a session log');
    await (await chooser).setFiles(join(AGENT_LOGS, 'claude-code/cc_coverage-test-fix.jsonl'));
    const toast = page.locator('[data-testid="toast"][data-tone="info"]').filter({ hasText: 'Imported cc_coverage-test-fix.jsonl' });
    await toast.waitFor({ timeout: 30_000 });
    await page.locator('[data-testid="timeline-row"]').first().waitFor();
    // Held open (focus in it pauses its timer) while it is measured and opened.
    const covered = async () =>
      page.evaluate(() => {
        const t = document.querySelector('[data-testid="timeline"]')!.getBoundingClientRect();
        let area = 0;
        for (const el of document.querySelectorAll('[data-testid="toast"]')) {
          const b = el.getBoundingClientRect();
          area += Math.max(0, Math.min(b.right, t.right) - Math.max(b.left, t.left)) * Math.max(0, Math.min(b.bottom, t.bottom) - Math.max(b.top, t.top));
        }
        return area / (t.width * t.height);
      });
    const folded = await covered();
    await app.screenshot('new-user-3-import-toast');
    expect(folded).toBe(0);
    // The summary lines are one key away: focus the toast's "details", Enter opens them.
    await toast.locator('[data-testid="toast-more"] > summary').focus();
    await page.keyboard.press('Enter');
    await toast.getByTestId('toast-detail').waitFor({ state: 'visible' });
    expect(await toast.getByTestId('toast-detail').textContent()).toContain('1 turn · 14 steps');
    await app.screenshot('new-user-3-import-toast-open');
    // Esc-free dismissal from the keyboard: its ✕ is the next Tab stop; focus returns to the session.
    await page.keyboard.press('Tab');
    expect((await focused(page)).testId).toBe('toast-dismiss');
    await page.keyboard.press('Enter');
    await toast.waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.activeElement !== document.body);
  }, 90_000);
});
