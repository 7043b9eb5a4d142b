/**
 * `glob{pattern}`: workspace files matching a glob pattern, as workspace-relative paths, sorted,
 * capped at {@link GLOB_MAX_RESULTS} with a notice, and a closing line that says what was not
 * searched and why (workspace-walk.ts: node_modules, .git, .gitignore, links, special files).
 *
 * A pattern that names a file literally (`node_modules/left-pad/package.json`) finds it even when
 * it is ignored, and its literal leading folders are crawled even when ignored
 * (`node_modules/left-pad/*.json`): what is named explicitly is never hidden.
 */
import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Minimatch } from 'minimatch';
import { z } from 'zod';
import { defineTool, ToolError, type ToolDefinition } from '../tool.js';
import { resolveInWorkspace, toWorkspaceRelative } from '../workspace-path.js';
import { fileKind } from './file-bytes.js';
import { normalisePattern, splitPattern } from './glob-pattern.js';
import { describeSkipped, emptySkipReport, ignoreReason, walkWorkspace } from './workspace-walk.js';

/** Most paths returned by one call. */
export const GLOB_MAX_RESULTS = 1000;

/** Deadline (ms) the pipeline applies to one glob call. */
export const GLOB_TIMEOUT_MS = 60_000;

const parameters = z
  .object({
    pattern: z
      .string()
      .describe(
        'Glob pattern relative to the workspace root, e.g. "**/*.ts", "src/**/test_*.py", "*.{json,yaml}". "**" matches any number of folders. A literal path (e.g. "node_modules/pkg/package.json") is found even if it is ignored.',
      ),
  })
  .strict();

/**
 * Result content: matching file paths (workspace-relative, `/`-separated), one per line in
 * code-point order; `No files match 'p'.` when none; over the cap, the first
 * {@link GLOB_MAX_RESULTS} then `[N more matches not shown (M in total). Use a more specific pattern.]`;
 * then `[Not searched: …]` when anything was skipped, or a note when a literally named file is
 * normally ignored.
 *
 * meta: `{pattern, matches, truncated, skipped}` (matches = total).
 *
 * Errors: `PATH_OUTSIDE_WORKSPACE` (pattern with `..` or an absolute path elsewhere),
 * `INVALID_ARGS` (empty pattern), `ABORTED`, `TOOL_ERROR`.
 */
export function createGlobTool(): ToolDefinition<typeof parameters> {
  return defineTool({
    name: 'glob',
    description:
      'Find files in the workspace by glob pattern. Returns workspace-relative file paths sorted by name; node_modules, .git and files excluded by .gitignore are skipped unless the pattern names them literally (the result says what was skipped); links are not followed. ' +
      `Returns at most ${GLOB_MAX_RESULTS} paths.`,
    parameters,
    risk: 'read',
    presentation: 'search',
    timeoutMs: GLOB_TIMEOUT_MS,
    isConcurrencySafe: () => true,
    async execute(args, ctx) {
      const pattern = normalisePattern(ctx.cwd, args.pattern, ctx.cwd);
      const { prefix, rest } = splitPattern(pattern);
      const none = { content: `No files match '${args.pattern}'.`, meta: { pattern: args.pattern, matches: 0, truncated: false } };

      // Everything literal: look the path up directly (named explicitly, so never hidden).
      if (rest === '') {
        const absolute = await resolveInWorkspace(ctx.cwd, prefix);
        const found = await stat(absolute).catch((): Stats | undefined => undefined);
        if (found === undefined) return none;
        const shown = toWorkspaceRelative(ctx.cwd, absolute);
        if (found.isDirectory()) {
          return { content: `No files match '${args.pattern}': '${shown}' is a folder. Use "${shown}/**" for the files in it, or list_dir.`, meta: none.meta };
        }
        if (!found.isFile()) return { content: `No files match '${args.pattern}': '${shown}' is ${fileKind(found)}, not a regular file.`, meta: none.meta };
        const reason = await ignoreReason(ctx.cwd, shown);
        const lines = [shown, ...(reason !== undefined ? [`['${shown}' is normally skipped by searches (${reason}); it is listed because the pattern names it.]`] : [])];
        return { content: lines.join('\n'), meta: { pattern: args.pattern, matches: 1, truncated: false } };
      }

      // The literal leading folders are named explicitly: crawl from there, ignored or not.
      let base = ctx.cwd;
      if (prefix !== '') {
        base = await resolveInWorkspace(ctx.cwd, prefix);
        const s = await stat(base).catch((): Stats | undefined => undefined);
        if (s === undefined || !s.isDirectory()) return none;
      }
      const mm = new Minimatch(rest, { dot: true });
      const walked = await walkWorkspace({
        workspace: ctx.cwd,
        base,
        signal: ctx.signal,
        matchFile: (rel) => mm.match(rel),
        mayContain: (rel) => mm.match(rel, true),
      }).catch((error: unknown) => {
        if (error instanceof ToolError) throw error;
        throw new ToolError('TOOL_ERROR', `The file search failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      });
      const files = walked.files;
      const skippedLine = describeSkipped(walked.skipped ?? emptySkipReport());
      const meta = {
        pattern: args.pattern,
        matches: files.length,
        truncated: files.length > GLOB_MAX_RESULTS,
        skipped: {
          ignoredDirs: walked.skipped.ignoredDirs,
          ignoredFiles: walked.skipped.ignoredFiles,
          linksOutside: walked.skipped.linksOutside,
          linkedDirs: walked.skipped.linkedDirs,
          special: walked.skipped.special,
        },
      };
      if (files.length === 0) return { content: [none.content, ...(skippedLine ? [skippedLine] : [])].join('\n'), meta };
      const lines = files.slice(0, GLOB_MAX_RESULTS).map((f) => toWorkspaceRelative(ctx.cwd, f));
      const hidden = files.length - lines.length;
      if (hidden > 0) lines.push(`[${hidden} more matches not shown (${files.length} in total). Use a more specific pattern.]`);
      if (skippedLine) lines.push(skippedLine);
      return { content: lines.join('\n'), meta };
    },
  });
}
