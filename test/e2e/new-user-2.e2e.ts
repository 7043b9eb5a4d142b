/**
 * A new user's first hour, part 2 (issue 25, items 6–9), end to end in Chromium against browser
 * mode (the real host, store, agents and MCP server processes; the real `openai` client against the
 * scripted model server), each case at 1000×700 and 1440×900 and each on its own app:
 * - Settings → MCP servers shows one row per server however many workspaces run it, and a server
 *   that cannot start says why in words (a deleted workspace, a command that is not installed)
 *   instead of `spawn node ENOENT`;
 * - find (Ctrl+F) opens a folded row that holds the match, scrolls to the text and marks it; a
 *   search hit from the sidebar does the same;
 * - the debugger on an imported session: the Request link says plainly that the source log recorded
 *   no wire request (and shows what the model was given); the Diff tab compares a step with the
 *   previous step (not a compaction summary) and says which; the Response tab shows the answer; the
 *   session header shows how much of the model's context window the session uses;
 * - at 1000 px with the outline and the events panel open, "↓ latest" covers nothing and works from
 *   the keyboard, "show in timeline" is whole and works; the compare view takes focus when it opens
 *   and hands it back when it closes.
 * Screenshots: test-results/new-user-2-*.png.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_LOGS } from '../support/import-fixtures.js';
import { textResponse, toolCallResponse, usage } from '../support/scripted-llm/index.js';
import { ROOT, startConnectedApp, type E2eApp, type E2eOptions } from './support/e2e-harness.js';
import { focused, waitForFocus } from './support/keyboard-focus.js';
import { layoutProblems } from './support/layout-checks.js';

const SIZES = [
  { width: 1000, height: 700 },
  { width: 1440, height: 900 },
] as const;

const MCP_SERVER = join(ROOT, 'test/support/mcp/test-mcp-server.mjs');

let app: E2eApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function start(size: { width: number; height: number }, options: E2eOptions = {}): Promise<{ app: E2eApp; page: Page; byTestId: (id: string) => Locator }> {
  const started = await startConnectedApp({ viewport: size, ...options });
  app = started.app;
  return started;
}

/** Opens a session from the list (after a reload, so the list holds sessions made through the host). */
async function openFromList(page: Page, id: string): Promise<void> {
  await page.reload();
  await page.locator(`[data-testid="session-row"][data-session-id="${id}"] [data-testid="session-open"]`).click();
  await page.getByTestId('session-view').waitFor();
  await page.locator('[data-testid="timeline-row"]').first().waitFor();
}

