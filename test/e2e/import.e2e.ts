/**
 * Importing another agent's log in the browser (issue 12), in Debian's Chromium against browser
 * mode: drop a Claude Code transcript on the window, see the summary toast and its timeline (tool
 * results and thinking folded; Send and Compact off with a read-only banner), then "Continue in
 * Forkline" into a folder: the child is a live session whose first request to the scripted model
 * carries the imported conversation. Screenshots of each view go to test-results/.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textResponse } from '../support/scripted-llm/index.js';
import { AGENT_LOGS } from '../support/import-fixtures.js';
import { startE2eApp, type E2eApp } from './support/e2e-harness.js';

let app: E2eApp;
let page: Page;

beforeAll(async () => {
  app = await startE2eApp({ approvalPolicy: 'allow' });
  page = app.page;
});
afterAll(async () => {
  await app?.close();
});

/**
 * A real Claude Code transcript (cc_hello-world-script) with the model's thinking recorded as
 * Claude Code writes it: a `thinking` block in its own assistant record sharing the response's
 * `message.id` (the fixture was recorded with thinking off).
 */
function transcriptWithThinking(): string {
  const lines = readFileSync(join(AGENT_LOGS, 'claude-code', 'cc_hello-world-script.jsonl'), 'utf8')
    .trimEnd()
    .split('\n');
  const firstAssistant = JSON.parse(lines[2]!) as { uuid: string; parentUuid: string; timestamp: string; message: { content: unknown[] } };
  const thinking = {
    ...firstAssistant,
    uuid: 'f0a7d2c4-0000-4000-8000-000000000001',
    timestamp: '2026-01-21T06:20:32.900Z',
    message: {
      ...firstAssistant.message,
      content: [
        {
          type: 'thinking',
          thinking: 'The user wants a script hello.sh that prints "Hello world". I will write it with the Write tool, then make it executable and run it with Bash.',
          signature: 'EqkB…',
        },
      ],
    },
  };
  const withParent = { ...firstAssistant, parentUuid: thinking.uuid };
  lines.splice(2, 1, JSON.stringify(thinking), JSON.stringify(withParent));
  return `${lines.join('\n')}\n`;
}

async function dropFile(name: string, text: string): Promise<void> {
  const transfer = await page.evaluateHandle(
    ({ name, text }) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], name, { type: 'application/x-ndjson' }));
      return dt;
    },
    { name, text },
  );
  await page.dispatchEvent('[data-testid="app"]', 'dragenter', { dataTransfer: transfer });
  await page.dispatchEvent('[data-testid="app"]', 'dragover', { dataTransfer: transfer });
  await page.getByTestId('import-drop-overlay').waitFor();
  await app.screenshot('import-01-drop-overlay');
  await page.dispatchEvent('[data-testid="app"]', 'drop', { dataTransfer: transfer });
}

