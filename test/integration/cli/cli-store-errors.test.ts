/**
 * Errors a user of the CLI can meet from the session store, with real processes and real files
 * (issue 20 item 8): each is one line on stderr with its code, never a stack trace, and the exit
 * code says the command failed.
 * - a session taken over by `resume --take-over` in another process while `run` works on it: the
 *   first process stops, says so in one line (STALE_APPEND) and exits 1 — before, it printed
 *   "Turn ended: completed", a stack trace, and exited 0 while the log recorded the turn as
 *   interrupted;
 * - a disk that fills up during a turn (a small tmpfs; needs root to mount it): SQLITE_FULL in one
 *   line, no stack trace, exit 1;
 * - a store the user cannot write (run as an unprivileged user, since root ignores permissions):
 *   `ls` and `show` say EACCES / SQLITE_READONLY in one line.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../shared/events.js';
import { SessionRepository } from '../../../electron/store/session-repository.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { writeBigSession } from '../../support/big-session.js';
import { FORKLINE, ROOT, cliEnv, runCli } from '../../support/cli-process.js';
import { startScriptedLlm, textResponse, toolCallResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'forkline-store-errors-'));
  chmodSync(root, 0o755);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** stderr's lines, without bin/forkline.js's note that it rebuilt a stale bundle first. */
function stderrLines(stderr: string): string[] {
  return stderr
    .trim()
    .split('\n')
    .filter((line) => line !== '' && !/rebuilding it \(npm run build:cli\)/.test(line));
}

/** No stack trace: no `    at ` frame lines, nothing after the one line per error. */
function expectNoStack(stderr: string): void {
  expect(stderr).not.toMatch(/^\s+at /m);
  expect(stderr).not.toContain('unexpected error');
}

function storedEvents(dataDir: string, id: string): readonly SessionEvent[] {
  const store = new SqliteSessionStore(join(dataDir, 'sessions.db'));
  try {
    return new SessionRepository(store, { newId: () => 'unused' }).load(id).events;
  } finally {
    store.close();
  }
}

