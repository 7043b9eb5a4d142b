/**
 * The session debugger in Debian's Chromium against browser mode (real host, SQLite store, agents,
 * `openai` client and scripted model server): the request inspector, the raw event inspector, the
 * compaction view and "what the model sees", Markdown and todo checklists, finding things
 * (full-text search from the sidebar, in-session find, the turn outline, session status badges,
 * the per-step context meter) and opening a 100,000-event session at once. Every view is
 * screenshotted at 1400×900 and 1000×700 under test-results/ (`debugger-*`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostConnection } from '../../electron/host/host-connection.js';
import { Session } from '../../electron/session/session.js';
import type { SessionEvent } from '../../shared/events.js';
import { httpError, reasoningResponse, textResponse, toolCallResponse, usage, type RecordedRequest, type ScriptStep } from '../support/scripted-llm/index.js';
import { SCREENSHOTS, startE2eApp, type E2eApp } from './support/e2e-harness.js';

let app: E2eApp;
let page: Page;
let connection: HostConnection;
let main: string;
const answers: ScriptStep[] = [];
const summaries: ScriptStep[] = [];

const SIZES = [
  { name: '1400', width: 1400, height: 900 },
  { name: '1000', width: 1000, height: 700 },
] as const;

const ANSWER_MD = [
  '## Plan for the config migration',
  '',
  '| setting | before | after |',
  '|---|---|---|',
  '| `timeout` | 30 s | 60 s |',
  '| `retries` | 3 | 5 |',
  '',
  '- [x] read `config.json`',
  '- [ ] update the loader',
  '- [ ] run the tests',
  '',
  '```ts',
  'export function load(path: string): Config {',
  '  const raw = JSON.parse(readFileSync(path, "utf8"));',
  '  return { timeout: raw.timeout ?? 60, retries: raw.retries ?? 5 };',
  '}',
  '```',
].join('\n');

const TODOS = JSON.stringify({
  todos: [
    { content: 'Read config.json and list the settings', status: 'completed' },
    { content: 'Update the loader defaults', status: 'in_progress' },
    { content: 'Run the test suite', status: 'pending' },
  ],
});

const REASONING_1 =
  'The person wants a migration plan they can follow. I should write the plan down as todos first, so progress is visible, then read the current config so the table of settings is accurate before proposing new defaults for the loader.';
const REASONING_2 = 'The config has timeout 30 and retries 3; the plan raises both.';

const isSummary = (r: RecordedRequest): boolean => r.rawBody.includes('You are acting as a compaction engine');
const byTestId = (id: string) => page.getByTestId(id);

async function turn(sessionId: string, text: string, steps: ScriptStep[]): Promise<void> {
  answers.push(...steps);
  connection.followup({ sessionId, text });
  await app.runtime.host.agentFor(sessionId)!.whenIdle();
  expect(answers).toHaveLength(0);
}

/** A stored session of about `target` events; `last` decides how its last turn ends. */
function storedSession(id: string, title: string, target: number, last: 'completed' | 'open' | 'error' = 'completed'): Session {
  let t = 1_790_000_000_000;
  const s = new Session({ header: { version: 0, id, createdAt: t, cwd: app.workspace, title }, now: () => (t += 2) });
  for (let turnNo = 1, done = false; !done; turnNo++) {
    s.append({ type: 'turn/start', data: { turn: turnNo } });
    s.append({ type: 'step/start', data: { turn: turnNo, step: 1 } });
    if (turnNo === 1) {
      s.append({ type: 'request/header', data: { reason: 'initial', header: { config: { provider: 'deepseek', model: 'deepseek-v4-flash' }, system: 'You are a coding agent.' } } });
      s.append({ type: 'request/context', data: { provider: 'deepseek', model: 'deepseek-v4-flash', contextWindow: 128_000 } });
    }
    s.append({
      type: 'user/message',
      data: { id: `u${turnNo}`, role: 'user', content: [{ type: 'text', text: `question ${turnNo}: how does module ${turnNo} work?` }], source: { kind: 'user' } },
      surfaceOp: 'append',
    });
    const first = s.length;
    s.append({ type: 'assistant/chunk', data: { turn: turnNo, step: 1, chunk: { type: 'block-start', index: 0, blockType: 'reasoning' } } });
    for (let i = 0; i < 60; i++) s.append({ type: 'assistant/chunk', data: { turn: turnNo, step: 1, chunk: { type: 'reasoning-delta', index: 0, text: `considering part ${i} of the module, ` } } });
    s.append({ type: 'assistant/chunk', data: { turn: turnNo, step: 1, chunk: { type: 'text-delta', index: 1, text: `Module ${turnNo} reads its input and writes a report.` } } });
    const prompt = 1_000 + turnNo * 240;
    s.append({ type: 'assistant/chunk', data: { turn: turnNo, step: 1, chunk: { type: 'usage', usage: { inputTokens: 200, cacheReadTokens: Math.min(prompt, 120_000) - 200, outputTokens: 80 } } } });
    s.append({ type: 'assistant/chunk', data: { turn: turnNo, step: 1, chunk: { type: 'finish', reason: { kind: 'stop' } } } });
    const seqs = Array.from({ length: s.length - first }, (_, i) => first + i);
    s.append({
      type: 'assistant/message',
      data: {
        turn: turnNo,
        step: 1,
        message: {
          id: `a${turnNo}`,
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'considering the module' },
            { type: 'text', text: `Module ${turnNo} reads its input and writes a report.` },
          ],
          source: { kind: 'model', provider: 'deepseek', model: 'deepseek-v4-flash' },
        },
      },
      surfaceOp: 'append',
      sourceEventSeqs: seqs,
    });
    done = s.length >= target - 3;
    if (done && last === 'open') break;
    s.append({ type: 'step/end', data: { turn: turnNo, step: 1 } });
    s.append({
      type: 'turn/end',
      data: { turn: turnNo, reason: done && last === 'error' ? { kind: 'error', failure: { code: 'RATE_LIMIT', message: '429 Too Many Requests' } } : { kind: 'completed' } },
    });
  }
  app.runtime.store.createSession(s.header, s.events);
  return s;
}

