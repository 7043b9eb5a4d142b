/**
 * The request playground and the divergence view, part 2 (issue 23), in Debian's Chromium against
 * browser mode (real host, SQLite store, agents, `openai` client, scripted model server), at
 * 1000×700 first (the size the last trial found wanting), keyboard only:
 * - "Edit and send" fits 1000×700: the request being edited, Send and the response pane are all
 *   in view at once, without scrolling the panel (they were below the fold, under the JSON boxes);
 * - the messages are edited one by one under the role the provider receives them with (`user`,
 *   `assistant`, `tool`), not as our internal JSON (ids, `source`, content blocks): what is typed
 *   into a prompt's or a tool result's box is what the scripted server receives;
 * - "Fork with this prompt" says what the fork keeps, and lists the other edits it does not carry;
 * - "Add message" (keyboard: the role picker, Tab, Enter): a `system` and a `user` message added at
 *   the end take focus as they appear, and the scripted server receives them where they stand, the
 *   system one as `role: "system"`;
 * - Stop: a stream that stalls is stopped from the keyboard (Send turns into Stop, which has focus),
 *   the run is recorded as stopped (`aborted` in the scratch record) and the response says so;
 * - the divergence view shows a tool-level divergence: a stored copy whose logged tool call has
 *   other arguments than this build reads from the logged stream diverges at call #1, with both
 *   argument sets and a link to the step.
 * Screenshots at 1000×700 and 1400×900 under test-results/ (`playground2-*`), each checked for
 * overlapping or cut-off controls.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostConnection } from '../../electron/host/host-connection.js';
import type { SessionEvent } from '../../shared/events.js';
import { textResponse, type ScriptStep } from '../support/scripted-llm/index.js';
import { startE2eApp, type E2eApp } from './support/e2e-harness.js';
import { pressEnterOn, retypeIn, runCommand, waitForFocus } from './support/keyboard-focus.js';
import { recordNotesSession } from './support/notes-session.js';
import { screenshotAtSizes } from './support/size-screenshots.js';

let app: E2eApp;
let page: Page;
let connection: HostConnection;
let main: string;
let answers: ScriptStep[];
const TOOL_COPY = 'tool-diverged-copy';
const SMALL = { width: 1000, height: 700 } as const;
const SIZES = [
  { name: '1000', ...SMALL },
  { name: '1400', width: 1400, height: 900 },
] as const;

const byTestId = (id: string) => page.getByTestId(id);

const press = pressEnterOn;

const retype = retypeIn;

/** Screenshots at 1000×700 and 1400×900 (checking nothing overlaps or is cut off), then back to 1000×700. */
const both = (name: string): Promise<void> => screenshotAtSizes(page, `playground2-${name}`, SIZES, SMALL);

/**
 * How much of the element is hidden: by the window or by any scrolling ancestor (0 = all of it is
 * in view now, without scrolling anything).
 */
function hiddenPart(locator: Locator): Promise<number> {
  return locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    let box = { l: r.left, t: r.top, r: r.right, b: r.bottom };
    const clipTo = (c: { left: number; top: number; right: number; bottom: number }): void => {
      box = { l: Math.max(box.l, c.left), t: Math.max(box.t, c.top), r: Math.min(box.r, c.right), b: Math.min(box.b, c.bottom) };
    };
    clipTo({ left: 0, top: 0, right: window.innerWidth, bottom: window.innerHeight });
    for (let a = el.parentElement; a; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (/(auto|scroll|hidden)/.test(`${s.overflowX} ${s.overflowY}`)) clipTo(a.getBoundingClientRect());
    }
    const area = (r.right - r.left) * (r.bottom - r.top);
    const seen = Math.max(0, box.r - box.l) * Math.max(0, box.b - box.t);
    return area === 0 ? 1 : 1 - seen / area;
  });
}

async function openSession(id: string): Promise<void> {
  await press(page.locator(`[data-testid="session-row"][data-session-id="${id}"] [data-testid="session-open"]`));
  await page.locator(`[data-testid="session-row"][data-session-id="${id}"][data-selected="true"]`).waitFor();
  await page.locator('[data-testid="timeline-row"]').first().waitFor();
}