describe.each(SIZES)('MCP servers at $width×$height', (size) => {
  const tag = `${size.width}x${size.height}`;

  it('one row per server however many workspaces run it; a deleted workspace and a missing command say what is wrong', async () => {
    const { app: a, page, byTestId } = await start(size, { approvalPolicy: 'allow' });
    const conn = a.runtime.host.connect(() => undefined);
    const servers = (tools: string) => ({
      calc: { command: process.execPath, args: [MCP_SERVER, '--tools', tools] },
      missing: { command: 'no-such-mcp-server-command' },
    });
    await conn.updateSettings({ mcpServers: servers('add') });
    // Three workspaces with a live session each: each runs its own server processes.
    const folders = ['alpha', 'beta', 'gamma'].map((name) => join(a.dir, name));
    for (const folder of folders) {
      mkdirSync(folder);
      a.runtime.host.ensureAgent(conn.createSession({ cwd: folder }).id);
    }
    const calc = page.locator('[data-testid="mcp-server"][data-name="calc"]');
    await page.keyboard.press('Control+,');
    await byTestId('mcp-section').waitFor();
    await calc.and(page.locator('[data-state="ready"]')).waitFor({ timeout: 20_000 });
    expect(await calc.count()).toBe(1);
    expect(await calc.getAttribute('data-places')).toBe('3');
    expect(await page.locator('[data-testid="mcp-server"][data-name="missing"]').count()).toBe(1);
    const missing = page.locator('[data-testid="mcp-server"][data-name="missing"]');
    await missing.and(page.locator('[data-state="failed"]')).waitFor({ timeout: 20_000 });
    // The same error in every workspace is said once, and names the command, not "ENOENT".
    const missingErrors = await missing.getByTestId('mcp-server-error').allTextContents();
    expect(missingErrors).toHaveLength(1);
    expect(missingErrors[0]).toContain('the command "no-such-mcp-server-command" on the PATH was not found; install it');
    expect(missingErrors[0]).not.toContain('ENOENT');

    // A workspace is deleted, then the server's configuration changes (it restarts everywhere).
    rmSync(folders[2]!, { recursive: true, force: true });
    await conn.updateSettings({ mcpServers: servers('add,note') });
    await calc.locator('[data-testid="mcp-server-counts"]').filter({ hasText: 'failed in 1' }).waitFor({ timeout: 20_000 });
    await calc.locator('[data-testid="mcp-server-counts"]').filter({ hasText: 'ready in 2' }).waitFor({ timeout: 20_000 });
    expect(await calc.count()).toBe(1);
    const calcErrors = await calc.getByTestId('mcp-server-error').allTextContents();
    expect(calcErrors).toEqual([`not started: the workspace folder ${folders[2]} no longer exists (it was moved or deleted); sessions there cannot use this server`]);
    expect(calcErrors.join('\n')).not.toMatch(/spawn|ENOENT/);
    // Keyboard only: the workspaces list opens from its toggle.
    await calc.getByTestId('mcp-server-places-toggle').focus();
    await page.keyboard.press('Enter');
    const places = calc.getByTestId('mcp-server-place');
    await places.first().waitFor();
    expect(await places.evaluateAll((els) => els.map((e) => e.getAttribute('data-state')).sort())).toEqual(['failed', 'ready', 'ready']);
    await calc.scrollIntoViewIfNeeded();
    await a.screenshot(`new-user-2-${tag}-mcp-rows`);
    expect(await layoutProblems(page)).toEqual([]);
    conn.dispose();
  }, 60_000);
});

/** A session of `turns` completed turns, each with a long answer, made through the host. */
async function longSession(a: E2eApp, turns: number): Promise<string> {
  const conn = a.runtime.host.connect(() => undefined);
  const id = conn.createSession({ cwd: a.workspace, title: 'Long session' }).id;
  for (let t = 1; t <= turns; t++) {
    a.llm.enqueue(textResponse(`Answer ${t}. ${'The loader reads its defaults, then the environment. '.repeat(6)}`));
    conn.followup({ sessionId: id, text: `Question ${t}: how does the loader work?` });
    await a.runtime.host.agentFor(id)!.whenIdle();
  }
  conn.dispose();
  return id;
}