/** Screenshots the current view at both sizes (1400×900 first, then 1000×700), and restores 1400×900. */
async function both(name: string): Promise<void> {
  for (const size of SIZES) {
    await page.setViewportSize({ width: size.width, height: size.height });
    await page.waitForTimeout(150);
    await page.screenshot({ path: join(SCREENSHOTS, `debugger-${name}-${size.name}.png`) });
  }
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.waitForTimeout(100);
}

async function openSession(id: string): Promise<void> {
  await page.locator(`[data-testid="session-row"][data-session-id="${id}"]`).click();
  await byTestId('session-view').waitFor();
  await page.locator('[data-testid="timeline-row"]').first().waitFor();
}

beforeAll(async () => {
  app = await startE2eApp({ approvalPolicy: 'allow' });
  page = app.page;
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  writeFileSync(join(app.workspace, 'config.json'), JSON.stringify({ timeout: 30, retries: 3, hosts: Array.from({ length: 300 }, (_, i) => `worker-${i}.internal.example:8080`) }, null, 2));
  app.llm.setHandler((request) => {
    const next = isSummary(request) ? summaries.shift() : answers.shift();
    if (!next) throw new Error(`nothing scripted for request #${request.number}`);
    return next;
  });
  connection = app.runtime.host.connect(() => undefined);
  main = connection.createSession({ cwd: app.workspace, title: 'Config migration' }).id;
  await turn(main, 'Plan the config migration and track it as a todo list.', [
    toolCallResponse(
      [
        { id: 'todo-1', name: 'todo_write', arguments: TODOS },
        { id: 'read-1', name: 'read_file', arguments: '{"path":"config.json"}' },
      ],
      { reasoning: REASONING_1, usage: usage(3_100, 120, { reasoning: 40 }) },
    ),
    reasoningResponse(REASONING_2, ANSWER_MD, { usage: usage(4_600, 210, { cached: 3_072 }) }),
  ]);
  await turn(main, 'Run the tests.', [
    httpError(500, { error: { message: 'upstream overloaded' } }),
    toolCallResponse(
      [
        {
          id: 'bash-1',
          name: 'bash',
          arguments: JSON.stringify({
            command: "node -e \"for (let i = 1; i <= 150; i++) console.log('ok ' + i + ' - loader keeps the value it was given'); throw new TypeError('boom: loader.timeout is undefined')\"",
          }),
        },
      ],
      { usage: usage(4_900, 60, { cached: 4_608 }) },
    ),
    textResponse('The tests fail with `TypeError: boom: loader.timeout is undefined`; the loader needs a default.'),
  ]);
  summaries.push(
    textResponse(
      '## Primary Request and Intent\n- migrate the config: timeout 30 → 60, retries 3 → 5\n\n## Errors and Fixes\n- `TypeError: boom: loader.timeout is undefined` → add a default in `load()`\n\n## Next Step\n- [ ] update the loader\n- [ ] run the tests',
    ),
  );
  expect((await connection.compactSession({ sessionId: main })).compacted).toBe(true);
  // A usage the prompt can have (about 4,200 tokens by our estimate): far fewer would be a server
  // cutting the prompt silently, which the agent answers by shrinking the window and compacting.
  await turn(main, 'What is left to do?', [textResponse('Update the loader defaults, then run the tests again.', { usage: usage(3_900, 25) })]);
  await turn(main, 'Read the config once more.', [toolCallResponse([{ id: 'read-2', name: 'read_file', arguments: '{"path":"config.json"}' }]), textResponse('Unchanged: timeout 30, retries 3.')]);
  summaries.push(textResponse(`## Summary\n${'- a summary that kept every detail instead of condensing it\n'.repeat(400)}`));
  await expect(connection.compactSession({ sessionId: main })).rejects.toMatchObject({ code: 'COMPACTION_FAILED' });
  await turn(main, 'Thanks.', [textResponse('You are welcome.')]);

  storedSession('crashed-session', 'Crashed mid-turn', 300, 'open');
  storedSession('failed-session', 'Rate limited', 300, 'error');
  storedSession('big-session', '100,000 events', 100_000);
  // A session waiting for the person to approve a shell command.
  app.runtime.settings.update({ approvalPolicy: 'ask' });
  const waiting = connection.createSession({ cwd: app.workspace, title: 'Clean the build' }).id;
  answers.push(toolCallResponse([{ id: 'rm-1', name: 'bash', arguments: '{"command":"rm -rf build"}' }]), textResponse('Left the build folder alone.'));
  connection.followup({ sessionId: waiting, text: 'Clean the build folder.' });
  app.runtime.host.broadcast({ kind: 'sessions/changed' });
  await page.reload();
  await page.locator(`[data-testid="session-row"][data-session-id="${waiting}"] [data-testid="session-activity"][data-activity="waiting-approval"]`).waitFor({ timeout: 15_000 });
}, 120_000);

