/**
 * A new user's first hour, part 5 (the keyboard-only trial at 1000×700 with a custom
 * OpenAI-compatible endpoint and no key), in Chromium against browser mode (real host and store, the
 * real `openai` client against the scripted model server):
 * - toasts floated over the timeline's last rows and links: they now sit in their own strip between
 *   the timeline and the composer (they take their own height, cover no row and not the composer),
 *   and Esc dismisses the newest one (the one holding focus first) unless a field uses Esc itself;
 * - Settings' Save could be pressed while a sub-form (a price row, the API key typed…) held unsaved
 *   input, losing it: Save waits, saying why in visible text; "Test connection" keeps focus while busy;
 * - the models "List models" found were shown but picking one did not fill the model field: they are
 *   a list now, ↑ ↓ and Enter put the model in the field;
 * - exporting said nothing: a toast names the file and its size, and a polite live region reads it out.
 * Screenshots: test-results/new-user-5-*.png (1000×700; the toast strip also at 1440×900).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { formatBytes } from '../../shared/format.js';
import { AGENT_LOGS } from '../support/import-fixtures.js';
import { textResponse } from '../support/scripted-llm/index.js';
import { startConnectedApp, type E2eApp } from './support/e2e-harness.js';
import { focused, pressEnterOn, retypeIn, runCommand, waitForFocus } from './support/keyboard-focus.js';
import { layoutProblems } from './support/layout-checks.js';

const SIZE = { width: 1000, height: 700 } as const;
const MODELS = ['scripted-model', 'scripted-large', 'scripted-small'];
let app: E2eApp;
let page: Page;
let byTestId: (id: string) => Locator;
let own: string;

const press = (key: string) => page.keyboard.press(key);

async function openSession(id: string): Promise<void> {
  await pressEnterOn(page.locator(`[data-testid="session-row"][data-session-id="${id}"] [data-testid="session-open"]`));
  await page.locator(`[data-testid="session-row"][data-session-id="${id}"][data-selected="true"]`).waitFor();
  await page.locator('[data-testid="timeline-row"]').first().waitFor();
}

/** Where the toasts are against the timeline and the composer, and whether any visible row is covered. */
function toastGeometry(p: Page) {
  return p.evaluate(() => {
    const rect = (el: Element | null) => el?.getBoundingClientRect();
    const timeline = rect(document.querySelector('[data-testid="timeline"]'))!;
    const composer = rect(document.querySelector('[data-testid="composer"]'));
    const toasts = [...document.querySelectorAll<HTMLElement>('[data-testid="toast"]')];
    const overlap = (a: DOMRect, b: DOMRect) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left)) * Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
    const covered: string[] = [];
    for (const row of document.querySelectorAll<HTMLElement>('[data-testid="timeline"] [data-testid="timeline-row"], [data-testid="timeline"] a[href]')) {
      const r = row.getBoundingClientRect();
      const top = Math.max(r.top, timeline.top);
      const bottom = Math.min(r.bottom, timeline.bottom);
      if (bottom - top < 4 || r.width < 4) continue;
      // Its middle and its last visible line: a toast over either hides it.
      for (const y of [(top + bottom) / 2, bottom - 2]) {
        const hit = document.elementFromPoint(r.left + Math.min(40, r.width / 2), y);
        if (hit && hit.closest('[data-testid="toast"]')) covered.push(`${row.dataset['kind'] ?? row.tagName} at y=${Math.round(y)}`);
      }
    }
    return {
      count: toasts.length,
      onTimeline: toasts.reduce((sum, t) => sum + overlap(t.getBoundingClientRect(), timeline), 0),
      onComposer: composer ? toasts.reduce((sum, t) => sum + overlap(t.getBoundingClientRect(), composer), 0) : 0,
      covered,
      fontPx: toasts.map((t) => parseFloat(getComputedStyle(t.querySelector('.toast-text')!).fontSize)),
      clipped: toasts.filter((t) => t.scrollWidth > t.clientWidth + 1 || t.getBoundingClientRect().right > window.innerWidth).length,
      widths: toasts.map((t) => Math.round(t.getBoundingClientRect().width)),
    };
  });
}

beforeAll(async () => {
  ({ app, page, byTestId } = await startConnectedApp({ viewport: SIZE, approvalPolicy: 'allow', models: MODELS }));
  const conn = app.runtime.host.connect(() => undefined);
  own = conn.createSession({ cwd: app.workspace, title: 'Notes on the folder' }).id;
  // Enough turns to fill the timeline at 1000×700, so its last rows sit where toasts used to float.
  for (let turn = 1; turn <= 4; turn++) {
    app.llm.enqueue(textResponse(`Answer ${turn}: ${'the folder holds a few notes and a script; '.repeat(6)}see [the notes](https://example.com/notes-${turn}).`));
    conn.followup({ sessionId: own, text: `Question ${turn} about the folder?` });
    await app.runtime.host.agentFor(own)!.whenIdle();
  }
  conn.dispose();
  await page.reload();
  await page.locator(`[data-testid="session-row"][data-session-id="${own}"]`).waitFor();
}, 120_000);

