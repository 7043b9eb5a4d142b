/**
 * The check of a fan-out ("the tests judge", README "Fan-out, apply, rewind"): a shell command run in a branch's folder
 * after its turn, time-limited, in its own process group (killed whole on timeout), whose exit code
 * and printed pass/fail counts rank the branches. Also proposes a check from the project's files
 * and refuses, before anything starts, a command whose program is not found.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync, readFileSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { ForklineError } from '../../shared/errors.js';
import type { CheckResultData, TestCounts } from '../../shared/events.js';

/** Default time limit of a check, ms. */
export const DEFAULT_CHECK_TIMEOUT_MS = 300_000;
const TAIL_CHARS = 4000;
const KILL_GRACE_MS = 1000;

export interface RunCheckOptions {
  readonly command: string;
  readonly cwd: string;
  readonly timeoutMs?: number;
  /** Added to this process's environment. */
  readonly env?: Readonly<Record<string, string>>;
  readonly purpose?: CheckResultData['purpose'];
  readonly turn?: number;
  /** Cancels the check (its process group is killed); the result counts as failed. */
  readonly signal?: AbortSignal;
}

/**
 * Runs `command` with `/bin/sh -c` in `cwd`, in a new process group. At the time limit (or on
 * abort) the whole group gets SIGTERM, then SIGKILL after a grace second.
 * @returns the result as logged in `check/result` (never throws for a failing command).
 */
export function runCheck(options: RunCheckOptions): Promise<CheckResultData> {
  const started = Date.now();
  const timeoutMs = options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  return new Promise((resolve) => {
    let output = '';
    let timedOut = false;
    const child = spawn('/bin/sh', ['-c', options.command], {
      cwd: options.cwd,
      env: { ...process.env, CI: '1', FORCE_COLOR: '0', NO_COLOR: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const keep = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.length > 4 * TAIL_CHARS * 16) output = output.slice(-TAIL_CHARS * 16);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const killGroup = (sig: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, sig);
      } catch {
        // already gone
      }
    };
    let hardKill: NodeJS.Timeout | undefined;
    const stop = () => {
      killGroup('SIGTERM');
      hardKill = setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, timeoutMs);
    const onAbort = () => stop();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null, spawnError?: Error) => {
      clearTimeout(timer);
      if (hardKill) clearTimeout(hardKill);
      // Anything the command left running in its group goes too.
      killGroup('SIGKILL');
      options.signal?.removeEventListener('abort', onAbort);
      if (spawnError) output += `\n${spawnError.message}`;
      const counts = parseTestCounts(output);
      const aborted = options.signal?.aborted === true;
      const passed = !timedOut && !aborted && exitCode === 0 && (counts === undefined || counts.failed === 0);
      resolve({
        purpose: options.purpose ?? 'check',
        turn: options.turn ?? 0,
        command: options.command,
        exitCode,
        ...(signal ? { signal } : {}),
        timedOut,
        durationMs: Date.now() - started,
        passed,
        outputTail: tail(output),
        ...(counts ? { counts } : {}),
      });
    };
    child.on('error', (error) => finish(null, null, error));
    child.on('close', (code, sig) => finish(code, sig));
  });
}

