/**
 * The Team section (issue 27) in Debian's Chromium at 1000×700, keyboard only, against a real
 * throwaway PostgreSQL cluster (test/support/postgres-cluster.ts; as the team integration tests,
 * a cluster that cannot start fails the file with its reason, it is never skipped): alice's
 * sessions, published from a second data folder, are listed in bob's app; one is found by
 * full-text search and opened read-only; another opened from its row; one is continued in a local
 * folder. Then the team store goes down while bob shares a workspace: the new session waits to
 * publish (the line and the row marker say so) and is published once the server is back. The list
 * follows without Refresh: bob's published session and a session alice publishes meanwhile appear,
 * while the rows on screen keep their elements and the keyboard focus.
 * Screenshots go to test-results/team-*.png.
 */
import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteSessionStore } from '../../electron/store/sqlite-session-store.js';
import { TeamDb } from '../../electron/team/team-db.js';
import { installationId } from '../../electron/team/installation-id.js';
import { publishSession } from '../../electron/team/team-publisher.js';
import { localDigest, serverDigest, teamDatabase, writeLocalSessions, type TeamDatabase } from '../integration/team/team-fixtures.js';
import { sharedPostgres, type PgCluster } from '../support/postgres-cluster.js';
import { textResponse } from '../support/scripted-llm/index.js';
import { startE2eApp, type E2eApp } from './support/e2e-harness.js';
import { waitForFocus } from './support/keyboard-focus.js';
import { layoutProblems } from './support/layout-checks.js';

const FLAKY = '5e55a1ce-0000-4000-8000-00000000e2e1';
const CONFIG = '5e55a1ce-0000-4000-8000-00000000e2e2';
const LATER = '5e55a1ce-0000-4000-8000-00000000e2e3';

let cluster: PgCluster;
let team: TeamDatabase;
let app: E2eApp;
let page: Page;
let aliceDir: string;

beforeAll(async () => {
  // Fails (never skips) with the cluster's reason: PostgreSQL missing, not startable here.
  cluster = await sharedPostgres();
  team = await teamDatabase(cluster, 'e2e');
  app = await startE2eApp({ approvalPolicy: 'allow', viewport: { width: 1000, height: 700 } });
  page = app.page;
  // Alice's data folder: real sessions in SQLite, published with the publisher's own code.
  aliceDir = join(app.dir, 'alice');
  await writeLocalSessions(aliceDir, [
    { id: FLAKY, turns: 3, prompt: 'why does the flaky parser test fail on Windows', title: 'flaky parser' },
    { id: CONFIG, turns: 2, prompt: 'rename the config loader', title: 'config loader' },
  ]);
  const store = new SqliteSessionStore(join(aliceDir, 'sessions.db'));
  const db = await TeamDb.connect(team.alice);
  try {
    for (const id of [FLAKY, CONFIG]) await publishSession(db, store, id, { installation: installationId(aliceDir) });
  } finally {
    await db.close();
    store.close();
  }
}, 120_000);

afterAll(async () => {
  await app?.close();
  cluster?.stop();
});

const byTestId = (id: string) => page.getByTestId(id);
const press = (key: string) => page.keyboard.press(key);

/** Presses Tab until the focused element matches `selector` (keyboard only); fails naming where focus stayed. */
async function tabTo(selector: string, limit = 80): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await press('Tab');
  }
  const at = await page.evaluate(() => (document.activeElement as HTMLElement | null)?.outerHTML.slice(0, 120));
  throw new Error(`Tab never reached ${selector}; focus is on ${at}`);
}

