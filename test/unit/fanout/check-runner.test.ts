/**
 * The fan-out check (issue 21): real processes through /bin/sh — exit codes, a hanging check killed
 * at its time limit with its whole process group, counts from a real node:test run, the summary
 * lines of the other runners, the proposed check and the refusal of a program that is not found.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assertCheckRunnable, parseTestCounts, proposeCheck, runCheck } from '../../../electron/fanout/check-runner.js';

const dir = mkdtempSync(join(tmpdir(), 'forkline-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Running (a killed process this container's init has not reaped yet is a zombie: not running). */
const alive = (pid: number) => {
  if (spawnSync('kill', ['-0', String(pid)]).status !== 0) return false;
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

describe('runCheck', () => {
  it('logs the command, exit code, duration, output tail and the env it was given', async () => {
    const r = await runCheck({ command: 'echo "branch $FORKLINE_BRANCH"; echo oops >&2; exit 3', cwd: dir, env: { FORKLINE_BRANCH: 'b1' }, turn: 2 });
    expect(r).toMatchObject({ purpose: 'check', turn: 2, exitCode: 3, timedOut: false, passed: false });
    expect(r.outputTail).toContain('branch b1');
    expect(r.outputTail).toContain('oops');
    expect(r.durationMs).toBeGreaterThanOrEqual(0);
    expect((await runCheck({ command: 'true', cwd: dir })).passed).toBe(true);
  });

  it('kills a hanging check and everything it started at the time limit; it counts as failed (timeout)', async () => {
    const pidFile = join(dir, 'pids');
    const started = Date.now();
    const r = await runCheck({ command: `sleep 30 & echo $! > ${pidFile}; sleep 30`, cwd: dir, timeoutMs: 500 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r).toMatchObject({ timedOut: true, passed: false, exitCode: null });
    const background = Number(readFileSync(pidFile, 'utf8'));
    expect(background).toBeGreaterThan(0);
    await new Promise((res) => setTimeout(res, 200));
    expect(alive(background)).toBe(false);
  });

  it('reads pass/fail counts from a real node:test run, and a 0 exit with failures is not a pass', async () => {
    writeFileSync(
      join(dir, 'a.test.mjs'),
      "import test from 'node:test';\nimport assert from 'node:assert';\ntest('ok', () => {});\ntest('bad', () => assert.equal(1, 2));\ntest.skip('later', () => {});\n",
    );
    const r = await runCheck({ command: `${process.execPath} --test a.test.mjs`, cwd: dir });
    expect(r.counts).toEqual({ runner: 'node:test', passed: 1, failed: 1, skipped: 1 });
    expect(r.passed).toBe(false);
    expect((await runCheck({ command: `${process.execPath} --test a.test.mjs; true`, cwd: dir })).passed).toBe(false);
  });
});

describe('parseTestCounts', () => {
  it.each([
    ['vitest', ' Test Files  1 failed | 2 passed (3)\n      Tests  2 failed | 10 passed | 1 skipped (13)\n', { runner: 'vitest', passed: 10, failed: 2, skipped: 1 }],
    ['jest', 'Test Suites: 1 failed, 1 total\nTests:       1 failed, 4 passed, 5 total\n', { runner: 'jest', passed: 4, failed: 1 }],
    ['pytest', '===== 2 failed, 7 passed, 1 skipped in 0.31s =====\n', { runner: 'pytest', passed: 7, failed: 2, skipped: 1 }],
    ['go test -v', '=== RUN   TestA\n--- PASS: TestA (0.00s)\n=== RUN   TestB\n--- FAIL: TestB (0.00s)\nFAIL\nFAIL\texample.com/m\t0.002s\n', { runner: 'go test', passed: 1, failed: 1 }],
    [
      'cargo',
      'test result: FAILED. 3 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out\ntest result: ok. 2 passed; 0 failed; 1 ignored; 0 measured\n',
      { runner: 'cargo', passed: 5, failed: 1, skipped: 1 },
    ],
  ])('%s', (_name, output, counts) => {
    expect(parseTestCounts(output)).toEqual(counts);
  });

  it('prints nothing it does not see', () => {
    expect(parseTestCounts('all tests passed\n')).toBeUndefined();
  });
});

describe('proposeCheck / assertCheckRunnable', () => {
  it('proposes the package.json test script, cargo, go and pytest, in that order', () => {
    const p = mkdtempSync(join(dir, 'p-'));
    expect(proposeCheck(p)).toBeUndefined();
    writeFileSync(join(p, 'test_x.py'), '');
    expect(proposeCheck(p)).toBe('python3 -m pytest -q');
    writeFileSync(join(p, 'go.mod'), 'module m\n');
    expect(proposeCheck(p)).toBe('go test ./...');
    writeFileSync(join(p, 'Cargo.toml'), '');
    expect(proposeCheck(p)).toBe('cargo test');
    writeFileSync(join(p, 'package.json'), JSON.stringify({ scripts: { test: 'node test.js' } }));
    expect(proposeCheck(p)).toBe('npm test --silent');
  });

  it('refuses a program that is not found, naming the fix', () => {
    expect(() => assertCheckRunnable('no-such-runner-xyz --all', dir)).toThrow(/not found on PATH: install it, or pass another --check/);
    expect(() => assertCheckRunnable('./missing.sh', dir)).toThrow(/not found or not executable/);
    expect(() => assertCheckRunnable('CI=1 node test.js', dir)).not.toThrow();
  });
});
