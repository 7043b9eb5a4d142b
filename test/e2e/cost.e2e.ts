/**
 * Cost in the app (issue 22), end to end in Chromium against browser mode (the real host, store,
 * price book and spend guard; the real `openai` client against the scripted model server), at
 * 1000×700:
 * - Settings → Prices: a non-numeric or negative price is refused naming its field; a valid price
 *   for the scripted model is added (and edited, and an extra one removed);
 * - live meters while a turn runs: the session header (elapsed, cost, tokens), the sidebar row
 *   (clock, cost), the activity line (turn cost, approval wait apart from tool time);
 * - after the turn: the turn-end row's cost, the sidebar's cost, the step's and tool's time
 *   without the approval wait, the request inspector's Response tab cost;
 * - a per-session budget set in the header stops the next request; the budget stop offers
 *   "Raise budget and continue", which sets the higher budget and runs the next turn.
 * Screenshots: test-results/cost-*.png.
 */
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/events.js';
import { textResponse, toolCallResponse, usage } from '../support/scripted-llm/index.js';
import { startE2eApp, type E2eApp } from './support/e2e-harness.js';

let app: E2eApp;
let page: Page;
let sessionId: string;

beforeAll(async () => {
  app = await startE2eApp({ approvalPolicy: 'ask', viewport: { width: 1000, height: 700 } });
  // A known output cap for the scripted model, so that a budget can be kept (its worst case is bounded).
  app.runtime.host.options.settings.update({ modelLimits: { baseUrl: app.llm.baseUrl, model: 'scripted-model', maxOutputTokens: 500 } });
  page = app.page;
});
afterAll(async () => {
  await app?.close();
});

const byTestId = (id: string): Locator => page.getByTestId(id);
const log = (): readonly SessionEvent[] => app.runtime.host.agentFor(sessionId)?.session.events ?? app.runtime.store.readAll(sessionId);
async function send(text: string): Promise<void> {
  await byTestId('composer-input').fill(text);
  await byTestId('composer-send').click();
}
async function idle(): Promise<void> {
  await page.locator('[data-testid="session-status"][data-status="idle"]').waitFor({ timeout: 20_000 });
}
const sidebarRow = (): Locator => page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"]`);

