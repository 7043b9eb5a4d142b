/**
 * Where keyboard focus lands after an action removes, disables or replaces the control that ran it,
 * at 1000×700 and with the keyboard only (locators wait and read; `focus()` puts focus on a control
 * as Tab would): it never falls to the page body, so the next Tab goes on from a sensible place —
 * "Connect and test" / "Use this provider" on the setup card, Enter on a session in the list (the
 * composer; the timeline of a read-only session), "Continue in Forkline" (the fork's composer), the
 * compare view opening and closing. F6 / Shift+F6 reach the compare view, and a step header keeps
 * its "Request" link on its line. Screenshots: test-results/focus-*.png.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_LOGS } from '../support/import-fixtures.js';
import { textResponse, toolCallResponse, usage } from '../support/scripted-llm/index.js';
import { startE2eApp, type E2eApp } from './support/e2e-harness.js';
import { focused, runCommand, waitForFocus } from './support/keyboard-focus.js';

const SHOTS = process.env['FOCUS_SHOTS'];

let app: E2eApp;
let page: Page;
let olderId: string;
let importedId: string;
let childId: string;

const byTestId = (id: string) => page.getByTestId(id);
const press = (key: string) => page.keyboard.press(key);

/** From the session list (reached with the palette), ↓/↑ to `sessionId`'s row and Enter. */
async function openFromList(sessionId: string): Promise<void> {
  await runCommand(page, 'go to the session list');
  await waitForFocus(page, 'session-open');
  const ids = await page.locator('[data-testid="session-open"]').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset['sessionId']));
  const from = ids.indexOf((await focused(page)).sessionId);
  const to = ids.indexOf(sessionId);
  for (let i = 0; i < Math.abs(to - from); i++) await press(to > from ? 'ArrowDown' : 'ArrowUp');
  expect((await focused(page)).sessionId).toBe(sessionId);
  await press('Enter');
  await page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"][data-selected="true"]`).waitFor();
}

/** The F6 areas visited by pressing `key` n times. */
async function regionsVisited(key: 'F6' | 'Shift+F6', n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    await press(key);
    out.push((await focused(page)).region ?? (await focused(page)).testId);
  }
  return out;
}

beforeAll(async () => {
  app = await startE2eApp({ approvalPolicy: 'allow', viewport: { width: 1000, height: 700 } });
  page = app.page;
  // A session made through the host: one turn of two steps (a file read, then an answer), with usage
  // figures as a real provider reports them (they make the step headers as long as they get).
  const conn = app.runtime.host.connect(() => undefined);
  olderId = conn.createSession({ cwd: app.workspace }).id;
  app.llm.enqueue(
    toolCallResponse([{ id: 'f-read', name: 'read_file', arguments: '{"path":"missing.txt"}' }], { usage: usage(12_345, 678, { cached: 9_876, reasoning: 120 }) }),
    textResponse('There is no such file.', { usage: usage(13_050, 42, { cached: 12_288 }) }),
  );
  conn.followup({ sessionId: olderId, text: 'What does missing.txt hold?' });
  await app.runtime.host.agentFor(olderId)!.whenIdle();
  conn.dispose();
  await page.reload();
  await page.locator(`[data-testid="session-row"][data-session-id="${olderId}"]`).waitFor();
});
afterAll(async () => {
  await app?.close();
});

