/**
 * Importing a session kept as a folder from the window (Cline / Roo Code task folders, opencode
 * storage), keyboard only at 1000×700, in Debian's Chromium against browser mode: the palette's
 * "Import a session folder…" opens the folder picker; a Cline task folder and opencode's storage
 * folder each import their session (the same reader as `forkline import FOLDER`), and a folder of
 * neither kind is refused with the reader's reason. A Claude Code sub-agent's log links to the session
 * that started it. Screenshots go to test-results/.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_LOGS } from '../support/import-fixtures.js';
import { runCommand } from './support/keyboard-focus.js';
import { startE2eApp, type E2eApp } from './support/e2e-harness.js';

const FOLDERS = join(import.meta.dirname, '..', 'fixtures', 'agent-session-folders');

let app: E2eApp;
let page: Page;
const scratch = mkdtempSync(join(tmpdir(), 'forkline-e2e-folder-'));

beforeAll(async () => {
  app = await startE2eApp({ approvalPolicy: 'allow', viewport: { width: 1000, height: 700 } });
  page = app.page;
});
afterAll(async () => {
  await app?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** Runs the palette command by keyboard and answers the folder picker it opens with `folder`. */
async function importFolderByKeyboard(folder: string): Promise<void> {
  const chooser = page.waitForEvent('filechooser');
  await runCommand(page, 'import a session folder');
  const picked = await chooser;
  expect(picked.isMultiple()).toBe(false);
  await picked.setFiles(folder);
}

describe('import a session folder from the window', () => {
  it('a Cline task folder imports its conversation, opened read-only', async () => {
    const before = app.runtime.repository.list().length;
    await importFolderByKeyboard(join(FOLDERS, 'cline', '1767225600000'));
    const toast = page.locator('[data-testid="toast"][data-tone="info"]').filter({ hasText: 'Imported 1767225600000' });
    await toast.waitFor({ timeout: 20_000 });
    await app.screenshot('import-folder-01-cline');
    const sessions = app.runtime.repository.list();
    expect(sessions.length).toBe(before + 1);
    // The newest session is the import; it holds the task's conversation.
    const events = app.runtime.store.readAll(sessions[0]!.header.id);
    expect(events.filter((e) => e.type === 'user/message').length).toBeGreaterThan(0);
    expect(events.filter((e) => e.type === 'assistant/message').length).toBeGreaterThan(0);
    await page.locator('[data-testid="timeline"]').waitFor();
    expect(await page.locator('[data-testid="timeline"]').textContent()).not.toBe('');
  });

  it('an opencode storage folder imports its session', async () => {
    const before = app.runtime.repository.list().length;
    await importFolderByKeyboard(join(FOLDERS, 'opencode', 'storage'));
    await page.locator('[data-testid="toast"][data-tone="info"]').filter({ hasText: 'Imported ses_' }).waitFor({ timeout: 20_000 });
    await app.screenshot('import-folder-02-opencode');
    expect(app.runtime.repository.list().length).toBe(before + 1);
  });

  it('a folder of neither kind is refused with the reason, and nothing is imported', async () => {
    const plain = join(scratch, 'notes');
    mkdirSync(plain);
    writeFileSync(join(plain, 'todo.json'), '{"items":[]}');
    const before = app.runtime.repository.list().length;
    await importFolderByKeyboard(plain);
    const toast = page.locator('[data-testid="toast"]').filter({ hasText: 'Import of notes failed' });
    await toast.waitFor({ timeout: 20_000 });
    expect(await toast.textContent()).toContain('not a Cline / Roo Code task folder');
    await app.screenshot('import-folder-03-refused');
    expect(app.runtime.repository.list().length).toBe(before);
  });
});

describe('a sub-agent log imported from the window', () => {
  it('says which session started it and opens that session by keyboard', async () => {
    const parentId = '0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f';
    const parentText = readFileSync(join(AGENT_LOGS, 'claude-code', 'agentsessions_claude_subagent-parent.jsonl'), 'utf8');
    // The real layout: the sub-agent's records carry the parent's sessionId.
    const childText = readFileSync(join(AGENT_LOGS, 'claude-code', 'agentsessions_claude_subagent-child.jsonl'), 'utf8').replaceAll(
      '"sessionId":"agent-a0ad4f44468bdf20d"',
      `"sessionId":"${parentId}"`,
    );
    for (const [name, text] of [
      [`${parentId}.jsonl`, parentText],
      ['agent-a0ad4f44468bdf20d.jsonl', childText],
    ] as const) {
      const chooser = page.waitForEvent('filechooser');
      await runCommand(page, 'import a session log');
      await (await chooser).setFiles({ name, mimeType: 'application/x-ndjson', buffer: Buffer.from(text) });
      await page
        .locator('[data-testid="toast"][data-tone="info"]')
        .filter({ hasText: `Imported ${name}` })
        .waitFor({ timeout: 20_000 });
    }
    const link = page.getByTestId('open-spawning-session');
    await link.waitFor();
    expect(await page.getByTestId('imported-spawned-by').textContent()).toContain('A sub-agent (a0ad4f44468bdf20d) started by');
    await app.screenshot('import-folder-04-sub-agent');
    await link.focus();
    await page.keyboard.press('Enter');
    await page.locator(`[data-testid="session-row"][data-selected="true"][data-session-id="${parentId}"]`).waitFor();
  });
});
