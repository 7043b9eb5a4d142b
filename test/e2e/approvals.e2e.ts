/**
 * Approvals show the change (issue 11), end to end in Chromium against browser mode (the real host,
 * store and agents; the real `openai` client against the scripted model server):
 * - an edit approval shows its unified diff; an edit that would fail is never asked;
 * - a command approval shows the command and its folder; "allow for this session" (with the
 *   command prefix) stops the next prompt for such commands, and is logged as `approval/rule`;
 * - a write approval for a new file shows it as created; "Allow write_file for this session" stops
 *   the next write prompt.
 * Screenshots: test-results/30-approval-edit-diff.png, 31-approval-command.png,
 * 32-after-allow-session.png, 33-approval-new-file.png.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOfType, type SessionEvent } from '../../shared/events.js';
import { textResponse, toolCallResponse } from '../support/scripted-llm/index.js';
import { startE2eApp, type E2eApp } from './support/e2e-harness.js';

let app: E2eApp;
let page: Page;
let sessionId: string;

beforeAll(async () => {
  app = await startE2eApp({ approvalPolicy: 'ask' });
  page = app.page;
  writeFileSync(join(app.workspace, 'sum.js'), 'export function sum(xs) {\n  let total;\n  for (const x of xs) total = (total ?? 0) + x;\n  return total;\n}\n');
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
async function turnEnded(turn: number): Promise<void> {
  const end = page.locator(`[data-testid="turn-end"][data-turn="${turn}"]`);
  await end.waitFor({ timeout: 20_000 });
  expect(await end.getAttribute('data-reason')).toBe('completed');
  // The agent stays busy until its after-turn checkpoint is taken; the next prompt is a follow-up, not steering.
  await page.locator('[data-testid="session-status"][data-status="idle"]').waitFor({ timeout: 20_000 });
}
const pendingItem = (callId: string): Locator => page.locator(`[data-testid="approval-item"][data-call-id="${callId}"]`);

describe('approvals show the change', () => {
  it('opens a session in the workspace', async () => {
    await byTestId('new-session-button').click();
    await byTestId('folder-browser').waitFor();
    await byTestId('folder-path').fill(app.workspace);
    await byTestId('folder-path').press('Enter');
    await page.waitForFunction(() => !document.querySelector('[data-testid="folder-list"][aria-busy="true"]'));
    await byTestId('folder-choose').click();
    await byTestId('session-view').waitFor();
    sessionId = (await page.locator('[data-testid="session-row"][data-selected="true"]').getAttribute('data-session-id'))!;
  });

  it('an edit approval shows its diff; a failing edit is never asked', async () => {
    app.llm.enqueue(
      toolCallResponse([{ id: 'edit-early', name: 'edit_file', arguments: JSON.stringify({ path: 'sum.js', old_string: 'let total;', new_string: 'let total = 0;' }) }]),
      toolCallResponse([{ id: 'read-1', name: 'read_file', arguments: JSON.stringify({ path: 'sum.js' }) }]),
      toolCallResponse([{ id: 'edit-1', name: 'edit_file', arguments: JSON.stringify({ path: 'sum.js', old_string: 'let total;', new_string: 'let total = 0;' }) }]),
      textResponse('sum([]) now returns 0.'),
    );
    await send('Make sum([]) return 0.');
    const item = pendingItem('edit-1');
    await item.waitFor({ timeout: 20_000 });
    expect(await item.getAttribute('data-preview')).toBe('diff');
    const diff = item.getByTestId('approval-diff');
    expect(await diff.getAttribute('data-path')).toBe('sum.js');
    expect(await diff.locator('tr.diff-del td.code').allTextContents()).toEqual(['  let total;']);
    expect(await diff.locator('tr.diff-add td.code').allTextContents()).toEqual(['  let total = 0;']);
    expect(await diff.locator('.diff-stat').textContent()).toBe('+1 −1');
    // The edit tried before reading failed its precondition and was never asked.
    expect(eventsOfType(log(), 'approval/asked').map((e) => e.data.callId)).toEqual(['edit-1']);
    expect(readFileSync(join(app.workspace, 'sum.js'), 'utf8')).toContain('let total;');
    await app.screenshot('30-approval-edit-diff');
    await item.getByTestId('approval-allow').click();
    await turnEnded(1);
    expect(readFileSync(join(app.workspace, 'sum.js'), 'utf8')).toContain('let total = 0;');
  });

  it('a command approval shows the command and its folder; "allow for this session" stops the next prompt', async () => {
    app.llm.enqueue(
      toolCallResponse([{ id: 'node-1', name: 'bash', arguments: JSON.stringify({ command: 'node --version' }) }]),
      toolCallResponse([{ id: 'node-2', name: 'bash', arguments: JSON.stringify({ command: 'node --version --no-warnings' }) }]),
      toolCallResponse([{ id: 'ls-1', name: 'bash', arguments: JSON.stringify({ command: 'ls' }) }]),
      textResponse('Node is installed.'),
    );
    await send('Which node version is installed?');
    const item = pendingItem('node-1');
    await item.waitFor({ timeout: 20_000 });
    expect(await item.getByTestId('approval-command').textContent()).toBe('$ node --version');
    expect(await item.getByTestId('approval-cwd').textContent()).toBe(`in ${app.workspace}`);
    expect(await item.getByTestId('approval-prefix').inputValue()).toBe('node');
    await app.screenshot('31-approval-command');
    await item.getByTestId('approval-allow-session').click();
    // node-2 runs without a prompt; the next prompt is for `ls`.
    await pendingItem('ls-1').waitFor({ timeout: 20_000 });
    expect(await page.locator('[data-testid="approval-item"]').count()).toBe(1);
    expect(eventsOfType(log(), 'approval/asked').map((e) => e.data.callId)).toEqual(['edit-1', 'node-1', 'ls-1']);
    expect(eventsOfType(log(), 'approval/rule').map((e) => e.data)).toEqual([{ toolName: 'bash', commandPrefix: 'node', approvalId: expect.any(String) }]);
    const ran = eventsOfType(log(), 'tool/result').find((e) => e.data.message.content[0]!.toolCallId === 'node-2')!;
    expect(ran.data.message.content[0]!.isError).toBe(false);
    // The call the rule let through says so on its row; the one the person allowed shows their decision.
    const ruleBadge = page.locator('[data-testid="tool-row"][data-call-id="node-2"] [data-testid="tool-allowed-by-rule"]');
    await ruleBadge.waitFor({ timeout: 10_000 });
    expect(await ruleBadge.getAttribute('title')).toBe('Ran without asking: you allowed bash commands starting with `node` for this session');
    expect(await page.locator('[data-testid="tool-row"][data-call-id="node-1"] [data-testid="tool-approval"]').textContent()).toBe('allowed for this session');
    expect(await page.locator('[data-testid="tool-row"][data-call-id="node-1"] [data-testid="tool-allowed-by-rule"]').count()).toBe(0);
    await app.screenshot('32-after-allow-session');
    await pendingItem('ls-1').getByTestId('approval-reject').click();
    await turnEnded(2);
  });

  it('a write approval shows a new file as created; allowing write_file for the session stops the next write prompt', async () => {
    app.llm.enqueue(
      toolCallResponse([{ id: 'w-1', name: 'write_file', arguments: JSON.stringify({ path: 'notes/plan.md', content: '# Plan\n\n- fix sum\n' }) }]),
      toolCallResponse([{ id: 'w-2', name: 'write_file', arguments: JSON.stringify({ path: 'notes/done.md', content: '- fixed sum\n' }) }]),
      textResponse('Wrote the notes.'),
    );
    await send('Write the plan and the done list.');
    const item = pendingItem('w-1');
    await item.waitFor({ timeout: 20_000 });
    expect(await item.getByTestId('approval-diff').textContent()).toContain('(new file)');
    expect(await item.locator('tr.diff-add td.code').allTextContents()).toEqual(['# Plan', '', '- fix sum']);
    expect(await item.getByTestId('approval-allow-session').textContent()).toMatch(/^Allow write_file for this session\b/);
    await app.screenshot('33-approval-new-file');
    await item.getByTestId('approval-allow-session').click();
    await turnEnded(3);
    expect(readFileSync(join(app.workspace, 'notes/done.md'), 'utf8')).toBe('- fixed sum\n');
    expect(eventsOfType(log(), 'approval/asked').map((e) => e.data.callId)).not.toContain('w-2');
  });
});
