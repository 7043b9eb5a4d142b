/**
 * `grep{pattern, path?, glob?}`: JavaScript-RegExp search over workspace files, one result line
 * per matching line (`file:line: text`), capped at {@link GREP_MAX_MATCHES} with a notice, and a
 * closing line that says what was not searched and why (workspace-walk.ts).
 *
 * The matching runs in a worker thread with a time budget (grep-worker.ts): a pathological pattern
 * never blocks the main process, and the budget, the call's timeout and a cancel all stop it.
 * A path that names a file or folder searches it even when it is ignored (named explicitly); a
 * FIFO, socket or device is never opened.
 */
import { stat } from 'node:fs/promises';
import { Minimatch } from 'minimatch';
import { z } from 'zod';
import { cutHead } from '../../../shared/text-cut.js';
import { defineTool, ToolError, type ToolDefinition } from '../tool.js';
import { resolveInWorkspace, toWorkspaceRelative } from '../workspace-path.js';
import { notRegularFile } from './file-bytes.js';
import { BINARY_SNIFF_BYTES, fsFailure, MAX_TEXT_FILE_BYTES, plural } from './file-support.js';
import { runGrepWorker, type GrepOutcome } from './grep-worker.js';
import { normalisePattern } from './glob-pattern.js';
import { describeSkipped, emptySkipReport, ignoreReason, walkWorkspace, type SkipReport } from './workspace-walk.js';

/** Most matching lines listed by one call. */
export const GREP_MAX_MATCHES = 500;

/** Matching lines longer than this are cut (UTF-16 units, on a grapheme boundary). */
export const GREP_MAX_LINE_CHARS = 500;

/** Deadline (ms) the pipeline applies to one grep call. */
export const GREP_TIMEOUT_MS = 60_000;

/** The search itself (in its worker) gets this long before it is stopped with advice (ms). */
export const GREP_SEARCH_BUDGET_MS = 30_000;

/** Tunables (tests shorten the budget). */
export interface GrepToolOptions {
  /** Time the worker may search (ms). Default {@link GREP_SEARCH_BUDGET_MS}. */
  readonly searchBudgetMs?: number;
}

const parameters = z
  .object({
    pattern: z
      .string()
      .min(1)
      .describe(
        'Regular expression in JavaScript RegExp syntax, matched against each line separately (case-sensitive; use e.g. [Ff]oo for either case). Escape special characters such as ( ) . [ to match them literally.',
      ),
    path: z.string().optional().describe('File or directory to search, relative to the workspace root. Default: the whole workspace. Naming an ignored folder (e.g. node_modules/pkg) searches it.'),
    glob: z.string().optional().describe('Only search files matching this glob, relative to path, e.g. "*.ts" (a pattern without "/" matches file names at any depth) or "src/**/*.test.ts".'),
  })
  .strict();

/**
 * Result content: `file:line: text` per matching line (file workspace-relative, line 1-based,
 * text cut at {@link GREP_MAX_LINE_CHARS} units on a grapheme boundary), files in code-point order;
 * `No matches for /p/ in 'path'.` when none; over the cap `[N more matching lines not shown (M in
 * total in F files). Narrow the pattern, path or glob.]`; then `[Not searched: …]` with counts per
 * reason (ignored folders and files, binary, too large, links out of the workspace, special files)
 * when anything was skipped.
 *
 * meta: `{pattern, path, matches, files, truncated, filesSearched, skipped}`.
 *
 * Errors: `INVALID_ARGS` (invalid regular expression, empty glob), `NOT_FOUND` (path missing),
 * `NOT_REGULAR_FILE` (path is a FIFO, socket or device), `TOOL_TIMEOUT` (the search budget ran out:
 * the pattern is too slow), `PATH_OUTSIDE_WORKSPACE`, `ABORTED`, `TOOL_ERROR`.
 */
