/**
 * `glob{pattern}`: workspace files matching a glob pattern, as workspace-relative paths, sorted,
 * skipping node_modules and .git, capped at {@link GLOB_MAX_RESULTS} with a notice.
 */
import { z } from 'zod';
import { defineTool, type ToolDefinition } from '../tool.js';
import { toWorkspaceRelative } from '../workspace-path.js';
import { findFiles, normalisePattern } from './workspace-files.js';

/** Most paths returned by one call. */
export const GLOB_MAX_RESULTS = 1000;

/** Deadline (ms) the pipeline applies to one glob call. */
export const GLOB_TIMEOUT_MS = 60_000;

const parameters = z
  .object({
    pattern: z
      .string()
      .describe('Glob pattern relative to the workspace root, e.g. "**/*.ts", "src/**/test_*.py", "*.{json,yaml}". "**" matches any number of folders.'),
  })
  .strict();

/**
 * Result content: matching file paths (workspace-relative, `/`-separated), one per line in
 * code-point order; `No files match 'p'.` when none; over the cap, the first
 * {@link GLOB_MAX_RESULTS} then `[N more matches not shown (M in total). Use a more specific pattern.]`.
 *
 * meta: `{pattern, matches, truncated}` (matches = total).
 *
 * Errors: `PATH_OUTSIDE_WORKSPACE` (pattern with `..` or an absolute path elsewhere),
 * `INVALID_ARGS` (empty pattern), `ABORTED`, `TOOL_ERROR`.
 */
export function createGlobTool(): ToolDefinition<typeof parameters> {
  return defineTool({
    name: 'glob',
    description:
      'Find files in the workspace by glob pattern. Returns workspace-relative file paths sorted by name; node_modules and .git are skipped, symlinks are not followed. ' +
      `Returns at most ${GLOB_MAX_RESULTS} paths.`,
    parameters,
    risk: 'read',
    presentation: 'search',
    timeoutMs: GLOB_TIMEOUT_MS,
    isConcurrencySafe: () => true,
    async execute(args, ctx) {
      const pattern = normalisePattern(ctx.cwd, args.pattern, ctx.cwd);
      const files = await findFiles(ctx.cwd, ctx.cwd, pattern, ctx.signal);
      if (files.length === 0) return { content: `No files match '${args.pattern}'.`, meta: { pattern: args.pattern, matches: 0, truncated: false } };
      const lines = files.slice(0, GLOB_MAX_RESULTS).map((f) => toWorkspaceRelative(ctx.cwd, f));
      const hidden = files.length - lines.length;
      if (hidden > 0) lines.push(`[${hidden} more matches not shown (${files.length} in total). Use a more specific pattern.]`);
      return { content: lines.join('\n'), meta: { pattern: args.pattern, matches: files.length, truncated: hidden > 0 } };
    },
  });
}
