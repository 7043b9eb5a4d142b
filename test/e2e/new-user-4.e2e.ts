/**
 * A new user's first hour, part 4 (issue 25, cosmetic leftovers of the trial), at 1000×700 in
 * Chromium against browser mode (real host and store; the real `openai` client against the
 * scripted model server; a custom endpoint with no key, as in the trial), keyboard only:
 * - the request inspector said "Authorization: Bearer <redacted>" although no key is set: it now
 *   says that no key was sent (the client sends a placeholder);
 * - a step marker beside the open request inspector cut its figures ("price unkn…", "9 ch…"): they
 *   wrap onto a second line, none is cut, and "Request" stays whole on the first line (focus.e2e.ts);
 * - with a key set, the Authorization header still shows it redacted, never the key;
 * - a fork titled by the same first prompt as its parent showed two identical names in the sidebar
 *   and the branch picker: the fork reads "fork N · <title>" (its start survives the sidebar's ellipsis) (display only; its log is untouched).
 * Screenshots: test-results/new-user-4-*.png, each checked for overlapping or cut-off controls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { textResponse } from '../support/scripted-llm/index.js';
import { startConnectedApp, type E2eApp } from './support/e2e-harness.js';
import { pressEnterOn } from './support/keyboard-focus.js';
import { layoutProblems } from './support/layout-checks.js';

const SIZE = { width: 1000, height: 700 } as const;
let app: E2eApp;
let page: Page;
let byTestId: (id: string) => Locator;
let parent: string;
let fork: string;

const press = pressEnterOn;

async function openSession(id: string): Promise<void> {
  await press(page.locator(`[data-testid="session-row"][data-session-id="${id}"] [data-testid="session-open"]`));
  await page.locator(`[data-testid="session-row"][data-session-id="${id}"][data-selected="true"]`).waitFor();
  await page.locator('[data-testid="timeline-row"]').first().waitFor();
}

beforeAll(async () => {
  ({ app, page, byTestId } = await startConnectedApp({ viewport: SIZE, approvalPolicy: 'allow' }));
  const conn = app.runtime.host.connect(() => undefined);
  // Untitled: the host titles each by its first prompt, and the fork gets the very same prompt.
  parent = conn.createSession({ cwd: app.workspace }).id;
  app.llm.enqueue(textResponse('An empty folder.'));
  conn.followup({ sessionId: parent, text: 'What is in this folder?' });
  await app.runtime.host.agentFor(parent)!.whenIdle();
  fork = (await conn.forkSession({ sessionId: parent })).id;
  app.llm.enqueue(textResponse('Still an empty folder.'));
  conn.followup({ sessionId: fork, text: 'What is in this folder?' });
  await app.runtime.host.agentFor(fork)!.whenIdle();
  conn.dispose();
  expect(app.runtime.repository.get(fork)!.header.title).toBe(app.runtime.repository.get(parent)!.header.title);
  await page.reload();
  await page.locator(`[data-testid="session-row"][data-session-id="${fork}"]`).waitFor();
}, 120_000);

afterAll(async () => {
  await app?.close();
});

describe('new-user leftovers at 1000×700', () => {
  it('a fork with its parent’s title is told apart in the sidebar and the branch picker', async () => {
    const title = (id: string) => page.locator(`[data-testid="session-row"][data-session-id="${id}"] [data-testid="session-title"]`).textContent();
    expect(await title(parent)).toBe('What is in this folder?');
    expect(await title(fork)).toBe('fork 1 · What is in this folder?');
    await openSession(fork);
    await press(byTestId('branches-toggle'));
    await byTestId('branch-tree').waitFor();
    const names = await page.getByTestId('branch-node-title').allTextContents();
    expect(names).toHaveLength(2);
    expect(new Set(names).size).toBe(2);
    expect(names).toContain('fork 1 · What is in this folder?');
    await app.screenshot('new-user-4-fork-titles');
    expect(await layoutProblems(page)).toEqual([]);
    await press(byTestId('branch-picker-close'));
  }, 60_000);

  it('the request inspector says no key was sent when none is set', async () => {
    await openSession(parent);
    await press(page.locator('[data-testid="step-marker"][data-turn="1"][data-step="1"]').getByTestId('request-button'));
    await byTestId('request-wire').waitFor();
    const headers = (await byTestId('request-headers').textContent())!;
    expect(headers).not.toContain('<redacted>');
    expect(await byTestId('request-no-key').textContent()).toContain('No API key was sent: none is set for this provider');
    await app.screenshot('new-user-4-no-key');
    expect(await layoutProblems(page)).toEqual([]);
  }, 60_000);

  it('the step marker beside the open request inspector cuts none of its figures', async () => {
    await byTestId('request-inspector').waitFor();
    const marker = page.locator('[data-testid="step-marker"][data-turn="1"][data-step="1"]');
    const cut = await marker.evaluate((row) =>
      [...row.children].flatMap((el) => {
        const e = el as HTMLElement;
        const r = e.getBoundingClientRect();
        const outside = r.right > row.getBoundingClientRect().right + 1;
        return e.scrollWidth > e.clientWidth + 1 || outside ? [`${e.className}: "${e.textContent}" (${e.scrollWidth} > ${e.clientWidth})`] : [];
      }),
    );
    expect(cut).toEqual([]);
    expect(await marker.textContent()).toMatch(/price unknown/);
    await app.screenshot('new-user-4-step-marker');
    expect(await layoutProblems(page)).toEqual([]);
  }, 60_000);

  it('with a key set, the Authorization header shows it redacted (never the key)', async () => {
    const conn = app.runtime.host.connect(() => undefined);
    await conn.setApiKey({ provider: 'custom', apiKey: 'sk-e2e-secret-key' });
    conn.dispose();
    await page.reload();
    await page.locator(`[data-testid="session-row"][data-session-id="${parent}"]`).waitFor();
    await openSession(parent);
    await press(page.locator('[data-testid="step-marker"][data-turn="1"][data-step="1"]').getByTestId('request-button'));
    await byTestId('request-wire').waitFor();
    const auth = page.locator('[data-testid="request-headers"] tr[data-redacted="true"]');
    expect(await auth.textContent()).toContain('Bearer <redacted>');
    expect(await byTestId('request-no-key').count()).toBe(0);
    expect(await byTestId('request-inspector').textContent()).not.toContain('sk-e2e-secret-key');
  }, 60_000);
});
