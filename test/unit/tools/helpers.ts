/** Shared test helpers for the built-in tools: real temp folders, a real tracker, error checks. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { ForklineError } from '../../../shared/errors.js';
import { InMemoryFileReadTracker } from '../../../electron/tools/file-read-tracker.js';
import type { ToolContext } from '../../../electron/tools/tool.js';

/** A fresh real temp folder (real path) and its cleanup. */
export function tempDir(prefix = 'forkline-tools-'): { readonly dir: string; cleanup(): void } {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface TestContext extends ToolContext {
  readonly files: InMemoryFileReadTracker;
}

/** A tool context on `cwd` with a fresh tracker and a live signal. */
export function makeCtx(cwd: string, overrides: Partial<TestContext> = {}): TestContext {
  return {
    cwd,
    sessionId: 'test-session',
    callId: 'call-1',
    signal: new AbortController().signal,
    files: new InMemoryFileReadTracker(),
    ...overrides,
  };
}

/** Writes `content` at `rel` under `root`, creating folders. Returns the absolute path. */
export function put(root: string, rel: string, content: string | Buffer): string {
  const file = path.join(root, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  return file;
}

/** Awaits `promise`, expects a ForklineError with `code` (and a message matching `message`); returns it. */
export async function expectToolError(promise: Promise<unknown>, code: string, message?: RegExp): Promise<ForklineError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected a ToolError ${code}`).toBeDefined();
  expect(ForklineError.isInstance(caught)).toBe(true);
  const error = caught as ForklineError;
  expect(error.name).toBe('ToolError');
  expect(error.code).toBe(code);
  if (message) expect(error.message).toMatch(message);
  return error;
}

/**
 * Registers a fresh workspace folder and a folder "outside" it for every test of the calling
 * `describe` (created before each test, removed after). Read them inside tests: `dirs.ws.dir`.
 */
export function useWorkspaceDirs(): { readonly ws: ReturnType<typeof tempDir>; readonly outside: ReturnType<typeof tempDir> } {
  let ws: ReturnType<typeof tempDir> | undefined;
  let outside: ReturnType<typeof tempDir> | undefined;
  beforeEach(() => {
    ws = tempDir();
    outside = tempDir('forkline-outside-');
  });
  afterEach(() => {
    ws?.cleanup();
    outside?.cleanup();
  });
  return {
    get ws() {
      return ws!;
    },
    get outside() {
      return outside!;
    },
  };
}