describe.each(SIZES)('layout at $width×$height', (size) => {
  const tag = `${size.width}x${size.height}`;

  it('with the outline and the events panel open, "↓ latest" covers nothing and "show in timeline" is whole; both work from the keyboard', async () => {
    const { app: a, page, byTestId } = await start(size);
    const id = await longSession(a, 8);
    await openFromList(page, id);
    await page.locator('[data-testid="turn-end"][data-turn="8"]').waitFor();
    // The whole session loaded (it opens at its tail; the earlier events follow): else Home would go
    // to the first loaded row, which at 1440×900 is already in view, and nothing would scroll.
    await page.locator('[data-testid="timeline"][data-start-seq="0"]').waitFor();
    await byTestId('outline-button').focus();
    await page.keyboard.press('Enter');
    await byTestId('turn-outline').waitFor();
    // Scrolled up (keyboard: Home in the timeline): "↓ latest" shows.
    await page.locator('[data-testid="timeline-row"][data-kind="turn-end"]').last().focus();
    await page.keyboard.press('Home');
    await byTestId('follow-tail-button').waitFor();
    // The events panel, from the keyboard: the first answer's row, Enter (its events have long type labels).
    const answer = page.locator('[data-testid="timeline-row"][data-kind="text"]').first();
    await answer.focus();
    await page.keyboard.press('Enter');
    await byTestId('raw-inspector').waitFor();
    await page.locator('[data-testid="raw-event"][data-type="assistant/message"]').waitFor();
    await a.screenshot(`new-user-2-${tag}-latest-and-events`);
    expect(await layoutProblems(page)).toEqual([]);
    // "↓ latest" covers no part of the timeline (its rows hold links).
    const covers = await byTestId('follow-tail-button').evaluate((el) => {
      const b = el.getBoundingClientRect();
      const t = document.querySelector('[data-testid="timeline"]')!.getBoundingClientRect();
      return Math.max(0, Math.min(b.right, t.right) - Math.max(b.left, t.left)) * Math.max(0, Math.min(b.bottom, t.bottom) - Math.max(b.top, t.top));
    });
    expect(covers).toBe(0);
    // Every "show in timeline" is whole and inside its card.
    const cut = await page.locator('[data-testid="raw-event"]').evaluateAll((cards) =>
      cards
        .map((card) => {
          const link = card.querySelector('[data-testid="raw-event-show-in-timeline"]')!.getBoundingClientRect();
          const box = card.getBoundingClientRect();
          return link.left >= box.left && link.right <= box.right + 0.5 ? undefined : card.getAttribute('data-type');
        })
        .filter((x) => x !== undefined),
    );
    expect(cut).toEqual([]);
    // It works from the keyboard: the timeline scrolls to the event's row and selects it.
    const show = page.locator('[data-testid="raw-event"][data-type="assistant/message"]').getByTestId('raw-event-show-in-timeline');
    await show.focus();
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="timeline-row"][data-kind="text"].selected').waitFor();
    // "↓ latest" is in the Tab order and brings the newest row back.
    await byTestId('follow-tail-button').focus();
    expect((await focused(page)).testId).toBe('follow-tail-button');
    await page.keyboard.press('Enter');
    await byTestId('follow-tail-button').waitFor({ state: 'detached' });
    await page.waitForFunction(() => {
      const el = document.querySelector('[data-testid="timeline"]')!;
      return el.scrollHeight - el.scrollTop - el.clientHeight <= 40;
    });
    // The button went away: the newest row took focus (not the page).
    // (The timeline holds focus until that row is rendered at the bottom: wait for the row itself.)
    await page.waitForFunction(() => document.activeElement?.closest('[data-testid="timeline-row"]') !== null, undefined, { timeout: 15_000 });
    expect(await focused(page)).toMatchObject({ testId: 'timeline-row', kind: 'turn-end' });
  }, 60_000);
});

describe.each(SIZES)('compare focus at $width×$height', (size) => {
  const tag = `${size.width}x${size.height}`;

  it('"compare" in the branches panel moves focus into the compare view, and closing it hands focus to the session', async () => {
    const { app: a, page, byTestId } = await start(size);
    const conn = a.runtime.host.connect(() => undefined);
    const parent = conn.createSession({ cwd: a.workspace, title: 'Parent' }).id;
    a.llm.enqueue(textResponse('An empty folder.'));
    conn.followup({ sessionId: parent, text: 'What is here?' });
    await a.runtime.host.agentFor(parent)!.whenIdle();
    const child = (await conn.forkSession({ sessionId: parent })).id;
    a.llm.enqueue(textResponse('Still empty.'));
    conn.followup({ sessionId: child, text: 'And now?' });
    await a.runtime.host.agentFor(child)!.whenIdle();
    conn.dispose();
    await openFromList(page, child);
    await byTestId('branches-toggle').focus();
    await page.keyboard.press('Enter');
    const compare = page.locator('[data-testid="branch-compare-button"]').first();
    await compare.waitFor();
    await compare.focus();
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="compare-view"][data-state="ready"]').waitFor({ timeout: 15_000 });
    await page.waitForFunction(() => document.activeElement?.closest('[data-region="compare"]') !== null, undefined, { timeout: 5_000 });
    await a.screenshot(`new-user-2-${tag}-compare-focus`);
    expect(await layoutProblems(page)).toEqual([]);
    // Closed with its own button: the open session's composer takes focus, not the page.
    await byTestId('compare-close').focus();
    await page.keyboard.press('Enter');
    await byTestId('compare-view').waitFor({ state: 'detached' });
    await waitForFocus(page, 'composer-input');
  });
});

