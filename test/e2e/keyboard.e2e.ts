/**
 * Keyboard only — no mouse event at all (only `page.keyboard`; locators are used to wait and read):
 * create a session in a folder typed into the folder browser, send a task, approve its write with
 * the focused approval panel's key, cancel the streaming answer with Esc, open an older session
 * from the session list with the arrow keys, walk its timeline (expand a tool row, inspect a row),
 * fork it and open the compare view — all through shortcuts and the command palette. Every focused
 * place shows a focus ring, and no visible control is out of the keyboard's reach.
 * Screenshots: test-results/kb-*.png.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, textResponse, toolCallResponse } from '../support/scripted-llm/index.js';
import { startE2eApp, type E2eApp } from './support/e2e-harness.js';
import { focused as focusedElement, runCommand, waitForFocus as waitFocus } from './support/keyboard-focus.js';

let app: E2eApp;
let page: Page;
let project: string;
let olderId: string;
let newId: string;
let forkId: string;

const byTestId = (id: string) => page.getByTestId(id);
const press = (key: string) => page.keyboard.press(key);

const focused = () => focusedElement(page);
const waitForFocus = (testId: string, timeout?: number) => waitFocus(page, testId, timeout);

/** Presses an arrow key in the timeline and waits until focus has moved to another row. */
async function moveInTimeline(key: 'ArrowUp' | 'ArrowDown'): Promise<void> {
  const before = (await focused()).key;
  await press(key);
  await page.waitForFunction((k) => {
    const el = document.activeElement as HTMLElement | null;
    return el?.dataset['testid'] === 'timeline-row' && el.dataset['key'] !== k;
  }, before);
}

const command = (words: string) => runCommand(page, words);

/** Visible, enabled controls the keyboard cannot reach: not in the Tab order and not in an arrow-key group. */
async function unreachableControls(): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('button, input, select, textarea, a[href], [role="tab"], summary')]
      .filter((el) => el.getClientRects().length > 0 && !(el as HTMLButtonElement).disabled && !(el instanceof HTMLInputElement && el.type === 'file'))
      .filter((el) => el.tabIndex < 0 && !el.closest('[data-testid="session-list"], [role="tree"], [data-testid="timeline"], [role="tablist"], .xterm'))
      .map((el) => `${el.tagName.toLowerCase()}[${el.dataset['testid'] ?? ''}] ${(el.textContent ?? '').trim().slice(0, 30)}`),
  );
}

beforeAll(async () => {
  app = await startE2eApp({ approvalPolicy: 'ask' });
  page = app.page;
  project = join(app.dir, 'project');
  mkdirSync(project);
  writeFileSync(join(app.workspace, 'a.txt'), 'alpha\nbeta\n');
  // An older session, made through the host (not the UI): one turn that read a file.
  const conn = app.runtime.host.connect(() => undefined);
  olderId = conn.createSession({ cwd: app.workspace }).id;
  app.llm.enqueue(toolCallResponse([{ id: 'old-read', name: 'read_file', arguments: '{"path":"a.txt"}' }]), textResponse('It holds alpha and beta.'));
  conn.followup({ sessionId: olderId, text: 'What does a.txt hold?' });
  await app.runtime.host.agentFor(olderId)!.whenIdle();
  conn.dispose();
  await page.reload();
});
afterAll(async () => {
  await app?.close();
});

