/**
 * Fits any window: at 900×600, 1000×700 and 1400×900, every view — the start screen, a session with
 * every panel open (find bar, dock with branches + events + request, expanded tool row), each dock
 * panel in front, a pending approval while a turn runs, the terminal tab, the compare view with the
 * branch picker, the collapsed sidebar, and the dialogs (palette, settings, folder browser, provider setup) — has
 * no two visible controls overlapping and none cut off, and axe-core finds no serious or critical
 * violation in the dark and the light theme. A screenshot of every view at every size is saved as
 * test-results/layout-<width>x<height>-<view>.png (and `-light.png` at 1400×900).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostConnection } from '../../electron/host/host-connection.js';
import { textResponse, toolCallResponse } from '../support/scripted-llm/index.js';
import { startE2eApp, type E2eApp } from './support/e2e-harness.js';
import { layoutProblems, seriousAxeViolations, unfoldSidebarForRoom, type AxeViolation, type LayoutProblem } from './support/layout-checks.js';

const SIZES = [
  { width: 900, height: 600 },
  { width: 1000, height: 700 },
  { width: 1400, height: 900 },
] as const;

let app: E2eApp;
let conn: HostConnection;
let rootId: string;
let childId: string;
let busyId: string;

async function idle(sessionId: string): Promise<void> {
  await app.runtime.host.agentFor(sessionId)!.whenIdle();
}

beforeAll(async () => {
  app = await startE2eApp({ approvalPolicy: 'ask' });
  writeFileSync(join(app.workspace, 'a.txt'), 'alpha\nbeta\n');
  conn = app.runtime.host.connect(() => undefined);
  const older = conn.createSession({ cwd: app.workspace });
  app.llm.enqueue(textResponse('An older answer.'));
  conn.followup({ sessionId: older.id, text: 'An older session about the build scripts and why they are slow' });
  await idle(older.id);

  rootId = conn.createSession({ cwd: app.workspace }).id;
  app.llm.enqueue(
    toolCallResponse([{ id: 'read-a', name: 'read_file', arguments: '{"path":"a.txt"}' }], { reasoning: 'Read the file first, then summarise what it holds for the person.' }),
    textResponse('a.txt has two lines: **alpha** and **beta**.\n\n- alpha\n- beta'),
  );
  conn.followup({ sessionId: rootId, text: 'What is in a.txt? Please read it and tell me, line by line, with a long explanation of each line.' });
  await idle(rootId);
  app.llm.enqueue(
    toolCallResponse([{ id: 'bash-ls', name: 'bash', arguments: JSON.stringify({ command: 'ls -la && cat a.txt && echo a-rather-long-command-line-that-goes-on-and-on' }) }]),
    textResponse('Listed the folder.'),
  );
  conn.followup({ sessionId: rootId, text: 'List the folder.' });
  // The bash call asks for approval (policy ask): allow it.
  await waitFor(() => app.runtime.host.agentFor(rootId)!.approvals.list.length > 0);
  app.runtime.host.agentFor(rootId)!.approvals.decide(app.runtime.host.agentFor(rootId)!.approvals.list[0]!.id, 'allowed-once');
  await idle(rootId);

  const firstEnd = app.runtime.host.agentFor(rootId)!.session.events.find((e) => e.type === 'turn/end')!;
  childId = (await conn.forkSession({ sessionId: rootId, atSeq: firstEnd.seq })).id;
  app.llm.enqueue(textResponse('In one line: alpha, beta.'));
  conn.followup({ sessionId: childId, text: 'Summarise a.txt in one line instead' });
  await idle(childId);

  // A session left running with a pending approval.
  busyId = conn.createSession({ cwd: app.workspace }).id;
  app.llm.enqueue(toolCallResponse([{ id: 'w-1', name: 'write_file', arguments: JSON.stringify({ path: 'notes/plan.md', content: '# Plan\n- one\n- two\n' }) }]), textResponse('Wrote it.'));
  conn.followup({ sessionId: busyId, text: 'Write a plan to notes/plan.md' });
  await waitFor(() => (app.runtime.host.agentFor(busyId)?.approvals.list.length ?? 0) > 0);
});

afterAll(async () => {
  const busy = app?.runtime.host.agentFor(busyId);
  if (busy) {
    conn.cancel({ sessionId: busyId });
    await busy.whenIdle();
  }
  conn?.dispose();
  await app?.close();
});

async function waitFor(predicate: () => boolean, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Findings {
  layout: (LayoutProblem & { view: string })[];
  axe: (AxeViolation & { view: string; theme: string })[];
}

async function checkView(page: Page, size: { width: number; height: number }, view: string, findings: Findings, axeHere: boolean): Promise<void> {
  await app.screenshot(`layout-${size.width}x${size.height}-${view}`);
  for (const p of await layoutProblems(page)) findings.layout.push({ ...p, view });
  if (!axeHere) return;
  for (const theme of ['dark', 'light'] as const) {
    await page.evaluate((t) => (document.documentElement.dataset['theme'] = t), theme);
    for (const v of await seriousAxeViolations(page)) findings.axe.push({ ...v, view, theme });
    if (theme === 'light' && size.width === 1400) await app.screenshot(`layout-${size.width}x${size.height}-${view}-light`);
  }
  await page.evaluate(() => (document.documentElement.dataset['theme'] = 'dark'));
}

const row = (page: Page, id: string) => page.locator(`[data-testid="session-row"][data-session-id="${id}"] [data-testid="session-open"]`);

async function openSession(page: Page, id: string): Promise<void> {
  await unfoldSidebarForRoom(page);
  await row(page, id).click();
  await page.locator(`[data-testid="session-row"][data-session-id="${id}"][data-selected="true"]`).waitFor();
  await page.getByTestId('session-view').waitFor();
  await page.locator('[data-testid="timeline-row"]').first().waitFor();
}

describe('the checks themselves', () => {
  it('report overlapping and cut-off controls and serious axe violations when there are some', async () => {
    const page = await app.openPage({ width: 900, height: 600 });
    await page.getByTestId('start-composer').waitFor();
    expect(await layoutProblems(page)).toEqual([]);
    await page.evaluate(() => {
      const probe = document.createElement('div');
      probe.id = 'probe';
      probe.innerHTML =
        '<div style="position:fixed;left:300px;top:300px"><button id="p1" style="position:absolute;left:0;top:0;width:80px">one</button><button id="p2" style="position:absolute;left:40px;top:0;width:80px">two</button></div>' +
        '<div style="position:fixed;left:500px;top:300px;width:60px;height:30px;overflow:hidden"><button id="p3" style="margin-left:30px;width:80px">three</button></div>' +
        '<p style="position:fixed;left:10px;top:500px;color:#777;background:#888">unreadable</p>';
      document.body.appendChild(probe);
    });
    const problems = await layoutProblems(page);
    expect(problems.some((p) => p.kind === 'overlap' && p.what.includes('"one"') && p.what.includes('"two"'))).toBe(true);
    expect(problems.some((p) => p.kind === 'cut-off' && p.what.includes('"three"'))).toBe(true);
    expect((await seriousAxeViolations(page)).map((v) => v.id)).toContain('color-contrast');
    await page.context().close();
  });
});

describe('the window at 900×600, 1000×700 and 1400×900', () => {
  for (const size of SIZES) {
    it(`${size.width}×${size.height}: no overlapping or cut-off controls, no serious axe violation, every view photographed`, async () => {
      const page = await app.openPage(size);
      const findings: Findings = { layout: [], axe: [] };
      // axe in both themes at the smallest and the largest size (colours do not change with the size; hidden parts do).
      const axeHere = size.width !== 1000;
      const byTestId = (id: string) => page.getByTestId(id);

      await byTestId('start-composer').waitFor();
      await page.locator('[data-testid="session-row"]').nth(3).waitFor();
      await checkView(page, size, 'start', findings, axeHere);

      // A session with every panel open.
      await openSession(page, rootId);
      await page.locator('[data-testid="turn-end"]').last().waitFor();
      await page.keyboard.press('Control+f');
      await byTestId('find-input').waitFor();
      await page.keyboard.type('alpha');
      await byTestId('branches-toggle').click();
      await byTestId('branch-picker').waitFor();
      const tool = page.locator('[data-testid="tool-row"][data-call-id="bash-ls"]');
      await tool.scrollIntoViewIfNeeded();
      await tool.getByTestId('tool-toggle').click();
      await tool.getByTestId('tool-result').waitFor();
      await tool.click({ position: { x: 40, y: 6 } });
      await byTestId('raw-inspector').waitFor();
      const marker = page.locator('[data-testid="step-marker"]').last();
      await marker.scrollIntoViewIfNeeded();
      await marker.getByTestId('request-button').click();
      await byTestId('request-inspector').waitFor();
      await page.locator('[data-testid="request-wire"]').waitFor();
      expect(await page.locator('[data-testid="dock-tab"]').count()).toBe(3);
      await checkView(page, size, 'session-all-panels', findings, axeHere);
      for (const tab of ['branches', 'events'] as const) {
        await page.locator(`[data-testid="dock-tab"][data-tab="${tab}"]`).click();
        await page.locator(`[data-testid="side-dock"][data-tab="${tab}"]`).waitFor();
        await checkView(page, size, `dock-${tab}`, findings, axeHere && tab === 'events');
      }

      // The compare view with the branch picker beside it.
      await page.locator('[data-testid="dock-tab"][data-tab="branches"]').click();
      await page.locator(`[data-testid="branch-node"][data-session-id="${childId}"] [data-testid="branch-compare-button"]`).click();
      await page.locator('[data-testid="compare-view"][data-state="ready"]').waitFor({ timeout: 10_000 });
      await page.locator('[data-testid="compare-transcript"] [data-testid="compare-user"]').first().waitFor();
      await checkView(page, size, 'compare', findings, axeHere);
      await byTestId('compare-close').click();

      // Opening another session from the list closes the branch picker (it belongs to one lineage).
      await openSession(page, busyId);
      expect(await byTestId('branch-picker').count()).toBe(0);
      await byTestId('approval-panel').waitFor();
      await page.locator('[data-testid="composer-send"][data-mode="queue"]').waitFor();
      await checkView(page, size, 'approval-running', findings, axeHere);

      // The terminal tab.
      await byTestId('tab-terminal').click();
      await byTestId('terminal-host').waitFor();
      await page.waitForFunction(() => (document.querySelector('[data-testid="terminal-host"]')?.textContent ?? '').includes('$'), undefined, { timeout: 10_000 }).catch(() => undefined);
      await checkView(page, size, 'terminal', findings, axeHere);
      await byTestId('tab-timeline').click();

      // Dialogs.
      await page.keyboard.press('Control+k');
      await byTestId('command-palette').waitFor();
      await checkView(page, size, 'palette', findings, axeHere);
      await page.keyboard.press('Escape');
      await byTestId('settings-button').click();
      await byTestId('settings-preset').waitFor();
      await checkView(page, size, 'settings', findings, axeHere);
      await page.keyboard.press('Escape');
      await byTestId('new-session-button').click();
      await byTestId('folder-recent').first().waitFor();
      await page.waitForFunction(() => !document.querySelector('[data-testid="folder-list"][aria-busy="true"]'));
      await checkView(page, size, 'folder-browser', findings, axeHere);
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+k');
      await page.keyboard.type('set up a model');
      await page.keyboard.press('Enter');
      await byTestId('provider-setup-dialog').waitFor();
      await checkView(page, size, 'provider-setup', findings, axeHere);
      await page.keyboard.press('Escape');

      // The collapsed sidebar, on the child session.
      await openSession(page, childId);
      await page.keyboard.press('Control+b');
      await byTestId('sidebar-rail').waitFor();
      await checkView(page, size, 'sidebar-collapsed', findings, axeHere);
      await page.keyboard.press('Control+b');
      await byTestId('sidebar').waitFor();

      await page.context().close();
      expect(findings.layout, JSON.stringify(findings.layout, null, 1)).toEqual([]);
      expect(findings.axe, JSON.stringify(findings.axe, null, 1)).toEqual([]);
    });
  }
});
