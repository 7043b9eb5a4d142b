/**
 * The CLI under signals and a second holder (issue 10), as a user runs it (real `forkline`
 * processes, the scripted model, a real SQLite file):
 * - SIGTERM / SIGHUP while `forkline run` is inside a bash call that left children behind (one
 *   `setsid`): handled like Ctrl+C — the turn is cancelled with the signal as its cause, the
 *   session is saved, the exit code is 143 / 129 — and no process the tool started survives;
 * - `forkline resume` of a session another running Forkline holds: SESSION_LIVE saying where it
 *   runs; `--take-over` takes it over.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPidAlive } from '../../../electron/platform/process-identity.js';
import { SessionRepository } from '../../../electron/store/session-repository.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { startForkline } from '../../support/cli-process.js';
import { claudeCodeTranscript } from '../../support/claude-code-log.js';
import { spawnTsx, waitForLine } from '../../support/crash-harness.js';
import { LEFT_BEHIND_PID_FILES, LEFT_BEHIND_SCRIPT } from '../../support/left-behind.js';
import { startScriptedLlm, textResponse, toolCallResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';

let llm: ScriptedLlm;
let root: string;

beforeAll(async () => {
  llm = await startScriptedLlm();
  root = mkdtempSync(join(tmpdir(), 'forkline-cli-signals-'));
});
afterAll(async () => {
  await llm.close();
  rmSync(root, { recursive: true, force: true });
});

/** A running CLI through the shared spawn helper (test/support/cli-process.ts). */
function forkline(
  args: string[],
  dataDir: string,
): { readonly child: ChildProcess; stdout(): string; stderr(): string; readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> } {
  const run = startForkline(args, { dataDir });
  return { child: run.child, stdout: run.stdout, stderr: run.stderr, exited: run.exited.then(({ code, signal }) => ({ code, signal })) };
}