beforeAll(async () => {
  app = await startE2eApp({ approvalPolicy: 'allow', viewport: SMALL });
  page = app.page;
  await app.page.locator('[data-testid="sidebar-empty"], [data-testid="session-list"]').first().waitFor();
  ({ answers, connection, main } = await recordNotesSession(app));

  // A stored copy whose logged tool call has other arguments than the logged stream carries (as if
  // an older build had parsed the call differently): the tool level must diverge at call #1.
  const { record, events } = app.runtime.repository.load(main);
  let changed = false;
  const copy = events.map((e): SessionEvent => {
    if (e.type !== 'assistant/message' || changed || !e.data.message.content.some((b) => b.type === 'tool-call')) return e;
    changed = true;
    const content = e.data.message.content.map((b) => (b.type === 'tool-call' ? { ...b, arguments: '{"path":"NOTES.txt"}' } : b));
    return { ...e, data: { ...e.data, message: { ...e.data.message, content } } } as SessionEvent;
  });
  expect(changed).toBe(true);
  app.runtime.store.createSession({ ...record.header, id: TOOL_COPY, title: 'Tool-diverged copy' }, copy);
  app.runtime.host.broadcast({ kind: 'sessions/changed' });
  await page.reload();
  await page.locator(`[data-testid="session-row"][data-session-id="${TOOL_COPY}"]`).waitFor();
}, 120_000);

afterAll(async () => {
  connection?.dispose();
  await app?.close();
});

describe('the divergence view at the tool level', () => {
  it('a logged tool call with other arguments than this build reads diverges at call #1, both argument sets shown, the link goes to its step', async () => {
    await openSession(TOOL_COPY);
    await runCommand(page, 'replay on this build');
    await page.locator('[data-testid="replay-banner"][data-outcome="diverged"]').waitFor({ timeout: 30_000 });
    const tools = byTestId('replay-tools');
    expect(await tools.getAttribute('data-diverged')).toBe('true');
    const text = (await tools.textContent())!;
    expect(text).toContain('Tool calls diverge at call #1 (read_file, args)');
    expect(text).toContain('logged: read_file {"path":"NOTES.txt"} → ran');
    expect(text).toContain('this build: read_file {"path":"notes.txt"} → ran');
    await both('tool-divergence');
    await page
      .locator('.timeline')
      .first()
      .evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await press(byTestId('replay-go-tool-step'));
    await page.waitForFunction(() => {
      const row = document.querySelector('[data-testid="step-marker"][data-turn="1"][data-step="1"]');
      if (!row) return false;
      const r = row.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= window.innerHeight;
    });
  }, 120_000);
});

