/**
 * A new user's first hour, part 3 (issue 25, the repeated trial): what the trial from README on a
 * clean clone (keyboard only, 1000×700, a custom endpoint, no key) still tripped on, end to end in
 * Chromium against browser mode (the real host and store; the real `openai` client against the
 * scripted model server):
 * - importing a log while another imported session is open moves focus into the new session's
 *   timeline (it dropped to the page body: the next Tab started from the top of the window).
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
});
