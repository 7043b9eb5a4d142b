/**
 * Fork and compare, end to end in Chromium against browser mode (FIELD-NOTES F4): a session S runs
 * two turns that read and write a file; S is forked after turn 1 three times (the third in its
 * own folder); two forks continue differently. The branch picker must show the tree rooted at S
 * with three children labelled by their first differing prompt, and the compare view must show
 * both branches' figures, their transcripts after the common history and the file diff.
 * Screenshots: test-results/20-branch-picker.png, 21-compare.png, 22-compare-files.png,
 * 23-compare-unfinished-fork.png.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textResponse, toolCallResponse, usage } from '../support/scripted-llm/index.js';
import { startE2eApp, type E2eApp } from './support/e2e-harness.js';

let app: E2eApp;
let page: Page;
let rootId: string;
/** Forks of S after turn 1, in fork order; the third has its own folder. */
const forks: string[] = [];

beforeAll(async () => {
  app = await startE2eApp({ approvalPolicy: 'allow' });
  page = app.page;
  writeFileSync(join(app.workspace, 'a.txt'), 'alpha\nbeta\n');
});
afterAll(async () => {
  await app?.close();
});

const byTestId = (id: string): Locator => page.getByTestId(id);
const sessionRow = (id: string): Locator => page.locator(`[data-testid="session-row"][data-session-id="${id}"]`);
const branchNode = (id: string): Locator => page.locator(`[data-testid="branch-node"][data-session-id="${id}"]`);
const selectedId = async (): Promise<string> => (await page.locator('[data-testid="session-row"][data-selected="true"]').getAttribute('data-session-id'))!;

async function send(text: string): Promise<void> {
  await byTestId('composer-input').fill(text);
  await byTestId('composer-send').click();
}

/** Waits for the open session's turn to end `completed` and for the agent to go idle (its checkpoint is taken by then). */
async function turnCompleted(turn: number): Promise<void> {
  const end = page.locator(`[data-testid="turn-end"][data-turn="${turn}"]`);
  await end.waitFor({ timeout: 15_000 });
  expect(await end.getAttribute('data-reason')).toBe('completed');
  await page.locator('[data-testid="session-status"][data-status="idle"]').waitFor({ timeout: 15_000 });
}

async function open(id: string): Promise<void> {
  await sessionRow(id).click();
  await page.locator(`[data-testid="session-row"][data-session-id="${id}"][data-selected="true"]`).waitFor();
  await byTestId('session-view').waitFor();
}

/** Forks the open session after `turn` with the timeline's fork button; returns the child's id (selected afterwards). */
async function forkAfterTurn(turn: number, ownFolder: boolean): Promise<string> {
  const parent = await selectedId();
  const end = page.locator(`[data-testid="turn-end"][data-turn="${turn}"]`);
  await end.scrollIntoViewIfNeeded();
  await end.getByTestId(ownFolder ? 'fork-here-worktree-button' : 'fork-here-button').click();
  await page.waitForFunction((p) => {
    const row = document.querySelector('[data-testid="session-row"][data-selected="true"]');
    return row !== null && row.getAttribute('data-session-id') !== p;
  }, parent);
  await page.locator('[data-testid="end-seed-row"][data-fork="true"]').waitFor();
  return selectedId();
}

const figure = async (key: string, side: 'a' | 'b'): Promise<string> =>
  (await page.locator(`[data-testid="compare-figure"][data-figure="${key}"] [data-testid="compare-figure-${side}"]`).textContent()) ?? '';