afterAll(async () => {
  await app?.close();
});

describe('new-user trial, part 5, at 1000×700', () => {
  it('a toast sits in its own strip between the timeline and the composer, covering no row; Esc in it dismisses it', async () => {
    const chooser = page.waitForEvent('filechooser');
    await runCommand(page, 'import a session log');
    await (await chooser).setFiles(join(AGENT_LOGS, 'claude-code/cc_coverage-test-fix.jsonl'));
    const toast = page.locator('[data-testid="toast"][data-tone="info"]').filter({ hasText: 'Imported cc_coverage-test-fix.jsonl' });
    await toast.waitFor({ timeout: 30_000 });
    await page.getByTestId('session-view').filter({ hasText: 'Add a function called multiply_numbers' }).waitFor({ timeout: 30_000 });
    // Held open while it is measured: focus in a toast pauses its timer.
    await toast.locator('[data-testid="toast-more"] > summary').focus();
    await page.locator('[data-testid="toast"][data-paused="true"]').waitFor();
    const geometry = await toastGeometry(page);
    await app.screenshot('new-user-5-toast-strip-import');
    expect(geometry.count).toBeGreaterThan(0);
    expect(geometry.onTimeline).toBe(0);
    expect(geometry.onComposer).toBe(0);
    expect(geometry.covered).toEqual([]);
    // Readable: the app's text size, nothing cut off, most of the session's width.
    expect(Math.min(...geometry.fontPx)).toBeGreaterThanOrEqual(12);
    expect(geometry.clipped).toBe(0);
    expect(Math.min(...geometry.widths)).toBeGreaterThan(500);
    expect(await layoutProblems(page)).toEqual([]);
    // Esc with focus in the toast dismisses that toast; focus stays in the page.
    await press('Escape');
    await toast.waitFor({ state: 'detached', timeout: 5_000 });
    await page.waitForFunction(() => document.activeElement !== document.body);
  }, 90_000);

  it('Esc dismisses the newest toast from the composer, not from a field that uses Esc itself; the strip leaves the last row in view', async () => {
    await openSession(own);
    await byTestId('composer-input').focus();
    // Two exports, two toasts (each names the file).
    for (let i = 0; i < 2; i++) {
      const download = page.waitForEvent('download');
      await runCommand(page, 'export session as jsonl');
      await download;
    }
    await page.locator('[data-testid="toast"]').nth(1).waitFor();
    const ids = await page.locator('[data-testid="toast"]').evaluateAll((els) => els.map((el) => el.getAttribute('data-toast-id')!));
    const newest = page.locator(`[data-testid="toast"][data-toast-id="${ids.at(-1)}"]`);
    // The pointer rests on the newest toast, so only Esc can take it away (its timer waits).
    const box = (await newest.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.locator(`[data-testid="toast"][data-toast-id="${ids.at(-1)}"][data-paused="true"]`).waitFor();
    const geometry = await toastGeometry(page);
    expect(geometry.onTimeline).toBe(0);
    expect(geometry.onComposer).toBe(0);
    expect(geometry.covered).toEqual([]);
    // The timeline follows its tail: the last turn's end is in view above the strip, not below it.
    const tail = await page.evaluate(() => {
      const t = document.querySelector('[data-testid="timeline"]')!.getBoundingClientRect();
      const end = document.querySelector('[data-testid="turn-end"][data-turn="4"]')?.getBoundingClientRect();
      return { inView: end !== undefined && end.bottom <= t.bottom + 1 && end.top >= t.top - 1, timeline: [t.top, t.bottom], end: end && [end.top, end.bottom] };
    });
    await app.screenshot('new-user-5-toast-strip-session');
    expect(tail).toMatchObject({ inView: true });

    // Esc in the find field belongs to the find bar (it closes); the toast stays.
    await runCommand(page, 'find in this session');
    await waitForFocus(page, 'find-input');
    await page.keyboard.type('folder');
    await press('Escape');
    await byTestId('find-input').waitFor({ state: 'detached' });
    expect(await newest.count()).toBe(1);

    // From the composer (no turn running), Esc takes the newest toast away and focus stays there.
    await byTestId('composer-input').focus();
    await press('Escape');
    await newest.waitFor({ state: 'detached', timeout: 5_000 });
    expect((await focused(page)).testId).toBe('composer-input');
    await page.mouse.move(0, 0);
  }, 90_000);

  it('the toast strip at 1440×900 is one line per toast, under the timeline', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    const download = page.waitForEvent('download');
    await runCommand(page, 'export session as jsonl');
    await download;
    await page.locator('[data-testid="toast"]').last().waitFor();
    const id = await page.locator('[data-testid="toast"]').last().getAttribute('data-toast-id');
    const toast = page.locator(`[data-testid="toast"][data-toast-id="${id}"]`);
    await toast.getByTestId('toast-dismiss').focus();
    const geometry = await toastGeometry(page);
    await app.screenshot('new-user-5-toast-strip-1440');
    expect(geometry.onTimeline).toBe(0);
    expect(geometry.covered).toEqual([]);
    const lineHeight = await toast.evaluate((el) => {
      const text = el.querySelector('.toast-text')!;
      return text.getBoundingClientRect().height / parseFloat(getComputedStyle(text).lineHeight);
    });
    expect(lineHeight).toBeLessThan(1.5);
    expect(await layoutProblems(page)).toEqual([]);
    await press('Enter');
    await toast.waitFor({ state: 'detached' });
    await page.setViewportSize(SIZE);
  }, 60_000);

  it('exporting a session or a bundle says what was written (file name, size) in a toast and a polite live region', async () => {
    await openSession(own);
    const announcer = page.locator('[data-testid="toast-announcer"][aria-live="polite"]');
    expect(await announcer.count()).toBe(1);
    const download = page.waitForEvent('download');
    await runCommand(page, 'export session as jsonl');
    const file = await download;
    const name = file.suggestedFilename();
    const bytes = (await readDownload(file)).length;
    const toast = page.locator('[data-testid="toast"][data-tone="info"]').filter({ hasText: name }).last();
    await toast.waitFor();
    const text = (await toast.locator('.toast-text').textContent())!;
    expect(text).toContain(`Session exported: ${name} (${formatBytes(bytes)}`);
    await page.waitForFunction((n) => document.querySelector('[data-testid="toast-announcer"]')?.textContent?.includes(n) === true, name);
    expect(await announcer.textContent()).toContain(formatBytes(bytes));
    await app.screenshot('new-user-5-export-toast');

    await runCommand(page, 'export bundle');
    await byTestId('export-bundle-dialog').waitFor();
    await waitForFocus(page, 'export-bundle-ok');
    const bundleDownload = page.waitForEvent('download');
    await press('Enter');
    const bundle = await bundleDownload;
    const bundleName = bundle.suggestedFilename();
    const bundleBytes = (await readDownload(bundle)).length;
    const bundleToast = page.locator('[data-testid="toast"][data-tone="info"]').filter({ hasText: bundleName });
    await bundleToast.waitFor({ timeout: 30_000 });
    expect(await bundleToast.textContent()).toContain(`Bundle ${bundleName} saved (${formatBytes(bundleBytes)})`);
    await page.waitForFunction((n) => document.querySelector('[data-testid="toast-announcer"]')?.textContent?.includes(`Bundle ${n}`) === true, bundleName);
    await app.screenshot('new-user-5-export-bundle-toast');
    expect(await layoutProblems(page)).toEqual([]);
  }, 90_000);

  it('Settings: Save waits while a sub-form holds unsaved input, saying why beside it', async () => {
    await runCommand(page, 'settings');
    await byTestId('settings-dialog').waitFor();
    await byTestId('settings-base-url').waitFor();
    const save = byTestId('settings-save');
    const reason = byTestId('settings-save-blocked');
    expect(await save.isDisabled()).toBe(false);
    expect(await reason.count()).toBe(0);

    await pressEnterOn(byTestId('price-add'));
    await byTestId('price-form').waitFor();
    await page.waitForFunction(() => (document.querySelector('[data-testid="settings-save"]') as HTMLButtonElement | null)?.disabled === true);
    expect(await reason.textContent()).toContain('the new price row (Save price or Cancel)');
    expect(await reason.isVisible()).toBe(true);
    // Beside Save, in the same button row.
    const [r, s] = [(await reason.boundingBox())!, (await save.boundingBox())!];
    expect(Math.abs(r.y + r.height / 2 - (s.y + s.height / 2))).toBeLessThan(s.height);
    await save.scrollIntoViewIfNeeded();
    await app.screenshot('new-user-5-settings-save-waits');
    // Enter in a field of the main form does not submit it either.
    await byTestId('settings-base-url').focus();
    await press('Enter');
    expect(await byTestId('settings-dialog').count()).toBe(1);
    expect(await byTestId('price-form').count()).toBe(1);
    await pressEnterOn(byTestId('price-cancel'));
    await reason.waitFor({ state: 'detached' });
    expect(await save.isDisabled()).toBe(false);

    // The same for an API key typed but not saved with "Save key", and for edited MCP servers.
    await byTestId('settings-api-key').focus();
    await page.keyboard.type('sk-typed-not-saved');
    await reason.waitFor();
    expect(await reason.textContent()).toContain('the API key you typed (Save key)');
    expect(await save.isDisabled()).toBe(true);
    await retypeIn(byTestId('settings-api-key'), '');
    await press('Backspace');
    await reason.waitFor({ state: 'detached' });
    await retypeIn(byTestId('mcp-settings-json'), '{"x": {"command": "true"}}');
    await reason.waitFor();
    expect(await reason.textContent()).toContain('the edited MCP servers (Save servers)');
    await retypeIn(byTestId('mcp-settings-json'), '{}');
    await reason.waitFor({ state: 'detached' });
    expect(await save.isDisabled()).toBe(false);
  }, 60_000);

  it('Settings: "Test connection" keeps focus while it is busy, and after', async () => {
    let release!: () => void;
    const answered = new Promise<void>((resolve) => (release = resolve));
    app.llm.setHandler(async () => {
      app.llm.setHandler(undefined);
      await answered;
      return textResponse('OK');
    });
    const before = app.llm.requests.length;
    await byTestId('settings-test-connection').focus();
    await press('Enter');
    await page.locator('[data-testid="settings-test-connection"]', { hasText: 'Testing…' }).waitFor();
    // Busy, and focus is still on it (a disabled button would have dropped it to the page).
    await page.waitForFunction(() => (document.activeElement as HTMLElement | null)?.dataset['testid'] === 'settings-test-connection');
    expect(await byTestId('settings-test-connection').getAttribute('aria-disabled')).toBe('true');
    expect((await focused(page)).testId).toBe('settings-test-connection');
    // Pressing it again while busy sends nothing more.
    await press('Enter');
    release();
    await page.locator('[data-testid="settings-test-result"][data-ok="true"]').waitFor({ timeout: 15_000 });
    expect((await focused(page)).testId).toBe('settings-test-connection');
    expect(app.llm.requests.length).toBe(before + 1);
  }, 60_000);

  it('Settings: a model "List models" found is picked with ↓ and Enter, filling the model field', async () => {
    await pressEnterOn(byTestId('settings-list-models'));
    await byTestId('settings-model-list').waitFor();
    await waitForFocus(page, 'settings-list-models', 5_000);
    // In the endpoint's order as the host lists it (sorted by id).
    expect(await page.getByTestId('settings-model-choice').allTextContents()).toEqual(['scripted-large', 'scripted-model', 'scripted-small']);
    // Its next Tab stop is the list; the cursor starts on the model in the field.
    await press('Tab');
    await waitForFocus(page, 'settings-model-list');
    const active = () => page.evaluate(() => document.getElementById(document.activeElement?.getAttribute('aria-activedescendant') ?? '')?.dataset['model']);
    expect(await active()).toBe('scripted-model');
    await press('ArrowUp');
    expect(await active()).toBe('scripted-large');
    await app.screenshot('new-user-5-settings-model-list');
    expect(await layoutProblems(page)).toEqual([]);
    await press('Enter');
    // The field has it, focus is back in the field, and the dialog is still open (Enter did not submit).
    expect(await byTestId('settings-model').inputValue()).toBe('scripted-large');
    await waitForFocus(page, 'settings-model');
    expect(await byTestId('settings-dialog').count()).toBe(1);
    // ↓ from the model field goes into the list, on the model now in it.
    await press('ArrowDown');
    await waitForFocus(page, 'settings-model-list');
    expect(await active()).toBe('scripted-large');
    await press('End');
    expect(await active()).toBe('scripted-small');
    await press('Enter');
    expect(await byTestId('settings-model').inputValue()).toBe('scripted-small');
    // Saved as the model new turns use.
    await pressEnterOn(byTestId('settings-save'));
    await byTestId('settings-dialog').waitFor({ state: 'detached' });
    await expect.poll(() => app.runtime.settings.active.model).toBe('scripted-small');
  }, 60_000);
});

/** A download's bytes: saved into the app's temp folder first (the browser is the run's shared one, reached over its WebSocket, so the download's own path is on its side). */
async function readDownload(download: { saveAs(path: string): Promise<void>; suggestedFilename(): string }): Promise<Buffer> {
  const { readFile } = await import('node:fs/promises');
  const copy = join(app.dir, `download-${Date.now()}-${download.suggestedFilename()}`);
  await download.saveAs(copy);
  return readFile(copy);
}
