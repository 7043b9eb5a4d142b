/**
 * Issue 22: a branch with no steps has no cost — the compare view and the board say "no steps",
 * never "$0" (which reads as a free run); a branch whose model has no known price says "price
 * unknown". On the board it ranks last, and its column says why. In Chromium against browser mode (real host, SQLite, price book, the scripted model
 * server) at 1000×700.
 *
 * Sessions: S has one turn run before any price was set (its price is unknown; the turn is the
 * history S, F and G share, so on the board S too has no steps); F is a fork of S after that turn
 * with no turn of its own; G is another fork, continued once the scripted model
 * has a price ($2 per million input, $8 output): 1,000 input + 50 output = 2,000 + 400 µ$ = $0.002400.
 * Screenshots: test-results/cost-empty-branch-compare-1000.png, cost-empty-branch-board-1000.png.
 */
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostConnection } from '../../electron/host/host-connection.js';
import { textResponse, usage } from '../support/scripted-llm/index.js';
import { startConnectedApp, type E2eApp } from './support/e2e-harness.js';
import { unfoldSidebarForRoom } from './support/layout-checks.js';

let app: E2eApp;
let byTestId: (id: string) => Locator;
let connection: HostConnection;
let s = '';
let f = '';
let g = '';

async function turn(sessionId: string, text: string): Promise<void> {
  connection.followup({ sessionId, text });
  await app.runtime.host.agentFor(sessionId)!.whenIdle();
}

beforeAll(async () => {
  ({ app, byTestId } = await startConnectedApp({ approvalPolicy: 'allow', viewport: { width: 1000, height: 700 } }));
  app.llm.setHandler(() => textResponse('noted', { usage: usage(1000, 50) }));
  connection = app.runtime.host.connect(() => undefined);
  s = (await connection.createSession({ cwd: app.workspace })).id;
  await turn(s, 'Write down a plan');
  f = (await connection.forkSession({ sessionId: s })).id;
  g = (await connection.forkSession({ sessionId: s })).id;
  app.runtime.host.options.settings.update({ prices: [{ baseUrl: app.llm.baseUrl, model: 'scripted-model', inputMtok: 2, outputMtok: 8 }] });
  await turn(g, 'Now carry it out');
}, 60_000);
afterAll(async () => {
  connection?.dispose();
  await app?.close();
});

const page = () => app.page;
const figure = async (key: string, side: 'a' | 'b'): Promise<string> =>
  (await page().locator(`[data-testid="compare-figure"][data-figure="${key}"] [data-testid="compare-figure-${side}"]`).textContent()) ?? '';
const branchNode = (id: string): Locator => page().locator(`[data-testid="branch-node"][data-session-id="${id}"]`);
/**
 * Opens a session from its sidebar row (its title: at 1000 px the row's hover actions cover its
 * middle). Below 1200 px an open side panel (the branch picker) folds the sidebar to its rail
 * (sidebar-fold.e2e): unfold it first, as a user would.
 */
async function open(id: string): Promise<void> {
  await unfoldSidebarForRoom(page());
  await page().locator(`[data-testid="session-row"][data-session-id="${id}"]`).getByTestId('session-title').click();
  await page().locator(`[data-testid="session-row"][data-session-id="${id}"][data-selected="true"]`).waitFor();
  await byTestId('session-view').waitFor();
}
const column = (id: string): Locator => page().locator(`[data-testid="board-column"][data-session-id="${id}"]`);