/** Terminal colour and cursor sequences (ESC [ … letter), which runners print even with NO_COLOR sometimes. */
const ANSI_SEQUENCE = new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[A-Za-z]`, 'g');

function tail(text: string): string {
  const clean = text.replace(ANSI_SEQUENCE, '');
  return clean.length <= TAIL_CHARS ? clean : `…${clean.slice(-TAIL_CHARS)}`;
}

/**
 * Pass/fail counts from a test runner's summary, when it prints one: vitest, jest, node:test,
 * pytest, go test, cargo test. The last summary in the output wins. Pure.
 */
export function parseTestCounts(output: string): TestCounts | undefined {
  const text = output.replace(ANSI_SEQUENCE, '');
  const num = (re: RegExp): number | undefined => {
    const all = [...text.matchAll(re)];
    const last = all.at(-1);
    return last ? Number(last[1]) : undefined;
  };
  // vitest: "Tests  1 failed | 3 passed (4)"
  const vitest = [...text.matchAll(/^\s*Tests\s+(.+)\(\d+\)\s*$/gm)].at(-1);
  if (vitest) {
    const part = vitest[1]!;
    const n = (word: string) => Number(new RegExp(`(\\d+) ${word}`).exec(part)?.[1] ?? 0);
    return { runner: 'vitest', passed: n('passed'), failed: n('failed'), ...(n('skipped') ? { skipped: n('skipped') } : {}) };
  }
  // jest: "Tests:       1 failed, 2 passed, 3 total"
  const jest = [...text.matchAll(/^Tests:\s+(.+total)\s*$/gm)].at(-1);
  if (jest) {
    const part = jest[1]!;
    const n = (word: string) => Number(new RegExp(`(\\d+) ${word}`).exec(part)?.[1] ?? 0);
    return { runner: 'jest', passed: n('passed'), failed: n('failed'), ...(n('skipped') ? { skipped: n('skipped') } : {}) };
  }
  // node:test: "# pass 3" / "# fail 1" (TAP) or "ℹ pass 3" / "ℹ fail 1" (spec reporter)
  const nodePass = num(/^(?:#|ℹ) pass (\d+)\s*$/gm);
  const nodeFail = num(/^(?:#|ℹ) fail (\d+)\s*$/gm);
  if (nodePass !== undefined && nodeFail !== undefined) {
    const skipped = num(/^(?:#|ℹ) skipped (\d+)\s*$/gm);
    return { runner: 'node:test', passed: nodePass, failed: nodeFail, ...(skipped ? { skipped } : {}) };
  }
  // cargo: "test result: FAILED. 2 passed; 1 failed; 0 ignored; …" (one line per test binary: summed)
  const cargo = [...text.matchAll(/^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored/gm)];
  if (cargo.length > 0) {
    const sum = (i: number) => cargo.reduce((acc, m) => acc + Number(m[i]), 0);
    return { runner: 'cargo', passed: sum(1), failed: sum(2), ...(sum(3) ? { skipped: sum(3) } : {}) };
  }
  // pytest: "==== 1 failed, 2 passed in 0.12s ====" (also "3 passed in …")
  const pytest = [...text.matchAll(/^=+ (.*\d+ (?:passed|failed|error|errors|skipped).*) in [\d.]+s.* =+\s*$/gm)].at(-1);
  if (pytest) {
    const part = pytest[1]!;
    const n = (word: string) => Number(new RegExp(`(\\d+) ${word}`).exec(part)?.[1] ?? 0);
    return { runner: 'pytest', passed: n('passed'), failed: n('failed') + n('errors?'), ...(n('skipped') ? { skipped: n('skipped') } : {}) };
  }
  // go test -v: "--- PASS: TestX" / "--- FAIL: TestY"; without -v only "ok"/"FAIL" per package.
  const goPass = [...text.matchAll(/^\s*--- PASS: /gm)].length;
  const goFail = [...text.matchAll(/^\s*--- FAIL: /gm)].length;
  if (goPass + goFail > 0) return { runner: 'go test', passed: goPass, failed: goFail };
  const goOk = [...text.matchAll(/^ok\s+\S+\s+[\d.]+s/gm)].length;
  const goPkgFail = [...text.matchAll(/^FAIL\s+\S+\s+[\d.]+s/gm)].length;
  if (goOk + goPkgFail > 0) return { runner: 'go test (packages)', passed: goOk, failed: goPkgFail };
  return undefined;
}

/**
 * A check proposed from the project in `folder`: the `package.json` test script (`npm test`),
 * pytest, `go test ./...`, `cargo test`; undefined when none fits.
 */
export function proposeCheck(folder: string): string | undefined {
  const pkgFile = join(folder, 'package.json');
  if (existsSync(pkgFile)) {
    try {
      const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { scripts?: Record<string, unknown> };
      const script = pkg.scripts?.['test'];
      if (typeof script === 'string' && script.trim() !== '' && !/no test specified/.test(script)) return 'npm test --silent';
    } catch {
      // not JSON: not a node project we can read
    }
  }
  if (existsSync(join(folder, 'Cargo.toml'))) return 'cargo test';
  if (existsSync(join(folder, 'go.mod'))) return 'go test ./...';
  const names = safeList(folder);
  if (
    ['pytest.ini', 'pyproject.toml', 'setup.cfg', 'tox.ini', 'conftest.py'].some((f) => names.includes(f)) ||
    names.some((f) => /^test_.*\.py$|_test\.py$/.test(f)) ||
    (names.includes('tests') && safeList(join(folder, 'tests')).some((f) => f.endsWith('.py')))
  ) {
    return 'python3 -m pytest -q';
  }
  return undefined;
}

function safeList(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}

/**
 * Refuses a check whose program cannot be found (on PATH, or as a path relative to `cwd`), before
 * anything starts. Shell builtins and commands starting with a variable assignment pass.
 * @throws ForklineError CHECK_NOT_FOUND naming the fix.
 */
export function assertCheckRunnable(command: string, cwd: string, path: string = process.env['PATH'] ?? ''): void {
  const words = command.trim().split(/\s+/);
  let program = words.find((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
  if (program === undefined || command.trim() === '') throw new ForklineError('CHECK_NOT_FOUND', 'the check command is empty: pass --check "CMD" (e.g. --check "npm test")');
  program = program.replace(/^['"]|['"]$/g, '');
  const builtins = new Set([
    'cd',
    'test',
    '[',
    'true',
    'false',
    'exit',
    'echo',
    'export',
    'set',
    ':',
    '.',
    'source',
    'exec',
    'env',
    'sh',
    'bash',
    '(',
    '{',
    'if',
    'for',
    'while',
    'until',
    'case',
    '!',
    'time',
  ]);
  if (builtins.has(program)) return;
  const executable = (file: string) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (program.includes('/')) {
    if (executable(isAbsolute(program) ? program : join(cwd, program))) return;
    throw new ForklineError('CHECK_NOT_FOUND', `the check command's program ${program} is not found or not executable in ${cwd}: fix the path or pass another --check`);
  }
  if (path.split(delimiter).some((dir) => dir !== '' && executable(join(dir, program)))) return;
  throw new ForklineError('CHECK_NOT_FOUND', `the check command's program "${program}" is not found on PATH: install it, or pass another --check (e.g. --check "npm test")`);
}
