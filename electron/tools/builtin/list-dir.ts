/**
 * `list_dir{path}`: the entries of one directory, sorted, directories marked with a trailing `/`,
 * capped at {@link LIST_DIR_MAX_ENTRIES} with a notice.
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool, ToolError, type ToolDefinition } from '../tool.js';
import { resolveInWorkspace, toWorkspaceRelative } from '../workspace-path.js';
import { fsFailure, statOrUndefined } from './file-support.js';

/** Most entries listed by one call. */
export const LIST_DIR_MAX_ENTRIES = 1000;

const parameters = z
  .object({
    path: z.string().describe('Directory to list, relative to the workspace root; "." for the workspace root.'),
  })
  .strict();

/**
 * Result content: one entry name per line in code-point order, `name/` for directories (also a
 * symlink to a directory), `(empty directory)` when empty, then
 * `[N more entries not shown (M in total). Use glob to search for specific files.]` over the cap.
 *
 * meta: `{path, entries, truncated}` (entries = total number of entries).
 *
 * Errors: `NOT_FOUND`, `INVALID_ARGS` (a file, not a directory), `PATH_OUTSIDE_WORKSPACE`, `TOOL_ERROR`.
 */
export function createListDirTool(): ToolDefinition<typeof parameters> {
  return defineTool({
    name: 'list_dir',
    description: `List the entries of a directory in the workspace, sorted by name; directories end with "/". Shows at most ${LIST_DIR_MAX_ENTRIES} entries.`,
    parameters,
    risk: 'read',
    presentation: 'search',
    isConcurrencySafe: () => true,
    async execute(args, ctx) {
      const absolute = await resolveInWorkspace(ctx.cwd, args.path);
      const shown = toWorkspaceRelative(ctx.cwd, absolute);
      const stats = await statOrUndefined(absolute, shown);
      if (stats === undefined) throw new ToolError('NOT_FOUND', `The directory '${shown}' does not exist. List its parent to see what exists.`);
      if (!stats.isDirectory()) throw new ToolError('INVALID_ARGS', `'${shown}' is a file, not a directory. Use read_file to read it.`);
      let dirents;
      try {
        dirents = await readdir(absolute, { withFileTypes: true });
      } catch (error) {
        throw fsFailure(error, shown, 'list');
      }
      const names = dirents.map((d) => d.name).sort(compareCodePoints);
      const byName = new Map(dirents.map((d) => [d.name, d]));
      const visible = names.slice(0, LIST_DIR_MAX_ENTRIES);
      const lines: string[] = [];
      for (const name of visible) {
        const dirent = byName.get(name)!;
        let isDir = dirent.isDirectory();
        if (dirent.isSymbolicLink()) {
          isDir = await stat(path.join(absolute, name)).then(
            (s) => s.isDirectory(),
            () => false,
          );
        }
        lines.push(isDir ? `${name}/` : name);
      }
      if (lines.length === 0) lines.push('(empty directory)');
      const hidden = names.length - visible.length;
      if (hidden > 0) lines.push(`[${hidden} more entries not shown (${names.length} in total). Use glob to search for specific files.]`);
      return { content: lines.join('\n'), meta: { path: shown, entries: names.length, truncated: hidden > 0 } };
    },
  });
}

/** Deterministic, locale-independent order. */
export function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
