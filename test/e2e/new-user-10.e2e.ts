/**
 * A new user's first hour, part 10 (the keyboard-only trial at 1000×700 and 800×600): finding
 * things in the sidebar, where focus goes back, and what looks focused.
 * - A sidebar search hit named neither the folder of its session nor what its "#227" was: each hit
 *   now says "in <folder>" and "event 227", with a tooltip saying it is the event's number.
 * - F6 skipped the search results: they are an area of their own now, and ↑/↓/Home/End move
 *   between hits (↓ from the search field or the last session row enters them).
 * - Closing Settings opened by its shortcut put focus on the start screen's theme button: every
 *   dialog now hands focus back to its opener, else to a stable place near it (the opener's row, its
 *   area, the main area) — never the first control of the page.
 * - A primary button's resting blue border looked like a focus ring: it is a filled button with no
 *   accent border now, and focus draws a ring apart from it.
 * - An imported session's long title was cut hard beside its badge: it ellipsises, the full title
 *   in the row's tooltip, and the badge stays compact.
 * Screenshots: test-results/new-user-10-*.png.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { Session } from '../../electron/session/session.js';
import type { SessionHeader } from '../../shared/events.js';
import { startConnectedApp, type E2eApp } from './support/e2e-harness.js';
import { focused, runCommand, waitForFocus } from './support/keyboard-focus.js';
import { layoutProblems } from './support/layout-checks.js';

let app: E2eApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const SIZES = [
  { width: 1000, height: 700 },
  { width: 800, height: 600 },
] as const;

/** A word only the stored sessions' prompts contain. */
const NEEDLE = 'zanzibarquux';

/** A stored session in `cwd` with `turns` closed turns, each prompt naming {@link NEEDLE}; returns its id. */
function storedSession(a: E2eApp, id: string, cwd: string, title: string, turns: number, extra: Partial<SessionHeader> = {}): string {
  let t = 1_790_000_000_000;
  mkdirSync(cwd, { recursive: true });
  const s = new Session({ header: { version: 0, id, createdAt: t, cwd, title, ...extra }, now: () => (t += 2) });
  for (let turn = 1; turn <= turns; turn++) {
    s.append({ type: 'turn/start', data: { turn } });
    s.append({ type: 'step/start', data: { turn, step: 1 } });
    s.append({
      type: 'user/message',
      data: { id: `u${turn}`, role: 'user', content: [{ type: 'text', text: `question ${turn} about the ${NEEDLE} loader` }], source: { kind: 'user' } },
      surfaceOp: 'append',
    });
    const message = { id: `a${turn}`, role: 'assistant', content: [{ type: 'text', text: `Answer ${turn}.` }], source: { kind: 'model', provider: 'custom', model: 'scripted-model' } } as const;
    s.append({ type: 'assistant/message', data: { turn, step: 1, message }, surfaceOp: 'append' });
    s.append({ type: 'step/end', data: { turn, step: 1 } });
    s.append({ type: 'turn/end', data: { turn, reason: { kind: 'completed' } } });
  }
  a.runtime.store.createSession(s.header, s.events);
  return id;
}

/** The focused element's F6 area and test id. */
async function where(page: Page): Promise<string> {
  const f = await focused(page);
  return `${f.region ?? '-'}/${f.testId}`;
}

/** Waits until focus is in F6 area `region` (the error names where it is instead). */
async function waitForRegion(page: Page, region: string): Promise<void> {
  try {
    await page.waitForFunction((r) => document.activeElement?.closest<HTMLElement>('[data-region]')?.dataset['region'] === r, region, { timeout: 10_000 });
  } catch {
    throw new Error(`focus did not reach the ${region} area: it is on ${await where(page)}`);
  }
}

/** Searches the sidebar for {@link NEEDLE} from the keyboard and waits for `count` hits. */
async function searchNeedle(page: Page, count: number): Promise<void> {
  await page.getByTestId('sidebar-search').focus();
  await page.keyboard.type(NEEDLE);
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="search-hit"]').length === n, count, { timeout: 15_000 });
}

