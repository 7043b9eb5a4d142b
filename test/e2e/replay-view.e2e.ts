/**
 * "Replay on this build" and the request playground (issue 23, items 4 and 5) in Debian's Chromium
 * against browser mode (real host, SQLite store, agents, `openai` client, scripted model server),
 * driven by the keyboard only (focus and keys; no mouse events):
 * - a session recorded in the test replays identically; a stored copy whose logged system prompt
 *   differs by one character from what this build sends diverges at step 1.1, at the system
 *   message — the banner says so, the step row is marked, the link scrolls to it, and the Diff tab
 *   shows the logged and the replayed request side by side; an imported log says "not comparable";
 * - the playground: an invalid edit shows its error inline, an edited prompt (its own box among the
 *   messages, by role) is sent and streams
 *   beside the logged answer, the run is listed under its step as a scratch record (a file under
 *   the data folder, no event in the log), and "Fork with this prompt" makes a real branch.
 * Every view is screenshotted at 1400×900 and 1000×700 under test-results/ (`replay-*`), checked for
 * overlapping or cut-off controls at both sizes and for serious axe violations.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostConnection } from '../../electron/host/host-connection.js';
import { readReplayFile } from '../../electron/replay/replay-file.js';
import type { SessionEvent } from '../../shared/events.js';
import { textResponse, type ScriptStep } from '../support/scripted-llm/index.js';
import { CORPUS_DIR } from '../support/replay-record.js';
import { startE2eApp, type E2eApp } from './support/e2e-harness.js';
import { pressEnterOn, retypeIn, runCommand, waitForFocus } from './support/keyboard-focus.js';
import { recordNotesSession } from './support/notes-session.js';
import { screenshotAtSizes } from './support/size-screenshots.js';

let app: E2eApp;
let page: Page;
let connection: HostConnection;
let main: string;
let answers: ScriptStep[];
const DIVERGED = 'diverged-copy';
const IMPORTED = 'imported-copy';

const SIZES = [
  { name: '1400', width: 1400, height: 900 },
  { name: '1000', width: 1000, height: 700 },
] as const;

const byTestId = (id: string) => page.getByTestId(id);

const press = pressEnterOn;

/** Replaces a text field's whole value by typing (select all, insert). */
const retype = (testId: string, text: string): Promise<void> => retypeIn(byTestId(testId), text);

/** Screenshots the current view at both sizes (checking nothing overflows or fails axe), then restores 1400×900. */
const both = (name: string): Promise<void> => screenshotAtSizes(page, `replay-${name}`, SIZES, { width: 1400, height: 900 }, { axe: true });

async function openSession(id: string): Promise<void> {
  await press(page.locator(`[data-testid="session-row"][data-session-id="${id}"] [data-testid="session-open"]`));
  await page.locator(`[data-testid="session-row"][data-session-id="${id}"][data-selected="true"]`).waitFor();
  await page.locator('[data-testid="timeline-row"]').first().waitFor();
}

beforeAll(async () => {
  app = await startE2eApp({ approvalPolicy: 'allow' });
  page = app.page;
  ({ answers, connection, main } = await recordNotesSession(app));

  // A copy of the recording whose logged system prompt differs by one character from what this
  // build sends (as if an older build had sent it): appended through the store as the replay tests do.
  const { record, events } = app.runtime.repository.load(main);
  let changed = false;
  const copy = events.map((e): SessionEvent => {
    if (e.type !== 'request/header' || changed || e.data.header.system === undefined) return e;
    changed = true;
    return { ...e, data: { ...e.data, header: { ...e.data.header, system: `${e.data.header.system}!` } } };
  });
  expect(changed).toBe(true);
  app.runtime.store.createSession({ ...record.header, id: DIVERGED, title: 'Diverged copy' }, copy);
  // An imported Claude Code log from the replay corpus: no wire bodies.
  const imported = readReplayFile(readFileSync(join(CORPUS_DIR, 'imported-claude-code.jsonl'), 'utf8'), IMPORTED);
  app.runtime.store.createSession({ ...imported.header, id: IMPORTED, title: 'Imported Claude Code log' }, imported.events);
  app.runtime.host.broadcast({ kind: 'sessions/changed' });
  await page.reload();
  await page.locator(`[data-testid="session-row"][data-session-id="${IMPORTED}"]`).waitFor();
}, 120_000);

afterAll(async () => {
  connection?.dispose();
  await app?.close();
});