describe('cost in the app', () => {
  it('opens a session in the workspace', async () => {
    await byTestId('new-session-button').click();
    await byTestId('folder-browser').waitFor();
    await byTestId('folder-path').fill(app.workspace);
    await byTestId('folder-path').press('Enter');
    await page.waitForFunction(() => !document.querySelector('[data-testid="folder-list"][aria-busy="true"]'));
    await byTestId('folder-choose').click();
    await byTestId('session-view').waitFor();
    sessionId = (await page.locator('[data-testid="session-row"][data-selected="true"]').getAttribute('data-session-id'))!;
    expect(sessionId).toBeTruthy();
  });

  it('Settings → Prices refuses a bad price naming the field, then adds, edits and removes prices', async () => {
    await byTestId('settings-button').click();
    await byTestId('prices-section').waitFor();
    await byTestId('prices-empty').waitFor();
    await byTestId('price-add').click();
    // The form starts with the active endpoint and model.
    expect(await byTestId('price-field-model').inputValue()).toBe('scripted-model');
    expect(await byTestId('price-field-baseUrl').inputValue()).toBe(app.llm.baseUrl);
    await byTestId('price-field-inputMtok').fill('abc');
    await byTestId('price-field-outputMtok').fill('8');
    await byTestId('price-save').click();
    expect(await byTestId('price-error').textContent()).toBe('input price: "abc" is not a number (USD per million tokens)');
    expect(await byTestId('price-field-inputMtok').getAttribute('aria-invalid')).toBe('true');
    await byTestId('price-field-inputMtok').fill('2');
    await byTestId('price-field-outputMtok').fill('-1');
    await byTestId('price-field-outputMtok').press('Enter');
    expect(await byTestId('price-error').textContent()).toBe('output price must not be negative (got -1)');
    // The host checks too: a negative price sent directly is refused naming its field.
    expect(() => app.runtime.host.options.settings.update({ prices: [{ model: 'x', inputMtok: -2, outputMtok: 1 }] })).toThrow('prices[0].inputMtok: must not be negative (got -2)');
    await byTestId('price-field-outputMtok').fill('8');
    await byTestId('price-field-cacheReadMtok').fill('0.5');
    await byTestId('price-save').click();
    await byTestId('price-row').first().waitFor();
    expect(await byTestId('price-row').count()).toBe(1);
    // A second price, then edited, then removed.
    await byTestId('price-add').click();
    await byTestId('price-field-baseUrl').fill('');
    await byTestId('price-field-model').fill('other-model');
    await byTestId('price-field-inputMtok').fill('1');
    await byTestId('price-field-outputMtok').fill('3');
    await byTestId('price-save').click();
    await page.locator('[data-testid="price-row"][data-model="other-model"]').waitFor();
    await page.locator('[data-testid="price-row"][data-model="other-model"]').getByTestId('price-edit').click();
    await byTestId('price-field-outputMtok').fill('4');
    await byTestId('price-save').click();
    await page.locator('[data-testid="price-row"][data-model="other-model"] td', { hasText: '$4' }).waitFor();
    await byTestId('prices-section').scrollIntoViewIfNeeded();
    await app.screenshot('cost-settings-prices');
    await page.locator('[data-testid="price-row"][data-model="other-model"]').getByTestId('price-remove').click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="price-row"]').length === 1);
    const saved = app.runtime.host.options.settings.view().prices;
    expect(saved).toEqual([{ baseUrl: app.llm.baseUrl, model: 'scripted-model', inputMtok: 2, outputMtok: 8, cacheReadMtok: 0.5 }]);
    await page.keyboard.press('Escape');
    await byTestId('settings-dialog').waitFor({ state: 'detached' });
  });

  it('shows live meters while a turn runs, with the approval wait apart, then the costs', async () => {
    app.llm.enqueue(
      // Step 1: 1000 input (400 cached) + 100 output → 600×2 + 400×0.5 + 100×8 = $0.0022 per million… i.e. $0.002200.
      toolCallResponse([{ id: 'echo-1', name: 'bash', arguments: JSON.stringify({ command: 'echo hello' }) }], { usage: usage(1000, 100, { cached: 400 }) }),
      // Step 2: 1200 input + 50 output → $0.0024 + $0.0004 = $0.002800; streamed slowly so the turn stays running.
      textResponse('Said hello.', { usage: usage(1200, 50), frameDelayMs: 300 }),
    );
    await send('Say hello with echo.');
    const item = page.locator('[data-testid="approval-item"][data-call-id="echo-1"]');
    await item.waitFor({ timeout: 20_000 });
    // Live: the header meter and the sidebar row tick and show the cost of step 1; the activity line shows the wait.
    await byTestId('meter-elapsed').waitFor();
    await page.locator('[data-testid="meter-cost"]', { hasText: '$0.002200' }).waitFor({ timeout: 10_000 });
    await sidebarRow().getByTestId('session-elapsed').waitFor();
    await sidebarRow().locator('[data-testid="session-cost-usd"]', { hasText: '$0.0022' }).waitFor();
    await page.locator('[data-testid="activity-cost"]', { hasText: '$0.002200' }).waitFor();
    await page.locator('[data-testid="activity-approval-wait"]').waitFor({ timeout: 5_000 });
    await page.waitForTimeout(1_500);
    expect(await byTestId('activity-approval-wait').textContent()).toMatch(/^approval wait \d+ s$/);
    expect(await byTestId('activity-cost').textContent()).toBe('$0.002200 · 1.10k tokens');
    await app.screenshot('cost-live-meters');
    await item.getByTestId('approval-allow').click();
    // Step 2 streams; the meters keep going.
    await page.locator('[data-testid="turn-end"][data-turn="1"]').waitFor({ timeout: 20_000 });
    await idle();
    const end = page.locator('[data-testid="turn-end"][data-turn="1"]');
    expect(await end.getByTestId('turn-end-cost').textContent()).toBe('$0.005000');
    expect(await end.getByTestId('turn-end-tokens').textContent()).toBe('in 2.20k (400 cached) · out 150');
    await sidebarRow().locator('[data-testid="session-cost-usd"]', { hasText: '$0.0050' }).waitFor();
    await page.locator('[data-testid="meter-cost"]', { hasText: '$0.005000' }).waitFor();
    expect(await sidebarRow().getByTestId('session-elapsed').count()).toBe(0);
    // The wait for the click is not the tool's time: shown apart, on the tool and on its step.
    const tool = page.locator('[data-testid="tool-row"]').filter({ has: page.locator('[data-testid="tool-approval-wait"]') });
    expect(await tool.getByTestId('tool-approval-wait').textContent()).toMatch(/^waited \d+\.\d+ s for approval$/);
    const waitMs = parseSeconds((await tool.getByTestId('tool-approval-wait').textContent())!.replace(/^waited (.*) for approval$/, '$1'));
    expect(waitMs).toBeGreaterThan(1_500);
    const toolMs = parseSeconds(await tool.getByTestId('tool-duration').textContent());
    expect(toolMs).toBeLessThan(waitMs);
    await page.locator('[data-testid="step-marker"][data-turn="1"][data-step="1"] [data-testid="step-approval-wait"]').waitFor();
    const stepMs = parseSeconds(await page.locator('[data-testid="step-marker"][data-turn="1"][data-step="1"]').getByTestId('step-duration').textContent());
    const stepWaitMs = parseSeconds(
      (await page.locator('[data-testid="step-marker"][data-turn="1"][data-step="1"]').getByTestId('step-approval-wait').textContent())!.replace(/^\+(.*) approval$/, '$1'),
    );
    expect(stepWaitMs).toBe(waitMs);
    // The step's own time leaves the wait out: it is less than the step took in all.
    const stepRow = log()
      .filter((e) => e.type === 'step/start' || e.type === 'step/end')
      .slice(0, 2);
    expect(stepMs).toBeLessThan(stepRow[1]!.time - stepRow[0]!.time - waitMs + 50);
    await app.screenshot('cost-after-turn');
    // The request inspector's Response tab: the step's cost and its parts.
    await page.locator('[data-testid="step-marker"][data-turn="1"][data-step="1"]').getByTestId('request-button').click();
    await byTestId('request-inspector').waitFor();
    await byTestId('request-tab-response').click();
    const cost = await byTestId('response-cost').textContent();
    expect(cost).toBe('$0.002200 (input $0.001200 · cached $0.000200 · output $0.000800)');
    expect(await byTestId('response-input').textContent()).toBe('1.00k tokens (600 uncached)');
    await app.screenshot('cost-response-tab');
    await byTestId('request-inspector-close').click();
  });

  it('a budget set in the header stops the next request; raise and continue runs the turn', async () => {
    await byTestId('budget-button').click();
    await byTestId('budget-input').fill('abc');
    await byTestId('budget-input').press('Enter');
    expect(await byTestId('budget-error').textContent()).toBe('budget (USD): "abc" is not a number');
    await byTestId('budget-input').fill('0.006');
    await byTestId('budget-input').press('Enter');
    await page.locator('[data-testid="budget-button"]', { hasText: 'budget $0.006' }).waitFor();
    expect(await byTestId('budget-button').textContent()).toBe('budget $0.006 · 83%');
    expect(app.runtime.host.options.settings.sessionBudget(sessionId)).toEqual({ sessionUsd: 0.006 });
    await send('And once more.');
    const end = page.locator('[data-testid="turn-end"][data-turn="2"]');
    await end.waitFor({ timeout: 20_000 });
    expect(await end.getAttribute('data-reason')).toBe('budget');
    await idle();
    expect(await end.getByTestId('budget-stop-message').textContent()).toMatch(
      /^Stopped by the session budget before anything was sent: the next request could cost up to \$0\.00\d{4}, and the session has spent \$0\.005000 of its \$0\.006000\.$/,
    );
    // Nothing was sent for turn 2.
    expect(app.llm.requests.length).toBe(2);
    await app.screenshot('cost-budget-stop');
    await end.getByTestId('budget-raise').click();
    const input = end.getByTestId('budget-input');
    await expect.poll(async () => page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('budget-input');
    const raised = Number(await input.inputValue());
    expect(raised).toBeGreaterThan(0.012);
    app.llm.enqueue(textResponse('Done again.', { usage: usage(1100, 20) }));
    await input.press('Enter');
    await page.locator('[data-testid="turn-end"][data-turn="3"]').waitFor({ timeout: 20_000 });
    expect(await page.locator('[data-testid="turn-end"][data-turn="3"]').getAttribute('data-reason')).toBe('completed');
    await idle();
    expect(app.runtime.host.options.settings.sessionBudget(sessionId)?.sessionUsd).toBe(raised);
    const userTexts = log()
      .filter((e) => e.type === 'user/message')
      .map((e) => JSON.stringify(e.data));
    expect(userTexts.at(-1)).toContain('Continue where you stopped.');
    await app.screenshot('cost-budget-continued');
  });

  it('keeps the sidebar costs at 1440×900 too', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await sidebarRow().locator('[data-testid="session-cost-usd"]').waitFor();
    expect(await sidebarRow().getByTestId('session-cost-usd').textContent()).toMatch(/^\$0\.0\d{3}$/);
    await app.screenshot('cost-sidebar-1440');
    await page.setViewportSize({ width: 1000, height: 700 });
  });
});

/** `0.42 s`, `312 ms` → ms. */
function parseSeconds(text: string | null): number {
  const t = (text ?? '').trim();
  const m = /^([\d.]+) (ms|s)$/.exec(t);
  if (!m) throw new Error(`not a duration: ${t}`);
  return Number(m[1]) * (m[2] === 's' ? 1000 : 1);
}