describe('the Team section', () => {
  it('says no team store is configured, then that a wrong server is unreachable', async () => {
    await byTestId('sidebar').waitFor();
    await byTestId('team-section').waitFor();
    await tabTo('[data-testid="team-toggle"]');
    await press('Enter');
    const none = byTestId('team-not-configured');
    await none.waitFor();
    expect(await none.textContent()).toContain('No team store is configured');
    await app.screenshot('team-01-not-configured-1000');
    await tabTo('[data-testid="team-store-url"]');
    // Nothing listens on port 1: the message says the store cannot be reached.
    await page.keyboard.type('postgres://bob:bob-pw@127.0.0.1:1/nowhere');
    await press('Enter');
    const error = byTestId('team-error');
    await error.waitFor({ timeout: 30_000 });
    expect(await error.textContent()).toMatch(/^The team store cannot be reached \(ECONNREFUSED\)\. Is the server running, and is the connection string right\?/);
    expect(await error.getAttribute('title')).toMatch(/cannot reach the team store at postgres:\/\/bob:\*\*\*@127\.0\.0\.1:1\/nowhere/);
    expect(await byTestId('team-store-where').textContent()).toBe('postgres://bob:***@127.0.0.1:1/nowhere');
    await app.screenshot('team-02-unreachable-1000');
  });

  it("lists a teammate's published sessions: who, when, workspace, status, tokens, cost", async () => {
    await tabTo('[data-testid="team-store-change"]');
    await press('Enter');
    await tabTo('[data-testid="team-store-url"]');
    await page.keyboard.type(team.bob);
    await press('Enter');
    const rows = byTestId('team-session-row');
    await rows.nth(1).waitFor({ timeout: 30_000 });
    expect(await rows.count()).toBe(2);
    const flaky = page.locator(`[data-testid="team-session-row"][data-team-session-id="${FLAKY}"]`);
    expect(await flaky.locator('.session-title').textContent()).toBe('flaky parser');
    // alice · 2026-… · its workspace folder's name · completed · tokens · cost
    expect(await flaky.getByTestId('team-session-meta').textContent()).toMatch(new RegExp(`^alice · \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d · ${FLAKY} · completed · [\\d.,k]+ tokens · `));
    expect(await layoutProblems(page)).toEqual([]);
    // Every control of the section is in the Tab order.
    expect(
      await page.evaluate(
        () => [...document.querySelectorAll<HTMLElement>('[data-testid="team-section"] :is(button, input)')].filter((el) => el.getClientRects().length > 0 && el.tabIndex < 0).length,
      ),
    ).toBe(0);
    await app.screenshot('team-03-listed-1000');
    // Settings shows the store in use (password hidden) and can change it.
    await press('Control+,');
    await byTestId('settings-team-store').waitFor();
    expect(await byTestId('settings-team-store-where').textContent()).toMatch(/^postgres:\/\/bob:\*\*\*@127\.0\.0\.1:\d+\/e2e_\d+_\d+$/);
    expect(await byTestId('settings-team-store').textContent()).toContain('(from Settings)');
    await byTestId('settings-team-store').scrollIntoViewIfNeeded();
    await app.screenshot('team-03b-settings-1000');
    await press('Escape');
    await byTestId('settings-team-store').waitFor({ state: 'detached' });
  });

  it('searches the team with full-text search and opens a hit read-only', async () => {
    await tabTo('[data-testid="team-search"]');
    await page.keyboard.type('failing windows');
    await press('Enter');
    const hit = byTestId('team-search-hit').first();
    await hit.waitFor({ timeout: 30_000 });
    expect(await hit.getAttribute('data-team-session-id')).toBe(FLAKY);
    // English stemming: "failing" finds "fail".
    expect(await hit.locator('mark').allTextContents()).toEqual(expect.arrayContaining(['fail', 'Windows']));
    await app.screenshot('team-04-search-1000');
    await press('Tab');
    await waitForFocus(page, 'team-search-hit');
    await press('Enter');
    const banner = byTestId('imported-banner');
    await banner.waitFor({ timeout: 30_000 });
    expect(await banner.textContent()).toContain(`team:alice:${FLAKY}.jsonl`);
    expect(await banner.textContent()).toContain('From the team store, published by alice');
    expect(await page.locator('[data-testid="session-row"][data-selected="true"] [data-testid="session-imported"]').textContent()).toBe('team: alice');
    expect(await byTestId('composer-input').isDisabled()).toBe(true);
    await page.locator('[data-testid="timeline-row"]').filter({ hasText: 'why does the flaky parser test fail on Windows 3' }).first().waitFor();
    await app.screenshot('team-05-opened-read-only-1000');
  });

  it('opens another team session read-only from its row (one local copy, reused)', async () => {
    await tabTo(`[data-testid="team-session-open"][data-team-session-id="${CONFIG}"]`);
    await press('Enter');
    await page.locator('[data-testid="timeline-row"]').filter({ hasText: 'rename the config loader 2' }).first().waitFor({ timeout: 30_000 });
    expect(await byTestId('imported-banner').textContent()).toContain(`team:alice:${CONFIG}.jsonl`);
    const copies = app.runtime.repository.list().filter((r) => r.header.origin?.kind === 'imported');
    expect(copies.map((r) => r.header.origin?.kind === 'imported' && r.header.origin.file).sort()).toEqual([`team:alice:${FLAKY}.jsonl`, `team:alice:${CONFIG}.jsonl`]);
    await app.screenshot('team-06-row-opened-1000');
  });

  it('continues a team session in a local folder', async () => {
    const work = join(app.dir, 'bob-work');
    mkdirSync(work);
    await tabTo(`[data-testid="team-session-row"][data-team-session-id="${FLAKY}"] [data-testid="team-session-continue"]`);
    await press('Enter');
    await byTestId('folder-browser').waitFor();
    await tabTo('[data-testid="folder-path"]');
    await press('Control+a');
    await page.keyboard.type(work);
    await press('Enter');
    await page.waitForFunction(
      (p) => document.querySelector('[data-testid="folder-browser"] .dialog-buttons .mono')?.textContent === p && !document.querySelector('[data-testid="folder-list"][aria-busy="true"]'),
      work,
    );
    await press('Enter');
    await page.locator('[data-testid="toast"]').filter({ hasText: "Continued alice's session" }).waitFor({ timeout: 30_000 });
    const childId = (await page.locator('[data-testid="session-row"][data-selected="true"]').getAttribute('data-session-id'))!;
    const child = app.runtime.repository.get(childId)!;
    expect(child.header.cwd).toBe(realpathSync(work));
    expect(child.header.origin?.kind ?? 'native').toBe('native');
    const copy = app.runtime.repository.get(child.header.parentSession!)!;
    expect(copy.header.origin).toMatchObject({ kind: 'imported', format: 'forkline', file: `team:alice:${FLAKY}.jsonl` });
    // The copy opened before was current, so it was reused: still one copy per team session.
    expect(app.runtime.repository.list().filter((r) => r.header.origin?.kind === 'imported').length).toBe(2);
    // A live session: the composer is on.
    await waitForFocus(page, 'composer-input');
    expect(await byTestId('composer-input').isDisabled()).toBe(false);
    await app.screenshot('team-07-continued-1000');
  });

  it('a shared workspace publishes in the background: waiting while the server is down, published when it is back', async () => {
    const work = realpathSync(join(app.dir, 'bob-work'));
    cluster.stopServer();
    try {
      await tabTo('[data-testid="team-share-toggle"]');
      expect(await byTestId('team-share-toggle').getAttribute('data-workspace')).toBe(work);
      await press('Space');
      await page.locator('[data-testid="team-share-toggle"]:checked').waitFor();
      // A new session in the shared folder, one turn (the agent is not held up by the store being down).
      await press('Control+n');
      await byTestId('folder-browser').waitFor();
      await tabTo('[data-testid="folder-path"]');
      await press('Control+a');
      await page.keyboard.type(work);
      await press('Enter');
      await page.waitForFunction(
        (p) => document.querySelector('[data-testid="folder-browser"] .dialog-buttons .mono')?.textContent === p && !document.querySelector('[data-testid="folder-list"][aria-busy="true"]'),
        work,
      );
      await press('Enter');
      await waitForFocus(page, 'composer-input');
      app.llm.enqueue(textResponse('The parser fix is in.'));
      await page.keyboard.type('apply the parser fix');
      await press('Enter');
      await page.locator('[data-testid="turn-end"][data-turn="1"]').waitFor({ timeout: 30_000 });
      const sessionId = (await page.locator('[data-testid="session-row"][data-selected="true"]').getAttribute('data-session-id'))!;
      const waiting = byTestId('team-publish-pending');
      await waiting.waitFor({ timeout: 30_000 });
      expect(await waiting.textContent()).toBe('1 session waiting to publish');
      await page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"] [data-testid="session-publish-pending"]`).waitFor();
      await page.locator('[data-testid="team-publish-error"]').filter({ hasText: 'the team store is unreachable; retrying' }).waitFor({ timeout: 30_000 });
      expect(await layoutProblems(page)).toEqual([]);
      // The list scrolled to the focused share toggle; bring the session's row (and its marker) back into view.
      await page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"]`).scrollIntoViewIfNeeded();
      await app.screenshot('team-08-waiting-to-publish-1000');
    } finally {
      cluster.startServer();
    }
    try {
      await byTestId('team-publish-pending').waitFor({ state: 'detached', timeout: 45_000 });
    } catch (error) {
      throw new Error(`still waiting to publish; the publisher says ${JSON.stringify(app.runtime.host.options.team?.status().publisher)}`, { cause: error });
    }
    const sessionId = (await page.locator('[data-testid="session-row"][data-selected="true"]').getAttribute('data-session-id'))!;
    expect(await page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"] [data-testid="session-publish-pending"]`).count()).toBe(0);
    await app.screenshot('team-09-published-1000');
    // The server holds exactly the local log: counted and hashed on both sides.
    const db = await TeamDb.connect(team.bob);
    try {
      const server = await serverDigest(db, sessionId);
      const local = localDigest(join(app.dir, 'data'), sessionId);
      expect(server.contiguous).toBe(true);
      expect({ count: server.count, md5: server.md5 }).toEqual(local);
      expect(local.count).toBeGreaterThan(0);
    } finally {
      await db.close();
    }
  });

  it("the list follows without Refresh: bob's published session, then alice's new one, focus and rows kept", async () => {
    const bobSession = (await page.locator('[data-testid="session-row"][data-selected="true"]').getAttribute('data-session-id'))!;
    // Bob's session just finished publishing (the test before): the open list shows it without a click.
    await page.locator(`[data-testid="team-session-row"][data-team-session-id="${bobSession}"]`).waitFor({ timeout: 30_000 });
    expect(await page.locator(`[data-testid="team-session-row"][data-team-session-id="${bobSession}"] [data-testid="team-session-meta"]`).textContent()).toMatch(/^bob \(you\) · /);
    // Focus on alice's row; watch the section for rows taken out of the page or a loading state.
    await tabTo(`[data-testid="team-session-open"][data-team-session-id="${FLAKY}"]`);
    await page.evaluate((flaky) => {
      const w = window as unknown as { teamWatch: { removedRows: number; loading: number } };
      w.teamWatch = { removedRows: 0, loading: 0 };
      document.querySelector(`[data-testid="team-session-row"][data-team-session-id="${flaky}"]`)!.setAttribute('data-kept', 'yes');
      new MutationObserver((records) => {
        for (const r of records) {
          for (const n of r.removedNodes)
            if (n instanceof HTMLElement && (n.matches('[data-testid="team-session-row"], [data-testid="team-session-list"]') || n.querySelector('[data-testid="team-session-row"]')))
              w.teamWatch.removedRows++;
          for (const n of r.addedNodes) if (n.textContent?.includes("Loading the team's sessions")) w.teamWatch.loading++;
        }
      }).observe(document.querySelector('[data-testid="team-section"]')!, { childList: true, subtree: true });
    }, FLAKY);
    // Alice publishes a new session from her machine: the periodic refresh brings it in.
    await writeLocalSessions(aliceDir, [{ id: LATER, turns: 1, prompt: 'bump the lockfile', title: 'lockfile bump' }]);
    const store = new SqliteSessionStore(join(aliceDir, 'sessions.db'));
    const db = await TeamDb.connect(team.alice);
    try {
      await publishSession(db, store, LATER, { installation: installationId(aliceDir) });
    } finally {
      await db.close();
      store.close();
    }
    const later = page.locator(`[data-testid="team-session-row"][data-team-session-id="${LATER}"]`);
    await later.waitFor({ timeout: 45_000 });
    expect(await later.locator('.session-title').textContent()).toBe('lockfile bump');
    // The newest first; the row that had focus is the same element and still has it.
    expect(await byTestId('team-session-row').first().getAttribute('data-team-session-id')).toBe(LATER);
    expect(
      await page.evaluate(() => {
        const active = document.activeElement as HTMLElement | null;
        return active?.closest('[data-testid="team-session-row"]')?.getAttribute('data-kept') === 'yes' && active.matches('[data-testid="team-session-open"]');
      }),
    ).toBe(true);
    expect(await page.evaluate(() => (window as unknown as { teamWatch: unknown }).teamWatch)).toEqual({ removedRows: 0, loading: 0 });
    expect(await layoutProblems(page)).toEqual([]);
    await app.screenshot('team-10-list-followed-1000');
    // Enter still acts on the focused row: alice's session opens read-only.
    await press('Enter');
    await page.locator('[data-testid="timeline-row"]').filter({ hasText: 'why does the flaky parser test fail on Windows 3' }).first().waitFor({ timeout: 30_000 });
  });
});