describe('replay on this build', () => {
  it('a diverging session: banner with the step and path, the row marked, go-to link, logged vs this build in the Diff tab', async () => {
    await openSession(DIVERGED);
    await runCommand(page, 'replay on this build');
    const banner = page.locator('[data-testid="replay-banner"][data-outcome="diverged"]');
    await banner.waitFor({ timeout: 30_000 });
    await waitForFocus(page, 'replay-banner-focus');
    expect(await byTestId('replay-divergence-text').textContent()).toBe('Diverges at step 1.1: request (path messages[0].content)');
    expect(await byTestId('replay-causes').textContent()).toContain('system prompt');
    expect(await byTestId('replay-tools').getAttribute('data-diverged')).toBe('false');
    const marked = page.locator('[data-testid="step-marker"][data-turn="1"][data-step="1"] [data-testid="replay-divergence-marker"]');
    await marked.waitFor();
    expect(await page.getByTestId('replay-divergence-marker').count()).toBe(1);
    await both('diverged-banner');

    // The link scrolls the timeline to the divergent step (scroll away first, so it must move).
    await page
      .locator('.timeline')
      .first()
      .evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await press(byTestId('replay-go-step'));
    await page.waitForFunction(() => {
      const row = document.querySelector('[data-testid="step-marker"][data-turn="1"][data-step="1"]');
      if (!row) return false;
      const r = row.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= window.innerHeight;
    });

    // Old and new request side by side in the inspector's Diff tab.
    await press(byTestId('replay-compare-requests'));
    await byTestId('replay-request-diff').waitFor();
    expect(await page.locator('[data-testid="request-tab-diff"][aria-selected="true"]').count()).toBe(1);
    expect(await byTestId('request-label').textContent()).toBe('step 1.1');
    expect(await byTestId('replay-request-path').textContent()).toContain('messages[0].content');
    await waitForFocus(page, 'replay-request-diff');
    const loggedValue = (await byTestId('replay-logged-value').textContent())!;
    expect(loggedValue.endsWith('!')).toBe(true);
    expect(await byTestId('replay-replayed-value').textContent()).toBe(loggedValue.slice(0, -1));
    const logged = JSON.parse((await byTestId('replay-logged-body').textContent())!) as { messages: { content: string }[] };
    const replayed = JSON.parse((await byTestId('replay-replayed-body').textContent())!) as { messages: { content: string }[] };
    expect(logged.messages[0]!.content).toBe(`${replayed.messages[0]!.content}!`);
    expect(await byTestId('replay-request-unified').textContent()).toContain('!');
    await both('diverged-diff');
    await press(byTestId('request-inspector-close'));
  }, 120_000);

  it('the recorded session replays identically; an imported log is not comparable at the request level', async () => {
    await openSession(main);
    await press(byTestId('replay-button'));
    await page.locator('[data-testid="replay-banner"][data-outcome="identical"]').waitFor({ timeout: 30_000 });
    expect(await byTestId('replay-identical').textContent()).toBe('✓ This session replays identically on this build.');
    expect(await byTestId('replay-requests').textContent()).toContain('3 logged, 3 sent by this build, 3 byte-identical');
    expect(await page.getByTestId('replay-divergence-marker').count()).toBe(0);
    await both('identical');

    await openSession(IMPORTED);
    await runCommand(page, 'replay on this build');
    await page.locator('[data-testid="replay-banner"]:not([data-outcome="running"])').waitFor({ timeout: 30_000 });
    expect(await byTestId('replay-banner').getAttribute('data-outcome')).toBe('identical');
    expect(await byTestId('replay-requests').getAttribute('data-level')).toBe('not-comparable');
    expect(await byTestId('replay-identical').textContent()).toBe('✓ Its tool calls replay identically on this build (its requests cannot be compared).');
    expect(await byTestId('replay-requests').textContent()).toContain('not comparable');
    expect(await byTestId('replay-tools').textContent()).toMatch(/Tool calls: [1-9]\d* logged/);
    await both('imported');
  }, 120_000);
});