describe('a lost claim', () => {
  let first: ScriptedLlm;
  let second: ScriptedLlm;
  beforeAll(async () => {
    first = await startScriptedLlm();
    second = await startScriptedLlm();
  });
  afterAll(async () => {
    await first.close();
    await second.close();
  });

  it('run whose session is taken over elsewhere exits 1 and says so in one line', async () => {
    const dataDir = join(root, 'data-claim');
    const work = join(root, 'work-claim');
    mkdirSync(work, { recursive: true });
    first.enqueue(
      toolCallResponse([{ id: 'c1', name: 'bash', arguments: JSON.stringify({ command: 'echo started > started.txt; while [ ! -e go.txt ]; do sleep 0.05; done; echo done' }) }]),
      textResponse('all done'),
    );
    const child = spawn(process.execPath, [FORKLINE, 'run', '--cwd', work, '--base-url', first.baseUrl, '--model', 'scripted-model', '--approval', 'allow', '--data-dir', dataDir, 'work on it'], {
      cwd: ROOT,
      env: cliEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    for (const t0 = Date.now(); !existsSync(join(work, 'started.txt'));) {
      if (Date.now() - t0 > 60_000) throw new Error(`the bash call never started:\n${out}\n${err}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const id = /^session ([0-9a-f-]{36})$/m.exec(out)![1]!;
    second.enqueue(textResponse('took it over'));
    const taken = await runCli(['resume', id, '--take-over', '--base-url', second.baseUrl, '--model', 'scripted-model', '--data-dir', dataDir, 'mine now']);
    expect(taken.code, taken.stderr).toBe(0);
    // The first process's bash call ends; its next write is refused.
    spawnSync('touch', [join(work, 'go.txt')]);
    const code = await exited;
    expect(code, `stdout:\n${out}\nstderr:\n${err}`).toBe(1);
    expectNoStack(err);
    const lines = stderrLines(err);
    expect(lines, err).toHaveLength(1);
    expect(lines[0]).toMatch(/^forkline: session .* was taken over by another Forkline .*\[STALE_APPEND\]$/);
    expect(out).not.toContain('Turn 1 ended: completed');
    // The log: the first turn closed by the take-over as interrupted, then the second process's turn.
    const ends = storedEvents(dataDir, id).filter((e): e is SessionEvent<'turn/end'> => e.type === 'turn/end');
    expect(ends.map((e) => e.data.reason.kind)).toEqual(['interrupted', 'completed']);
  }, 120_000);
});

describe('a full disk', () => {
  let llm: ScriptedLlm;
  let mount: string | undefined;
  beforeAll(async () => {
    llm = await startScriptedLlm();
    const dir = join(root, 'full');
    mkdirSync(dir);
    // 1 MiB: the session is created, then its stream's chunks fill the disk.
    if (process.getuid?.() === 0 && spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]).status === 0) mount = dir;
  });
  afterAll(async () => {
    await llm.close();
    if (mount) spawnSync('umount', [mount]);
  });

  it('SQLITE_FULL during a turn: one line per error with its code, no stack trace, exit 1', async (ctx) => {
    if (!mount) ctx.skip('needs root to mount a 1 MiB tmpfs');
    mkdirSync(join(root, 'work-full'), { recursive: true });
    llm.enqueue(textResponse('x'.repeat(3_000_000), { split: 2000 }));
    const run = await runCli(['run', '--cwd', join(root, 'work-full'), '--base-url', llm.baseUrl, '--model', 'scripted-model', '--data-dir', join(mount!, 'data'), 'write a lot']);
    expect(run.code, run.stderr).toBe(1);
    expectNoStack(run.stderr);
    expect(run.stderr).not.toContain('the model request failed');
    const lines = stderrLines(run.stderr);
    expect(lines.at(-1), run.stderr).toMatch(/^forkline: .*the disk is full.*\[SQLITE_FULL\]$/);
    // The engine's notes are one line each, and a write retried on the full disk is noted once.
    expect(lines.filter((l) => l.includes('a background write failed')).length).toBeLessThanOrEqual(1);
    for (const line of lines) expect(line).toMatch(/\[[A-Z_]+\]|^session /);
  }, 120_000);
});

describe('a store the user cannot write', () => {
  const NOBODY = 65534;
  const asRoot = process.getuid?.() === 0;
  let dataDir: string;
  const ID = 'b16f0000-0000-4000-8000-00000000000a';
  beforeAll(() => {
    dataDir = join(root, 'data-readonly');
    writeBigSession(dataDir, { id: ID, turns: 2, reasoningChunks: 5, chunkChars: 100 });
    if (asRoot) {
      chownSync(dataDir, NOBODY, NOBODY);
      chownSync(join(dataDir, 'sessions.db'), NOBODY, NOBODY);
    }
  });

  it('ls and show on a read-only sessions.db or data folder: one line with the code, exit 1', async (ctx) => {
    // Root ignores file permissions: the commands run as an unprivileged user.
    if (!asRoot) ctx.skip('needs root to run the CLI as another user (root itself ignores permissions)');
    // The bundle must be current: the unprivileged user cannot rebuild it.
    expect((await runCli(['help'])).code).toBe(0);
    const asNobody = { uid: NOBODY, gid: NOBODY, env: { HOME: dataDir } };
    chmodSync(join(dataDir, 'sessions.db'), 0o444);
    for (const args of [['ls'], ['show', ID]]) {
      const result = await runCli([...args, '--data-dir', dataDir], asNobody);
      expect(result.code, result.stderr).toBe(1);
      expectNoStack(result.stderr);
      expect(stderrLines(result.stderr)).toEqual([expect.stringMatching(/^forkline: .*permission denied.*\[EACCES\]$|^forkline: .*read-only.*\[SQLITE_READONLY[A-Z_]*\]$/)]);
    }
    chmodSync(join(dataDir, 'sessions.db'), 0o644);
    chmodSync(dataDir, 0o500);
    try {
      const result = await runCli(['ls', '--data-dir', dataDir], asNobody);
      expect(result.code, result.stderr).toBe(1);
      expectNoStack(result.stderr);
      expect(stderrLines(result.stderr)).toEqual([expect.stringMatching(/^forkline: .*\[(SQLITE_READONLY[A-Z_]*|SQLITE_CANTOPEN|EACCES)\]$/)]);
    } finally {
      chmodSync(dataDir, 0o700);
    }
  }, 60_000);
});
