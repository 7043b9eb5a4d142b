/**
 * The desktop UI end to end, in Debian's Chromium against browser mode (the real host, store and
 * agents; the real `openai` client talking to the scripted model server). Walks what a person does:
 * create a session in a folder, send a task and watch it stream, expand a tool result, steer
 * mid-turn, cancel, approve a write, reload the page, open a crash-recovered session, inspect a
 * request; a screenshot of each view is saved under test-results/.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/events.js';
import { processStart } from '../../electron/platform/process-identity.js';
import { Session } from '../../electron/session/session.js';
import { reply, textResponse, toolCallResponse } from '../support/scripted-llm/index.js';
import { startE2eApp, type E2eApp } from './support/e2e-harness.js';

let app: E2eApp;
let page: Page;
let sessionId: string;

beforeAll(async () => {
  app = await startE2eApp({ approvalPolicy: 'ask' });
  page = app.page;
  writeFileSync(join(app.workspace, 'a.txt'), 'alpha\nbeta\n');
});
afterAll(async () => {
  await app?.close();
});

const byTestId = (id: string) => page.getByTestId(id);
async function send(text: string): Promise<void> {
  await byTestId('composer-input').fill(text);
  await byTestId('composer-send').click();
}
/** While a turn runs: steer it (the labelled Steer button; Enter would queue a follow-up instead). */
async function steerWith(text: string): Promise<void> {
  await byTestId('composer-input').fill(text);
  await byTestId('composer-steer').click();
}
/**
 * Waits for turn `turn` to end in the log (60 s: a loaded CI machine), then for its row on the
 * timeline; a failure says which of the two did not happen.
 */
async function turnEnded(turn: number, reason = 'completed'): Promise<void> {
  const ended = (): boolean => log().some((e) => e.type === 'turn/end' && e.data.turn === turn);
  await expect.poll(ended, { timeout: 60_000, message: `turn ${turn} did not end in the log` }).toBe(true);
  try {
    await page.locator(`[data-testid="turn-end"][data-turn="${turn}"]`).waitFor({ timeout: 15_000 });
  } catch (error) {
    const follow = await page.locator('[data-testid="follow-tail-button"]').count();
    throw new Error(`turn ${turn} ended in the log but its row is not shown (${follow > 0 ? '"↓ latest" is offered: the timeline stopped following' : 'the timeline follows the tail'})`, {
      cause: error,
    });
  }
  expect(await page.locator(`[data-testid="turn-end"][data-turn="${turn}"]`).getAttribute('data-reason')).toBe(reason);
}
const log = (): readonly SessionEvent[] => app.runtime.host.agentFor(sessionId)?.session.events ?? app.runtime.store.readAll(sessionId);

