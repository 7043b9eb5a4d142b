/**
 * Workspace confinement for the file tools (docs/architecture.md §6: "File tools are confined to the workspace
 * (resolve symlinks; refuse `..` escapes)").
 *
 * A path is accepted when its *real* location (every symlink resolved, also a dangling one and the
 * symlinked folders above a file that does not exist yet) is the workspace itself or lies below it.
 * The check is done at resolve time; a process that swaps a folder for a symlink between this check
 * and the tool's own I/O is outside what we defend against (the workspace belongs to the user).
 */
import { lstat, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from './tool.js';

/** Symlink hops followed for dangling links before giving up (Linux uses 40 for ELOOP). */
const MAX_SYMLINK_HOPS = 40;

/**
 * Resolves `requested` (relative to `cwd`, or absolute) to an absolute real path inside the
 * workspace `cwd`.
 *
 * - Existing paths: `realpath` (all symlinks resolved).
 * - Paths that do not exist yet: the realpath of the deepest existing ancestor plus the missing
 *   segments; a dangling symlink on the way is followed to where it points.
 * - `''` means the workspace root.
 *
 * @param cwd the workspace root (normally already a real path; it is resolved again to be safe).
 * @param requested the path as the model wrote it.
 * @returns the absolute real path (which may not exist).
 * @throws ToolError `PATH_OUTSIDE_WORKSPACE` when the real location is outside the workspace (`..`
 *   escapes, absolute paths elsewhere, symlinks pointing out); `INVALID_ARGS` for a path with a NUL
 *   byte; `TOOL_ERROR` for a symlink loop or an unreadable ancestor.
 */
export async function resolveInWorkspace(cwd: string, requested: string): Promise<string> {
  if (requested.includes('\0')) {
    throw new ToolError('INVALID_ARGS', `The path ${JSON.stringify(requested)} contains a NUL byte. Pass a plain file path relative to the workspace root.`);
  }
  const root = await realpath(cwd);
  const lexical = path.resolve(root, requested === '' ? '.' : requested);
  const real = await realpathAllowMissing(lexical, requested);
  if (!isInside(root, real)) {
    const shown = real === lexical ? `'${real}'` : `'${lexical}' (really '${real}')`;
    throw new ToolError(
      'PATH_OUTSIDE_WORKSPACE',
      `The path '${requested}' resolves to ${shown}, which is outside the workspace '${root}'. File tools can only access files inside the workspace; use a path relative to the workspace root.`,
    );
  }
  return real;
}

/** True when `candidate` is `root` or below it (both absolute, normalised). */
export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * The path shown to the model and the UI: relative to the workspace root with `/` separators, `.`
 * for the root itself (an absolute path when outside, which the tools never produce).
 */
export function toWorkspaceRelative(cwd: string, absolute: string): string {
  const rel = path.relative(cwd, absolute);
  if (rel === '') return '.';
  return rel.split(path.sep).join('/');
}

/** realpath that tolerates missing trailing segments and follows dangling symlinks. */
async function realpathAllowMissing(absolute: string, requested: string): Promise<string> {
  let current = absolute;
  for (let hop = 0; hop <= MAX_SYMLINK_HOPS; hop++) {
    const missing: string[] = [];
    let probe = current;
    for (;;) {
      try {
        const real = await realpath(probe);
        return missing.length === 0 ? real : path.join(real, ...missing.reverse());
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ELOOP') {
          throw new ToolError('TOOL_ERROR', `The path '${requested}' runs into a symlink loop. Fix or remove the symlink, or use another path.`, { cause: error });
        }
        if (code !== 'ENOENT' && code !== 'ENOTDIR') {
          throw new ToolError('TOOL_ERROR', `Cannot resolve the path '${requested}': ${(error as Error).message}`, { cause: error });
        }
      }
      // `probe` does not resolve. If it exists as a (dangling) symlink, follow it: writing through
      // it would create the file where it points.
      const target = await danglingLinkTarget(probe);
      if (target !== undefined) {
        current = missing.length === 0 ? target : path.join(target, ...[...missing].reverse());
        break;
      }
      const parent = path.dirname(probe);
      if (parent === probe) return absolute; // nothing exists, not even `/` (cannot happen on POSIX)
      missing.push(path.basename(probe));
      probe = parent;
    }
  }
  throw new ToolError('TOOL_ERROR', `The path '${requested}' goes through more than ${MAX_SYMLINK_HOPS} symlinks. Use a direct path.`);
}

/** The absolute target of `p` when it is a symlink, else undefined. */
async function danglingLinkTarget(p: string): Promise<string | undefined> {
  try {
    const stat = await lstat(p);
    if (!stat.isSymbolicLink()) return undefined;
    // Relative targets are relative to the link's real folder (kernel semantics, not lexical).
    return path.resolve(await realpath(path.dirname(p)), await readlink(p));
  } catch {
    return undefined;
  }
}
