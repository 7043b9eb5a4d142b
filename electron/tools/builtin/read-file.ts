/**
 * `read_file{path, offset?, limit?}`: a text file with 1-based line numbers (`12: text`), a window
 * of at most {@link READ_FILE_MAX_LINES} lines, and a footer when more lines remain. Records the
 * file's sha256 in `ctx.files` so edit_file / write_file may change it afterwards.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool, ToolError, type ToolDefinition } from '../tool.js';
import { resolveInWorkspace, toWorkspaceRelative } from '../workspace-path.js';
import { fsFailure, looksBinary, MAX_TEXT_FILE_BYTES, plural, sha256Hex, statOrUndefined } from './file-support.js';

/** Most lines returned by one call (also the default `limit`). */
export const READ_FILE_MAX_LINES = 2000;

/** Longer lines are cut to this many characters, with a marker. */
export const READ_FILE_MAX_LINE_CHARS = 2000;

const parameters = z
  .object({
    path: z.string().describe('Path of the file to read, relative to the workspace root (an absolute path inside the workspace also works).'),
    offset: z.number().int().min(1).optional().describe('1-based line number to start from. Default: 1.'),
    limit: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(`Maximum number of lines to return. Default and maximum: ${READ_FILE_MAX_LINES}.`),
  })
  .strict();

/**
 * Result content: one line per file line, `N: text` (N 1-based, `\r` of CRLF endings not shown,
 * lines over {@link READ_FILE_MAX_LINE_CHARS} chars cut with a marker), then
 * `[Showing lines A-B of T. Call read_file with offset=B+1 to read more.]` when lines remain.
 * An empty file reads as `(empty file)`.
 *
 * meta: `{path, offset, lines, totalLines, sha256}` — workspace-relative path, first line shown, number of
 * lines shown, lines in the file.
 *
 * Errors: `NOT_FOUND` (missing), `INVALID_ARGS` (a directory, or offset past the end),
 * `TOOL_ERROR` (binary file, file over 10 MB, I/O failure), `PATH_OUTSIDE_WORKSPACE`.
 */
export function createReadFileTool(): ToolDefinition<typeof parameters> {
  return defineTool({
    name: 'read_file',
    description:
      'Read a text file from the workspace. Returns the lines prefixed with their 1-based line numbers ("12: text"); the numbers are not part of the file. ' +
      `Returns at most ${READ_FILE_MAX_LINES} lines per call; use offset and limit to read long files in parts. ` +
      'A file must be read before edit_file or write_file may change it.',
    parameters,
    risk: 'read',
    presentation: 'read',
    isConcurrencySafe: () => true,
    async execute(args, ctx) {
      const absolute = await resolveInWorkspace(ctx.cwd, args.path);
      const shown = toWorkspaceRelative(ctx.cwd, absolute);
      const stats = await statOrUndefined(absolute, shown);
      if (stats === undefined) {
        throw new ToolError('NOT_FOUND', `The file '${shown}' does not exist. Use glob or list_dir to find the right path.`);
      }
      if (stats.isDirectory()) {
        throw new ToolError('INVALID_ARGS', `'${shown}' is a directory, not a file. Use list_dir to see its entries.`);
      }
      if (!stats.isFile()) {
        throw new ToolError('TOOL_ERROR', `'${shown}' is not a regular file (a device, socket or pipe) and cannot be read.`);
      }
      if (stats.size > MAX_TEXT_FILE_BYTES) {
        throw new ToolError(
          'TOOL_ERROR',
          `'${shown}' is ${stats.size} bytes, more than read_file's limit of ${MAX_TEXT_FILE_BYTES} bytes. Use grep to find the relevant lines, or bash (e.g. sed -n '100,200p') to view a part.`,
        );
      }
      let bytes: Buffer;
      try {
        bytes = await readFile(absolute);
      } catch (error) {
        throw fsFailure(error, shown, 'read');
      }
      if (looksBinary(bytes)) {
        throw new ToolError('TOOL_ERROR', `'${shown}' is a binary file (${bytes.length} bytes) and cannot be shown as text. Use bash (e.g. file, xxd | head) to inspect it.`);
      }
      const sha256 = sha256Hex(bytes);
      ctx.files.recordRead(absolute, sha256);

      const text = bytes.toString('utf8');
      const lines = text.split('\n');
      if (lines[lines.length - 1] === '') lines.pop();
      const totalLines = lines.length;
      const offset = args.offset ?? 1;
      const limit = Math.min(args.limit ?? READ_FILE_MAX_LINES, READ_FILE_MAX_LINES);

      if (totalLines === 0) {
        if (offset > 1) throw new ToolError('INVALID_ARGS', `offset ${offset} is past the end of '${shown}', which is empty.`);
        return { content: '(empty file)', meta: { path: shown, offset: 1, lines: 0, totalLines: 0, sha256 } };
      }
      if (offset > totalLines) {
        throw new ToolError('INVALID_ARGS', `offset ${offset} is past the end of '${shown}', which has ${plural(totalLines, 'line')}. Use an offset between 1 and ${totalLines}.`);
      }
      const end = Math.min(totalLines, offset - 1 + limit); // last line shown, 1-based
      const out: string[] = [];
      for (let n = offset; n <= end; n++) out.push(`${n}: ${displayLine(lines[n - 1] ?? '')}`);
      if (end < totalLines) {
        out.push(`[Showing lines ${offset}-${end} of ${totalLines}. Call read_file with offset=${end + 1} to read more.]`);
      }
      return { content: out.join('\n'), meta: { path: shown, offset, lines: end - offset + 1, totalLines, sha256 } };
    },
  });
}

function displayLine(line: string): string {
  const bare = line.endsWith('\r') ? line.slice(0, -1) : line;
  if (bare.length <= READ_FILE_MAX_LINE_CHARS) return bare;
  return `${bare.slice(0, READ_FILE_MAX_LINE_CHARS)}… [line cut: ${bare.length - READ_FILE_MAX_LINE_CHARS} more characters; use bash to see it whole]`;
}
