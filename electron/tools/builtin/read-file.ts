/**
 * `read_file{path, offset?, limit?}`: a text file with 1-based line numbers (`12: text`), a window
 * of at most {@link READ_FILE_MAX_LINES} lines, and a footer when more lines remain. Records the
 * file's sha256 in `ctx.files` so edit_file / write_file may change it afterwards.
 *
 * Honest about bytes it cannot show as they are: a UTF-8 byte-order mark is not shown (and said
 * so), bytes that are not valid UTF-8 are shown as U+FFFD and the result says where they are, so the
 * model knows an edit must go around them (edit_file keeps them byte for byte).
 */
import { z } from 'zod';
import { cutHead } from '../../../shared/text-cut.js';
import { defineTool, ToolError, type ToolDefinition } from '../tool.js';
import { resolveInWorkspace, toWorkspaceRelative } from '../workspace-path.js';
import { readRegularFile } from './file-bytes.js';
import { looksBinary, MAX_TEXT_FILE_BYTES, plural, sha256Hex } from './file-support.js';
import { hexBytes, linesOfOffsets, scanUtf8, UTF8_BOM } from './utf8-scan.js';

/** Most lines returned by one call (also the default `limit`). */
export const READ_FILE_MAX_LINES = 2000;

/** Undecodable byte runs located per call (the count is always complete). */
const MAX_LISTED_INVALID = 10_000;

/** Longer lines are cut to at most this many UTF-16 units (on a grapheme boundary), with a marker. */
export const READ_FILE_MAX_LINE_CHARS = 2000;

const parameters = z
  .object({
    path: z.string().describe('Path of the file to read, relative to the workspace root (an absolute path inside the workspace also works).'),
    offset: z.number().int().min(1).optional().describe('1-based line number to start from. Default: 1.'),
    limit: z.number().int().min(1).optional().describe(`Maximum number of lines to return. Default and maximum: ${READ_FILE_MAX_LINES}.`),
  })
  .strict();

/**
 * Result content: one line per file line, `N: text` (N 1-based, `\r` of CRLF endings not shown,
 * lines over {@link READ_FILE_MAX_LINE_CHARS} units cut on a grapheme boundary with a marker), then
 * `[Showing lines A-B of T. Call read_file with offset=B+1 to read more.]` when lines remain, then
 * a `[Note: …]` line when the file starts with a byte-order mark or holds bytes that are not valid
 * UTF-8 (their count, the first byte offsets and lines, which shown lines hold U+FFFD for them).
 * An empty file reads as `(empty file)`.
 *
 * meta: `{path, offset, lines, totalLines, sha256, bom?, invalidBytes?}` — workspace-relative path,
 * first line shown, number of lines shown, lines in the file; `invalidBytes` = number of undecodable
 * byte runs.
 *
 * Errors: `NOT_FOUND` (missing), `INVALID_ARGS` (a directory, or offset past the end),
 * `NOT_REGULAR_FILE` (FIFO, socket, device: refused before any open), `TOOL_ERROR` (binary file,
 * file over 10 MB, I/O failure), `PATH_OUTSIDE_WORKSPACE`.
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
      let bytes: Buffer;
      try {
        bytes = (await readRegularFile(absolute, shown, MAX_TEXT_FILE_BYTES, 'read_file')).bytes;
      } catch (error) {
        if (error instanceof ToolError && error.code === 'NOT_FOUND') {
          throw new ToolError('NOT_FOUND', `The file '${shown}' does not exist. Use glob or list_dir to find the right path.`);
        }
        throw error;
      }
      if (looksBinary(bytes)) {
        throw new ToolError('TOOL_ERROR', `'${shown}' is a binary file (${bytes.length} bytes) and cannot be shown as text. Use bash (e.g. file, xxd | head) to inspect it.`);
      }
      const sha256 = sha256Hex(bytes);
      ctx.files.recordRead(absolute, sha256);

      const facts = scanUtf8(bytes, MAX_LISTED_INVALID);
      const text = (facts.bom ? bytes.subarray(UTF8_BOM.length) : bytes).toString('utf8');
      const lines = text.split('\n');
      if (lines[lines.length - 1] === '') lines.pop();
      const totalLines = lines.length;
      const offset = args.offset ?? 1;
      const limit = Math.min(args.limit ?? READ_FILE_MAX_LINES, READ_FILE_MAX_LINES);
      const encodingMeta = { ...(facts.bom ? { bom: true } : {}), ...(facts.invalidCount > 0 ? { invalidBytes: facts.invalidCount } : {}) };

      if (totalLines === 0) {
        if (offset > 1) throw new ToolError('INVALID_ARGS', `offset ${offset} is past the end of '${shown}', which is empty.`);
        const note = encodingNote(bytes, facts, 1, 0);
        return { content: note === undefined ? '(empty file)' : `(empty file)\n${note}`, meta: { path: shown, offset: 1, lines: 0, totalLines: 0, sha256, ...encodingMeta } };
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
      const note = encodingNote(bytes, facts, offset, end);
      if (note !== undefined) out.push(note);
      return { content: out.join('\n'), meta: { path: shown, offset, lines: end - offset + 1, totalLines, sha256, ...encodingMeta } };
    },
  });
}

function displayLine(line: string): string {
  const bare = line.endsWith('\r') ? line.slice(0, -1) : line;
  if (bare.length <= READ_FILE_MAX_LINE_CHARS) return bare;
  const head = cutHead(bare, READ_FILE_MAX_LINE_CHARS);
  return `${head}… [line cut: ${bare.length - head.length} more characters; use bash to see it whole]`;
}

/** The note about a BOM and undecodable bytes, or undefined when the file is plain UTF-8. */
function encodingNote(bytes: Buffer, facts: ReturnType<typeof scanUtf8>, firstShown: number, lastShown: number): string | undefined {
  const parts: string[] = [];
  if (facts.bom) parts.push('the file starts with a UTF-8 byte-order mark (EF BB BF), not shown above; edits keep it');
  if (facts.invalidCount > 0) {
    const lineNumbers = linesOfOffsets(
      bytes,
      facts.invalid.map((r) => r.offset),
    );
    const where = facts.invalid.slice(0, 5).map((r, i) => `offset ${r.offset} (line ${lineNumbers[i]}: ${hexBytes(bytes, r)})`);
    const inWindow = [...new Set(lineNumbers)].filter((l) => l >= firstShown && l <= lastShown);
    parts.push(
      `the file is not valid UTF-8: ${plural(facts.invalidCount, 'undecodable byte sequence')}, shown as \uFFFD` +
        `${inWindow.length > 0 ? ` (on shown line${inWindow.length === 1 ? '' : 's'} ${inWindow.slice(0, 10).join(', ')}${inWindow.length > 10 ? ', …' : ''})` : ''}; ` +
        `first at ${where.join(', ')}${facts.invalidCount > where.length ? ', …' : ''}. ` +
        'edit_file keeps these bytes exactly, but old_string cannot contain \uFFFD: make edits that go around them (or use bash for those lines)',
    );
  }
  return parts.length === 0 ? undefined : `[Note: ${parts.join('. ')}.]`;
}