describe.each(SIZES)('the new user trial, part 10, at $width×$height', (size) => {
  const tag = `${size.width}x${size.height}`;

  it('a search hit names the folder of its session and the event it is in, with a tooltip, inside its row', async () => {
    const started = await startConnectedApp({ viewport: size });
    app = started.app;
    const { page } = started;
    const alpha = storedSession(app, 'alpha-session', join(app.workspace, 'alpha-project-with-a-rather-long-folder-name'), 'Loader work', 1);
    const beta = storedSession(app, 'beta-session', join(app.workspace, 'beta'), 'Loader work', 1);
    await page.reload();
    await page.locator('[data-testid="session-row"]').nth(1).waitFor();
    await searchNeedle(page, 2);
    for (const [id, folder] of [
      [alpha, 'alpha-project-with-a-rather-long-folder-name'],
      [beta, 'beta'],
    ] as const) {
      const hit = page.locator(`[data-testid="search-hit"][data-session-id="${id}"]`);
      const seq = await hit.getAttribute('data-seq');
      expect(await hit.getByTestId('search-hit-session').textContent()).toBe('Loader work');
      expect(await hit.getByTestId('search-hit-folder').textContent()).toBe(`in ${folder}`);
      expect(await hit.getByTestId('search-hit-event').textContent()).toBe(`event ${seq}`);
      expect(await hit.textContent()).not.toContain('#');
      const title = (await hit.getAttribute('title')) ?? '';
      expect(title).toContain(join(app.workspace, folder));
      expect(title).toContain(`event ${seq} of its log`);
      // The event label is whole and on the hit's line; a long folder is cut with an ellipsis, not past the hit.
      const [hitBox, eventBox, folderBox] = await Promise.all([hit.boundingBox(), hit.getByTestId('search-hit-event').boundingBox(), hit.getByTestId('search-hit-folder').boundingBox()]);
      expect(eventBox!.x + eventBox!.width).toBeLessThanOrEqual(hitBox!.x + hitBox!.width + 0.5);
      expect(folderBox!.x + folderBox!.width).toBeLessThanOrEqual(eventBox!.x);
      expect(await hit.getByTestId('search-hit-event').evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
      expect(await hit.getByTestId('search-hit-folder').evaluate((el) => getComputedStyle(el).textOverflow)).toBe('ellipsis');
    }
    await app.screenshot(`new-user-10-${tag}-search-hits`);
    expect(await layoutProblems(page)).toEqual([]);
  });

  it('F6 reaches the search results, and arrow keys move among the hits', async () => {
    const started = await startConnectedApp({ viewport: size });
    app = started.app;
    const { page, byTestId } = started;
    const id = storedSession(app, 'search-session', app.workspace, 'Loader work', 3);
    await page.reload();
    // Open the session, so the areas after the results are on screen too.
    await page.locator(`[data-testid="session-open"][data-session-id="${id}"]`).focus();
    await page.keyboard.press('Enter');
    await byTestId('composer-input').waitFor();
    await searchNeedle(page, 3);
    // From the search field (the sessions area) F6 goes to the results, on the first hit.
    await page.keyboard.press('F6');
    await waitForRegion(page, 'search');
    const seqs = await page.locator('[data-testid="search-hit"]').evaluateAll((els) => els.map((el) => el.getAttribute('data-seq')));
    const focusedSeq = () => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset['seq']);
    expect(await focusedSeq()).toBe(seqs[0]);
    expect((await focused(page)).ring).toBe(true);
    await page.keyboard.press('ArrowDown');
    await expect.poll(focusedSeq).toBe(seqs[1]);
    await page.keyboard.press('End');
    await expect.poll(focusedSeq).toBe(seqs[2]);
    await page.keyboard.press('Home');
    await expect.poll(focusedSeq).toBe(seqs[0]);
    await page.keyboard.press('ArrowDown');
    await expect.poll(focusedSeq).toBe(seqs[1]);
    await app.screenshot(`new-user-10-${tag}-search-hit-focused`);
    // One Tab stop: the hit moved to; F6 goes on to the next area, Shift+F6 comes back to that hit.
    expect(await page.locator('[data-testid="search-hit"][tabindex="0"]').count()).toBe(1);
    await page.keyboard.press('F6');
    await page.waitForFunction(() => {
      const region = document.activeElement?.closest<HTMLElement>('[data-region]')?.dataset['region'];
      return region !== undefined && region !== 'search' && region !== 'sessions';
    });
    await page.keyboard.press('Shift+F6');
    await waitForRegion(page, 'search');
    expect(await focusedSeq()).toBe(seqs[1]);
    // Shift+F6 from the results: the sessions area (not the results again).
    await page.keyboard.press('Shift+F6');
    await waitForRegion(page, 'sessions');
    // No title matches the word, so ↓ in the search field enters the results; ↑ on the first hit goes back to the field.
    await byTestId('sidebar-search').focus();
    await page.keyboard.press('ArrowDown');
    await waitForRegion(page, 'search');
    await page.keyboard.press('Home');
    await expect.poll(focusedSeq).toBe(seqs[0]);
    await page.keyboard.press('ArrowUp');
    await waitForFocus(page, 'sidebar-search');
    // Enter on a hit opens its session at the event.
    await page.keyboard.press('ArrowDown');
    await waitForRegion(page, 'search');
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="timeline-row"].selected').waitFor();
  });

  it('↓ on the last session row enters the search results when a search shows some', async () => {
    const started = await startConnectedApp({ viewport: size });
    app = started.app;
    const { page, byTestId } = started;
    storedSession(app, 'titled-a', app.workspace, `The ${NEEDLE} plan`, 1);
    storedSession(app, 'titled-b', app.workspace, `The ${NEEDLE} review`, 1);
    await page.reload();
    await page.locator('[data-testid="session-row"]').nth(1).waitFor();
    await searchNeedle(page, 2);
    // The titles match too: ↓ from the field is the first row, ↓ the last, ↓ again the first hit, ↑ back to the last row.
    const rows = await page.locator('[data-testid="session-open"]').evaluateAll((els) => els.map((el) => el.getAttribute('data-session-id')));
    expect(rows).toHaveLength(2);
    const focusedSession = () => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset['sessionId']);
    await byTestId('sidebar-search').focus();
    await page.keyboard.press('ArrowDown');
    await expect.poll(focusedSession).toBe(rows[0]);
    await page.keyboard.press('ArrowDown');
    await expect.poll(focusedSession).toBe(rows[1]);
    await page.keyboard.press('ArrowDown');
    await waitForFocus(page, 'search-hit');
    await page.keyboard.press('ArrowUp');
    await waitForFocus(page, 'session-open');
    expect(await focusedSession()).toBe(rows[1]);
  });

  it('closing Settings (Esc, Cancel, Save) puts focus back where it was, or on the prompt when it was on nothing', async () => {
    const started = await startConnectedApp({ viewport: size });
    app = started.app;
    const { page, byTestId } = started;
    await byTestId('start-input').waitFor();
    // Opened by its shortcut with focus on nothing (the page just loaded): back to the start screen's prompt.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('Control+,');
    await byTestId('settings-save').waitFor();
    await page.keyboard.press('Escape');
    await byTestId('settings-dialog').waitFor({ state: 'detached' });
    await waitForFocus(page, 'start-input');
    // From the palette opened on nothing: the same.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await runCommand(page, 'settings');
    await byTestId('settings-save').waitFor();
    await byTestId('settings-footer').getByRole('button', { name: 'Cancel' }).focus();
    await page.keyboard.press('Enter');
    await byTestId('settings-dialog').waitFor({ state: 'detached' });
    await waitForFocus(page, 'start-input');
    // From the start screen's link: Save hands focus back to the link.
    await byTestId('start-settings').focus();
    await page.keyboard.press('Enter');
    await byTestId('settings-save').waitFor();
    await byTestId('settings-save').focus();
    await page.keyboard.press('Enter');
    await byTestId('settings-dialog').waitFor({ state: 'detached' });
    await waitForFocus(page, 'start-settings');
    // From the sidebar's gear: Esc hands focus back to the gear.
    await byTestId('settings-button').focus();
    await page.keyboard.press('Enter');
    await byTestId('settings-save').waitFor();
    await page.keyboard.press('Escape');
    await byTestId('settings-dialog').waitFor({ state: 'detached' });
    await waitForFocus(page, 'settings-button');
    await app.screenshot(`new-user-10-${tag}-settings-closed`);
    // F6 into a sidebar with no session row: New session, not its first control (the theme button).
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('F6');
    await waitForFocus(page, 'new-session-button');
  });

  it("a session row's dialogs (delete, export bundle) hand focus back to the row, whose actions show only while it has focus", async () => {
    const started = await startConnectedApp({ viewport: size });
    app = started.app;
    const { page, byTestId } = started;
    const id = storedSession(app, 'row-session', app.workspace, 'Loader work', 1);
    const other = storedSession(app, 'other-session', app.workspace, 'Other work', 1);
    await page.reload();
    const row = (sid: string) => page.locator(`[data-testid="session-row"][data-session-id="${sid}"]`);
    await row(other).waitFor();
    // Delete (the Del key) → Cancel: the row's open button, not the page.
    await row(id).getByTestId('session-open').focus();
    await page.keyboard.press('Delete');
    await byTestId('confirm-cancel').waitFor();
    await waitForFocus(page, 'confirm-cancel');
    await page.keyboard.press('Enter');
    await byTestId('confirm-dialog').waitFor({ state: 'detached' });
    await waitForFocus(page, 'session-open');
    expect((await focused(page)).sessionId).toBe(id);
    // Its delete button → Esc: the row again (the button hides while the row has no focus).
    await row(id).getByTestId('session-delete-button').focus();
    await page.keyboard.press('Enter');
    await byTestId('confirm-cancel').waitFor();
    await page.keyboard.press('Escape');
    await byTestId('confirm-dialog').waitFor({ state: 'detached' });
    await page.waitForFunction((sid) => (document.activeElement as HTMLElement | null)?.closest('[data-testid="session-row"]')?.getAttribute('data-session-id') === sid, id);
    // Export bundle… → Esc: back in the row.
    await row(id).getByTestId('session-bundle-button').focus();
    await page.keyboard.press('Enter');
    await byTestId('export-bundle-dialog').waitFor();
    await page.keyboard.press('Escape');
    await byTestId('export-bundle-dialog').waitFor({ state: 'detached' });
    await page.waitForFunction((sid) => (document.activeElement as HTMLElement | null)?.closest('[data-testid="session-row"]')?.getAttribute('data-session-id') === sid, id);
    // Deleted: the row is gone, the list's Tab stop (the other session) takes focus.
    await row(id).getByTestId('session-open').focus();
    await page.keyboard.press('Delete');
    await byTestId('confirm-ok').focus();
    await page.keyboard.press('Enter');
    await row(id).waitFor({ state: 'detached' });
    await waitForFocus(page, 'session-open');
    expect((await focused(page)).sessionId).toBe(other);
  });

  it('a primary button at rest has no accent border or ring; focused, it gets a ring apart from it', async () => {
    const started = await startConnectedApp({ viewport: size });
    app = started.app;
    const { page, byTestId } = started;
    const button = byTestId('new-session-button');
    await button.waitFor();
    const look = () =>
      button.evaluate((el) => {
        const s = getComputedStyle(el);
        const probe = document.createElement('span');
        probe.style.color = 'var(--accent)';
        document.body.append(probe);
        const accent = getComputedStyle(probe).color;
        probe.remove();
        return {
          accent,
          border: s.borderTopColor,
          borderWidth: parseFloat(s.borderTopWidth),
          outline: s.outlineStyle === 'none' ? 0 : parseFloat(s.outlineWidth),
          outlineColor: s.outlineColor,
          offset: parseFloat(s.outlineOffset),
          background: s.backgroundColor,
        };
      });
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    const rest = await look();
    expect(rest.outline).toBe(0);
    // No accent-coloured edge at rest (transparent or another colour); the fill says "primary".
    expect(rest.border === rest.accent && rest.borderWidth > 0).toBe(false);
    expect(rest.background).toBe(rest.accent);
    // Reached with Tab (keyboard focus): a ring of at least 2 px, off the button's edge.
    await byTestId('sidebar-collapse').focus();
    await page.keyboard.press('Tab');
    await waitForFocus(page, 'new-session-button');
    const focus = await look();
    expect(focus.outline).toBeGreaterThanOrEqual(2);
    expect(focus.outlineColor).toBe(focus.accent);
    expect(focus.offset).toBeGreaterThanOrEqual(2);
    await app.screenshot(`new-user-10-${tag}-primary-focused`);
    // The other theme: the same (the fill, no accent edge at rest).
    const theme = await page.evaluate(() => document.documentElement.dataset['theme']);
    await byTestId('theme-toggle').focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction((before) => document.documentElement.dataset['theme'] !== before, theme);
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    const other = await look();
    expect(other.outline).toBe(0);
    expect(other.border === other.accent && other.borderWidth > 0).toBe(false);
    expect(other.background).toBe(other.accent);
    await app.screenshot(`new-user-10-${tag}-primary-other-theme`);
  });

  it("an imported session's long title ends in an ellipsis beside a compact badge, the whole title in its tooltip", async () => {
    const started = await startConnectedApp({ viewport: size });
    app = started.app;
    const { page } = started;
    const title = 'Investigate why the nightly export of the customer invoices drops every row after the first page of results';
    const id = storedSession(app, 'imported-session', app.workspace, title, 1, {
      origin: { kind: 'imported', format: 'claude-code', file: 'nightly-export.jsonl', importedAt: 1_790_000_000_000 },
    });
    await page.reload();
    const row = page.locator(`[data-testid="session-row"][data-session-id="${id}"]`);
    await row.waitFor();
    const facts = () =>
      row.evaluate((li) => {
        const titleEl = li.querySelector<HTMLElement>('[data-testid="session-title"]')!;
        const badge = li.querySelector<HTMLElement>('[data-testid="session-imported"]')!;
        const open = li.querySelector<HTMLElement>('[data-testid="session-open"]')!;
        const t = titleEl.getBoundingClientRect();
        const b = badge.getBoundingClientRect();
        const r = li.getBoundingClientRect();
        return {
          ellipsis: getComputedStyle(titleEl).textOverflow,
          cut: titleEl.scrollWidth > titleEl.clientWidth,
          titleWidth: t.width,
          rowWidth: r.width,
          gap: b.left - t.right,
          badgeWidth: b.width,
          badgeInside: b.right <= r.right + 0.5,
          badgeText: badge.textContent,
          openTitle: open.getAttribute('title') ?? '',
        };
      });
    for (const state of ['rest', 'focused'] as const) {
      if (state === 'focused') {
        await row.getByTestId('session-open').focus();
        await row.getByTestId('session-rename-button').waitFor();
      }
      await app.screenshot(`new-user-10-${tag}-imported-title-${state}`);
      const f = await facts();
      expect(f.ellipsis, state).toBe('ellipsis');
      expect(f.cut, state).toBe(true);
      // The title keeps most of the row, the badge is short and within the row, with a gap between them.
      expect(f.titleWidth, state).toBeGreaterThan(f.rowWidth * 0.5);
      expect(f.badgeWidth, state).toBeLessThanOrEqual(64);
      expect(f.badgeInside, state).toBe(true);
      expect(f.gap, state).toBeGreaterThanOrEqual(3);
      expect(f.openTitle.startsWith(title), state).toBe(true);
      expect(f.openTitle, state).toContain('imported from claude-code');
    }
  });
});
