/**
 * Providers in the UI (issue 9), in Debian's Chromium against browser mode and the scripted model
 * server: a server that truncates the prompt silently shows a warning on that step of the timeline
 * (with log events hidden, as by default); the Settings dialog lists the endpoint's models with
 * their windows, saves a per-model context window and max output, and tests the connection,
 * showing the provider's exact error. Screenshots: test-results/providers-*.png.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpError, textResponse, toolCallResponse, usage } from '../support/scripted-llm/index.js';
import { startE2eApp, type E2eApp } from './support/e2e-harness.js';
import { pressEnterOn } from './support/keyboard-focus.js';
import { layoutProblems } from './support/layout-checks.js';

let app: E2eApp;
let page: Page;

beforeAll(async () => {
  app = await startE2eApp({
    approvalPolicy: 'allow',
    models: ['scripted-model', { id: 'big-model', object: 'model', context_length: 131072, top_provider: { max_completion_tokens: 16384 } }],
  });
  page = await app.openPage();
  writeFileSync(join(app.workspace, 'big.txt'), 'a long line of text that fills the context window\n'.repeat(500));
});
afterAll(async () => {
  await app?.close();
});

const byTestId = (id: string) => page.getByTestId(id);

describe('providers in the UI', () => {
  it('a silently truncated prompt shows a warning on its step in the timeline', async () => {
    const connection = app.runtime.host.connect(() => undefined);
    const session = connection.createSession({ cwd: app.workspace });
    connection.dispose();
    await page.reload();
    await page.locator(`[data-testid="session-row"][data-session-id="${session.id}"]`).click();
    await byTestId('session-view').waitFor();
    app.llm.enqueue(
      toolCallResponse([{ id: 'read-big', name: 'read_file', arguments: '{"path":"big.txt"}' }], { usage: usage(1900, 20) }),
      textResponse('The file seems to repeat one line.', { usage: usage(2051, 12) }),
    );
    await byTestId('composer-input').fill('What is in big.txt?');
    await byTestId('composer-send').click();
    await page.locator('[data-testid="turn-end"][data-turn="1"]').waitFor({ timeout: 15_000 });
    const warning = page.locator('[data-testid="warning-row"][data-code="PROMPT_TRUNCATED"]');
    await warning.waitFor();
    await warning.scrollIntoViewIfNeeded();
    const text = (await warning.textContent()) ?? '';
    expect(text).toContain('the server counted 2051 prompt tokens');
    expect(text).toContain('What to do:');
    expect(text).toContain('--context-window');
    // It sits on step 2: after that step's answer, before the turn's end.
    const order = await page.locator('[data-testid="warning-row"], [data-testid="turn-end"], [data-testid="tool-row"]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-testid')));
    expect(order).toEqual(['tool-row', 'warning-row', 'turn-end']);
    await app.screenshot('providers-01-truncation-warning');
  });

  it('settings shows the window the cut prompt suggested as seen once, not used yet, and Forget drops it (keyboard)', async () => {
    await page.setViewportSize({ width: 1000, height: 700 });
    await pressEnterOn(byTestId('settings-button'));
    await byTestId('settings-dialog').waitFor();
    const note = byTestId('settings-learned-limit');
    await note.waitFor();
    expect(await note.getAttribute('data-in-force')).toBe('false');
    expect(await note.textContent()).toContain('Seen once, not used yet: a context window of 2,063 tokens');
    // New sessions still get no window from one count (the host's own view of the model in force).
    expect((await app.runtime.host.modelConfig()).contextSource).not.toBe('learned');
    await note.scrollIntoViewIfNeeded();
    await app.screenshot('providers-02-learned-limit-seen-once');
    expect(await layoutProblems(page)).toEqual([]);
    await pressEnterOn(byTestId('settings-forget-learned-limit'));
    await note.waitFor({ state: 'detached' });
    expect(app.runtime.host.limitStore.all()).toEqual({});
    await page.keyboard.press('Escape');
    await byTestId('settings-dialog').waitFor({ state: 'detached' });
    await page.setViewportSize({ width: 1400, height: 900 });
  });

  it("settings: lists the endpoint's models, saves per-model limits, tests the connection with the exact error", async () => {
    await byTestId('settings-button').click();
    await byTestId('settings-dialog').waitFor();
    await byTestId('settings-list-models').click();
    await byTestId('settings-model-source').waitFor();
    expect(await byTestId('settings-model-source').textContent()).toMatch(/2 models listed; numbers from GET .*\/models \(context_length, top_provider.max_completion_tokens\)/);
    await byTestId('settings-model').fill('big-model');
    expect(await byTestId('settings-context-window').getAttribute('placeholder')).toBe('published: 131072');
    expect(await byTestId('settings-max-output').getAttribute('placeholder')).toBe('published: 16384');

    app.llm.enqueue(textResponse('OK'));
    await byTestId('settings-test-connection').click();
    await page.locator('[data-testid="settings-test-result"][data-ok="true"]').waitFor();
    expect(await byTestId('settings-test-result').textContent()).toMatch(/^Connected: big-model answered in \d+ ms\.$/);
    expect(app.llm.requests.at(-1)!.body.max_tokens).toBe(16);

    app.llm.enqueue(
      httpError(401, {
        error: { message: 'Incorrect API key provided: sk-bad. You can find your API key at https://platform.openai.com/account/api-keys.', type: 'invalid_request_error', code: 'invalid_api_key' },
      }),
    );
    await byTestId('settings-test-connection').click();
    await page.locator('[data-testid="settings-test-result"][data-ok="false"]').waitFor();
    expect(await byTestId('settings-test-result').textContent()).toBe(
      'Failed (AUTH): 401 Incorrect API key provided: sk-bad. You can find your API key at https://platform.openai.com/account/api-keys.',
    );

    await byTestId('settings-context-window').fill('32k');
    expect(await byTestId('settings-save').isDisabled()).toBe(true);
    expect(await byTestId('settings-limits-hint').textContent()).toContain('whole number');
    await byTestId('settings-context-window').fill('32000');
    await byTestId('settings-max-output').fill('4000');
    await app.screenshot('providers-02-settings-models');
    await byTestId('settings-save').click();
    await byTestId('settings-dialog').waitFor({ state: 'detached' });
    const view = app.runtime.settings.view();
    expect(view.active.model).toBe('big-model');
    expect(view.modelLimits).toEqual([{ baseUrl: app.llm.baseUrl, model: 'big-model', contextWindow: 32000, maxOutputTokens: 4000 }]);
    // The next request of a session runs with them.
    expect(await app.runtime.host.modelConfig()).toMatchObject({ model: 'big-model', contextWindow: 32000, contextSource: 'setting', maxTokens: 4000 });

    // Reopened, the dialog shows what was saved.
    await byTestId('settings-button').click();
    await byTestId('settings-dialog').waitFor();
    expect(await byTestId('settings-context-window').inputValue()).toBe('32000');
    expect(await byTestId('settings-max-output').inputValue()).toBe('4000');
    await byTestId('settings-dialog-close').click();
  });
});