/** The text of the current find mark and whether it is inside the timeline's and its own scroller's visible boxes. */
function markState(page: Page): Promise<{ text: string; inTimeline: boolean; inScroller: boolean; inRow: string | undefined } | undefined> {
  return page.evaluate(() => {
    const mark = CSS.highlights.get('forkline-find-current');
    const range = mark ? ([...mark][0] as Range | undefined) : undefined;
    if (!range || !range.startContainer.isConnected) return undefined;
    const r = range.getBoundingClientRect();
    const inside = (el: Element | null | undefined): boolean => {
      if (!el) return true;
      const b = el.getBoundingClientRect();
      return r.height > 0 && r.top >= b.top - 1 && r.bottom <= b.bottom + 1 && r.left >= b.left - 1 && r.right <= b.right + 1;
    };
    const scroller = range.startContainer.parentElement?.closest('pre');
    return {
      text: range.toString(),
      inTimeline: inside(document.querySelector('[data-testid="timeline"]')),
      inScroller: inside(scroller),
      inRow: range.startContainer.parentElement?.closest<HTMLElement>('[data-testid="timeline-row"]')?.dataset['kind'],
    };
  });
}

/** A session whose one tool call printed ~300 lines, the word `needle` among them (not in the command). */
async function sessionWithLongOutput(a: E2eApp, needle: string): Promise<string> {
  const conn = a.runtime.host.connect(() => undefined);
  const id = conn.createSession({ cwd: a.workspace, title: 'Long output' }).id;
  const half = Math.floor(needle.length / 2);
  // The command spells the word in two halves, so only the output holds it whole.
  const command = `for i in $(seq 1 240); do echo "line $i of the build log"; done; printf '%s%s\\n' '${needle.slice(0, half)}' '${needle.slice(half)}'; for i in $(seq 241 300); do echo "line $i"; done`;
  a.llm.enqueue(toolCallResponse([{ id: 'b-1', name: 'bash', arguments: JSON.stringify({ command }) }]), textResponse('The build log has 300 lines.'));
  conn.followup({ sessionId: id, text: 'Show me the build log.' });
  await a.runtime.host.agentFor(id)!.whenIdle();
  conn.dispose();
  return id;
}

