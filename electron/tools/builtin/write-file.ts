/**
 * `write_file{path, content}`: creates a file (and its parent folders) or replaces an existing
 * one. Replacing requires that this session read the file and that it has not changed since
 * (same rule as edit_file). The written bytes' hash is recorded as read.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool, ToolError, type ToolDefinition } from '../tool.js';
import { resolveInWorkspace, toWorkspaceRelative } from '../workspace-path.js';
import { assertReadAndUnchanged, countLines, diffMeta, fsFailure, MAX_TEXT_FILE_BYTES, plural, sha256Hex, statOrUndefined } from './file-support.js';

const parameters = z
  .object({
    path: z.string().min(1).describe('Path of the file to write, relative to the workspace root. Missing parent folders are created.'),
    content: z.string().describe('The complete new content of the file (UTF-8 text).'),
  })
  .strict();

/**
 * Result content: `Created 'p' (N lines, B bytes).` or `Overwrote 'p' (...)`.
 *
 * meta: `{path, oldText, newText, created, sha256}` (sha256 of the bytes written) — the whole file before ('' for a new file) and after;
 * when a side is over 256 KB the texts are '' and `omitted: true`.
 *
 * Errors: `FILE_NOT_READ` / `FILE_CHANGED` (existing file not read, or changed since),
 * `INVALID_ARGS` (path is a directory), `PATH_OUTSIDE_WORKSPACE`, `TOOL_ERROR` (I/O failure).
 */
export function createWriteFileTool(): ToolDefinition<typeof parameters> {
  return defineTool({
    name: 'write_file',
    description:
      'Create a new file or replace the entire content of a file in the workspace. Parent folders are created as needed. ' +
      'To replace an existing file you must have read it with read_file in this session (and it must not have changed since). ' +
      'Prefer edit_file for changing part of an existing file.',
    parameters,
    risk: 'write',
    presentation: 'diff',
    async execute(args, ctx) {
      const absolute = await resolveInWorkspace(ctx.cwd, args.path);
      const shown = toWorkspaceRelative(ctx.cwd, absolute);
      const stats = await statOrUndefined(absolute, shown);
      let oldText = '';
      if (stats !== undefined) {
        if (stats.isDirectory()) {
          throw new ToolError('INVALID_ARGS', `'${shown}' is a directory; write_file needs a file path. Use list_dir to see what is inside.`);
        }
        if (!stats.isFile()) throw new ToolError('TOOL_ERROR', `'${shown}' is not a regular file and cannot be written.`);
        if (stats.size > MAX_TEXT_FILE_BYTES) {
          throw new ToolError('TOOL_ERROR', `'${shown}' is ${stats.size} bytes, more than the ${MAX_TEXT_FILE_BYTES}-byte limit for replacing a file; use bash instead.`);
        }
        let before: Buffer;
        try {
          before = await readFile(absolute);
        } catch (error) {
          throw fsFailure(error, shown, 'read');
        }
        assertReadAndUnchanged(ctx, absolute, shown, before, 'write_file');
        oldText = before.toString('utf8');
      }
      const bytes = Buffer.from(args.content, 'utf8');
      try {
        await mkdir(path.dirname(absolute), { recursive: true });
        await writeFile(absolute, bytes);
      } catch (error) {
        throw fsFailure(error, shown, 'write');
      }
      const sha256 = sha256Hex(bytes);
      ctx.files.recordRead(absolute, sha256);
      const created = stats === undefined;
      return {
        content: `${created ? 'Created' : 'Overwrote'} '${shown}' (${plural(countLines(args.content), 'line')}, ${plural(bytes.length, 'byte')}).`,
        meta: diffMeta(shown, oldText, args.content, { created, sha256 }),
      };
    },
  });
}
