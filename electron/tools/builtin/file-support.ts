/**
 * Helpers shared by the built-in file tools: hashing, binary detection, fs error mapping, the
 * read-before-write rule and the diff meta for the UI.
 */
import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { JsonValue } from '../../../shared/json.js';
import { ToolError, type ToolContext } from '../tool.js';

/** Text files larger than this (bytes) are refused by read/edit/write-over (use bash or grep). */
export const MAX_TEXT_FILE_BYTES = 10 * 1024 * 1024;

/** Bytes inspected for a NUL byte to decide that a file is binary (git's heuristic). */
export const BINARY_SNIFF_BYTES = 8000;

/** Above this many UTF-8 bytes per side, the whole-file texts are left out of the diff meta. */
export const MAX_DIFF_META_BYTES = 256 * 1024;

/** sha256 of `bytes`, lowercase hex. */
export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** True when the first {@link BINARY_SNIFF_BYTES} bytes contain a NUL byte. */
export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, BINARY_SNIFF_BYTES);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

/**
 * `stat` that returns undefined for a missing path (also when a parent is a file).
 * @throws ToolError `TOOL_ERROR` for other failures (e.g. permission denied).
 */
export async function statOrUndefined(absolute: string, shown: string): Promise<Stats | undefined> {
  try {
    return await stat(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw fsFailure(error, shown, 'access');
  }
}

/**
 * Maps a Node fs error to a ToolError the model can act on: ENOENT → `NOT_FOUND`, EISDIR →
 * `INVALID_ARGS`, anything else → `TOOL_ERROR` with the OS message.
 */
export function fsFailure(error: unknown, shown: string, action: string): ToolError {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new ToolError('NOT_FOUND', `Cannot ${action} '${shown}': it does not exist. Use list_dir or glob to find the right path.`, { cause: error });
    case 'EISDIR':
      return new ToolError('INVALID_ARGS', `Cannot ${action} '${shown}': it is a directory. Use list_dir to see its entries.`, { cause: error });
    case 'EACCES':
    case 'EPERM':
      return new ToolError('TOOL_ERROR', `Cannot ${action} '${shown}': permission denied. Choose another file or ask the user to fix the permissions.`, { cause: error });
    default:
      return new ToolError('TOOL_ERROR', `Cannot ${action} '${shown}': ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/**
 * The read-before-write rule: an existing file may be changed only when this session read it and
 * its bytes still hash to what was recorded then.
 * @param currentBytes the file's bytes now.
 * @throws ToolError `FILE_NOT_READ` when never read; `FILE_CHANGED` when the hash differs.
 */
export function assertReadAndUnchanged(ctx: ToolContext, absolute: string, shown: string, currentBytes: Uint8Array, toolName: string): void {
  const recorded = ctx.files.lastRead(absolute);
  if (recorded === undefined) {
    throw new ToolError('FILE_NOT_READ', `'${shown}' exists but has not been read in this session. Call read_file on it first, then retry ${toolName}.`);
  }
  if (recorded !== sha256Hex(currentBytes)) {
    throw new ToolError(
      'FILE_CHANGED',
      `'${shown}' has changed on disk since it was last read (by the user, a command or another tool). Call read_file on it again to see the current content, then retry ${toolName}.`,
    );
  }
}

/** Number of lines in `text` as read_file counts them (a final newline does not start a line). */
export function countLines(text: string): number {
  if (text === '') return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n - 1 : n;
}

/**
 * The UI diff description `{path, oldText, newText, ...extra}`. When either side is larger than
 * {@link MAX_DIFF_META_BYTES}, `fallback` (smaller texts, e.g. just the replaced strings) is used
 * instead and `partial: true` is set; without a fallback the texts are empty and `omitted: true`.
 */
export function diffMeta(
  shown: string,
  oldText: string,
  newText: string,
  extra: { readonly [key: string]: JsonValue } = {},
  fallback?: { readonly oldText: string; readonly newText: string },
): JsonValue {
  const small = (text: string) => Buffer.byteLength(text, 'utf8') <= MAX_DIFF_META_BYTES;
  if (small(oldText) && small(newText)) return { path: shown, oldText, newText, ...extra };
  if (fallback && small(fallback.oldText) && small(fallback.newText)) {
    return { path: shown, oldText: fallback.oldText, newText: fallback.newText, partial: true, ...extra };
  }
  return { path: shown, oldText: '', newText: '', omitted: true, ...extra };
}

/** "1 line" / "2 lines". */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