describe('focus after actions, keyboard only at 1000×700', () => {
  it('the setup card: "Connect and test" hands focus to "Use this provider", which hands it to the first prompt', async () => {
    await byTestId('welcome').waitFor();
    await runCommand(page, 'set up a model provider');
    await byTestId('provider-setup').waitFor();
    app.llm.enqueue(textResponse('pong'));
    await byTestId('setup-connect').focus();
    await press('Enter');
    await page.locator('[data-testid="setup-test"][data-state="ok"]').waitFor({ timeout: 15_000 });
    await waitForFocus(page, 'setup-save', 5_000);
    expect((await focused(page)).ring).toBe(true);
    await press('Enter');
    await byTestId('provider-setup').waitFor({ state: 'detached' });
    await waitForFocus(page, 'start-input', 5_000);
  });

  it('Enter on a session in the list moves focus into it: the composer, or the timeline of a read-only session', async () => {
    await openFromList(olderId);
    await waitForFocus(page, 'composer-input', 5_000);
    await app.screenshot('focus-01-opened-from-list');

    // An imported session is read-only: its timeline takes focus.
    const text = readFileSync(join(AGENT_LOGS, 'claude-code', 'cc_hello-world-script.jsonl'));
    await page.setInputFiles('[data-testid="import-session-input"]', { name: 'hello.jsonl', mimeType: 'application/x-ndjson', buffer: text });
    await byTestId('imported-banner').waitFor({ timeout: 15_000 });
    importedId = (await page.locator('[data-testid="session-row"][data-selected="true"]').getAttribute('data-session-id'))!;
    await openFromList(olderId);
    await waitForFocus(page, 'composer-input', 5_000);
    await openFromList(importedId);
    await byTestId('imported-banner').waitFor();
    await waitForFocus(page, 'timeline-row', 5_000);
    expect((await focused(page)).ring).toBe(true);
  });

  it('"Continue in Forkline" gives focus to the new fork\'s composer', async () => {
    await byTestId('continue-in-forkline').focus();
    await press('Enter');
    await byTestId('folder-browser').waitFor();
    // The recent workspace comes first and has focus: Enter continues there.
    await waitForFocus(page, 'folder-recent');
    await press('Enter');
    await page.waitForFunction((id) => {
      const row = document.querySelector('[data-testid="session-row"][data-selected="true"]');
      return row !== null && row.getAttribute('data-session-id') !== id;
    }, importedId);
    childId = (await page.locator('[data-testid="session-row"][data-selected="true"]').getAttribute('data-session-id'))!;
    expect(app.runtime.repository.get(childId)!.header.parentSession).toBe(importedId);
    await waitForFocus(page, 'composer-input', 5_000);
  });

  it('the compare view takes focus when it opens, is an F6 area, and hands focus back when it closes', async () => {
    await runCommand(page, 'compare with the parent');
    await page.locator(`[data-testid="compare-view"][data-a="${importedId}"][data-b="${childId}"][data-state="ready"]`).waitFor({ timeout: 10_000 });
    await page.waitForFunction(() => document.activeElement?.closest('[data-region="compare"]') !== null, undefined, { timeout: 5_000 });
    // F6 and Shift+F6 go round the sessions and the compare view (nothing else is on screen).
    expect(await regionsVisited('F6', 4)).toEqual(['sessions', 'compare', 'sessions', 'compare']);
    expect(await regionsVisited('Shift+F6', 2)).toEqual(['sessions', 'compare']);
    await app.screenshot('focus-02-compare-region');
    // Swapping rebuilds the view: the swap button keeps focus.
    await byTestId('compare-swap').focus();
    await press('Enter');
    await page.locator(`[data-testid="compare-view"][data-a="${childId}"][data-b="${importedId}"]`).waitFor();
    await waitForFocus(page, 'compare-swap', 5_000);
    // Esc closes it: the open session's composer takes focus.
    await press('Escape');
    await byTestId('compare-view').waitFor({ state: 'detached' });
    await waitForFocus(page, 'composer-input', 5_000);
  });

  it('hiding and showing the sidebar with its buttons keeps focus on the button that undoes it', async () => {
    await byTestId('sidebar-collapse').focus();
    await press('Enter');
    await waitForFocus(page, 'sidebar-expand', 5_000);
    await press('Enter');
    await waitForFocus(page, 'sidebar-collapse', 5_000);
  });

  it('a step header keeps its "Request" link on its line at 1000×700, with and without the dock open', async () => {
    await openFromList(olderId);
    const marker = page.locator('[data-testid="step-marker"][data-turn="1"][data-step="1"]');
    await marker.waitFor();
    const lines = (): Promise<{ label: number; link: number }> =>
      marker.evaluate((el) => {
        const top = (s: string) => el.querySelector(s)!.getBoundingClientRect().top;
        return { label: top('.step-label'), link: top('[data-testid="request-button"]') };
      });
    if (SHOTS) mkdirSync(SHOTS, { recursive: true });
    const shot = async (name: string): Promise<void> => {
      await app.screenshot(`focus-03-${name}`);
      if (SHOTS) await marker.screenshot({ path: join(SHOTS, `${name}.png`) });
    };
    await shot('step-header');
    const closed = await lines();
    expect(Math.abs(closed.link - closed.label)).toBeLessThan(4);

    await marker.getByTestId('request-button').focus();
    await press('Enter');
    await byTestId('request-inspector').waitFor();
    await shot('step-header-with-dock');
    const docked = await lines();
    expect(Math.abs(docked.link - docked.label)).toBeLessThan(4);
    // Closing the inspector from its own button: focus goes back to the timeline.
    await byTestId('request-inspector-close').focus();
    await press('Enter');
    await byTestId('request-inspector').waitFor({ state: 'detached' });
    await waitForFocus(page, 'timeline-row', 5_000);
  });
});