describe('request playground', () => {
  it('edit → inline error → send → streamed response beside the logged one → scratch record under the step → fork with this prompt', async () => {
    await openSession(main);
    const eventsBefore = app.runtime.host.agentFor(main)!.session.length;
    await press(page.locator('[data-testid="step-marker"][data-turn="2"][data-step="1"]').getByTestId('request-button'));
    await byTestId('request-wire').waitFor();
    await runCommand(page, 'edit and send');
    await byTestId('playground').waitFor();
    await waitForFocus(page, 'playground-system');
    await byTestId('playground-runs-none').waitFor();
    // The messages one by one, by role: the last is the prompt of turn 2, as typed.
    const prompt = page.getByTestId('playground-message-text').last();
    expect(await prompt.inputValue()).toBe('Summarize it in one word.');

    // A broken edit: the error shows under its field and Send is off.
    await retype('playground-params', '{"temperature": 7}');
    await byTestId('playground-error-params').waitFor();
    expect(await byTestId('playground-error-params').textContent()).toContain('temperature: must be a number from 0 to 2');
    expect(await byTestId('playground-send').isDisabled()).toBe(true);
    await both('playground-errors');

    await prompt.focus();
    await page.keyboard.press('Control+a');
    await page.keyboard.insertText('Summarize it in one word, in Spanish.');
    await retype('playground-params', '{"temperature": 0.2}');
    await page.locator('[data-testid="playground-send"]:not([disabled])').waitFor();
    expect(await byTestId('playground-error-params').count()).toBe(0);
    expect(await byTestId('playground-fork').isDisabled()).toBe(false);

    // Send: the answer streams (slowly, so the running state is seen) beside the logged one.
    const requestsBefore = app.llm.requests.length;
    answers.push(textResponse('Hola, un saludo desde el archivo de notas.', { split: 3, frameDelayMs: 120 }));
    await press(byTestId('playground-send'));
    await page.waitForFunction(
      () => {
        const el = document.querySelector('[data-testid="playground-response"][data-status="running"] [data-testid="playground-response-text"]');
        return el !== null && (el.textContent ?? '').length > 0;
      },
      undefined,
      { timeout: 30_000 },
    );
    // Send turned into Stop, which has focus while the answer streams.
    await waitForFocus(page, 'playground-cancel');
    await both('playground-streaming');
    await page.locator('[data-testid="playground-response"][data-status="done"]').waitFor({ timeout: 30_000 });
    expect(await byTestId('playground-response-text').textContent()).toBe('Hola, un saludo desde el archivo de notas.');
    expect(await byTestId('playground-original-text').textContent()).toBe('Hello.');
    const sent = app.llm.requests[requestsBefore]!;
    expect(sent.rawBody).toContain('Summarize it in one word, in Spanish.');
    expect(JSON.parse(sent.rawBody).temperature).toBe(0.2);

    // The run is a scratch record of step 2.1: listed there, kept under the data folder, not in the log.
    await page.locator('[data-testid="playground-run"]').first().waitFor();
    expect(await page.getByTestId('playground-run').count()).toBe(1);
    const file = join(app.dir, 'data', 'playground', `${encodeURIComponent(main)}.jsonl`);
    expect(existsSync(file)).toBe(true);
    const stored = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { turn: number; step: number; text: string; status: string });
    expect(stored).toMatchObject([{ turn: 2, step: 1, text: 'Hola, un saludo desde el archivo de notas.', status: 'done' }]);
    expect(app.runtime.host.agentFor(main)!.session.length).toBe(eventsBefore);
    // The replay result from before still describes the whole log (the run added no event).
    expect(await page.locator('[data-testid="replay-banner"][data-outcome="identical"]').count()).toBe(1);
    expect(await byTestId('replay-stale').count()).toBe(0);
    expect((await connection.listPlaygroundRuns({ sessionId: main, index: 2 })).length).toBe(1);
    // Listed under its step on the timeline too, and only there.
    await page.locator('[data-testid="step-marker"][data-turn="2"][data-step="1"] [data-testid="step-playground-runs"][data-count="1"]').waitFor();
    expect(await page.getByTestId('step-playground-runs').count()).toBe(1);
    await both('playground-done');

    // Fork with this prompt: a fork before turn 2, where the edited prompt is sent.
    answers.push(textResponse('Hola.'));
    await press(byTestId('playground-fork'));
    await page.waitForFunction(
      (id) => {
        const row = document.querySelector('[data-testid="session-row"][data-selected="true"]');
        return row !== null && row.getAttribute('data-session-id') !== id;
      },
      main,
      { timeout: 30_000 },
    );
    const forkId = (await page.locator('[data-testid="session-row"][data-selected="true"]').getAttribute('data-session-id'))!;
    await app.runtime.host.agentFor(forkId)!.whenIdle();
    await page.locator('[data-testid="user-message"]', { hasText: 'Summarize it in one word, in Spanish.' }).waitFor({ timeout: 30_000 });
    const fork = app.runtime.repository.get(forkId)!;
    expect(fork.header.parentSession).toBe(main);
    const forkEvents = app.runtime.repository.load(forkId).events;
    const prompts = forkEvents.flatMap((e) => (e.type === 'user/message' && e.data.source.kind === 'user' ? [e.data.content.map((b) => b.text).join('')] : []));
    expect(prompts).toEqual(['Read notes.txt.', 'Summarize it in one word, in Spanish.']);
    await both('playground-forked');
  }, 180_000);
});
