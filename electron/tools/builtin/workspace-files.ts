/**
 * File search shared by `glob` and `grep`: tinyglobby over a folder of the workspace, skipping
 * `node_modules` and `.git`, not following symlinks while crawling, and dropping any match whose
 * real location is outside the workspace (a pattern can still name a symlinked folder explicitly).
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { glob } from 'tinyglobby';
import { ToolError } from '../tool.js';
import { isInside } from '../workspace-path.js';
import { compareCodePoints } from './list-dir.js';

/** Folders never searched (at any depth). */
export const SKIPPED_DIRS = ['node_modules', '.git'] as const;

/** realpath checks run this many at a time. */
const REALPATH_BATCH = 64;

const IGNORE = SKIPPED_DIRS.flatMap((d) => [`**/${d}/**`, `**/${d}`]);

/**
 * Checks a glob pattern and makes it relative: absolute patterns inside `base` are rewritten
 * relative to it; `..` segments and absolute patterns elsewhere are refused.
 * @throws ToolError `PATH_OUTSIDE_WORKSPACE` or `INVALID_ARGS` (empty pattern).
 */
export function normalisePattern(base: string, pattern: string, workspace: string): string {
  let p = pattern.trim();
  if (p === '') throw new ToolError('INVALID_ARGS', 'The glob pattern is empty. Pass a pattern such as "**/*.ts".');
  if (p.startsWith('/')) {
    if (!isInside(base, p.replace(/\/+$/, '') || '/')) {
      throw new ToolError('PATH_OUTSIDE_WORKSPACE', `The pattern '${pattern}' is an absolute path outside the workspace '${workspace}'. Use a pattern relative to the workspace root, e.g. "src/**/*.ts".`);
    }
    p = path.relative(base, p) || '**/*';
  }
  if (p.split('/').includes('..')) {
    throw new ToolError('PATH_OUTSIDE_WORKSPACE', `The pattern '${pattern}' contains "..", which could leave the workspace '${workspace}'. Use a pattern relative to the workspace root.`);
  }
  return p.replace(/^(\.\/)+/, '');
}

/**
 * Files under `base` matching `pattern` (relative to `base`), as absolute paths sorted in code-point
 * order of their workspace-relative form; dotfiles included; symlinks not followed while crawling;
 * matches really outside `workspace` dropped.
 * @throws ToolError `ABORTED` when `signal` aborts.
 */
export async function findFiles(workspace: string, base: string, pattern: string, signal: AbortSignal): Promise<string[]> {
  let matches: string[];
  try {
    matches = await glob(pattern, {
      cwd: base,
      absolute: true,
      dot: true,
      followSymbolicLinks: false,
      expandDirectories: false,
      onlyFiles: true,
      ignore: IGNORE,
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw new ToolError('ABORTED', 'The search was cancelled.', { cause: error });
    throw new ToolError('TOOL_ERROR', `The file search failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (signal.aborted) throw new ToolError('ABORTED', 'The search was cancelled.');
  const inside: string[] = [];
  for (let i = 0; i < matches.length; i += REALPATH_BATCH) {
    const batch = matches.slice(i, i + REALPATH_BATCH).map((file) => path.resolve(file));
    const reals = await Promise.all(batch.map((file) => realpath(file).catch(() => undefined)));
    batch.forEach((file, j) => {
      const real = reals[j];
      if (real !== undefined && isInside(workspace, real)) inside.push(file);
    });
    if (signal.aborted) throw new ToolError('ABORTED', 'The search was cancelled.');
  }
  return inside.sort(compareCodePoints);
}
