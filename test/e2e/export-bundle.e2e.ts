/**
 * Issue 26 in the app, keyboard only (only `page.keyboard`; locators are used to wait and read), at
 * 1000×700, against browser mode (the real host, SQLite store, shadow git checkpoints; the real
 * `openai` client against the scripted model server):
 * - "Export bundle…" from the command palette: the dialog opens on its Export button, Space ticks
 *   "Include the workspace files", Enter exports; the download is a valid bundle — the real importer
 *   restores it into an empty data folder with the same derived messages, lineage (the fork under
 *   its parent) and checkpoint files;
 * - the downloaded bundle imported back with the Import button's file input: streamed to the host
 *   in chunks, recognised by content hash as already here (nothing duplicated), its root opened;
 * - Settings → Live trace export: a bad URL is named inline and not saved; a 127.0.0.1 receiver's
 *   URL is saved and applied at once — the next turn's spans arrive there, decoded with the
 *   OpenTelemetry protocol definitions (test/integration/telemetry/otlp-receiver.ts).
 * Screenshots: test-results/bundle-*.png.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/events.js';
import { importBundle, isBundleFile } from '../../electron/bundle/bundle-import.js';
import { openStoredSessions } from '../../electron/cli/stored-sessions.js';
import { textResponse, toolCallResponse } from '../support/scripted-llm/index.js';
import { checkpointFiles, derivedHash } from '../integration/bundle/bundle-support.js';
import { startReceiver, type Receiver } from '../integration/telemetry/otlp-receiver.js';
import { startE2eApp, type E2eApp } from './support/e2e-harness.js';
import { focused, runCommand, waitForFocus as waitFocus } from './support/keyboard-focus.js';

let app: E2eApp;
let page: Page;
let receiver: Receiver;
let rootId: string;
let forkId: string;

const byTestId = (id: string) => page.getByTestId(id);
const press = (key: string) => page.keyboard.press(key);
const waitForFocus = (testId: string, timeout?: number) => waitFocus(page, testId, timeout);
const idle = () => page.locator('[data-testid="session-status"][data-status="idle"]').waitFor({ timeout: 30_000 });

/** Tabs forward until `testId` holds focus (at most `limit` presses): the control is in the Tab order. */
async function tabTo(testId: string, limit = 80): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if ((await focused(page)).testId === testId) return;
    await press('Tab');
  }
  throw new Error(`Tab never reached ${testId}; focus is on ${JSON.stringify(await focused(page))}`);
}

function checkpointCommits(events: readonly SessionEvent[]): string[] {
  return events.filter((e): e is SessionEvent<'workspace/checkpoint'> => e.type === 'workspace/checkpoint').map((e) => e.data.commit);
}

beforeAll(async () => {
  app = await startE2eApp({ approvalPolicy: 'allow', viewport: { width: 1000, height: 700 } });
  page = app.page;
  receiver = await startReceiver();
}, 60_000);
afterAll(async () => {
  await receiver?.close();
  await app?.close();
});

