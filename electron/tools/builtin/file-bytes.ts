/**
 * Reading and writing workspace files as bytes, safely:
 *
 * - only regular files are opened: FIFOs, sockets and devices are refused from `stat` before any
 *   open, and the open itself is non-blocking (`O_NONBLOCK`, so even a FIFO swapped in after the
 *   check cannot block) and re-checked with `fstat` (docs/security.md: a FIFO must never hang a tool);
 * - writes replace a file atomically (a temporary file in the same folder, flushed, given the old
 *   file's mode, then renamed over it), so a crash or a full disk never leaves half a file. Where
 *   that would change more than the content (another owner, hard links) or the folder is not
 *   writable, the file is rewritten in place instead.
 */
import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { open, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../tool.js';
import { fsFailure } from './file-support.js';

/** A regular file's bytes and its stat at the moment it was read. */
export interface FileBytes {
  readonly bytes: Buffer;
  readonly stats: Stats;
}

/** What kind of non-regular file `stats` describes, for messages. */
export function fileKind(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/** The error for a path that exists but is not a regular file (directories are reported by callers). */
export function notRegularFile(shown: string, stats: Stats, action: string): ToolError {
  return new ToolError(
    'NOT_REGULAR_FILE',
    `'${shown}' is ${fileKind(stats)}, not a regular file, so it cannot be ${action}: reading it could block forever or never end. Use a regular file, or bash if you really mean to talk to it.`,
  );
}

/**
 * Reads a regular file completely.
 * @param maxBytes refuse files larger than this (TOOL_ERROR), checked before reading.
 * @throws ToolError NOT_FOUND, NOT_REGULAR_FILE, INVALID_ARGS (a directory), TOOL_ERROR (too large, I/O).
 */
export async function readRegularFile(absolute: string, shown: string, maxBytes: number, toolName: string): Promise<FileBytes> {
  let before: Stats;
  try {
    before = await stat(absolute);
  } catch (error) {
    throw fsFailure(error, shown, 'read');
  }
  if (before.isDirectory()) throw new ToolError('INVALID_ARGS', `'${shown}' is a directory, not a file. Use list_dir to see its entries.`);
  if (!before.isFile()) throw notRegularFile(shown, before, 'read');
  if (before.size > maxBytes) {
    throw new ToolError(
      'TOOL_ERROR',
      `'${shown}' is ${before.size} bytes, more than ${toolName}'s limit of ${maxBytes} bytes. Use grep to find the relevant lines, or bash (e.g. sed -n '100,200p', or sed -i for a change) for a part of it.`,
    );
  }
  let handle;
  try {
    handle = await open(absolute, constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0));
  } catch (error) {
    throw fsFailure(error, shown, 'read');
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw notRegularFile(shown, stats, 'read');
    if (stats.size > maxBytes) throw new ToolError('TOOL_ERROR', `'${shown}' is ${stats.size} bytes, more than ${toolName}'s limit of ${maxBytes} bytes.`);
    const bytes = await handle.readFile();
    return { bytes, stats };
  } catch (error) {
    if (error instanceof ToolError) throw error;
    throw fsFailure(error, shown, 'read');
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * Replaces (or creates) the file at `absolute` with `bytes`.
 * @param existing the stat of the file being replaced (undefined for a new file): its permission
 *   bits are kept exactly.
 * @returns how the file was written.
 * @throws ToolError (via fsFailure) when neither way works.
 */
export async function writeFileBytes(absolute: string, shown: string, bytes: Uint8Array, existing: Stats | undefined): Promise<'atomic' | 'in-place'> {
  const inPlaceFirst = existing !== undefined && (existing.nlink > 1 || (process.getuid !== undefined && existing.uid !== process.getuid()));
  if (!inPlaceFirst) {
    const done = await writeAtomically(absolute, bytes, existing);
    if (done) return 'atomic';
  }
  await writeInPlace(absolute, shown, bytes, existing);
  return 'in-place';
}

/** Temp file + fsync + chmod + rename. Resolves false when the folder does not allow it (then nothing changed). */
async function writeAtomically(absolute: string, bytes: Uint8Array, existing: Stats | undefined): Promise<boolean> {
  const dir = path.dirname(absolute);
  const temp = path.join(dir, `.${path.basename(absolute)}.forkline-${randomBytes(6).toString('hex')}.tmp`);
  let handle;
  try {
    handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, existing ? existing.mode & 0o7777 : 0o666);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'ENOSPC' || code === 'EDQUOT') return false;
    throw error;
  }
  try {
    await handle.writeFile(bytes);
    await handle.sync();
    // The create mode went through the umask; give the new file exactly the old one's bits.
    if (existing) await handle.chmod(existing.mode & 0o7777);
    await handle.close();
    handle = undefined;
    await rename(temp, absolute);
    return true;
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') throw error;
    return false;
  }
}

async function writeInPlace(absolute: string, shown: string, bytes: Uint8Array, existing: Stats | undefined): Promise<void> {
  let handle;
  try {
    // O_NONBLOCK: a FIFO swapped in meanwhile fails (ENXIO) instead of blocking.
    handle = await open(absolute, constants.O_WRONLY | constants.O_CREAT | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0), existing ? existing.mode & 0o7777 : 0o666);
    const stats = await handle.stat();
    if (!stats.isFile()) throw notRegularFile(shown, stats, 'written');
    await handle.truncate(0);
    await handle.writeFile(bytes);
    await handle.sync();
  } catch (error) {
    if (error instanceof ToolError) throw error;
    throw fsFailure(error, shown, 'write');
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