describe('Forkline in the browser', () => {
  it('creates a session in a temp workspace through the folder browser', async () => {
    await byTestId('sidebar').waitFor();
    await app.screenshot('01-empty-app');
    await byTestId('new-session-button').click();
    await byTestId('folder-browser').waitFor();
    await byTestId('folder-path').fill(app.workspace);
    await byTestId('folder-path').press('Enter');
    await page.waitForFunction(() => !document.querySelector('[data-testid="folder-list"][aria-busy="true"]'));
    await app.screenshot('02-folder-browser');
    await byTestId('folder-choose').click();
    await byTestId('session-view').waitFor();
    const row = page.locator('[data-testid="session-row"][data-selected="true"]');
    sessionId = (await row.getAttribute('data-session-id'))!;
    expect(app.runtime.repository.get(sessionId)!.header.cwd).toBe(app.workspace);
    await byTestId('timeline-empty').waitFor();
  });

  it('sends a task, streams the answer, shows the tool row live, and expands its result', async () => {
    app.llm.enqueue(
      toolCallResponse([{ id: 'read-a', name: 'read_file', arguments: '{"path":"a.txt"}' }], { reasoning: 'I will read the file first.', split: 2, frameDelayMs: 15 }),
      reply({ text: 'The file a.txt has two lines: alpha and beta. That is all it contains, nothing else.', split: 2, frameDelayMs: 25 }),
    );
    await send('What is in a.txt?');
    await page.locator('[data-testid="tool-row"][data-tool-name="read_file"]').waitFor();
    await page.locator('[data-testid="assistant-text"][data-streaming="true"]').waitFor();
    await app.screenshot('03-streaming');
    await turnEnded(1);
    expect(await page.locator('[data-testid="assistant-text"]').last().textContent()).toContain('alpha and beta');
    const tool = page.locator('[data-testid="tool-row"][data-call-id="read-a"]');
    expect(await tool.getAttribute('data-state')).toBe('done');
    await tool.getByTestId('tool-toggle').click();
    await tool.getByTestId('tool-result').waitFor();
    expect(await tool.getByTestId('tool-result').textContent()).toContain('1: alpha');
    await app.screenshot('04-tool-expanded');
    expect(await page.locator('[data-testid="session-row"][data-selected="true"] [data-testid="session-title"]').textContent()).toBe('What is in a.txt?');
  });

  it('steers mid-turn: the steering enters at the next step', async () => {
    // The first answer waits until the steering is in (the turn surely runs while the person
    // steers, however slow the machine); the second answers the steered step.
    let release!: () => void;
    const steered = new Promise<void>((resolve) => (release = resolve));
    app.llm.setHandler(async () => {
      app.llm.setHandler(undefined);
      await steered;
      return reply({ text: 'Working on a long explanation of the file and its history, which takes a while to stream out.', split: 2, frameDelayMs: 40 });
    });
    await send('Explain a.txt at length.');
    await page.locator('[data-testid="composer-send"][data-mode="queue"]').waitFor();
    await steerWith('focus on the tests instead');
    app.llm.enqueue(textResponse('Focused on the tests, as asked.'));
    release();
    await page.locator('[data-testid="user-message"][data-source="steer"]').waitFor({ timeout: 30_000 });
    await turnEnded(2);
    await app.screenshot('05-steered');
    const events = log();
    const steer = events.find((e) => e.type === 'user/message' && e.data.source.kind === 'steer')!;
    const steps = events.filter((e) => e.type === 'step/start' && e.data.turn === 2);
    expect(steps).toHaveLength(2);
    expect(steer.seq).toBeGreaterThan(steps[1]!.seq);
  });

  it('cancels a running turn; the partial answer is kept and marked interrupted', async () => {
    // A stream that stalls after a few frames: the turn is surely running when Cancel is pressed.
    app.llm.enqueue(reply({ text: 'This answer is long and slow '.repeat(20), split: 3, frameDelayMs: 40, cut: { after: 4, then: 'stall' } }));
    await send('Write something long.');
    await page.locator('[data-testid="assistant-text"][data-streaming="true"]').waitFor();
    await byTestId('composer-cancel').click();
    await turnEnded(3, 'aborted');
    await byTestId('badge-message-interrupted').waitFor();
    await app.screenshot('06-cancelled');
  });

  it('asks before a write and runs it once allowed', async () => {
    app.llm.enqueue(
      toolCallResponse([{ id: 'write-1', name: 'write_file', arguments: JSON.stringify({ path: 'notes/todo.md', content: '- ship it\n' }) }]),
      textResponse('Created `notes/todo.md` with:\n\n- one item'),
    );
    await send('Create notes/todo.md with one item.');
    await byTestId('approval-panel').waitFor();
    expect(await byTestId('approval-tool').textContent()).toContain('write_file');
    expect(await byTestId('approval-diff').getAttribute('data-path')).toBe('notes/todo.md');
    expect(await byTestId('approval-diff').textContent()).toContain('- ship it');
    expect(existsSync(join(app.workspace, 'notes/todo.md'))).toBe(false);
    await app.screenshot('07-approval');
    await byTestId('approval-allow').click();
    await turnEnded(4);
    expect(readFileSync(join(app.workspace, 'notes/todo.md'), 'utf8')).toBe('- ship it\n');
    // Finished answers render as Markdown (inline code, lists).
    await page.locator('[data-testid="assistant-text"] code', { hasText: 'notes/todo.md' }).waitFor();
    await page.locator('[data-testid="assistant-text"] li', { hasText: 'one item' }).waitFor();
    const tool = page.locator('[data-testid="tool-row"][data-call-id="write-1"]');
    await tool.getByTestId('tool-toggle').click();
    await tool.locator('[data-testid="tool-result"][data-view="diff"]').waitFor();
    await app.screenshot('08-diff-view');
  });

  it("streams a running bash call's output live into its tool row", async () => {
    app.llm.enqueue(
      // The call prints tick-1, then waits for the test's go-ahead (a file), so the live output is
      // checked while the call surely runs, however slow the machine.
      toolCallResponse([
        { id: 'bash-live', name: 'bash', arguments: JSON.stringify({ command: 'echo tick-1; for i in $(seq 1 600); do [ -f go-ahead ] && break; sleep 0.1; done; echo tick-2; echo tick-3' }) },
      ]),
      textResponse('Counted to three.'),
    );
    await send('Count to three slowly.');
    await byTestId('approval-allow').click();
    const row = page.locator('[data-testid="tool-row"][data-call-id="bash-live"]');
    await row.locator('[data-testid="tool-output-live"]', { hasText: 'tick-1' }).waitFor();
    expect(await row.getAttribute('data-state')).toBe('running');
    expect(log().some((e) => e.type === 'tool/result' && e.data.message.content[0].toolCallId === 'bash-live')).toBe(false);
    await app.screenshot('08b-bash-live-output');
    writeFileSync(join(app.workspace, 'go-ahead'), '');
    await turnEnded(5);
    await row.getByTestId('tool-toggle').click();
    await row.locator('[data-testid="tool-result"][data-view="terminal"]').waitFor();
    expect(await row.getByTestId('tool-result').textContent()).toContain('tick-3');
  });

  it('keeps following the tail when content grows under it, and stops only when the view moves up', async () => {
    const timeline = byTestId('timeline');
    await byTestId('follow-tail-button')
      .waitFor({ state: 'detached' })
      .catch(() => undefined);
    if (await byTestId('follow-tail-button').isVisible()) await byTestId('follow-tail-button').click();
    await byTestId('follow-tail-button').waitFor({ state: 'detached' });
    // Content grows below the view and a scroll event fires before the tail is caught up (what a
    // row measured taller does): the view must keep following.
    await timeline.evaluate((el) => {
      const inner = el.querySelector<HTMLElement>('.timeline-inner')!;
      inner.style.height = `${inner.offsetHeight + 600}px`;
      el.dispatchEvent(new Event('scroll'));
    });
    // Two frames: the scroll handler and any effect it starts have run.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    expect(await byTestId('follow-tail-button').count()).toBe(0);
    // The person scrolls up: following stops (the button to go back to the latest rows appears).
    // From the bottom of the grown content, so the move up is 400 px wherever the view stood.
    await timeline.evaluate((el) => {
      el.scrollTop = el.scrollHeight;
      el.dispatchEvent(new Event('scroll'));
    });
    await timeline.evaluate((el) => {
      el.scrollTop = Math.max(0, el.scrollTop - 400);
      el.dispatchEvent(new Event('scroll'));
    });
    await byTestId('follow-tail-button').waitFor();
    await byTestId('follow-tail-button').click();
    await byTestId('follow-tail-button').waitFor({ state: 'detached' });
  });

  it('opens the request inspector for a step', async () => {
    const marker = page.locator('[data-testid="step-marker"][data-turn="4"][data-step="1"]');
    await marker.scrollIntoViewIfNeeded();
    await marker.getByTestId('request-button').click();
    await byTestId('request-inspector').waitFor();
    await byTestId('request-wire').waitFor();
    expect(await byTestId('request-label').textContent()).toBe('step 4.1');
    expect(await byTestId('request-url').textContent()).toContain(`${app.llm.baseUrl}/chat/completions`);
    expect(await byTestId('request-params').textContent()).toContain('scripted-model');
    expect(await page.locator('[data-testid="request-tool"]').count()).toBe(8);
    await byTestId('request-tab-messages').click();
    await page.locator('[data-testid="message-card"]').first().waitFor();
    const roles = await page.locator('[data-testid="message-card"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-role')));
    expect(roles[0]).toBe('user');
    expect(roles.at(-1)).toBe('user');
    await app.screenshot('09-request-inspector');
    await byTestId('request-inspector-close').click();
  });

  it('shows any row in the raw event inspector', async () => {
    // On the row's label, not its middle: the middle of a turn-end row can be one of its links
    // (fork here, fan out…, rewind to here) once the dock that just closed gives the row its width back.
    await page.locator('[data-testid="timeline-row"][data-kind="turn-end"]').last().locator('.turn-end-label').click();
    await byTestId('raw-inspector').waitFor();
    expect(await page.locator('[data-testid="raw-event"]').first().getAttribute('data-type')).toBe('turn/end');
    await app.screenshot('10-raw-inspector');
    await byTestId('raw-inspector-close').click();
  });

  it('reloads the page and shows the same timeline; the log is unchanged', async () => {
    const before = log().length;
    const lastEndBefore = await page.locator('[data-testid="turn-end"]').last().getAttribute('data-turn');
    await page.reload();
    await page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"]`).click();
    await page.locator(`[data-testid="turn-end"][data-turn="${lastEndBefore}"]`).waitFor();
    expect(log().length).toBe(before);
    expect(app.runtime.store.readAll(sessionId).length).toBe(before);
    await app.screenshot('11-after-reload');
  });

  it('opens a crash-recovered session and shows its badges', async () => {
    const crashedId = 'crashed-session-0001';
    let t = 1_790_000_000_000;
    const s = new Session({ header: { version: 0, id: crashedId, createdAt: t, cwd: app.workspace, title: 'Crashed mid-turn' }, now: () => (t += 5) });
    s.append({ type: 'turn/start', data: { turn: 1 } });
    s.append({ type: 'step/start', data: { turn: 1, step: 1 } });
    s.append({ type: 'user/message', data: { id: 'u1', role: 'user', content: [{ type: 'text', text: 'run the tests and fix them' }], source: { kind: 'user' } }, surfaceOp: 'append' });
    s.append({
      type: 'assistant/message',
      data: {
        turn: 1,
        step: 1,
        message: {
          id: 'a1',
          role: 'assistant',
          content: [
            { type: 'tool-call', id: 'run-tests', name: 'bash', arguments: '{"command":"npm test"}' },
            { type: 'tool-call', id: 'read-pkg', name: 'read_file', arguments: '{"path":"package.json"}' },
          ],
          source: { kind: 'model', provider: 'custom', model: 'scripted-model' },
        },
      },
      surfaceOp: 'append',
      sourceEventSeqs: [],
    });
    s.append({ type: 'tool/call', data: { turn: 1, step: 1, callId: 'run-tests', name: 'bash', arguments: '{"command":"npm test"}' } });
    app.runtime.store.createSession(s.header, s.events);
    await page.reload();
    await page.locator(`[data-testid="session-row"][data-session-id="${crashedId}"]`).click();
    await byTestId('notice').waitFor();
    expect(await byTestId('notice').first().textContent()).toContain('interrupted');
    await byTestId('badge-outcome-unknown').waitFor();
    await byTestId('badge-not-started').waitFor();
    await byTestId('badge-interrupted').waitFor();
    await app.screenshot('12-crash-recovered');
    const repaired = app.runtime.store.readAll(crashedId);
    expect(repaired.slice(-4).map((e) => e.type)).toEqual(['tool/result', 'tool/result', 'step/end', 'turn/end']);
  });

  it('shows a session another running Forkline holds read-only, and takes it over after a confirmation', async () => {
    const heldId = 'held-session-0001';
    const holder = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      while (processStart(holder.pid!) === undefined) await new Promise((r) => setTimeout(r, 5));
      let t = 1_790_000_100_000;
      const s = new Session({ header: { version: 0, id: heldId, createdAt: t, cwd: app.workspace, title: 'Held elsewhere' }, now: () => (t += 5) });
      s.append({ type: 'turn/start', data: { turn: 1 } });
      s.append({ type: 'turn/end', data: { turn: 1, reason: { kind: 'completed' } } });
      app.runtime.store.createSession(s.header, s.events);
      // The record names a running process with its real start time: a live owner.
      app.runtime.store.setOwner(heldId, { pid: holder.pid!, start: processStart(holder.pid!)!, host: hostname(), since: Date.now(), token: 'theirs' });
      await page.reload();
      await page.locator(`[data-testid="session-row"][data-session-id="${heldId}"]`).click();
      await byTestId('readonly-banner').waitFor();
      expect(await byTestId('composer-input').isDisabled()).toBe(true);
      await app.screenshot('13-held-elsewhere');
      await byTestId('take-over').click();
      await byTestId('confirm-dialog').waitFor();
      await byTestId('confirm-ok').click();
      await byTestId('readonly-banner').waitFor({ state: 'detached', timeout: 10_000 });
      expect(await byTestId('composer-input').isDisabled()).toBe(false);
      const events = app.runtime.host.agentFor(heldId)!.session.events;
      expect(events.slice(2).map((e) => e.type)).toEqual(['session/end-seed', 'session/takeover']);
      expect(events[3]!.data).toMatchObject({ previous: { pid: holder.pid }, reason: 'forced' });
      expect(app.runtime.store.get(heldId)!.owner?.pid).toBe(process.pid);
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('opens the settings dialog and the workspace terminal', async () => {
    await page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"]`).click();
    await byTestId('settings-button').click();
    await byTestId('settings-dialog').waitFor();
    await byTestId('settings-preset').waitFor();
    expect(await byTestId('settings-base-url').inputValue()).toBe(app.llm.baseUrl);
    await app.screenshot('13-settings');
    await byTestId('settings-dialog-close').click();
    await byTestId('tab-terminal').click();
    await byTestId('terminal-host').waitFor();
    // Type once the shell has printed its prompt (a loaded machine starts a shell slowly; keys sent
    // before the terminal is attached would be lost).
    await page.waitForFunction(() => (document.querySelector('[data-testid="terminal-host"]')?.textContent ?? '').trim().length > 0, undefined, { timeout: 30_000 });
    await byTestId('terminal-host').click();
    await page.keyboard.type('echo forkline-$((40+2))\n');
    await page.waitForFunction(() => (document.querySelector('[data-testid="terminal-host"]')?.textContent ?? '').includes('forkline-42'), undefined, { timeout: 30_000 });
    await app.screenshot('14-terminal');
  });
});