describe('importing a Claude Code log in the browser', () => {
  it('drop a log on the window: summary toast, timeline with folded tool results and thinking, read-only', async () => {
    await page.getByTestId('sidebar').waitFor();
    await dropFile('claude-session.jsonl', transcriptWithThinking());
    const toast = page.locator('[data-testid="toast"][data-tone="info"]').filter({ hasText: 'Imported claude-session.jsonl' });
    await toast.waitFor();
    const detail = await toast.getByTestId('toast-detail').textContent();
    expect(detail).toContain('1 turn · 4 steps · 2 user messages · 4 assistant messages · 2 tool calls / 2 results');
    expect(detail).toContain('tokens: 3 in, 29 out');
    await page.getByTestId('session-view').waitFor();
    await page.getByTestId('imported-banner').waitFor();
    expect(await page.getByTestId('imported-banner').textContent()).toContain('Imported from Claude Code 2.1.14 (claude-session.jsonl)');
    expect(await page.getByTestId('import-drop-overlay').count()).toBe(0);

    // Tool results and thinking are folded; they open on demand.
    const tools = page.getByTestId('tool-row');
    await tools.first().waitFor();
    expect(await tools.count()).toBe(2);
    expect(await page.locator('[data-testid="tool-row"][data-tool-name="Write"] [data-testid="tool-toggle"]').getAttribute('aria-expanded')).toBe('false');
    expect(await page.getByTestId('tool-body').count()).toBe(0);
    const reasoning = page.getByTestId('reasoning-row');
    expect(await reasoning.count()).toBe(1);
    expect(await reasoning.getByTestId('reasoning-toggle').getAttribute('aria-expanded')).toBe('false');
    expect(await page.getByTestId('turn-end').getAttribute('data-reason')).toBe('completed');

    // Read-only: Send and Compact are off, and say why.
    expect(await page.getByTestId('composer-input').isDisabled()).toBe(true);
    // Said once, in the hint the box is described by (not again in its placeholder).
    expect(await page.locator('#composer-hint').textContent()).toContain('imported from another agent');
    expect(await page.getByTestId('composer-input').getAttribute('aria-describedby')).toBe('composer-hint');
    expect(await page.getByTestId('composer-input').getAttribute('placeholder')).not.toContain('Read-only');
    expect(await page.getByTestId('compact-button').isDisabled()).toBe(true);
    // The badge is compact (the format's first word); its tooltip names the whole format.
    const badge = page.locator('[data-testid="session-row"][data-selected="true"] [data-testid="session-imported"]');
    expect(await badge.textContent()).toBe('claude');
    expect(await badge.getAttribute('title')).toContain('imported from claude-code');
    await app.screenshot('import-02-imported-timeline');

    await page.locator('[data-testid="tool-row"][data-tool-name="Bash"] [data-testid="tool-toggle"]').click();
    await page.getByTestId('tool-body').waitFor();
    expect(await page.getByTestId('tool-body').textContent()).toContain('Hello world');
    await reasoning.getByTestId('reasoning-toggle').click();
    expect(await reasoning.textContent()).toContain('I will write it with the Write tool');
    await app.screenshot('import-03-expanded-tool-and-thinking');
  });

  it('Continue in Forkline: pick a folder, get a live session whose request history is the imported conversation', async () => {
    const importedId = (await page.locator('[data-testid="session-row"][data-selected="true"]').getAttribute('data-session-id'))!;
    await page.getByTestId('continue-in-forkline').click();
    await page.getByTestId('folder-browser').waitFor();
    await page.getByTestId('folder-path').fill(app.workspace);
    await page.getByTestId('folder-path').press('Enter');
    await page.waitForFunction(() => !document.querySelector('[data-testid="folder-list"][aria-busy="true"]'));
    await app.screenshot('import-04-continue-choose-folder');
    await page.getByTestId('folder-choose').click();

    await page.waitForFunction((id) => {
      const row = document.querySelector('[data-testid="session-row"][data-selected="true"]');
      return row !== null && row.getAttribute('data-session-id') !== id;
    }, importedId);
    const childId = (await page.locator('[data-testid="session-row"][data-selected="true"]').getAttribute('data-session-id'))!;
    const child = app.runtime.repository.get(childId)!;
    expect(child.header).toMatchObject({ parentSession: importedId, cwd: app.workspace });
    expect(child.header.origin).toBeUndefined();
    await page.getByTestId('imported-banner').waitFor({ state: 'detached' });
    expect(await page.getByTestId('composer-input').isDisabled()).toBe(false);
    expect(await page.getByTestId('tool-row').count()).toBe(2);

    app.llm.enqueue(textResponse('Run it twice: ./hello.sh; ./hello.sh'));
    await page.getByTestId('composer-input').fill('How do I print it twice?');
    // The summary toast is still up; it must not cover Send (a click would wait for it to go).
    await page.getByTestId('composer-send').click({ timeout: 5000 });
    await page.locator('[data-testid="turn-end"][data-turn="2"]').waitFor({ timeout: 15_000 });
    await app.screenshot('import-05-continued-session');

    const body = JSON.parse(app.llm.requests.at(-1)!.rawBody) as { messages: { role: string; content: string; tool_calls?: { id: string }[]; reasoning_content?: string }[] };
    const history = body.messages.filter((m) => m.role !== 'system');
    expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'user', 'assistant', 'user']);
    expect(history[0]!.content).toBe('Write a shell script called hello.sh that prints "Hello world" and run it.');
    expect(history[1]!.tool_calls!.map((c) => c.id)).toEqual(['toolu_01R3SZZYuAq6mou5RqHE4rzF']);
    expect(history.at(-1)!.content).toBe('How do I print it twice?');
  });
});