describe('a branch with no steps shows no cost, not $0', () => {
  it('compare view: "no steps" for the empty fork, the cost of the continued one', async () => {
    await open(g);
    await byTestId('branches-toggle').click();
    await branchNode(f).getByTestId('branch-compare-button').click();
    await page().locator(`[data-testid="compare-view"][data-a="${g}"][data-b="${f}"][data-state="ready"]`).waitFor({ timeout: 30_000 });
    expect([await figure('turns', 'a'), await figure('turns', 'b')]).toEqual(['1', '0']);
    expect(await figure('cost', 'a')).toBe('$0.002400');
    expect(await figure('cost', 'b')).toBe('no steps');
    await byTestId('compare-figures').scrollIntoViewIfNeeded();
    await app.screenshot('cost-empty-branch-compare-1000');

    // S against its empty fork: neither went on after the fork point (S's turn 1 is their common history).
    await byTestId('compare-close').click();
    await byTestId('session-view').waitFor();
    await open(s);
    if ((await byTestId('branch-picker').count()) === 0) await byTestId('branches-toggle').click();
    await branchNode(f).getByTestId('branch-compare-button').click();
    await page().locator(`[data-testid="compare-view"][data-a="${s}"][data-b="${f}"][data-state="ready"]`).waitFor({ timeout: 30_000 });
    expect(await figure('cost', 'a')).toBe('no steps');
    expect(await figure('cost', 'b')).toBe('no steps');
  });

  it('board: the empty fork\'s cost column says "no steps"; the others their cost or "price unknown"', async () => {
    await byTestId('compare-close').click();
    await byTestId('session-view').waitFor();
    if ((await byTestId('branch-picker').count()) === 0) await byTestId('branches-toggle').click();
    for (const id of [s, f, g]) await branchNode(id).getByTestId('branch-node-check').check();
    await byTestId('branch-compare-selected').click();
    for (const id of [s, f, g]) await column(id).locator('[data-testid="board-rank"]', { hasText: /#\d/ }).waitFor({ timeout: 30_000 });
    await column(f).getByTestId('board-cost').scrollIntoViewIfNeeded();
    expect(await column(f).getByTestId('board-cost').textContent()).toBe('no steps');
    expect(await column(f).getByTestId('board-cost').getAttribute('title')).toContain('no steps');
    expect(await column(g).getByTestId('board-cost').textContent()).toBe('$0.002400');
    // S's turn is the history the three share (as in the compare view above): S did nothing after the fork point either.
    expect(await column(s).getByTestId('board-cost').textContent()).toBe('no steps');
    expect(await column(s).getByTestId('board-tokens').textContent()).toBe('0');
    expect(await page().getByTestId('board-cost').allTextContents()).not.toContain('$0');
    // The empty ones rank last, not first (an empty diff and nothing billed would otherwise put them ahead), and their columns say why.
    expect(await column(g).getAttribute('data-rank')).toBe('1');
    for (const id of [s, f]) {
      expect(await column(id).getAttribute('data-rank')).toMatch(/^[23]$/);
      expect(await column(id).getByTestId('board-reasons').textContent()).toContain('no steps since its fork point: ranked below every branch with steps');
    }
    // Reasons name the other branches as the board does (#rank label), not by session id; once done, the columns stand in rank order.
    const best = (await column(g).getByTestId('board-reasons').textContent()) ?? '';
    expect(best).toMatch(/ranked above #2 .+: #2 .+ has no steps/);
    expect(best).not.toContain(f.slice(0, 8));
    expect(
      await page()
        .locator('[data-testid="board-column"]')
        .evaluateAll((cols) => cols.map((c) => c.getAttribute('data-rank'))),
    ).toEqual(['1', '2', '3']);
    // Each column says which session it is; the one the others were forked from offers no Discard.
    expect(await column(s).getByTestId('board-branch-root').textContent()).toBe('(the session forked from)');
    expect(await column(s).getByTestId('board-branch-id').textContent()).toBe(`· ${s.slice(0, 8)}`);
    expect(await column(f).getByTestId('board-branch-root').count()).toBe(0);
    expect(await column(s).getByTestId('board-discard').count()).toBe(0);
    expect(await column(f).getByTestId('board-discard').count()).toBe(1);
    // The board alone (the branch panel closed) for the screenshot.
    await byTestId('branch-picker-close').click();
    await byTestId('branch-picker').waitFor({ state: 'detached' });
    await column(f).getByTestId('board-cost').scrollIntoViewIfNeeded();
    await app.screenshot('cost-empty-branch-board-1000');
  });
});
