/**
 * Real child processes for the store's crash and two-writer tests: spawn a TypeScript entry (its
 * bundle for this run, or through tsx), wait for a marker file, SIGKILL, and wait for the exit (so the pid is reaped and no longer
 * looks alive to the repository's live-owner check).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundledChild } from './child-bundles.js';

export const REPO_ROOT = join(import.meta.dirname, '../..');

export interface SpawnedChild {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code and signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Runs the TypeScript program `entry` (repository-relative) with `args` from the repository root:
 * its bundle built for this run when there is one (child-bundles.ts: a tenth of the start-up
 * CPU), else `node --import tsx <entry>`.
 */
export function spawnTsx(entry: string, args: readonly string[]): SpawnedChild {
  const bundled = bundledChild(entry);
  const program = bundled ? ['--enable-source-maps', bundled] : ['--import', 'tsx', join(REPO_ROOT, entry)];
  const child = spawn(process.execPath, [...program, ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Polls for `file` until it exists (or the child exits, or `timeoutMs` passes) and returns its text. */
export async function waitForFile(file: string, spawned: SpawnedChild, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void spawned.exited.then(() => (exited = true));
  while (Date.now() < deadline) {
    if (existsSync(file)) {
      const text = readFileSync(file, 'utf8');
      if (text.length > 0) return text;
    }
    if (exited) throw new Error(`child exited before writing ${file}\nstdout:\n${spawned.stdout()}\nstderr:\n${spawned.stderr()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  spawned.child.kill('SIGKILL');
  throw new Error(`timed out waiting for ${file}\nstderr:\n${spawned.stderr()}`);
}

/** Polls stdout for a line matching `pattern`. */
export async function waitForLine(spawned: SpawnedChild, pattern: RegExp, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const line = spawned
      .stdout()
      .split('\n')
      .find((l) => pattern.test(l));
    if (line !== undefined) return line;
    if (spawned.child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no line matching ${pattern} from the child\nstdout:\n${spawned.stdout()}\nstderr:\n${spawned.stderr()}`);
}

/** SIGKILLs the child and resolves once it is reaped. */
export async function killHard(spawned: SpawnedChild): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  spawned.child.kill('SIGKILL');
  return spawned.exited;
}