describe('Edit and send at 1000×700', () => {
  it('the request being edited, Send and the response pane are all in view at once, nothing scrolled', async () => {
    await openSession(main);
    await press(page.locator('[data-testid="step-marker"][data-turn="2"][data-step="1"]').getByTestId('request-button'));
    await byTestId('request-wire').waitFor();
    await runCommand(page, 'edit and send');
    await byTestId('playground').waitFor();
    for (const id of ['playground-send', 'playground-edit', 'playground-result', 'playground-fork', 'playground-system']) {
      expect(await hiddenPart(byTestId(id)), id).toBeLessThan(0.01);
    }
    await both('opened');
  }, 120_000);

  it('messages are edited one by one under their wire role (no internal JSON), and what is typed is what is sent', async () => {
    const roles = await page.getByTestId('playground-message').evaluateAll((els) => els.map((el) => el.getAttribute('data-role')));
    expect(roles).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    const boxes = page.locator('[data-testid="playground-messages"] textarea');
    const values = await boxes.evaluateAll((els) => els.map((el) => (el as HTMLTextAreaElement).value));
    expect(values).toEqual(['Read notes.txt.', '{"path":"notes.txt"}', expect.stringContaining('hello from the notes file'), 'It says hello from the notes file.', 'Summarize it in one word.']);
    expect(values.join('\n')).not.toContain('"source"');

    // Edit (keyboard) the prompt, the tool result and the system prompt, then send.
    await retype(page.getByTestId('playground-message-text').last(), 'Summarize it in one word, in French.');
    await retype(byTestId('playground-tool-result'), 'hello from the EDITED notes file');
    await retype(byTestId('playground-system'), 'You answer in French.');
    const before = app.llm.requests.length;
    answers.push(textResponse('Bonjour.'));
    await press(byTestId('playground-send'));
    await page.locator('[data-testid="playground-response"][data-status="done"]').waitFor({ timeout: 30_000 });
    const sent = JSON.parse(app.llm.requests[before]!.rawBody) as { messages: { role: string; content: unknown }[] };
    expect(sent.messages[0]).toEqual({ role: 'system', content: 'You answer in French.' });
    expect(sent.messages.find((m) => m.role === 'tool')?.content).toBe('hello from the EDITED notes file');
    expect(sent.messages.at(-1)).toEqual({ role: 'user', content: 'Summarize it in one word, in French.' });
    await waitForFocus(page, 'playground-response', 30_000);
    expect(await byTestId('playground-response-text').textContent()).toBe('Bonjour.');
    expect(await hiddenPart(byTestId('playground-response'))).toBeLessThan(0.01);
    await both('edited-sent');
  }, 120_000);

  it('"Fork with this prompt" says what the fork keeps and lists the other edits it does not carry, on one line that unfolds', async () => {
    await byTestId('playground-fork-note').waitFor();
    expect(await byTestId('playground-fork-note').textContent()).toContain('keeps the session’s own system prompt, tools, parameters, model and earlier messages');
    expect(await byTestId('playground-fork-not-carried').textContent()).toBe('Not carried into the fork: the system prompt, the other messages you edited, added or removed.');
    // At 1000×700 the note is one line (it took five, and the panes below lost that height): the
    // request and responses keep the height they have when the note has nothing to say.
    const noteHeight = async (): Promise<number> => (await byTestId('playground-fork-note').boundingBox())!.height;
    const panesHeight = async (): Promise<number> => (await page.locator('.playground-panes').boundingBox())!.height;
    expect(await noteHeight()).toBeLessThan(24);
    const panesWithNote = await panesHeight();
    // It unfolds from the keyboard (Enter on its line) to the whole text, and folds back.
    await press(byTestId('playground-fork-note-summary'));
    await page.locator('[data-testid="playground-fork-note"][open]').waitFor();
    expect(await noteHeight()).toBeGreaterThan(40);
    await both('fork-note-open');
    await press(byTestId('playground-fork-note-summary'));
    await page.locator('[data-testid="playground-fork-note"]:not([open])').waitFor();
    // Back to the logged request: nothing to fork with, and the note says how to get one.
    await press(byTestId('playground-reset'));
    await page.locator('[data-testid="playground-fork"][disabled]').waitFor();
    expect(await byTestId('playground-fork-note').textContent()).toContain('edit one of your own prompts');
    expect(await noteHeight()).toBeLessThan(24);
    expect(Math.abs((await panesHeight()) - panesWithNote)).toBeLessThan(1);
    // Only the prompt edited: nothing is left out.
    await retype(page.getByTestId('playground-message-text').last(), 'Summarize it in one word, in French.');
    await page.locator('[data-testid="playground-fork"]:not([disabled])').waitFor();
    expect(await byTestId('playground-fork-not-carried').count()).toBe(0);
    await retype(byTestId('playground-params'), '{"temperature": 0.5}');
    expect(await byTestId('playground-fork-not-carried').textContent()).toBe('Not carried into the fork: the parameters.');
    await both('fork-note');
  }, 120_000);

  it('Stop, from the keyboard, ends a stalled stream; the run is recorded as stopped', async () => {
    // The stream stalls after the role chunk and two text deltas ("Un m", "omen"), both shown;
    // Send has turned into Stop, which has focus.
    answers.push(textResponse('Un moment, je lis le fichier.', { split: 4, cut: { after: 3, then: 'stall' } }));
    await press(byTestId('playground-send'));
    await page.waitForFunction(
      () => {
        const el = document.querySelector('[data-testid="playground-response"][data-status="running"] [data-testid="playground-response-text"]');
        return el !== null && (el.textContent ?? '') === 'Un momen';
      },
      undefined,
      { timeout: 30_000 },
    );
    await waitForFocus(page, 'playground-cancel', 30_000);
    expect(await hiddenPart(byTestId('playground-cancel'))).toBeLessThan(0.01);
    expect(await hiddenPart(byTestId('playground-response'))).toBeLessThan(0.01);
    await both('stalled');
    await byTestId('playground-cancel').focus();
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="playground-response"][data-status="aborted"]').waitFor({ timeout: 30_000 });
    await waitForFocus(page, 'playground-response', 30_000);
    expect(await byTestId('playground-response').textContent()).toContain('stopped by you');
    // Stopping is not a failure: no error line.
    expect(await byTestId('playground-response-failure').count()).toBe(0);
    expect(await byTestId('playground-response-text').textContent()).toBe('Un momen');
    await page.locator('[data-testid="playground-run"][data-status="aborted"]').waitFor({ timeout: 30_000 });
    const stored = readFileSync(join(app.dir, 'data', 'playground', `${encodeURIComponent(main)}.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { status: string; text: string });
    expect(stored.at(-1)).toMatchObject({ status: 'aborted', text: 'Un momen' });
    await both('stopped');
  }, 120_000);

  it('"Add message": a system and a user message added from the keyboard take focus, and the server receives them where they stand', async () => {
    await press(byTestId('playground-reset'));
    const count = await page.getByTestId('playground-message').count();
    // The role picker, then Tab to "Add message": a system message.
    await byTestId('playground-add-role').focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await byTestId('playground-add-role').inputValue()).toBe('system');
    await page.keyboard.press('Tab');
    await waitForFocus(page, 'playground-add-button');
    await page.keyboard.press('Enter');
    // The new message's text box has focus: what is typed now goes into it.
    await page.waitForFunction(
      (n) => {
        const rows = document.querySelectorAll('[data-testid="playground-message"]');
        const last = rows[rows.length - 1];
        return rows.length === n + 1 && last?.getAttribute('data-role') === 'system' && document.activeElement === last.querySelector('textarea');
      },
      count,
      { timeout: 10_000 },
    );
    await page.keyboard.insertText('Answer in German.');
    // Then a user message (the picker is next after the last message: Tab).
    await page.keyboard.press('Tab');
    await waitForFocus(page, 'playground-add-role');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    expect(await byTestId('playground-add-role').inputValue()).toBe('user');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForFunction(
      (n) => {
        const rows = document.querySelectorAll('[data-testid="playground-message"]');
        const last = rows[rows.length - 1];
        return rows.length === n + 2 && last?.getAttribute('data-role') === 'user' && document.activeElement === last.querySelector('textarea');
      },
      count,
      { timeout: 10_000 },
    );
    await page.keyboard.insertText('And the one word again?');
    const roles = await page.getByTestId('playground-message-role').allTextContents();
    expect(roles.slice(-3)).toEqual(['user', 'system', 'user']);
    await both('added-messages');

    const before = app.llm.requests.length;
    answers.push(textResponse('Hallo.'));
    await press(byTestId('playground-send'));
    await page.locator('[data-testid="playground-response"][data-status="done"]').waitFor({ timeout: 30_000 });
    const sent = JSON.parse(app.llm.requests[before]!.rawBody) as { messages: { role: string; content: unknown }[] };
    expect(sent.messages.slice(-3)).toEqual([
      { role: 'user', content: 'Summarize it in one word.' },
      { role: 'system', content: 'Answer in German.' },
      { role: 'user', content: 'And the one word again?' },
    ]);
    expect(await byTestId('playground-response-text').textContent()).toBe('Hallo.');
    // The fork note counts the added messages among what a fork does not carry (no prompt of the log was edited: no fork).
    expect(await byTestId('playground-fork-note').textContent()).toContain('edit one of your own prompts');
  }, 120_000);
});
