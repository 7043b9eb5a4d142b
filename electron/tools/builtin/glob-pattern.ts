/**
 * Glob patterns as the model writes them for `glob` and `grep`: checked and made relative to the
 * folder they apply to, and split into the literal folder prefix (named explicitly, so crawled even
 * when ignored) and the part that needs matching. Matching itself is minimatch's (`dot: true`, so
 * dotfiles match like any other file; https://github.com/isaacs/minimatch).
 */
import path from 'node:path';
import { Minimatch } from 'minimatch';
import { ToolError } from '../tool.js';
import { isInside } from '../workspace-path.js';

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
      throw new ToolError(
        'PATH_OUTSIDE_WORKSPACE',
        `The pattern '${pattern}' is an absolute path outside the workspace '${workspace}'. Use a pattern relative to the workspace root, e.g. "src/**/*.ts".`,
      );
    }
    p = path.relative(base, p) || '**/*';
  }
  if (p.split('/').includes('..')) {
    throw new ToolError('PATH_OUTSIDE_WORKSPACE', `The pattern '${pattern}' contains "..", which could leave the workspace '${workspace}'. Use a pattern relative to the workspace root.`);
  }
  return p.replace(/^(\.\/)+/, '').replace(/\/+$/, '');
}

/** A pattern split at its first segment that needs matching. */
export interface SplitPattern {
  /** Literal leading folders (`''` when the first segment is already a glob). */
  readonly prefix: string;
  /** The rest, relative to `prefix` (`''` when the whole pattern is literal). */
  readonly rest: string;
}

/** True when a path segment uses glob syntax (minimatch: `*`, `?`, `[…]`, `{…}`, extglobs). */
export function isMagicSegment(segment: string): boolean {
  return new Minimatch(segment, { dot: true }).hasMagic() || /[{}]/.test(segment);
}

/** Splits `pattern` (relative, `/`-separated) into its literal prefix and the glob part. */
export function splitPattern(pattern: string): SplitPattern {
  const segments = pattern.split('/');
  const first = segments.findIndex(isMagicSegment);
  if (first === -1) return { prefix: pattern, rest: '' };
  return { prefix: segments.slice(0, first).join('/'), rest: segments.slice(first).join('/') };
}