describe.each(SIZES)('find at $width×$height', (size) => {
  const tag = `${size.width}x${size.height}`;
  const needle = 'zebraquokka';

  it('Ctrl+F opens the folded tool row that holds the match, scrolls to the text in its output and marks it', async () => {
    const { app: a, page, byTestId } = await start(size, { approvalPolicy: 'allow' });
    const id = await sessionWithLongOutput(a, needle);
    await openFromList(page, id);
    await page.locator('[data-testid="turn-end"][data-turn="1"]').waitFor();
    const tool = page.locator('[data-testid="tool-row"][data-tool-name="bash"]');
    expect(await tool.getByTestId('tool-body').count()).toBe(0);
    await page.keyboard.press('Control+f');
    await waitForFocus(page, 'find-input');
    await page.keyboard.type(needle);
    await tool.getByTestId('tool-body').waitFor();
    await expect.poll(() => markState(page), { timeout: 5_000 }).toEqual({ text: needle, inTimeline: true, inScroller: true, inRow: 'tool' });
    expect(await byTestId('find-count').textContent()).toBe('1 of 1');
    await a.screenshot(`new-user-2-${tag}-find-marked`);
    expect(await layoutProblems(page)).toEqual([]);
    // Esc closes find: the mark goes, focus goes back to the timeline.
    await page.keyboard.press('Escape');
    await byTestId('find-bar').waitFor({ state: 'detached' });
    expect(await markState(page)).toBeUndefined();
    await page.waitForFunction(() => document.activeElement?.closest('[data-testid="timeline"]') !== null);
  });

  it('a search hit in the sidebar opens its session at the folded tool output, scrolled to the term and marked', async () => {
    const { app: a, page, byTestId } = await start(size, { approvalPolicy: 'allow' });
    await sessionWithLongOutput(a, needle);
    await page.reload();
    await byTestId('sidebar-search').focus();
    await page.keyboard.type(needle);
    const hit = page.locator('[data-testid="search-hit"]').first();
    await hit.waitFor({ timeout: 10_000 });
    expect(await hit.getByTestId('search-hit-kind').textContent()).toBe('tool output');
    await hit.focus();
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="tool-row"][data-tool-name="bash"] [data-testid="tool-body"]').waitFor({ timeout: 10_000 });
    await expect.poll(() => markState(page), { timeout: 5_000 }).toEqual({ text: needle, inTimeline: true, inScroller: true, inRow: 'tool' });
    await a.screenshot(`new-user-2-${tag}-search-hit-marked`);
  });
});

/** Presses Enter on a request inspector tab, keyboard only. */
async function openTab(page: Page, tab: 'request' | 'messages' | 'response' | 'diff'): Promise<void> {
  await page.getByTestId(`request-tab-${tab}`).focus();
  await page.keyboard.press('Enter');
  await page.locator(`[data-testid="request-tab-${tab}"][aria-selected="true"]`).waitFor();
}

/** Opens the request inspector of step `turn.step` from its "Request" link, keyboard only. */
async function openRequest(page: Page, turn: number, step: number): Promise<void> {
  const link = page.locator(`[data-testid="step-marker"][data-turn="${turn}"][data-step="${step}"] [data-testid="request-button"]`);
  await link.focus();
  await page.keyboard.press('Enter');
  await page.locator('[data-testid="request-label"]', { hasText: new RegExp(`^step ${turn}\\.${step}$`) }).waitFor();
  await page.locator('[data-testid="request-inspector"] [data-testid="request-loading"]').waitFor({ state: 'detached' });
}

