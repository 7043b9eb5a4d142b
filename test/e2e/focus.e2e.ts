/**
 * Where keyboard focus lands after an action removes, disables or replaces the control that ran it,
 * at 1000×700 and with the keyboard only (locators wait and read; `focus()` puts focus on a control
 * as Tab would): it never falls to the page body, so the next Tab goes on from a sensible place —
 * "Connect and test" / "Use this provider" on the setup card, Enter on a session in the list (the
 * composer; the timeline of a read-only session), "Continue in Forkline" (the fork's composer), the
 * compare view opening and closing. F6 / Shift+F6 reach the compare view, and a step header keeps
 * its "Request" link on its line. Controls that hide or disable themselves hand focus on: "show
 * all" of a long message (the whole text), "show more" in the raw inspector (the first event it
 * adds), the outline's "load the earlier turns" (the first turn), the find bar's "search all earlier
 * events" (the find input), the Settings busy buttons (List models, Test connection: the button again;
 * Save key: the key status line) and an MCP server's Trust (its row or its tools).
 * Screenshots: test-results/focus-*.png.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session } from '../../electron/session/session.js';
import { AGENT_LOGS } from '../support/import-fixtures.js';
import { textResponse, toolCallResponse, usage } from '../support/scripted-llm/index.js';
import { ROOT, startE2eApp, type E2eApp } from './support/e2e-harness.js';
import { focused, runCommand, waitForFocus } from './support/keyboard-focus.js';

const SHOTS = process.env['FOCUS_SHOTS'];

let app: E2eApp;
let page: Page;
let olderId: string;
let importedId: string;
let childId: string;
let longId: string;

/** A prompt long enough to be folded in a message card (over 1,500 characters). */
const LONG_PROMPT = Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of a long request about the loader and its defaults.`).join('\n');
/** Events in each stored session that opens at its tail (the app loads its last 3,000 at first). */
const TAIL_EVENTS = 8_000;

/** A stored session of `target` events (turns of a prompt, 60 reasoning chunks and an answer), written straight to the store. */
function storedSession(id: string, title: string, target: number): void {
  let t = 1_790_000_000_000;
  const s = new Session({ header: { version: 0, id, createdAt: t, cwd: app.workspace, title }, now: () => (t += 2) });
  for (let turn = 1; s.length < target - 3; turn++) {
    s.append({ type: 'turn/start', data: { turn } });
    s.append({ type: 'step/start', data: { turn, step: 1 } });
    s.append({
      type: 'user/message',
      data: { id: `u${turn}`, role: 'user', content: [{ type: 'text', text: `question ${turn}: how does module ${turn} work?` }], source: { kind: 'user' } },
      surfaceOp: 'append',
    });
    s.append({ type: 'assistant/chunk', data: { turn, step: 1, chunk: { type: 'block-start', index: 0, blockType: 'reasoning' } } });
    for (let i = 0; i < 60; i++) s.append({ type: 'assistant/chunk', data: { turn, step: 1, chunk: { type: 'reasoning-delta', index: 0, text: `part ${i}, ` } } });
    s.append({ type: 'assistant/chunk', data: { turn, step: 1, chunk: { type: 'finish', reason: { kind: 'stop' } } } });
    const message = {
      id: `a${turn}`,
      role: 'assistant',
      content: [{ type: 'text', text: `Module ${turn} writes a report.` }],
      source: { kind: 'model', provider: 'deepseek', model: 'deepseek-v4-flash' },
    } as const;
    s.append({ type: 'assistant/message', data: { turn, step: 1, message }, surfaceOp: 'append' });
    s.append({ type: 'step/end', data: { turn, step: 1 } });
    s.append({ type: 'turn/end', data: { turn, reason: { kind: 'completed' } } });
  }
  app.runtime.store.createSession(s.header, s.events);
}

/** What holds focus, as a CSS-ish path of test ids (for messages when an assertion fails). */
function activeInfo(): Promise<{ testId: string; inside: string[]; text: string }> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    const inside: string[] = [];
    for (let p = el?.parentElement; p; p = p.parentElement) if (p.dataset['testid']) inside.push(p.dataset['testid']);
    return { testId: el === document.body ? 'body' : (el?.dataset['testid'] ?? el?.tagName.toLowerCase() ?? 'none'), inside, text: (el?.textContent ?? '').slice(0, 80) };
  });
}

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
  // A session whose prompt is folded in the request inspector's message cards.
  longId = conn.createSession({ cwd: app.workspace }).id;
  app.llm.enqueue(textResponse('Noted.'));
  conn.followup({ sessionId: longId, text: LONG_PROMPT });
  await app.runtime.host.agentFor(longId)!.whenIdle();
  conn.dispose();
  // Two sessions long enough to open at their tail, with earlier events to load.
  storedSession('tail-find', 'tail session for find', TAIL_EVENTS);
  storedSession('tail-outline', 'tail session for the outline', TAIL_EVENTS);
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
    // The card is gone; a line above the first prompt says the choice was saved and what it is.
    expect(await byTestId('start-model').textContent()).toMatch(/^✓ Saved — new turns use .+ · .+change$/);
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

  it('"Continue in Forkline" (from the command palette) gives focus to the new fork\'s composer', async () => {
    // The palette reaches it in a few keys (Tab reaches the banner's button only after every sidebar row's buttons).
    await runCommand(page, 'continue');
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
    // Its toast (and the import summary's) are still up: a modal dialog opened now is on top of them.
    await runCommand(page, 'settings');
    await byTestId('settings-dialog').waitFor();
    const covered = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('[data-testid="toast"]')].map((toast) => {
        const r = toast.getBoundingClientRect();
        return toast.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2));
      }),
    );
    expect(covered.length).toBeGreaterThan(0);
    expect(covered).not.toContain(true);
    await press('Escape');
    await byTestId('settings-dialog').waitFor({ state: 'detached' });
    await waitForFocus(page, 'composer-input', 5_000);
  });

  it('text typed in the message box stays with its session while others are opened (an import opens one by itself)', async () => {
    await byTestId('composer-input').focus();
    await page.keyboard.type('a draft for later');
    await openFromList(importedId);
    await byTestId('imported-banner').waitFor();
    await openFromList(olderId);
    await waitForFocus(page, 'composer-input', 5_000);
    expect(await byTestId('composer-input').inputValue()).toBe('');
    await openFromList(childId);
    await waitForFocus(page, 'composer-input', 5_000);
    expect(await byTestId('composer-input').inputValue()).toBe('a draft for later');
    // Sending would clear it; here it is cleared by hand, and stays cleared.
    await page.keyboard.press('Control+a');
    await page.keyboard.press('Delete');
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
    // Figures shorten with an ellipsis, but the context meter is never clipped (a cut "15.2k" reads "15.2").
    const meter = marker.getByTestId('context-meter');
    expect(await meter.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    // Closing the inspector from its own button: focus goes back to the timeline.
    await byTestId('request-inspector-close').focus();
    await press('Enter');
    await byTestId('request-inspector').waitFor({ state: 'detached' });
    await waitForFocus(page, 'timeline-row', 5_000);
  });

  it('"show all" on a long message hands focus to the whole text', async () => {
    await openFromList(longId);
    await waitForFocus(page, 'composer-input', 5_000);
    await page.locator('[data-testid="step-marker"][data-turn="1"][data-step="1"] [data-testid="request-button"]').focus();
    await press('Enter');
    await byTestId('request-inspector').waitFor();
    await byTestId('request-tab-messages').focus();
    await press('Enter');
    const card = page.locator('[data-testid="message-card"][data-source="user"]');
    await card.getByTestId('message-show-all').focus();
    await press('Enter');
    await card.getByTestId('message-show-all').waitFor({ state: 'detached' });
    await waitForFocus(page, 'message-text', 5_000);
    const info = await activeInfo();
    expect(info.inside).toContain('message-card');
    expect(await card.getByTestId('message-text').textContent()).toContain('Line 40 of a long request');
    expect((await focused(page)).ring).toBe(true);
    await app.screenshot('focus-04-message-show-all');
    await byTestId('request-inspector-close').focus();
    await press('Enter');
    await byTestId('request-inspector').waitFor({ state: 'detached' });
  });

  it('the find bar\'s "search all earlier events" keeps focus in the find input', async () => {
    await openFromList('tail-find');
    await byTestId('earlier-bar').waitFor();
    await press('Control+f');
    await waitForFocus(page, 'find-input', 5_000);
    await page.keyboard.type('question 1:');
    await byTestId('find-load-all').focus();
    await press('Enter');
    await byTestId('find-load-all').waitFor({ state: 'detached', timeout: 15_000 });
    await byTestId('earlier-bar').waitFor({ state: 'detached' });
    await waitForFocus(page, 'find-input', 5_000);
    await page.locator('[data-testid="find-count"]', { hasText: 'of' }).waitFor();
    await press('Escape');
    await byTestId('find-bar').waitFor({ state: 'detached' });
  });

  it('the outline\'s "load the earlier turns" hands focus to the first turn', async () => {
    await openFromList('tail-outline');
    await byTestId('earlier-bar').waitFor();
    await byTestId('outline-button').focus();
    await press('Enter');
    await byTestId('turn-outline').waitFor();
    const load = byTestId('outline-load-earlier');
    await load.focus();
    await press('Enter');
    await load.waitFor({ state: 'detached', timeout: 15_000 });
    try {
      await page.waitForFunction(() => document.activeElement?.closest('[data-testid="outline-item"]')?.getAttribute('data-turn') === '1', undefined, { timeout: 5_000 });
    } catch {
      throw new Error(`focus did not reach the first turn of the outline: ${JSON.stringify(await activeInfo())}`);
    }
    expect((await activeInfo()).text).toContain('question 1:');
    await app.screenshot('focus-05-outline-load-earlier');
    await byTestId('turn-outline-close').focus();
    await press('Enter');
    await byTestId('turn-outline').waitFor({ state: 'detached' });
    await waitForFocus(page, 'outline-button', 5_000);
  });

  it('"show more" in the raw inspector hands focus to the first event it adds', async () => {
    // The session of the last test, now loaded in full.
    await runCommand(page, 'go to the timeline');
    await waitForFocus(page, 'timeline-row', 5_000);
    await press('Enter');
    await byTestId('raw-inspector').waitFor();
    await byTestId('raw-scope-all').focus();
    await press('Enter');
    const more = byTestId('raw-inspector-more');
    await more.waitFor();
    const shown = await page.locator('[data-testid="raw-inspector"] [data-testid="event-list"] > *').count();
    expect(shown).toBeGreaterThan(0);
    await more.focus();
    await press('Enter');
    // Event #200 is the first of the next page (the loaded log starts at #0): its card, or the folded run holding it.
    try {
      await page.waitForFunction(
        () => {
          const el = document.activeElement;
          const card = el?.closest<HTMLElement>('[data-testid="raw-event"]');
          const run = el?.closest<HTMLElement>('[data-testid="raw-run"]');
          if (card && card.dataset['seq'] === '200') return true;
          return run !== null && run !== undefined && Number(run.dataset['first']) <= 200 && Number(run.dataset['last']) >= 200;
        },
        undefined,
        { timeout: 5_000 },
      );
    } catch {
      throw new Error(`focus did not reach event #200: ${JSON.stringify(await activeInfo())}`);
    }
    expect((await focused(page)).testId).not.toBe('body');
    await byTestId('raw-inspector-close').focus();
    await press('Enter');
    await byTestId('raw-inspector').waitFor({ state: 'detached' });
  });

  it('Settings: List models and Test connection take focus back when they are done; Save key hands it to the key status', async () => {
    await runCommand(page, 'settings');
    await byTestId('settings-dialog').waitFor();
    await byTestId('settings-base-url').waitFor();

    await byTestId('settings-list-models').focus();
    await press('Enter');
    await byTestId('settings-model-source').waitFor();
    await waitForFocus(page, 'settings-list-models', 5_000);

    app.llm.enqueue(textResponse('OK'));
    await byTestId('settings-test-connection').focus();
    await press('Enter');
    await page.locator('[data-testid="settings-test-result"][data-ok="true"]').waitFor({ timeout: 15_000 });
    await waitForFocus(page, 'settings-test-connection', 5_000);
    expect((await focused(page)).ring).toBe(true);

    await byTestId('settings-api-key').focus();
    await page.keyboard.type('sk-focus-test');
    await press('Tab');
    await waitForFocus(page, 'settings-api-key-save');
    await press('Enter');
    await page.locator('[data-testid="settings-key-status"]', { hasText: 'Key saved.' }).waitFor();
    await waitForFocus(page, 'settings-key-status', 5_000);
    // The next Tab goes on from there: the connection test.
    await press('Tab');
    await waitForFocus(page, 'settings-test-connection');
    await app.screenshot('focus-06-settings-busy-buttons');
    // Save closes the dialog. It was opened from the command palette, which is gone: focus goes to
    // the main area, never to the page.
    await byTestId('settings-save').focus();
    await press('Enter');
    await byTestId('settings-dialog').waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.activeElement !== null && document.activeElement !== document.body);
    expect((await focused(page)).region).toBeDefined();
    // The next case works in the dialog: open it again.
    await runCommand(page, 'settings');
    await byTestId('settings-dialog').waitFor();
  });

  it('Trust on a workspace MCP server hands focus to its row (or its tools)', async () => {
    const folder = join(app.workspace, 'mcp-focus');
    mkdirSync(join(folder, '.forkline'), { recursive: true });
    writeFileSync(
      join(folder, '.forkline', 'mcp.json'),
      JSON.stringify({ mcpServers: { repo: { command: process.execPath, args: [join(ROOT, 'test/support/mcp/test-mcp-server.mjs'), '--tools', 'add'] } } }),
    );
    const conn = app.runtime.host.connect(() => undefined);
    const id = conn.createSession({ cwd: folder }).id;
    app.runtime.host.ensureAgent(id);
    const row = page.locator('[data-testid="mcp-server"][data-name="repo"][data-state="untrusted"]');
    await row.waitFor({ timeout: 15_000 });
    await row.getByTestId('mcp-server-trust').focus();
    await press('Enter');
    await page.locator('[data-testid="mcp-server"][data-name="repo"]').getByTestId('mcp-server-trust').waitFor({ state: 'detached', timeout: 15_000 });
    try {
      await page.waitForFunction(
        () => {
          const el = document.activeElement as HTMLElement | null;
          return el?.closest<HTMLElement>('[data-testid="mcp-server"]')?.dataset['name'] === 'repo';
        },
        undefined,
        { timeout: 5_000 },
      );
    } catch {
      throw new Error(`focus did not stay with the trusted server: ${JSON.stringify(await activeInfo())}`);
    }
    expect(['mcp-server', 'mcp-server-tools-toggle']).toContain((await focused(page)).testId);
    await press('Escape');
    await byTestId('settings-dialog').waitFor({ state: 'detached' });
    conn.dispose();
  });
});
