/**
 * The bundled CLI as a real child process (`node bin/forkline.js …`), for the CLI integration
 * tests: with pipes (bytes kept as bytes, so output can be compared exactly), through a shell
 * pipeline (`| head -1`, `| wc -c`), or in a real pseudo terminal (node-pty).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { spawn as spawnPty, type IPty } from 'node-pty';

export const ROOT = join(import.meta.dirname, '../..');
export const FORKLINE = join(ROOT, 'bin/forkline.js');

/** The environment every CLI test runs with: no colour, no provider keys. */
export function cliEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { ...(process.env as Record<string, string>), NO_COLOR: '1', DEEPSEEK_API_KEY: '', OPENAI_API_KEY: '', ...extra };
}

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/**
 * Runs `forkline ARGS` with stdout and stderr on pipes and collects them whole.
 * @param options.nodeArgs flags for node itself (e.g. `--max-old-space-size=64`, `-r probe.cjs`).
 */
export function runCli(
  args: readonly string[],
  options: { readonly env?: Record<string, string>; readonly nodeArgs?: readonly string[]; readonly uid?: number; readonly gid?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), FORKLINE, ...args], {
      cwd: ROOT,
      env: cliEnv(options.env),
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.uid !== undefined ? { uid: options.uid } : {}),
      ...(options.gid !== undefined ? { gid: options.gid } : {}),
    });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout: Buffer.concat(out), stderr }));
  });
}

/** What `forkline()` gives back: the exit status (`-1` when killed by a signal), the signal, and the output as text. */
export interface ForklineRun {
  readonly code: number;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Wall time from spawn to exit. */
  readonly ms: number;
}

export interface ForklineOptions {
  /** Appended as `--data-dir DIR` after the arguments (left off when undefined). */
  readonly dataDir?: string;
  /** Added to (or overriding) `cliEnv()`. */
  readonly env?: Record<string, string>;
  /** Called with all of stdout so far on every chunk (e.g. to send SIGINT once a line shows). */
  readonly onStdout?: (text: string, child: ChildProcess) => void;
  /** Called with all of stderr so far on every chunk. */
  readonly onStderr?: (text: string, child: ChildProcess) => void;
}

function withDataDir(args: readonly string[], dataDir: string | undefined): string[] {
  return dataDir === undefined ? [...args] : [...args, '--data-dir', dataDir];
}

/**
 * A running `forkline ARGS [--data-dir DIR]` with its output collected as text (the shared spawn
 * helper of the CLI integration tests; resolves once the process exited and its output is read).
 */
export function startForkline(args: readonly string[], options: ForklineOptions = {}): { readonly child: ChildProcess; stdout(): string; stderr(): string; readonly exited: Promise<ForklineRun> } {
  const started = Date.now();
  const child = spawn(process.execPath, [FORKLINE, ...withDataDir(args, options.dataDir)], { cwd: ROOT, env: cliEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    options.onStdout?.(stdout, child);
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    options.onStderr?.(stderr, child);
  });
  // Resolved when stdout and stderr are drained ('close'), not at 'exit', which can come before the
  // last chunk is read on a loaded machine; a process the run left behind that still holds the
  // pipes delays that by at most 5 s.
  const exited = new Promise<ForklineRun>((resolve) => {
    let status: { code: number; signal: NodeJS.Signals | null; ms: number } | undefined;
    const done = () => resolve({ ...status!, stdout, stderr });
    child.on('exit', (code, signal) => {
      status = { code: code ?? -1, signal, ms: Date.now() - started };
      setTimeout(done, 5000).unref();
    });
    child.on('close', (code, signal) => {
      status ??= { code: code ?? -1, signal, ms: Date.now() - started };
      done();
    });
  });
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Runs `forkline ARGS [--data-dir DIR]` to its exit. */
export function forkline(args: readonly string[], options: ForklineOptions = {}): Promise<ForklineRun> {
  return startForkline(args, options).exited;
}

/** `forkline()` without an event loop turn (spawnSync), for tests that run step by step; `timeoutMs` kills a hung run. */
export function forklineSync(
  args: readonly string[],
  options: { readonly dataDir?: string; readonly env?: Record<string, string>; readonly timeoutMs?: number } = {},
): { readonly code: number; readonly stdout: string; readonly stderr: string } {
  const r = spawnSync(process.execPath, [FORKLINE, ...withDataDir(args, options.dataDir)], { cwd: ROOT, env: cliEnv(options.env), encoding: 'utf8', timeout: options.timeoutMs ?? 60_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Runs a shell pipeline whose first command is `forkline ARGS` (`$FORKLINE` in `tail`), e.g.
 * `| head -1`. Returns each command's exit status (bash PIPESTATUS) and the pipeline's output.
 */
export function runCliPipeline(
  args: readonly string[],
  tail: string,
  options: { readonly env?: Record<string, string> } = {},
): Promise<{ readonly statuses: number[]; readonly stdout: string; readonly stderr: string }> {
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const script = `"$NODE" "$FORKLINE" ${quoted} ${tail}; echo "PIPESTATUS=\${PIPESTATUS[*]}" >&2`;
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd: ROOT, env: cliEnv({ ...options.env, NODE: process.execPath, FORKLINE }), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', () => {
      const match = /PIPESTATUS=([\d ]+)\n?$/.exec(stderr);
      resolve({ statuses: match ? match[1]!.trim().split(' ').map(Number) : [], stdout, stderr: stderr.replace(/PIPESTATUS=[\d ]+\n?$/, '') });
    });
  });
}

export interface CliInTerminal {
  readonly pty: IPty;
  /** Everything the terminal showed so far (CRLF as LF). */
  screen(): string;
  /** Resolves when `predicate(screen)` holds; rejects after `timeoutMs` with the screen. */
  until(predicate: (screen: string) => boolean, timeoutMs: number, what: string): Promise<void>;
  readonly exited: Promise<{ readonly exitCode: number; readonly signal: number }>;
}

/** Runs `forkline ARGS` as the session leader of a new pseudo terminal (as a shell in a terminal window would run it). */
export function runCliInTerminal(args: readonly string[], options: { readonly env?: Record<string, string> } = {}): CliInTerminal {
  const pty = spawnPty(process.execPath, [FORKLINE, ...args], { cwd: ROOT, env: cliEnv(options.env), cols: 160, rows: 50 });
  let screen = '';
  const watchers = new Set<() => void>();
  pty.onData((data) => {
    screen += data;
    for (const w of [...watchers]) w();
  });
  const exited = new Promise<{ exitCode: number; signal: number }>((resolve) => pty.onExit((e) => resolve({ exitCode: e.exitCode, signal: e.signal ?? 0 })));
  const text = () => screen.replace(/\r\n/g, '\n');
  return {
    pty,
    screen: text,
    exited,
    until: (predicate, timeoutMs, what) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!predicate(text())) return;
          watchers.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          watchers.delete(check);
          reject(new Error(`timed out waiting for ${what}; the terminal shows:\n${text()}`));
        }, timeoutMs);
        watchers.add(check);
        void exited.then(() => {
          if (watchers.has(check)) {
            watchers.delete(check);
            clearTimeout(timer);
            reject(new Error(`forkline exited before ${what}; the terminal shows:\n${text()}`));
          }
        });
        check();
      }),
  };
}