describe.each(SIZES)('debugger at $width×$height', (size) => {
  const tag = `${size.width}x${size.height}`;

  it('an imported step: "Request" says the source log recorded no wire request, Messages shows what the model had, Response shows its answer', async () => {
    const { app: a, page, byTestId } = await start(size);
    const conn = a.runtime.host.connect(() => undefined);
    const { sessionId } = conn.importSession({ jsonl: readFileSync(join(AGENT_LOGS, 'claude-code', 'cc_hello-world-script.jsonl'), 'utf8'), fileName: 'hello.jsonl' });
    conn.dispose();
    await openFromList(page, sessionId);
    await openRequest(page, 1, 3);
    expect(await byTestId('request-error').count()).toBe(0);
    const note = await byTestId('request-not-recorded').textContent();
    expect(note).toContain('No wire request was recorded for this step.');
    expect(note).toContain('source log recorded the conversation and the answers but not the requests');
    expect(await page.locator('[data-testid="request-inspector"]').textContent()).not.toContain('STEP_NOT_FOUND');
    await a.screenshot(`new-user-2-${tag}-imported-request`);
    expect(await layoutProblems(page)).toEqual([]);
    await openTab(page, 'messages');
    expect(await page.locator('[data-testid="request-messages"] [data-testid="message-card"]').count()).toBeGreaterThanOrEqual(5);
    await openTab(page, 'response');
    expect(await byTestId('response-answer-text').textContent()).toContain('Done. I created `hello.sh`');
    await a.screenshot(`new-user-2-${tag}-imported-response`);
    expect(await layoutProblems(page)).toEqual([]);
    await openTab(page, 'diff');
    expect(await byTestId('request-diff-none').textContent()).toContain('The source log recorded no requests');
    // A step that called tools shows the calls as its answer.
    await openRequest(page, 1, 1);
    await openTab(page, 'response');
    expect(await byTestId('response-answer-tools').textContent()).toContain('Write');
  });

  it('Diff compares a step with the previous step (not the compaction summary) and says which; Response shows the answer; the header shows the session context', async () => {
    const { app: a, page, byTestId } = await start(size, { approvalPolicy: 'allow' });
    a.runtime.settings.update({ modelLimits: { baseUrl: a.llm.baseUrl, model: 'scripted-model', contextWindow: 32_000 } });
    const conn = a.runtime.host.connect(() => undefined);
    const id = conn.createSession({ cwd: a.workspace, title: 'Diff basis' }).id;
    const turn = async (text: string): Promise<void> => {
      conn.followup({ sessionId: id, text });
      await a.runtime.host.agentFor(id)!.whenIdle();
    };
    a.llm.enqueue(
      toolCallResponse([{ id: 'l-1', name: 'bash', arguments: JSON.stringify({ command: 'ls' }) }], { usage: usage(5_200, 30) }),
      textResponse(`The folder is empty. ${'Nothing is in it, not even hidden files. '.repeat(300)}`, { usage: usage(7_400, 20) }),
    );
    await turn('What is in the folder?');
    a.llm.enqueue(textResponse(`Nothing yet, so nothing to read. ${'There is no file to open. '.repeat(300)}`, { usage: usage(9_500, 25) }));
    await turn('Anything to read?');
    a.llm.enqueue(textResponse('## Primary Request and Intent\n- look at the empty folder\n\n## Next Step\n- create a file'));
    expect((await conn.compactSession({ sessionId: id })).compacted).toBe(true);
    a.llm.enqueue(
      toolCallResponse([{ id: 'l-2', name: 'bash', arguments: JSON.stringify({ command: 'touch notes.txt' }) }], { usage: usage(5_000, 30) }),
      textResponse('Created notes.txt for your notes.', { usage: usage(5_400, 40) }),
    );
    await turn('Create notes.txt.');
    conn.dispose();
    await openFromList(page, id);
    await page.locator('[data-testid="turn-end"][data-turn="3"]').waitFor();
    // The session header: the last step's prompt and answer against the model's window (known once
    // the events before the tail, where the window was logged, have arrived).
    await expect.poll(() => byTestId('session-context').textContent(), { timeout: 10_000 }).toBe('context 5.44k of 32k · 17%');
    await openRequest(page, 3, 2);
    await openTab(page, 'diff');
    expect(await byTestId('diff-previous').textContent()).toBe('step 3.1');
    expect(await byTestId('diff-basis').textContent()).toBe('Compared with the previous step of this turn (step 3.1).');
    await openTab(page, 'response');
    expect(await byTestId('response-answer-text').textContent()).toBe('Created notes.txt for your notes.');
    await a.screenshot(`new-user-2-${tag}-response-answer`);
    expect(await layoutProblems(page)).toEqual([]);
    // The turn's first step: the last step before it, with the compaction in between named and skipped.
    await openRequest(page, 3, 1);
    await openTab(page, 'diff');
    expect(await byTestId('diff-previous').textContent()).toBe('step 2.1');
    expect(await byTestId('diff-basis').textContent()).toMatch(
      /^Compared with the last step of turn 2 \(step 2\.1\), as this is the turn's first step; the compaction summary.* in between is a side request and is not compared\.$/,
    );
    expect(await byTestId('diff-prefix').getAttribute('data-held')).toBe('false');
    await a.screenshot(`new-user-2-${tag}-diff-basis`);
    expect(await layoutProblems(page)).toEqual([]);
  }, 60_000);
});
