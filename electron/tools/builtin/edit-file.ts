/**
 * `edit_file{path, old_string, new_string, replace_all?}`: exact-string replacement in a file this
 * session has read and that has not changed since (read-before-edit, DESIGN §6). `old_string` must
 * occur exactly once unless `replace_all`. The new bytes' hash is recorded as read.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool, ToolError, type ToolDefinition } from '../tool.js';
import { resolveInWorkspace, toWorkspaceRelative } from '../workspace-path.js';
import { assertReadAndUnchanged, diffMeta, fsFailure, MAX_TEXT_FILE_BYTES, plural, sha256Hex, statOrUndefined } from './file-support.js';

const parameters = z
  .object({
    path: z.string().min(1).describe('Path of the file to edit, relative to the workspace root. The file must have been read with read_file first.'),
    old_string: z
      .string()
      .min(1)
      .describe('The exact text to replace, including whitespace and indentation, without the "N: " line-number prefixes that read_file shows. Must occur exactly once in the file unless replace_all is true; include surrounding lines to make it unique.'),
    new_string: z.string().describe('The text to put in its place (must differ from old_string).'),
    replace_all: z.boolean().optional().describe('Replace every occurrence of old_string instead of exactly one. Default: false.'),
  })
  .strict();

/**
 * Result content: `Edited 'p': replaced N occurrence(s).`
 *
 * meta: `{path, oldText, newText, replacements, sha256}` (sha256 of the file after the edit) — the whole file before and after; for a file
 * over 256 KB just `old_string` / `new_string` with `partial: true`.
 *
 * Errors: `NOT_FOUND` (missing file), `FILE_NOT_READ`, `FILE_CHANGED`, `INVALID_ARGS` (a directory,
 * old_string === new_string, old_string found 0 times, or more than once without replace_all),
 * `PATH_OUTSIDE_WORKSPACE`, `TOOL_ERROR` (I/O failure, file too large).
 */
export function createEditFileTool(): ToolDefinition<typeof parameters> {
  return defineTool({
    name: 'edit_file',
    description:
      'Replace an exact string in a file of the workspace. The file must have been read with read_file in this session and must not have changed since. ' +
      'old_string must match the file exactly (whitespace included) and occur exactly once, unless replace_all is true. ' +
      'To create a new file or rewrite a whole file use write_file.',
    parameters,
    risk: 'write',
    presentation: 'diff',
    async execute(args, ctx) {
      const absolute = await resolveInWorkspace(ctx.cwd, args.path);
      const shown = toWorkspaceRelative(ctx.cwd, absolute);
      if (args.old_string === args.new_string) {
        throw new ToolError('INVALID_ARGS', 'old_string and new_string are identical, so the edit would change nothing. Pass the text you want in new_string.');
      }
      const stats = await statOrUndefined(absolute, shown);
      if (stats === undefined) {
        throw new ToolError('NOT_FOUND', `The file '${shown}' does not exist. Check the path with glob or list_dir, or use write_file to create a new file.`);
      }
      if (stats.isDirectory()) throw new ToolError('INVALID_ARGS', `'${shown}' is a directory, not a file.`);
      if (stats.size > MAX_TEXT_FILE_BYTES) {
        throw new ToolError('TOOL_ERROR', `'${shown}' is ${stats.size} bytes, more than edit_file's limit of ${MAX_TEXT_FILE_BYTES} bytes; use bash (e.g. sed) instead.`);
      }
      let before: Buffer;
      try {
        before = await readFile(absolute);
      } catch (error) {
        throw fsFailure(error, shown, 'read');
      }
      assertReadAndUnchanged(ctx, absolute, shown, before, 'edit_file');
      const oldText = before.toString('utf8');

      let search = args.old_string;
      let replacement = args.new_string;
      let count = countOccurrences(oldText, search);
      // read_file hides the `\r` of CRLF endings; accept the LF form the model saw.
      if (count === 0 && oldText.includes('\r\n') && search.includes('\n') && !search.includes('\r')) {
        const crlf = (s: string) => s.replace(/\r?\n/g, '\r\n');
        const crlfCount = countOccurrences(oldText, crlf(search));
        if (crlfCount > 0) {
          search = crlf(search);
          replacement = crlf(replacement);
          count = crlfCount;
        }
      }
      if (count === 0) {
        throw new ToolError(
          'INVALID_ARGS',
          `old_string was not found in '${shown}'. It must match the file exactly, including whitespace and indentation, and must not include read_file's "N: " line-number prefixes. Read the file again and copy the text exactly.`,
        );
      }
      if (count > 1 && args.replace_all !== true) {
        throw new ToolError(
          'INVALID_ARGS',
          `old_string occurs ${count} times in '${shown}'. Add surrounding lines to old_string so that it matches exactly once, or set replace_all to true to replace every occurrence.`,
        );
      }
      const newText = args.replace_all === true ? oldText.split(search).join(replacement) : replaceFirst(oldText, search, replacement);
      const bytes = Buffer.from(newText, 'utf8');
      try {
        await writeFile(absolute, bytes);
      } catch (error) {
        throw fsFailure(error, shown, 'write');
      }
      const sha256 = sha256Hex(bytes);
      ctx.files.recordRead(absolute, sha256);
      return {
        content: `Edited '${shown}': replaced ${plural(count, 'occurrence')}.`,
        meta: diffMeta(shown, oldText, newText, { replacements: count, sha256 }, { oldText: args.old_string, newText: args.new_string }),
      };
    },
  });
}

/** Non-overlapping occurrences of `needle` (non-empty) in `haystack`. */
export function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) count++;
  return count;
}

/** Replaces the first occurrence literally (no `$&` patterns, unlike String.prototype.replace). */
function replaceFirst(text: string, search: string, replacement: string): string {
  const at = text.indexOf(search);
  return text.slice(0, at) + replacement + text.slice(at + search.length);
}