async function until(predicate: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const t0 = Date.now();
  while (!predicate()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function stopDuringTool(signal: 'SIGTERM' | 'SIGHUP', expectedCode: number): Promise<void> {
  const dataDir = join(root, `data-${signal}`);
  const work = join(root, `work-${signal}`);
  mkdirSync(work, { recursive: true });
  llm.enqueue(toolCallResponse([{ id: `call_${signal}`, name: 'bash', arguments: JSON.stringify({ command: LEFT_BEHIND_SCRIPT }) }]));
  const run = forkline(['run', '--cwd', work, '--base-url', llm.baseUrl, '--model', 'scripted-model', '--approval', 'allow', 'start the services'], dataDir);
  await until(() => existsSync(join(work, 'started.txt')), 60_000, `${signal}: the bash call to start its children\n${run.stdout()}\n${run.stderr()}`);
  const pids = LEFT_BEHIND_PID_FILES.map((f) => Number(readFileSync(join(work, f), 'utf8').trim()));
  for (const pid of pids) expect(isPidAlive(pid)).toBe(true);
  run.child.kill(signal);
  const exit = await run.exited;
  expect(exit).toEqual({ code: expectedCode, signal: null });
  expect(run.stdout()).toContain(`! ${signal}: cancelling the turn and saving the session`);
  const t0 = Date.now();
  await until(() => pids.every((pid) => !isPidAlive(pid)), 2000, `${signal}: the tool's processes to end (${pids.join(', ')})`);
  console.log(`${signal}: forkline run exited ${exit.code}; its tool's processes were gone ${Date.now() - t0} ms later`);
  const id = /^session ([0-9a-f-]{36})$/m.exec(run.stdout())![1]!;
  const show = forkline(['show', id], dataDir);
  expect((await show.exited).code).toBe(0);
  // The turn was closed by the cancel (nothing left for crash recovery to do).
  expect(show.stdout()).toContain('← error ABORTED');
  expect(show.stdout()).toMatch(new RegExp(`━━ Turn 1 ended: cancelled \\(${signal}\\)`));
  expect(show.stdout()).not.toContain('recovered after an interruption');
}

describe('forkline under signals', () => {
  it('SIGTERM and SIGHUP during a bash call: the turn is cancelled and saved, exit 143 / 129, no tool process survives', async () => {
    await Promise.all([stopDuringTool('SIGTERM', 143), stopDuringTool('SIGHUP', 129)]);
  }, 120_000);

  it('resume of a session another running Forkline holds says where it runs; --take-over takes it over', async () => {
    const dataDir = join(root, 'data-held');
    const work = join(root, 'work-held');
    mkdirSync(work, { recursive: true });
    llm.enqueue(textResponse('first answer'));
    const run = forkline(['run', '--cwd', work, '--base-url', llm.baseUrl, '--model', 'scripted-model', 'first'], dataDir);
    expect((await run.exited).code).toBe(0);
    const id = /^session ([0-9a-f-]{36})$/m.exec(run.stdout())![1]!;
    const control = join(root, 'held-control');
    mkdirSync(control);
    const holder = spawnTsx('test/support/owner-child.ts', [join(dataDir, 'sessions.db'), id, control]);
    try {
      const holding = JSON.parse((await waitForLine(holder, /^holding/)).slice('holding '.length)) as { pid: number };
      const refused = forkline(['resume', id, '--base-url', llm.baseUrl, '--model', 'scripted-model', 'second'], dataDir);
      expect((await refused.exited).code).toBe(1);
      expect(refused.stderr()).toContain('[SESSION_LIVE]');
      expect(refused.stderr()).toContain(`pid ${holding.pid} on ${hostname()}, since `);
      expect(refused.stderr()).toContain('--take-over');
      // show of a finished session open elsewhere is a plain note, not a warning about unfinished turns.
      const shown = forkline(['show', id], dataDir);
      expect((await shown.exited).code).toBe(0);
      expect(shown.stdout()).toContain('note: this session is open in another running Forkline (shown as stored)');
      expect(shown.stdout()).not.toContain('not closed here');
      llm.enqueue(textResponse('second answer'));
      const taken = forkline(['resume', id, '--take-over', '--base-url', llm.baseUrl, '--model', 'scripted-model', 'second'], dataDir);
      expect((await taken.exited).code).toBe(0);
      expect(taken.stdout()).toContain(`taken over from a running Forkline: pid ${holding.pid}`);
      expect(taken.stdout()).toMatch(/━━ Turn 2 ended: completed/);
      writeFileSync(join(control, 'append'), '1');
      const append = JSON.parse((await waitForLine(holder, /^append/)).slice('append '.length)) as { code: string };
      expect(append.code).toBe('STALE_APPEND');
    } finally {
      if (holder.child.exitCode === null) holder.child.kill('SIGKILL');
    }
  }, 120_000);

  it('SIGKILL during a large import: other processes never list the half-written session, and the next run removes it so the file imports again', async () => {
    const dataDir = join(root, 'import-killed');
    mkdirSync(dataDir);
    const file = join(root, 'large-transcript.jsonl');
    writeFileSync(file, `${[...claudeCodeTranscript(2_500)].join('\n')}\n`);
    const importer = forkline(['import', file], dataDir);
    const db = join(dataDir, 'sessions.db');
    let watcher: SqliteSessionStore | undefined;
    try {
      // Another process (this test) watches the store: once rows are there, the import is mid-way.
      await until(() => existsSync(db), 20_000, 'the store file');
      watcher = new SqliteSessionStore(db);
      const watching = new SessionRepository(watcher, { newId: () => 'unused' });
      await until(() => watcher!.list().some((r) => r.eventCount > 2_000), 20_000, 'the import to be mid-way');
      expect(importer.child.exitCode).toBeNull();
      const partial = watcher.list()[0]!;
      // While it is written, no other process lists or opens it.
      expect(watching.list()).toEqual([]);
      expect(watching.importing(partial.header.id)).toBe(true);
      importer.child.kill('SIGKILL');
      expect((await importer.exited).signal).toBe('SIGKILL');
      // Its importer is gone: still hidden, and removed by the next run (here `forkline import` of the same file).
      expect(watching.list()).toEqual([]);
      watching.dispose();
      watcher.close();
      watcher = undefined;
      const again = forkline(['import', file], dataDir);
      expect((await again.exited).code).toBe(0);
      expect(again.stdout()).not.toContain('imported copy');
      const ls = forkline(['ls', '--json'], dataDir);
      await ls.exited;
      const sessions = JSON.parse(ls.stdout()) as { id: string }[];
      expect(sessions.map((x) => x.id)).toEqual([partial.header.id]);
    } finally {
      watcher?.close();
      if (importer.child.exitCode === null && importer.child.signalCode === null) importer.child.kill('SIGKILL');
    }
  }, 120_000);
});
