/**
 * Project instructions in the timeline, in Debian's Chromium against browser mode: a workspace
 * with an AGENTS.md (and a sub-folder with a CLAUDE.md) — after a task, the timeline shows which
 * files were in force: one row for the system prompt's files, one for the nested file added to the
 * result of the call that touched its folder.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textResponse, toolCallResponse } from '../support/scripted-llm/index.js';
import { startE2eApp, type E2eApp } from './support/e2e-harness.js';

let app: E2eApp;
let page: Page;

beforeAll(async () => {
  app = await startE2eApp({ approvalPolicy: 'allow' });
  page = app.page;
  writeFileSync(join(app.workspace, 'AGENTS.md'), 'Use tabs.\n');
  mkdirSync(join(app.workspace, 'sub'));
  writeFileSync(join(app.workspace, 'sub', 'CLAUDE.md'), 'Never edit generated files.\n');
  writeFileSync(join(app.workspace, 'sub', 'x.txt'), 'x\n');
});
afterAll(async () => {
  await app?.close();
});

describe('project instructions in the timeline', () => {
  it('shows the files in force, in the system prompt and on a tool result', async () => {
    const connection = app.runtime.host.connect(() => undefined);
    const session = connection.createSession({ cwd: app.workspace });
    await page.locator(`[data-testid="session-row"][data-session-id="${session.id}"]`).click();
    app.llm.enqueue(toolCallResponse([{ id: 'r1', name: 'read_file', arguments: '{"path":"sub/x.txt"}' }]), textResponse('Read it.'));
    await page.getByTestId('composer-input').fill('read sub/x.txt');
    await page.getByTestId('composer-send').click();
    await page.locator('[data-testid="turn-end"][data-turn="1"]').waitFor({ timeout: 15_000 });
    const system = page.locator('[data-testid="instructions-row"][data-placement="system"]');
    await system.waitFor();
    expect(await system.getByTestId('instruction-file').allTextContents()).toEqual([expect.stringContaining('AGENTS.md')]);
    const nested = page.locator('[data-testid="instructions-row"][data-placement="tool-result"]');
    expect(await nested.textContent()).toContain('sub/CLAUDE.md');
    expect(await nested.textContent()).toContain('added to the tool result');
    await app.screenshot('22-instructions-rows');
    connection.dispose();
  });
});
