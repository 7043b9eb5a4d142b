/**
 * Settings → MCP servers in Debian's Chromium against browser mode: a person adds a server in
 * Settings (a bad JSON first gets a clear message), sees it idle, then ready with its tools once a
 * session in a workspace starts it; a workspace's `.forkline/mcp.json` shows as untrusted and starts
 * after "Trust" — all keyboard-reachable (real buttons and a labelled text area).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startE2eApp, type E2eApp } from './support/e2e-harness.js';

const SERVER = join(ROOT, 'test/support/mcp/test-mcp-server.mjs');

let app: E2eApp;
let page: Page;

beforeAll(async () => {
  app = await startE2eApp({ approvalPolicy: 'ask' });
  page = app.page;
});
afterAll(async () => {
  await app?.close();
});

const server = (name: string) => page.locator(`[data-testid="mcp-server"][data-name="${name}"]`);

describe('MCP servers in Settings', () => {
  it('adds a server, shows its state and tools, and trusts a workspace file', async () => {
    const connection = app.runtime.host.connect(() => undefined);
    const session = connection.createSession({ cwd: app.workspace });
    await page.locator(`[data-testid="session-row"][data-session-id="${session.id}"]`).click();
    await page.getByTestId('settings-button').click();
    await page.getByTestId('mcp-section').waitFor();
    await page.getByTestId('mcp-empty').waitFor();

    const json = page.getByTestId('mcp-settings-json');
    await json.fill('{"calc": {"command": ');
    await page.getByTestId('mcp-settings-save').click();
    expect(await page.getByTestId('mcp-settings-error').textContent()).toContain('Not valid JSON');
    await json.fill(JSON.stringify({ calc: { command: 'no such thing', args: [], approval: 'sometimes' } }));
    await page.getByTestId('mcp-settings-save').click();
    await page.getByTestId('mcp-settings-error').filter({ hasText: 'server "calc"' }).waitFor();

    await json.fill(JSON.stringify({ calc: { command: process.execPath, args: [SERVER, '--tools', 'add,note'], toolApproval: { add: 'allow' } } }, null, 2));
    // Keyboard only: Tab from the text area reaches the save button.
    await json.focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await server('calc').and(page.locator('[data-state="idle"]')).waitFor();

    // A session in a workspace starts the servers; the list follows live.
    mkdirSync(join(app.workspace, '.forkline'), { recursive: true });
    writeFileSync(join(app.workspace, '.forkline', 'mcp.json'), JSON.stringify({ mcpServers: { repo: { command: process.execPath, args: [SERVER, '--tools', 'add'] } } }));
    app.runtime.host.ensureAgent(session.id);
    await server('calc').and(page.locator('[data-state="ready"]')).waitFor({ timeout: 20_000 });
    await server('calc').getByTestId('mcp-server-tools-toggle').click();
    const tools = await server('calc').getByTestId('mcp-server-tool-list').textContent();
    expect(tools).toContain('mcp__calc__add');
    expect(tools).toContain('mcp__calc__note');

    const repo = server('repo');
    await repo.and(page.locator('[data-state="untrusted"]')).waitFor();
    expect(await repo.getByTestId('mcp-server-error').textContent()).toContain('not trusted yet');
    await app.screenshot('20-settings-mcp');
    await repo.getByTestId('mcp-server-trust').click();
    await repo.and(page.locator('[data-state="ready"]')).waitFor({ timeout: 20_000 });
    await app.screenshot('21-settings-mcp-trusted');
    connection.dispose();
  });
});
