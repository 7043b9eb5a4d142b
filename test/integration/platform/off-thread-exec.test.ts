/**
 * execFileOffThread (electron/platform/off-thread-exec.ts): real processes launched from the worker
 * thread give what `execFile` gives — output, exit status, stderr, a missing program, a timeout,
 * output over maxBuffer, cwd and env — and the process lives exactly as long as a command runs.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execFileOffThread, OffThreadExecError } from '../../../electron/platform/off-thread-exec.js';
import { spawnTsx } from '../../support/crash-harness.js';

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'forkline-exec-')));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function failure(promise: Promise<unknown>): Promise<OffThreadExecError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(OffThreadExecError);
    return error as OffThreadExecError;
  }
  throw new Error('the command did not fail');
}

describe('execFileOffThread', () => {
  it('returns stdout and stderr, in the given cwd and env, as execFile does', async () => {
    const script = 'printf "%s|%s" "$PWD" "$FORKLINE_PROBE"; printf "to stderr" >&2';
    const ours = await execFileOffThread('/bin/sh', ['-c', script], { cwd: dir, env: { PATH: process.env['PATH'], FORKLINE_PROBE: 'ünïcode ✓' } });
    const theirs = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) =>
      execFile('/bin/sh', ['-c', script], { cwd: dir, env: { PATH: process.env['PATH'], FORKLINE_PROBE: 'ünïcode ✓' }, encoding: 'utf8' }, (e, stdout, stderr) =>
        e ? reject(e) : resolve({ stdout, stderr }),
      ),
    );
    expect(ours).toEqual({ stdout: `${dir}|ünïcode ✓`, stderr: 'to stderr' });
    expect(ours).toEqual(theirs);
  });

  it('rejects a non-zero exit with its status and output, a missing program with ENOENT', async () => {
    const exit = await failure(execFileOffThread('/bin/sh', ['-c', 'echo partial; echo why >&2; exit 3']));
    expect(exit.code).toBe(3);
    expect(exit.stdout).toBe('partial\n');
    expect(exit.stderr).toBe('why\n');
    expect(exit.killed).toBe(false);
    const missing = await failure(execFileOffThread(join(dir, 'no-such-program'), []));
    expect(missing.code).toBe('ENOENT');
  });

  it('kills a command past its timeout and one that prints more than maxBuffer', async () => {
    const started = Date.now();
    const slow = await failure(execFileOffThread('/bin/sh', ['-c', 'sleep 30'], { timeout: 300 }));
    expect(slow.killed).toBe(true);
    expect(slow.signal).toBe('SIGTERM');
    expect(Date.now() - started).toBeLessThan(20_000);
    const loud = await failure(execFileOffThread('/bin/sh', ['-c', 'head -c 100000 /dev/zero'], { maxBuffer: 1000 }));
    expect(loud.code).toBe('ERR_CHILD_PROCESS_STDIO_MAXBUFFER');
  });

  it('runs many commands at once, each answer to its own caller', async () => {
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => execFileOffThread('/bin/sh', ['-c', `sleep 0.0${i % 5}; echo ${i}`])));
    expect(answers.map((a) => a.stdout.trim())).toEqual(Array.from({ length: 24 }, (_, i) => String(i)));
  });

  it('keeps a process alive while a command runs and lets it exit once none does', async () => {
    const child = spawnTsx('test/support/off-thread-exec-child.ts', ['0.5']);
    const exit = await child.exited; // would hang (test timeout) if the idle worker held the process
    expect(child.stderr()).toBe('');
    expect(child.stdout()).toBe('child got: slept\n');
    expect(exit).toEqual({ code: 0, signal: null });
  });
});