describe('bundles and live traces from the app, keyboard only', () => {
  it('creates a session in the workspace and runs a turn that writes a file', async () => {
    await page.getByTestId('app').waitFor();
    await press('Control+n');
    await byTestId('folder-browser').waitFor();
    await tabTo('folder-path');
    await press('Control+a');
    await page.keyboard.type(app.workspace);
    await press('Enter');
    await page.waitForFunction(
      (p) => document.querySelector('[data-testid="folder-browser"] .dialog-buttons .mono')?.textContent === p && !document.querySelector('[data-testid="folder-list"][aria-busy="true"]'),
      app.workspace,
    );
    await press('Enter');
    await byTestId('session-view').waitFor();
    rootId = (await page.locator('[data-testid="session-row"][data-selected="true"]').getAttribute('data-session-id'))!;
    expect(rootId).toBeTruthy();
    app.llm.enqueue(toolCallResponse([{ id: 'bundle-write', name: 'write_file', arguments: JSON.stringify({ path: 'notes.md', content: '# notes\nkeep me\n' }) }]), textResponse('Wrote notes.md.'));
    await waitForFocus('composer-input');
    await page.keyboard.type('Write notes.md');
    await press('Enter');
    await page.locator('[data-testid="turn-end"][data-turn="1"]').waitFor({ timeout: 30_000 });
    await idle();
    // A fork under it (set up through the host: the bundle carries the tree).
    const conn = app.runtime.host.connect(() => undefined);
    forkId = (await conn.forkSession({ sessionId: rootId })).id;
    conn.dispose();
    await page.locator(`[data-testid="session-row"][data-session-id="${forkId}"]`).waitFor();
    expect(page.url()).toBeTruthy();
  }, 90_000);

  it('exports a bundle from the palette with the files, and the real importer restores it identically', async () => {
    await runCommand(page, 'export bundle');
    await byTestId('export-bundle-dialog').waitFor();
    // The dialog opens on its Export button; the checkbox is one Shift+Tab past Cancel.
    await waitForFocus('export-bundle-ok');
    await press('Shift+Tab');
    await waitForFocus('export-bundle-cancel');
    await press('Shift+Tab');
    await waitForFocus('export-bundle-with-files');
    expect((await focused(page)).ring).toBe(true);
    await press('Space');
    expect(await byTestId('export-bundle-with-files').isChecked()).toBe(true);
    await app.screenshot('bundle-01-dialog');
    await press('Tab');
    await press('Tab');
    await waitForFocus('export-bundle-ok');
    const downloaded = page.waitForEvent('download', { timeout: 30_000 });
    await press('Enter');
    const download = await downloaded;
    expect(download.suggestedFilename()).toMatch(/^forkline-write-notes-md-[0-9a-f-]{8}\.bundle\.jsonl$/);
    const file = join(app.dir, 'downloaded.bundle.jsonl');
    await download.saveAs(file);
    await byTestId('export-bundle-dialog').waitFor({ state: 'detached' });
    await page.locator('[data-testid="toast"]', { hasText: 'Bundle' }).first().waitFor();
    await app.screenshot('bundle-02-saved');

    // A valid bundle: the real importer into an empty data folder.
    expect(await isBundleFile(file)).toBe(true);
    const targetDir = join(app.dir, 'imported-data');
    const target = openStoredSessions(targetDir, {});
    try {
      const result = await importBundle({ repository: target.repository, checkpointsGitDir: join(targetDir, 'checkpoints.git') }, file);
      expect(result.sessions.map((s) => s.id).sort()).toEqual([rootId, forkId].sort());
      const src = app.runtime.repository;
      let checkpoints = 0;
      for (const id of [rootId, forkId]) {
        const before = src.load(id);
        const after = target.repository.load(id);
        expect(after.events.length).toBe(before.events.length);
        expect(derivedHash(after.events, after.record.header)).toBe(derivedHash(before.events, before.record.header));
        expect(after.record.header.parentSession).toBe(before.record.header.parentSession);
        expect(after.record.header.origin).toMatchObject({ kind: 'imported', format: 'forkline-bundle' });
        const oldCommits = checkpointCommits(before.events);
        const newCommits = checkpointCommits(after.events);
        expect(newCommits.length).toBe(oldCommits.length);
        oldCommits.forEach((old, i) => {
          expect(checkpointFiles(join(targetDir, 'checkpoints.git'), newCommits[i]!)).toEqual(checkpointFiles(join(app.runtime.dataDir, 'checkpoints.git'), old));
          checkpoints++;
        });
      }
      expect(target.repository.get(forkId)!.header.parentSession).toBe(rootId);
      // The turn's checkpoint travelled with its files.
      expect(checkpoints).toBeGreaterThanOrEqual(1);
      expect(readFileSync(file, 'utf8')).toContain('keep me');
    } finally {
      await target.close();
    }
  }, 90_000);

  it("imports the downloaded bundle back through the app's Import: streamed in chunks, recognised by content hash, nothing duplicated", async () => {
    const file = join(app.dir, 'downloaded.bundle.jsonl');
    const before = app.runtime.repository.list().length;
    // The bundle's content hashes decide: sessions whose content is here are not stored again.
    await page.setInputFiles('[data-testid="import-session-input"]', file);
    const toast = page.locator('[data-testid="toast"][data-tone="info"]').filter({ hasText: 'downloaded.bundle.jsonl' });
    await toast.waitFor({ timeout: 30_000 });
    await app.screenshot('bundle-02b-imported-back');
    // Nothing was redacted (the export's toast said "no secrets found"), so every part is the content here.
    expect((JSON.parse(readFileSync(file, 'utf8').split('\n')[1]!) as { manifest: { redactions: { total: number } } }).manifest.redactions.total).toBe(0);
    expect(await toast.textContent()).toContain('Bundle downloaded.bundle.jsonl is already imported: its 2 session(s) are here with the same content; nothing changed.');
    expect(app.runtime.repository.list().length).toBe(before);
    // The session the bundle was exported for is open.
    await page.locator(`[data-testid="session-row"][data-selected="true"][data-session-id="${rootId}"]`).waitFor();
  }, 60_000);

  it('Settings → Live trace export: a bad URL is named inline; a receiver URL is applied and the next turn is traced', async () => {
    await press('Control+Comma');
    await byTestId('settings-dialog').waitFor();
    await byTestId('telemetry-section').waitFor();
    await tabTo('otlp-endpoint');
    await page.keyboard.type('not a url');
    await press('Enter');
    expect(await byTestId('otlp-error').textContent()).toBe('"not a url" is not a URL: enter an OTLP/HTTP endpoint such as http://127.0.0.1:4318');
    expect(await byTestId('otlp-endpoint').getAttribute('aria-invalid')).toBe('true');
    await press('Control+a');
    await page.keyboard.type('ftp://127.0.0.1:4318');
    await press('Enter');
    expect(await byTestId('otlp-error').textContent()).toBe('the OTLP endpoint must start with http:// or https:// (got ftp:)');
    expect(app.runtime.settings.otlpSetting()).toEqual({ includeContent: false });
    await byTestId('telemetry-section').scrollIntoViewIfNeeded();
    await app.screenshot('bundle-03-otlp-error');
    await press('Control+a');
    await page.keyboard.type(receiver.url);
    await press('Enter');
    await page.locator('[data-testid="otlp-status"]', { hasText: `Exporting to ${receiver.url}` }).waitFor();
    expect(await byTestId('otlp-error').count()).toBe(0);
    expect(app.runtime.settings.otlpSetting()).toEqual({ endpoint: receiver.url, includeContent: false });
    expect(JSON.parse(readFileSync(join(app.runtime.dataDir, 'settings.json'), 'utf8'))).toMatchObject({ otlpEndpoint: receiver.url });
    await app.screenshot('bundle-04-otlp-saved');
    await press('Escape');
    await byTestId('settings-dialog').waitFor({ state: 'detached' });

    // The next turn of the open session is streamed to the receiver.
    app.llm.enqueue(textResponse('Traced.'));
    await runCommand(page, 'go to the composer');
    await waitForFocus('composer-input');
    await page.keyboard.type('One more turn, traced');
    await press('Enter');
    await page.locator('[data-testid="turn-end"][data-turn="2"]').waitFor({ timeout: 30_000 });
    await idle();
    await expect
      .poll(
        () =>
          receiver.spans
            .filter((s) => s.attributes['gen_ai.conversation.id'] === rootId)
            .map((s) => s.name)
            .sort(),
        { timeout: 30_000 },
      )
      .toEqual(['chat scripted-model', 'invoke_agent forkline']);
    const chat = receiver.spans.find((s) => s.name === 'chat scripted-model')!;
    expect(chat.attributes['gen_ai.request.model']).toBe('scripted-model');
    // Content was not opted in: no message text in the spans.
    expect(JSON.stringify(receiver.spans)).not.toContain('One more turn, traced');
  }, 90_000);
});