export function createGrepTool(options: GrepToolOptions = {}): ToolDefinition<typeof parameters> {
  const budgetMs = options.searchBudgetMs ?? GREP_SEARCH_BUDGET_MS;
  return defineTool({
    name: 'grep',
    description:
      'Search file contents in the workspace with a regular expression (JavaScript syntax). Returns matching lines as "path:line: text". ' +
      `Binary files, node_modules, .git and files excluded by .gitignore are skipped (the result says what was skipped); name a path to search an ignored folder. Returns at most ${GREP_MAX_MATCHES} matching lines.`,
    parameters,
    risk: 'read',
    presentation: 'search',
    timeoutMs: GREP_TIMEOUT_MS,
    isConcurrencySafe: () => true,
    async execute(args, ctx) {
      try {
        new RegExp(args.pattern);
      } catch (error) {
        throw new ToolError(
          'INVALID_ARGS',
          `The pattern is not a valid JavaScript regular expression: ${error instanceof Error ? error.message : String(error)}. Fix the pattern (escape special characters with \\).`,
        );
      }
      const absolute = await resolveInWorkspace(ctx.cwd, args.path ?? '.');
      const shown = toWorkspaceRelative(ctx.cwd, absolute);
      let stats;
      try {
        stats = await stat(absolute);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') throw new ToolError('NOT_FOUND', `The path '${shown}' does not exist. Use list_dir or glob to find the right path.`);
        throw fsFailure(error, shown, 'search');
      }

      let files: string[];
      let skipped: SkipReport = emptySkipReport();
      let note: string | undefined;
      if (stats.isDirectory()) {
        let matchFile: ((rel: string) => boolean) | undefined;
        let mayContain: ((rel: string) => boolean) | undefined;
        if (args.glob !== undefined) {
          let pattern = normalisePattern(absolute, args.glob, ctx.cwd);
          if (!pattern.includes('/')) pattern = `**/${pattern}`;
          const mm = new Minimatch(pattern, { dot: true });
          matchFile = (rel) => mm.match(rel);
          mayContain = (rel) => mm.match(rel, true);
        }
        const walked = await walkWorkspace({ workspace: ctx.cwd, base: absolute, signal: ctx.signal, ...(matchFile ? { matchFile } : {}), ...(mayContain ? { mayContain } : {}) });
        files = walked.files;
        skipped = walked.skipped;
      } else if (stats.isFile()) {
        files = [absolute];
        const reason = await ignoreReason(ctx.cwd, shown);
        if (reason !== undefined) note = `['${shown}' is normally skipped (${reason}); it was searched because you named it.]`;
      } else {
        throw notRegularFile(shown, stats, 'searched');
      }

      const outcome = await runGrepWorker(
        {
          pattern: args.pattern,
          flags: '',
          files: files.map((file) => ({ path: file, shown: toWorkspaceRelative(ctx.cwd, file) })),
          maxMatches: GREP_MAX_MATCHES,
          maxFileBytes: MAX_TEXT_FILE_BYTES,
          maxLineUnits: GREP_MAX_LINE_CHARS + 64,
          binarySniffBytes: BINARY_SNIFF_BYTES,
        },
        budgetMs,
        ctx.signal,
      );
      if ('kind' in outcome) {
        if (outcome.kind === 'aborted') throw new ToolError('ABORTED', 'The search was cancelled.');
        if (outcome.kind === 'budget') {
          throw new ToolError(
            'TOOL_TIMEOUT',
            `The search was stopped after ${budgetMs} ms over ${plural(files.length, 'file')}: the pattern /${args.pattern}/ is too slow (nested quantifiers like (a+)+ can take exponential time on some lines), or the search is too broad. Simplify the pattern (e.g. a+ instead of (a+)+) or narrow path/glob.`,
          );
        }
        throw new ToolError('TOOL_ERROR', `The search failed: ${outcome.message}`);
      }
      return render(
        args,
        shown,
        files.map((file) => toWorkspaceRelative(ctx.cwd, file)),
        outcome,
        skipped,
        note,
      );
    },
  });
}

function render(
  args: { readonly pattern: string; readonly glob?: string | undefined },
  shown: string,
  shownFiles: readonly string[],
  outcome: GrepOutcome,
  skipped: SkipReport,
  note: string | undefined,
): { content: string; meta: { [key: string]: string | number | boolean | { [key: string]: number } } } {
  const out: string[] = [];
  for (const hit of outcome.hits) {
    const text = hit.length > GREP_MAX_LINE_CHARS ? `${cutHead(hit.text, GREP_MAX_LINE_CHARS)}… [line cut]` : hit.text;
    out.push(`${shownFiles[hit.file]}:${hit.line}: ${text}`);
  }
  const skippedLine = describeSkipped(skipped, { binary: outcome.binary, tooLarge: outcome.tooLarge, tooLargeLimit: MAX_TEXT_FILE_BYTES, unreadable: outcome.unreadable });
  const meta = {
    pattern: args.pattern,
    path: shown,
    matches: outcome.matches,
    files: outcome.filesWithMatches,
    truncated: outcome.matches > outcome.hits.length,
    filesSearched: outcome.filesSearched,
    skipped: {
      ignoredDirs: skipped.ignoredDirs,
      ignoredFiles: skipped.ignoredFiles,
      binary: outcome.binary,
      tooLarge: outcome.tooLarge,
      linksOutside: skipped.linksOutside,
      linkedDirs: skipped.linkedDirs,
      special: skipped.special + outcome.special,
      unreadable: skipped.unreadableDirs + outcome.unreadable,
    },
  };
  const tail = [...(note ? [note] : []), ...(skippedLine ? [skippedLine] : [])];
  if (outcome.matches === 0) {
    return { content: [`No matches for /${args.pattern}/ in '${shown}'${args.glob === undefined ? '' : ` (files matching '${args.glob}')`}.`, ...tail].join('\n'), meta };
  }
  if (outcome.matches > outcome.hits.length) {
    out.push(
      `[${outcome.matches - outcome.hits.length} more matching lines not shown (${outcome.matches} in total in ${plural(outcome.filesWithMatches, 'file')}). Narrow the pattern, path or glob.]`,
    );
  }
  return { content: [...out, ...tail].join('\n'), meta };
}