describe('keyboard only', () => {
  it('creates a session in a typed folder with Ctrl+N and the folder browser', async () => {
    await page.locator(`[data-testid="session-row"][data-session-id="${olderId}"]`).waitFor();
    await press('Control+n');
    await byTestId('folder-browser').waitFor();
    // The recent workspace comes first; Tab reaches the path field.
    await waitForFocus('folder-recent');
    expect((await focused()).ring).toBe(true);
    await press('Tab');
    await waitForFocus('folder-path');
    await press('Control+a');
    await page.keyboard.type(project);
    await press('Enter');
    await page.waitForFunction(
      (p) => document.querySelector('[data-testid="folder-browser"] .dialog-buttons .mono')?.textContent === p && !document.querySelector('[data-testid="folder-list"][aria-busy="true"]'),
      project,
    );
    await app.screenshot('kb-01-folder-typed');
    await press('Enter');
    await byTestId('session-view').waitFor();
    newId = (await page.locator('[data-testid="session-row"][data-selected="true"]').getAttribute('data-session-id'))!;
    expect(app.runtime.repository.get(newId)!.header.cwd).toBe(project);
    await waitForFocus('composer-input');
    expect(await unreachableControls()).toEqual([]);
  });

  it('sends a task, approves its write from the focused approval panel, cancels the answer with Esc', async () => {
    app.llm.enqueue(
      toolCallResponse([{ id: 'kb-write', name: 'write_file', arguments: JSON.stringify({ path: 'notes.md', content: '# notes\n' }) }]),
      reply({ text: 'Now a long explanation that streams slowly. '.repeat(30), split: 3, frameDelayMs: 40 }),
    );
    await page.keyboard.type('Write notes.md, then explain it at length');
    await press('Enter');
    await byTestId('approval-panel').waitFor();
    // The panel takes focus; its keys are labelled.
    await waitForFocus('approval-item');
    expect((await focused()).ring).toBe(true);
    expect(await byTestId('approval-allow').textContent()).toContain('A');
    expect(existsSync(join(project, 'notes.md'))).toBe(false);
    await app.screenshot('kb-02-approval-focused');
    await press('a');
    await page.locator('[data-testid="tool-row"][data-call-id="kb-write"][data-state="done"]').waitFor({ timeout: 15_000 });
    expect(readFileSync(join(project, 'notes.md'), 'utf8')).toBe('# notes\n');
    // One approval row: the decision shows on the tool row only.
    expect(await page.locator('[data-testid="tool-row"][data-call-id="kb-write"] [data-testid="tool-approval"]').textContent()).toBe('allowed once');
    expect(await page.locator('[data-testid="timeline-row"][data-kind="approval"]').count()).toBe(0);
    // Focus went back to the composer; while the answer streams, Enter would queue and Ctrl+Enter steer (both labelled).
    await waitForFocus('composer-input');
    await page.locator('[data-testid="assistant-text"][data-streaming="true"]').waitFor();
    expect(await byTestId('composer-send').textContent()).toContain('Queue');
    expect(await byTestId('composer-steer').textContent()).toContain('Steer');
    await app.screenshot('kb-03-streaming');
    await press('Escape');
    const end = page.locator('[data-testid="turn-end"][data-turn="1"]');
    await end.waitFor({ timeout: 15_000 });
    expect(await end.getAttribute('data-reason')).toBe('aborted');
    // A title from the first prompt, not "session 85e809a8".
    expect(await byTestId('session-name').textContent()).toBe('Write notes.md, then explain it at length');
  });

  it('opens the older session from the list with the arrow keys and walks its timeline', async () => {
    await command('session list');
    await waitForFocus('session-open');
    expect((await focused()).ring).toBe(true);
    for (let i = 0; i < 5 && (await focused()).sessionId !== olderId; i++) await press('ArrowDown');
    expect((await focused()).sessionId).toBe(olderId);
    await press('Enter');
    await page.locator(`[data-testid="session-row"][data-session-id="${olderId}"][data-selected="true"]`).waitFor();
    await page.locator('[data-testid="turn-end"][data-turn="1"]').waitFor();

    await command('go to the timeline');
    await page.waitForFunction(() => (document.activeElement as HTMLElement | null)?.dataset['testid'] === 'timeline-row');
    expect((await focused()).ring).toBe(true);
    // Walk up to the tool row, expand it with →, inspect it with Enter.
    for (let i = 0; i < 12 && (await focused()).kind !== 'tool'; i++) await moveInTimeline('ArrowUp');
    const tool = await focused();
    expect(tool.kind).toBe('tool');
    await press('ArrowRight');
    await page.locator('[data-testid="tool-row"][data-call-id="old-read"] [data-testid="tool-body"]').waitFor();
    await press('Enter');
    await byTestId('raw-inspector').waitFor();
    expect(await page.locator('[data-testid="raw-event"]').first().getAttribute('data-type')).toBe('assistant/chunk');
    await press('ArrowLeft');
    await page.locator('[data-testid="tool-row"][data-call-id="old-read"] [data-testid="tool-body"]').waitFor({ state: 'detached' });
    await app.screenshot('kb-04-timeline-keys');
    expect(await unreachableControls()).toEqual([]);
  });

  it('forks it and opens the compare view from the palette', async () => {
    await command('fork after the last');
    await page.waitForFunction((old) => {
      const row = document.querySelector('[data-testid="session-row"][data-selected="true"]');
      return row !== null && row.getAttribute('data-session-id') !== old;
    }, olderId);
    forkId = (await page.locator('[data-testid="session-row"][data-selected="true"]').getAttribute('data-session-id'))!;
    expect(app.runtime.repository.get(forkId)!.header.parentSession).toBe(olderId);
    // A fork with no prompt yet says what it is, without stacking titles.
    expect(await byTestId('session-name').textContent()).toBe('fork 1 of What does a.txt hold?');
    await waitForFocus('composer-input');
    await command('compare with the parent');
    await page.locator(`[data-testid="compare-view"][data-a="${olderId}"][data-b="${forkId}"][data-state="ready"]`).waitFor({ timeout: 10_000 });
    await app.screenshot('kb-05-compare');
    expect(await unreachableControls()).toEqual([]);
    // The palette lists actions with their shortcuts.
    await press('Control+k');
    await byTestId('command-palette').waitFor();
    const items = await page.locator('[data-testid="command-palette-item"]').evaluateAll((els) => els.map((e) => ({ id: e.getAttribute('data-command'), text: e.textContent })));
    expect(items.find((i) => i.id === 'new-session')!.text).toContain('Ctrl+N');
    expect(items.find((i) => i.id === 'sidebar')!.text).toContain('Ctrl+B');
    await app.screenshot('kb-06-palette');
    await press('Escape');
    await byTestId('command-palette').waitFor({ state: 'detached' });
    expect(newId).toBeDefined();
  });
});