describe('fork and compare in the browser', () => {
  it('runs two turns of S in a workspace with a file', async () => {
    await byTestId('new-session-button').click();
    await byTestId('folder-browser').waitFor();
    await byTestId('folder-path').fill(app.workspace);
    await byTestId('folder-path').press('Enter');
    await page.waitForFunction(() => !document.querySelector('[data-testid="folder-list"][aria-busy="true"]'));
    await byTestId('folder-choose').click();
    await byTestId('session-view').waitFor();
    rootId = await selectedId();

    app.llm.enqueue(
      toolCallResponse([{ id: 's-read-1', name: 'read_file', arguments: '{"path":"a.txt"}' }], { usage: usage(900, 20, { cached: 600 }) }),
      textResponse('a.txt has two lines: alpha and beta.', { usage: usage(1000, 12, { cached: 900 }) }),
    );
    await send('What is in a.txt?');
    await turnCompleted(1);

    app.llm.enqueue(
      toolCallResponse([{ id: 's-read-2', name: 'read_file', arguments: '{"path":"a.txt"}' }], { usage: usage(1100, 20, { cached: 1000 }) }),
      toolCallResponse([{ id: 's-write-2', name: 'write_file', arguments: JSON.stringify({ path: 'a.txt', content: 'ALPHA\nBETA\n' }) }], { usage: usage(1200, 30, { cached: 1100 }) }),
      textResponse('a.txt is now upper case.', { usage: usage(1300, 8, { cached: 1200 }) }),
    );
    await send('Make a.txt uppercase');
    await turnCompleted(2);
    expect(readFileSync(join(app.workspace, 'a.txt'), 'utf8')).toBe('ALPHA\nBETA\n');
  });

  it('forks S after turn 1 three times, the third in its own folder', async () => {
    for (const ownFolder of [false, false, true]) {
      await open(rootId);
      forks.push(await forkAfterTurn(1, ownFolder));
    }
    expect(new Set(forks).size).toBe(3);
    const records = forks.map((id) => app.runtime.repository.get(id)!.header);
    for (const h of records) expect(h.parentSession).toBe(rootId);
    expect(records[0]!.cwd).toBe(app.workspace);
    expect(records[1]!.cwd).toBe(app.workspace);
    expect(records[2]!.cwd).not.toBe(app.workspace);
    // The own folder holds the files as they were after turn 1.
    expect(readFileSync(join(records[2]!.cwd!, 'a.txt'), 'utf8')).toBe('alpha\nbeta\n');
    await byTestId('session-own-folder').waitFor();
  });

  it('continues two forks differently (the own-folder fork edits its own copy)', async () => {
    await open(forks[0]!);
    app.llm.enqueue(
      toolCallResponse([{ id: 'f1-write', name: 'write_file', arguments: JSON.stringify({ path: 'README.md', content: '# fork 1\n' }) }], { usage: usage(1400, 25, { cached: 900 }) }),
      textResponse('Added README.md.', { usage: usage(1500, 6, { cached: 1400 }) }),
    );
    await send('Add a README.md');
    await turnCompleted(2);

    await open(forks[2]!);
    app.llm.enqueue(
      toolCallResponse([{ id: 'f3-read', name: 'read_file', arguments: '{"path":"a.txt"}' }], { usage: usage(1000, 18, { cached: 900 }) }),
      toolCallResponse([{ id: 'f3-write', name: 'write_file', arguments: JSON.stringify({ path: 'a.txt', content: 'alpha\nbeta\ngamma\n' }) }], { usage: usage(1100, 30, { cached: 1000 }) }),
      textResponse('Appended **gamma** to a.txt.', { usage: usage(1200, 7, { cached: 1100 }) }),
    );
    await send('Append gamma to a.txt');
    await turnCompleted(2);
    const ownFolder = app.runtime.repository.get(forks[2]!)!.header.cwd!;
    expect(readFileSync(join(ownFolder, 'a.txt'), 'utf8')).toBe('alpha\nbeta\ngamma\n');
    expect(readFileSync(join(app.workspace, 'a.txt'), 'utf8')).toBe('ALPHA\nBETA\n');
    expect(readFileSync(join(app.workspace, 'README.md'), 'utf8')).toBe('# fork 1\n');
  });

  it('the branch picker shows the tree rooted at S with three children labelled by their first differing prompt', async () => {
    await byTestId('branches-toggle').click();
    await byTestId('branch-picker').waitFor();
    await page.waitForFunction(
      () => document.querySelectorAll('[data-testid="branch-node"]').length === 4 && !document.querySelector('[data-testid="branch-node-prompt"][data-state="loading"]'),
      undefined,
      {
        timeout: 10_000,
      },
    );
    const nodes = await page.locator('[data-testid="branch-node"]').evaluateAll((els) =>
      els.map((e) => ({
        id: e.getAttribute('data-session-id'),
        depth: e.getAttribute('data-depth'),
        root: e.getAttribute('data-root'),
        open: e.getAttribute('data-open'),
        ownFolder: e.getAttribute('data-own-folder'),
        parent: e.getAttribute('data-parent-id'),
        title: e.querySelector('[data-testid="branch-node-title"]')?.textContent,
        prompt: e.querySelector('[data-testid="branch-node-prompt"]')?.textContent,
      })),
    );
    expect(nodes.map((n) => n.id)).toEqual([rootId, ...forks]);
    expect(nodes[0]).toMatchObject({ depth: '0', root: 'true', open: 'false', title: 'What is in a.txt?', prompt: 'continues: “Make a.txt uppercase”' });
    for (const n of nodes.slice(1)) expect(n).toMatchObject({ depth: '1', root: 'false', parent: rootId });
    // Fork titles say what differs: a fork is titled by its own first prompt; one with no prompt yet by its place.
    expect(nodes.slice(1).map((n) => n.title)).toEqual(['Add a README.md', 'fork 2 of What is in a.txt?', 'Append gamma to a.txt']);
    expect(nodes.slice(1).map((n) => n.prompt)).toEqual(['“Add a README.md”', 'no prompt since the fork yet', '“Append gamma to a.txt”']);
    expect(nodes.map((n) => n.ownFolder)).toEqual(['false', 'false', 'false', 'true']);
    // The open session (the third fork) is highlighted.
    expect(nodes.map((n) => n.open)).toEqual(['false', 'false', 'false', 'true']);
    expect(await branchNode(forks[2]!).getAttribute('aria-current')).toBe('true');
    await app.screenshot('20-branch-picker');

    // Clicking a node opens that session; the picker stays and follows it.
    await branchNode(forks[0]!).click();
    await page.locator(`[data-testid="session-row"][data-session-id="${forks[0]}"][data-selected="true"]`).waitFor();
    await page.locator(`[data-testid="branch-node"][data-session-id="${forks[0]}"][data-open="true"]`).waitFor();
    expect(await byTestId('session-name').textContent()).toBe('Add a README.md');
  });

  it('compares the two continued forks: figures, transcripts after the common history, and the file diff', async () => {
    await branchNode(forks[0]!).getByTestId('branch-node-check').check();
    await branchNode(forks[2]!).getByTestId('branch-node-check').check();
    await byTestId('branch-compare-selected').click();
    // Two ticked branches are the board's 2-column case; "A/B details" opens the two-way view.
    await page.locator('[data-testid="board-view"][data-count="2"]').waitFor({ timeout: 10_000 });
    expect(await byTestId('board-column').count()).toBe(2);
    await byTestId('board-pair-compare').click();
    const view = page.locator(`[data-testid="compare-view"][data-a="${forks[0]}"][data-b="${forks[2]}"][data-state="ready"]`);
    await view.waitFor({ timeout: 10_000 });

    const seed = app.runtime.repository.get(forks[0]!)!.header.seedLength!;
    expect(await byTestId('compare-common').getAttribute('data-common-length')).toBe(String(seed));
    await page.waitForFunction(() => /\(1 turn\)/.test(document.querySelector('[data-testid="compare-common"]')?.textContent ?? ''));

    expect(await byTestId('compare-branch-a').textContent()).toContain('Add a README.md');
    expect(await byTestId('compare-branch-b').textContent()).toContain('Append gamma to a.txt');
    expect([await figure('turns', 'a'), await figure('turns', 'b')]).toEqual(['1', '1']);
    expect([await figure('steps', 'a'), await figure('steps', 'b')]).toEqual(['2', '3']);
    expect([await figure('toolCalls', 'a'), await figure('toolCalls', 'b')]).toEqual(['1', '2']);
    expect([await figure('lastTurnEnd', 'a'), await figure('lastTurnEnd', 'b')]).toEqual(['completed', 'completed']);
    expect([await figure('firstPrompt', 'a'), await figure('firstPrompt', 'b')]).toEqual(['Add a README.md', 'Append gamma to a.txt']);
    for (const key of ['inputTokens', 'cacheReadTokens', 'outputTokens', 'duration']) {
      for (const side of ['a', 'b'] as const) expect(await figure(key, side)).toMatch(/^\d/);
    }
    expect(await figure('cacheReadTokens', 'a')).toBe('2.30k');
    expect(await figure('cacheReadTokens', 'b')).toBe('3.00k');

    // Transcripts: only what each fork added after turn 1, side by side.
    const left = page.locator('[data-testid="compare-transcript"][data-side="a"]');
    const right = page.locator('[data-testid="compare-transcript"][data-side="b"]');
    await left.locator('[data-testid="compare-turn-end"][data-turn="2"]').waitFor();
    await right.locator('[data-testid="compare-turn-end"][data-turn="2"]').waitFor();
    expect(await left.locator('[data-testid="compare-user"]').allTextContents()).toEqual(['YouAdd a README.md']);
    expect(await right.locator('[data-testid="compare-user"]').allTextContents()).toEqual(['YouAppend gamma to a.txt']);
    expect(await left.locator('[data-testid="compare-turn"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-turn')))).toEqual(['2']);
    expect(await left.locator('[data-testid="tool-row"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-tool-name')))).toEqual(['write_file']);
    expect(await right.locator('[data-testid="tool-row"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-tool-name')))).toEqual(['read_file', 'write_file']);
    expect(await left.locator('[data-testid="compare-text"]').last().textContent()).toContain('Added README.md.');
    expect(await right.locator('[data-testid="compare-text"]').last().textContent()).toContain('Appended gamma to a.txt.');
    // Answers are rendered as Markdown, as in the timeline (no raw `**`).
    expect(await right.locator('[data-testid="compare-text"] [data-testid="compare-markdown"] strong').last().textContent()).toBe('gamma');

    // Files: fork 1 has README.md and upper-case a.txt (it shares S's folder); fork 3 has its own a.txt with gamma.
    const files = await page.locator('[data-testid="compare-file"]').evaluateAll((els) => els.map((e) => `${e.getAttribute('data-status')} ${e.getAttribute('data-path')}`));
    expect(files.sort()).toEqual(['D README.md', 'M a.txt']);
    const aDiff = page.locator('[data-testid="compare-diff"][data-path="a.txt"]');
    const aText = (await aDiff.textContent()) ?? '';
    expect(aText).toContain('ALPHA');
    expect(aText).toContain('gamma');
    expect(await page.locator('[data-testid="compare-diff"][data-path="README.md"]').textContent()).toContain('# fork 1');
    expect(await byTestId('compare-diff-note').count()).toBe(0);

    // Close the picker so both columns get the width, then save the views.
    await byTestId('branch-picker-close').click();
    await byTestId('branch-picker').waitFor({ state: 'detached' });
    await app.screenshot('21-compare');
    await byTestId('compare-files').scrollIntoViewIfNeeded();
    await app.screenshot('22-compare-files');
  });

  it('compares S with the fork that has not continued, from the branch picker, and returns to the session', async () => {
    // The comparison was opened from the board ("A/B details"): closing it goes back to the board, then Close to the session.
    await byTestId('compare-close').click();
    await byTestId('board-view').waitFor();
    await byTestId('board-close').click();
    await byTestId('session-view').waitFor();
    await open(rootId);
    await byTestId('branches-toggle').click();
    await branchNode(forks[1]!).getByTestId('branch-compare-button').click();
    await page.locator(`[data-testid="compare-view"][data-a="${rootId}"][data-b="${forks[1]}"][data-state="ready"]`).waitFor({ timeout: 10_000 });
    expect([await figure('turns', 'a'), await figure('turns', 'b')]).toEqual(['1', '0']);
    expect(await figure('firstPrompt', 'a')).toBe('Make a.txt uppercase');
    await page.locator('[data-testid="compare-transcript"][data-side="b"] [data-testid="compare-transcript-empty"]').waitFor();
    await page.locator('[data-testid="compare-transcript"][data-side="a"] [data-testid="compare-user"]').waitFor();
    // The unfinished fork has no checkpoint of its own after the fork, so its files are S's after turn 1.
    await byTestId('compare-files').waitFor();
    await app.screenshot('23-compare-unfinished-fork');

    // Swap sides, then open a branch from the compare view.
    await byTestId('compare-swap').click();
    await page.locator(`[data-testid="compare-view"][data-a="${forks[1]}"][data-b="${rootId}"][data-state="ready"]`).waitFor();
    await byTestId('compare-open-b').click();
    await byTestId('session-view').waitFor();
    expect(await selectedId()).toBe(rootId);
    expect(await byTestId('compare-view').count()).toBe(0);
  });
});
