/**
 * `grep{pattern, path?, glob?}`: JavaScript-RegExp search over workspace files, one result line
 * per matching line (`file:line: text`), skipping binary files, node_modules and .git, capped at
 * {@link GREP_MAX_MATCHES} with a notice.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool, ToolError, type ToolDefinition } from '../tool.js';
import { resolveInWorkspace, toWorkspaceRelative } from '../workspace-path.js';
import { looksBinary, MAX_TEXT_FILE_BYTES, plural, statOrUndefined } from './file-support.js';
import { findFiles, normalisePattern } from './workspace-files.js';

/** Most matching lines listed by one call. */
export const GREP_MAX_MATCHES = 500;

/** Matching lines longer than this are cut (characters). */
export const GREP_MAX_LINE_CHARS = 500;

/** Deadline (ms) the pipeline applies to one grep call. */
export const GREP_TIMEOUT_MS = 60_000;

const parameters = z
  .object({
    pattern: z
      .string()
      .min(1)
      .describe('Regular expression in JavaScript RegExp syntax, matched against each line separately (case-sensitive; use e.g. [Ff]oo for either case). Escape special characters such as ( ) . [ to match them literally.'),
    path: z.string().optional().describe('File or directory to search, relative to the workspace root. Default: the whole workspace.'),
    glob: z
      .string()
      .optional()
      .describe('Only search files matching this glob, relative to path, e.g. "*.ts" (a pattern without "/" matches file names at any depth) or "src/**/*.test.ts".'),
  })
  .strict();

/**
 * Result content: `file:line: text` per matching line (file workspace-relative, line 1-based,
 * text cut at {@link GREP_MAX_LINE_CHARS} chars), files in code-point order; `No matches for
 * /p/ in 'path'.` when none; over the cap `[N more matching lines not shown (M in total in F
 * files). Narrow the pattern, path or glob.]`.
 *
 * meta: `{pattern, path, matches, files, truncated, filesSearched}`.
 *
 * Errors: `INVALID_ARGS` (invalid regular expression, empty glob), `NOT_FOUND` (path missing),
 * `PATH_OUTSIDE_WORKSPACE`, `ABORTED`, `TOOL_ERROR`.
 */
export function createGrepTool(): ToolDefinition<typeof parameters> {
  return defineTool({
    name: 'grep',
    description:
      'Search file contents in the workspace with a regular expression (JavaScript syntax). Returns matching lines as "path:line: text". ' +
      `Binary files, node_modules and .git are skipped. Returns at most ${GREP_MAX_MATCHES} matching lines.`,
    parameters,
    risk: 'read',
    presentation: 'search',
    timeoutMs: GREP_TIMEOUT_MS,
    isConcurrencySafe: () => true,
    async execute(args, ctx) {
      let regex: RegExp;
      try {
        regex = new RegExp(args.pattern);
      } catch (error) {
        throw new ToolError('INVALID_ARGS', `The pattern is not a valid JavaScript regular expression: ${error instanceof Error ? error.message : String(error)}. Fix the pattern (escape special characters with \\).`);
      }
      const absolute = await resolveInWorkspace(ctx.cwd, args.path ?? '.');
      const shown = toWorkspaceRelative(ctx.cwd, absolute);
      const stats = await statOrUndefined(absolute, shown);
      if (stats === undefined) throw new ToolError('NOT_FOUND', `The path '${shown}' does not exist. Use list_dir or glob to find the right path.`);

      let files: string[];
      if (stats.isDirectory()) {
        let pattern = '**/*';
        if (args.glob !== undefined) {
          pattern = normalisePattern(absolute, args.glob, ctx.cwd);
          if (!pattern.includes('/')) pattern = `**/${pattern}`;
        }
        files = await findFiles(ctx.cwd, absolute, pattern, ctx.signal);
      } else {
        files = [absolute];
      }

      const out: string[] = [];
      let matches = 0;
      let filesWithMatches = 0;
      let filesSearched = 0;
      for (const file of files) {
        if (ctx.signal.aborted) throw new ToolError('ABORTED', 'The search was cancelled.');
        let bytes: Buffer;
        try {
          const size = (await statOrUndefined(file, file))?.size ?? 0;
          if (size > MAX_TEXT_FILE_BYTES) continue;
          bytes = await readFile(file);
        } catch {
          continue; // vanished or unreadable: not a result
        }
        if (looksBinary(bytes)) continue;
        filesSearched++;
        const rel = toWorkspaceRelative(ctx.cwd, file);
        const lines = bytes.toString('utf8').split('\n');
        if (lines[lines.length - 1] === '') lines.pop(); // a final newline does not start a line
        let found = false;
        for (let i = 0; i < lines.length; i++) {
          let line = lines[i]!;
          if (line.endsWith('\r')) line = line.slice(0, -1);
          if (!regex.test(line)) continue;
          found = true;
          matches++;
          if (out.length < GREP_MAX_MATCHES) {
            const text = line.length > GREP_MAX_LINE_CHARS ? `${line.slice(0, GREP_MAX_LINE_CHARS)}… [line cut]` : line;
            out.push(`${rel}:${i + 1}: ${text}`);
          }
        }
        if (found) filesWithMatches++;
      }
      const meta = { pattern: args.pattern, path: shown, matches, files: filesWithMatches, truncated: matches > out.length, filesSearched };
      if (matches === 0) {
        return { content: `No matches for /${args.pattern}/ in '${shown}'${args.glob === undefined ? '' : ` (files matching '${args.glob}')`}.`, meta };
      }
      if (matches > out.length) {
        out.push(`[${matches - out.length} more matching lines not shown (${matches} in total in ${plural(filesWithMatches, 'file')}). Narrow the pattern, path or glob.]`);
      }
      return { content: out.join('\n'), meta };
    },
  });
}