afterAll(async () => {
  connection?.dispose();
  await app?.close();
});

describe('session debugger', () => {
  it('request inspector: exact wire request, response, raw stream, diff, copy as curl', async () => {
    await openSession(main);
    await byTestId('find-button').click();
    await byTestId('find-input').fill('Run the tests.');
    await page.locator('[data-testid="step-marker"][data-turn="2"][data-step="1"]').waitFor();
    await byTestId('find-close').click();
    await page.locator('[data-testid="step-marker"][data-turn="2"][data-step="1"]').getByTestId('request-button').click();
    await byTestId('request-wire').waitFor();
    expect(await byTestId('request-label').textContent()).toBe('step 2.1 · attempt 2');
    expect(await byTestId('request-url').textContent()).toContain(`${app.llm.baseUrl}/chat/completions`);
    // No key is set for the scripted endpoint: the row says none was sent (new-user-4.e2e.ts checks the redacted key).
    expect(await byTestId('request-no-key').textContent()).toContain('No API key was sent');
    // The body shown "as sent" is exactly what the server received for that request.
    await byTestId('request-body-raw').click();
    const received = app.llm.requests.filter((r) => !isSummary(r))[3]!;
    expect(await byTestId('request-body').textContent()).toBe(received.rawBody);
    await byTestId('request-body-pretty').click();
    await byTestId('copy-request-curl').click();
    await page.locator('[data-testid="copy-request-curl"][data-state="copied"]').waitFor();
    const curl = await page.evaluate(() => navigator.clipboard.readText());
    expect(curl).toContain('curl -sS -N');
    expect(curl).toContain('$API_KEY');
    expect(curl).toContain(received.rawBody);
    await both('request-inspector-request');

    await byTestId('request-tab-response').click();
    expect(await byTestId('response-finish').textContent()).toBe('tool-calls');
    expect(await byTestId('response-cached').textContent()).toContain('4.61k');
    await byTestId('request-show-stream').click();
    await byTestId('request-stream').waitFor();
    expect(await page.locator('[data-testid="request-stream"] [data-testid="raw-run"]').count()).toBeGreaterThan(0);
    await both('request-inspector-response');

    await byTestId('request-tab-diff').click();
    expect(await byTestId('diff-prefix').getAttribute('data-held')).toBe('true');
    await byTestId('request-prev').click();
    await page.locator('[data-testid="request-label"]', { hasText: /^step 2\.1$/ }).waitFor();
    await byTestId('request-tab-response').click();
    expect(await byTestId('response-failure').textContent()).toContain('SERVER (HTTP 500)');
    await byTestId('request-tab-diff').click();
    expect(await page.locator('[data-testid="diff-appended"] [data-testid="diff-message"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-role')))).toEqual(['assistant', 'user']);
    await both('request-inspector-diff');
    await byTestId('request-tab-messages').click();
    await page.locator('[data-testid="message-card"][data-source="tool"]').first().waitFor();
    expect(await page.locator('[data-testid="message-card"][data-source="tool"]').first().textContent()).toContain('tool result · todo_write');
    await both('request-inspector-messages');
    await byTestId('request-inspector-close').click();
  });

  it('raw inspector: chunk runs folded, filter by type, search text and seq, jump back to the timeline', async () => {
    await byTestId('find-button').click();
    await byTestId('find-input').fill('todo_write');
    const todoRow = page.locator('[data-testid="tool-row"][data-tool-name="todo_write"]');
    await todoRow.waitFor();
    await byTestId('find-close').click();
    await todoRow.click();
    await byTestId('raw-inspector').waitFor();
    const run = page.locator('[data-testid="raw-inspector"] [data-testid="raw-run"]').first();
    expect(Number(await run.getAttribute('data-count'))).toBeGreaterThan(20);
    expect(await page.locator('[data-testid="raw-inspector"] [data-testid="raw-event"]').count()).toBeLessThan(8);
    await run.getByTestId('raw-run-toggle').click();
    await both('raw-inspector-row');
    await run.getByTestId('raw-run-toggle').click();
    await page.locator('[data-testid="raw-type-chip"][data-type="tool/call"]').click();
    expect(await page.locator('[data-testid="raw-inspector"] [data-testid="raw-event"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-type')))).toEqual(['tool/call']);
    await page.locator('[data-testid="raw-type-chip"][data-type="tool/call"]').click();
    // The whole log, searched by text.
    await byTestId('raw-scope-all').click();
    await byTestId('raw-search').fill('loader.timeout is undefined');
    await page.locator('[data-testid="raw-inspector"] [data-testid="raw-event"][data-type="tool/result"]').first().waitFor();
    await both('raw-inspector-search');
    // A seq jumps both ways: the inspector shows it, "show in timeline" scrolls there.
    const resultSeq = Number(await page.locator('[data-testid="raw-inspector"] [data-testid="raw-event"][data-type="tool/result"]').first().getAttribute('data-seq'));
    await byTestId('raw-search').fill(`#${resultSeq}`);
    await byTestId('raw-search').press('Enter');
    const card = page.locator(`[data-testid="raw-inspector"] [data-testid="raw-event"][data-seq="${resultSeq}"]`);
    await card.waitFor();
    await card.getByTestId('raw-event-show-in-timeline').click();
    await page.locator('[data-testid="timeline-row"].selected [data-testid="tool-row"][data-tool-name="bash"]').waitFor();
    await byTestId('raw-inspector-close').click();
  });

  it('compaction view: summary beside the originals, tokens and window share, a failed attempt with its rejected summary; model view', async () => {
    await byTestId('outline-button').click();
    const items = page.locator('[data-testid="outline-item"][data-kind="compaction"]');
    expect(await items.count()).toBe(2);
    await items.first().locator('button').click();
    await byTestId('outline-button').click();
    const done = page.locator('[data-testid="compaction-row"][data-state="done"]');
    await done.waitFor();
    await done.getByTestId('compaction-toggle').click();
    await done.getByTestId('compaction-view').waitFor();
    await done.evaluate((el) => el.scrollIntoView({ block: 'start' }));
    expect(await done.locator('[data-testid="compaction-summary"] h2').first().textContent()).toBe('Primary Request and Intent');
    expect(await done.locator('[data-testid="compaction-originals"] [data-testid="message-card"]').count()).toBeGreaterThan(4);
    expect(await done.getByTestId('compaction-tokens').textContent()).toMatch(/→/);
    await both('compaction-done');
    await done.getByTestId('compaction-toggle').click();

    await byTestId('outline-button').click();
    await page.locator('[data-testid="outline-item"][data-kind="compaction"]').last().locator('button').click();
    await byTestId('outline-button').click();
    const failed = page.locator('[data-testid="compaction-row"][data-state="failed"]');
    await failed.waitFor();
    expect(await failed.getByTestId('compaction-error-line').textContent()).toContain('not smaller');
    await failed.getByTestId('compaction-toggle').click();
    await failed.getByTestId('compaction-failure').waitFor();
    await failed.evaluate((el) => el.scrollIntoView({ block: 'start' }));
    expect(await failed.locator('[data-testid="compaction-rejected-summary"] li').count()).toBeGreaterThan(100);
    await both('compaction-failed');
    await failed.getByTestId('compaction-toggle').click();

    await byTestId('toggle-model-view').check();
    await byTestId('model-view-note').waitFor();
    const first = page.locator('[data-testid="timeline-row"]').first();
    await page.locator('[data-testid="timeline"]').evaluate((el) => (el.scrollTop = 0));
    await page.waitForTimeout(100);
    expect(await first.getAttribute('data-kind')).toBe('compaction');
    // No empty markers: every step marker is followed by content.
    const kinds = await page.locator('[data-testid="timeline-row"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')));
    kinds.forEach((kind, i) => {
      if (kind === 'step') expect(['user', 'text', 'reasoning', 'tool']).toContain(kinds[i + 1]);
    });
    expect(kinds).not.toContain('retry');
    await both('model-view');
    await byTestId('toggle-model-view').uncheck();
    if (await byTestId('raw-inspector').isVisible()) await byTestId('raw-inspector-close').click();
  });

  it('markdown: tables, task lists and highlighted code in answers; todo_write as a checklist; previews at word boundaries', async () => {
    await byTestId('find-button').click();
    await byTestId('find-input').fill('Plan for the config migration');
    const answer = page.locator('[data-testid="assistant-text"]', { has: page.locator('table') });
    await answer.waitFor();
    await byTestId('find-close').click();
    expect(await answer.locator('table th').allTextContents()).toEqual(['setting', 'before', 'after']);
    expect(await answer.locator('input[type="checkbox"]').count()).toBe(3);
    expect(await answer.locator('input[type="checkbox"]:checked').count()).toBe(1);
    expect(await answer.locator('pre code .hljs-keyword').count()).toBeGreaterThan(0);
    expect(await answer.textContent()).not.toContain('|---|');
    const todo = page.locator('[data-testid="tool-row"][data-tool-name="todo_write"]');
    expect(await todo.getByTestId('tool-summary').textContent()).toBe('1/3 done · now: Update the loader defaults');
    await todo.getByTestId('tool-toggle').click();
    await todo.getByTestId('todo-checklist').waitFor();
    expect(await todo.locator('[data-testid="todo-item"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-status')))).toEqual(['completed', 'in_progress', 'pending']);
    const previews = await page.locator('[data-testid="reasoning-preview"]').allTextContents();
    expect(previews.length).toBeGreaterThan(0);
    const words = new Set(`${REASONING_1} ${REASONING_2}`.split(' '));
    for (const preview of previews) expect(words, preview).toContain(preview.replace(/^…/, '').split(' ')[0]);
    expect(previews.some((p) => p.startsWith('…'))).toBe(true);
    await both('markdown-and-todos');
    await todo.getByTestId('tool-toggle').click();
  });

  it('finding things: full-text search from the sidebar opens the session at the hit; status badges; find reaches unrendered rows; outline', async () => {
    // Sidebar statuses.
    expect(await page.locator('[data-testid="session-row"][data-session-id="crashed-session"] [data-testid="session-activity"]').getAttribute('data-activity')).toBe('crashed');
    expect(await page.locator('[data-testid="session-row"][data-session-id="failed-session"] [data-testid="session-activity"]').getAttribute('data-activity')).toBe('failed');
    // Full-text search over every session's messages and tool output.
    await openSession('failed-session');
    await byTestId('sidebar-search').fill('TypeError');
    const hit = page.locator(`[data-testid="search-hit"][data-session-id="${main}"]`, { hasText: 'tool output' }).first();
    await hit.waitFor();
    expect(await hit.locator('mark').first().textContent()).toBe('TypeError');
    await both('sidebar-search');
    await hit.click();
    await page.locator('[data-testid="session-name"]', { hasText: 'Config migration' }).waitFor();
    await page.locator('[data-testid="timeline-row"].selected').waitFor();
    expect(await page.locator('[data-testid="timeline-row"].selected').getAttribute('data-kind')).toBe('tool');
    expect(await page.locator('[data-testid="timeline-row"].selected [data-testid="tool-row"]').getAttribute('data-tool-name')).toBe('bash');
    await byTestId('sidebar-search').fill('');

    // In-session find reaches rows the virtual list has not rendered.
    await openSession('big-session');
    await byTestId('load-all').click();
    await page.waitForFunction(() => !document.querySelector('[data-testid="earlier-bar"]'), undefined, { timeout: 30_000 });
    await byTestId('find-button').click();
    await byTestId('find-input').fill('question 3: how does module 3 work');
    await page.locator('[data-testid="find-count"]', { hasText: '1 of 1' }).waitFor();
    await page.locator('[data-testid="timeline-row"][data-find="current"]').waitFor();
    expect(await page.locator('[data-testid="timeline-row"][data-find="current"]').textContent()).toContain('question 3:');
    await both('find-in-session');
    await byTestId('find-close').click();
    // The outline jumps to a turn; context meters show the request against the window.
    await byTestId('outline-button').click();
    await page.locator('[data-testid="outline-item"][data-turn="40"] button').scrollIntoViewIfNeeded();
    await page.locator('[data-testid="outline-item"][data-turn="40"] button').click();
    await page.locator('[data-testid="turn-rule"][data-turn="40"]').waitFor();
    const meter = page.locator('[data-testid="step-marker"][data-turn="40"] [data-testid="context-meter"]');
    expect(await meter.textContent()).toMatch(/^\d+% of 128k$/);
    await both('outline-and-context-meter');
    await byTestId('outline-button').click();
  });

  it('opens a 100,000-event session at once: newest rows first, earlier ones on demand', async () => {
    await page.reload();
    await page.locator('[data-testid="session-row"][data-session-id="big-session"]').waitFor();
    const t0 = Date.now();
    await openSession('big-session');
    const ms = Date.now() - t0;
    await byTestId('earlier-bar').waitFor();
    const events = app.runtime.store.get('big-session')!.eventCount;
    const loaded = await page.locator('[data-testid="session-view"] .session-events').textContent();
    expect(loaded).toBe(`${events} events`);
    // The newest turn is on screen without loading the whole log.
    const lastTurn = (app.runtime.store.readRange('big-session', events - 1, events)[0] as SessionEvent<'turn/end'>).data.turn;
    await page.locator(`[data-testid="turn-end"][data-turn="${lastTurn}"]`).waitFor();
    expect(await byTestId('earlier-bar').textContent()).toMatch(/earlier events? not loaded/);
    // The envelope in effect at the tail (logged at the very start) still gives each step its context meter.
    await page.locator(`[data-testid="step-marker"][data-turn="${lastTurn}"] [data-testid="context-meter"][data-share]`).waitFor();
    expect(await page.locator(`[data-testid="step-marker"][data-turn="${lastTurn}"] [data-testid="context-meter"]`).textContent()).toBe('94% of 128k');
    console.log(`big session: first rows after ${ms} ms`);
    await both('big-session-tail');
    const before = await byTestId('earlier-bar').textContent();
    await byTestId('load-earlier').click();
    await page.waitForFunction((text) => document.querySelector('[data-testid="earlier-bar"]')?.textContent !== text, before);
    expect(await page.locator('[data-testid="turn-rule"]').count()).toBeGreaterThan(0);
  });

  it('sidebar badges show running, waiting for approval, crashed and failed sessions', async () => {
    const activities = await page.locator('[data-testid="session-activity"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-activity')));
    expect(new Set(activities)).toEqual(new Set(['waiting-approval', 'crashed', 'failed']));
    await both('sidebar-status');
  });
});
