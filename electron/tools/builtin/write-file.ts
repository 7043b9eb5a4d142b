/**
 * `write_file{path, content}`: creates a file (and its parent folders) or replaces an existing
 * one. Replacing requires that this session read the file and that it has not changed since
 * (same rule as edit_file). The written bytes' hash is recorded as read.
 *
 * Replacing keeps what the content cannot say: the file's mode, its UTF-8 byte-order mark (when
 * the content does not start with one) and its CRLF line endings (when every line break of the old
 * file was CRLF and the content has bare LFs). A file with bytes that are not valid UTF-8 is not
 * overwritten with content holding U+FFFD (what read_file showed for those bytes): that would
 * silently re-encode them; the error names their offsets.
 */
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Stats } from 'node:fs';
import { z } from 'zod';
import type { ApprovalPreview } from '../../../shared/approval.js';
import { firstLoneSurrogate } from '../../../shared/well-formed-text.js';
import { defineTool, ToolError, type ToolContext, type ToolDefinition } from '../tool.js';
import { resolveInWorkspace, toWorkspaceRelative } from '../workspace-path.js';
import { diffPreview } from './diff-preview.js';
import { notRegularFile, readRegularFile, writeFileBytes } from './file-bytes.js';
import { assertReadAndUnchanged, countLines, diffMeta, fsFailure, MAX_TEXT_FILE_BYTES, plural, sha256Hex } from './file-support.js';
import { hasBom, hexBytes, linesOfOffsets, scanUtf8, UTF8_BOM } from './utf8-scan.js';

const parameters = z
  .object({
    path: z.string().min(1).describe('Path of the file to write, relative to the workspace root. Missing parent folders are created.'),
    content: z.string().describe('The complete new content of the file (UTF-8 text).'),
  })
  .strict();

type WriteArgs = z.infer<typeof parameters>;

interface WritePlan {
  readonly absolute: string;
  readonly shown: string;
  /** The file being replaced (undefined: a new file). */
  readonly existing: { readonly bytes: Buffer; readonly stats: Stats } | undefined;
  readonly bytes: Buffer;
  /** What was kept from the old file (`byte-order mark`, `CRLF line endings`). */
  readonly kept: readonly string[];
}

/**
 * Result content: `Created 'p' (N lines, B bytes).` or `Overwrote 'p' (...)`, plus what was kept
 * (`kept its byte-order mark`, `kept its CRLF line endings`).
 *
 * meta: `{path, oldText, newText, created, sha256}` (sha256 of the bytes written) — the whole file before ('' for a new file) and after;
 * when a side is over 256 KB the texts are '' and `omitted: true`.
 *
 * Errors: `FILE_NOT_READ` / `FILE_CHANGED` (existing file not read, or changed since),
 * `INVALID_ARGS` (path is a directory; a lone surrogate in content), `UNDECODABLE_BYTES` (see
 * above), `NOT_REGULAR_FILE`, `PATH_OUTSIDE_WORKSPACE`, `TOOL_ERROR` (I/O failure).
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
    async preview(args, ctx): Promise<ApprovalPreview> {
      const plan = await planWrite(args, ctx);
      const oldText = plan.existing?.bytes.toString('utf8') ?? '';
      return diffPreview(plan.shown, oldText, plan.bytes.toString('utf8'), {
        created: plan.existing === undefined,
        ...(plan.kept.length > 0 ? { notes: [`keeps the file's ${plan.kept.join(' and ')}`] } : {}),
      });
    },
    async execute(args, ctx) {
      const plan = await planWrite(args, ctx);
      try {
        await mkdir(path.dirname(plan.absolute), { recursive: true });
      } catch (error) {
        throw fsFailure(error, plan.shown, 'create the folder of');
      }
      await writeFileBytes(plan.absolute, plan.shown, plan.bytes, plan.existing?.stats);
      const sha256 = sha256Hex(plan.bytes);
      ctx.files.recordRead(plan.absolute, sha256);
      const created = plan.existing === undefined;
      const newText = plan.bytes.toString('utf8');
      const kept = plan.kept.length > 0 ? ` Kept its ${plan.kept.join(' and ')}.` : '';
      return {
        content: `${created ? 'Created' : 'Overwrote'} '${plan.shown}' (${plural(countLines(newText), 'line')}, ${plural(plan.bytes.length, 'byte')}).${kept}`,
        meta: diffMeta(plan.shown, plan.existing?.bytes.toString('utf8') ?? '', newText, { created, sha256 }),
      };
    },
  });
}

/** Checks every precondition of a write and computes the bytes; changes nothing. */
async function planWrite(args: WriteArgs, ctx: ToolContext): Promise<WritePlan> {
  const absolute = await resolveInWorkspace(ctx.cwd, args.path);
  const shown = toWorkspaceRelative(ctx.cwd, absolute);
  const lone = firstLoneSurrogate(args.content);
  if (lone !== -1) {
    throw new ToolError('INVALID_ARGS', `content holds a lone UTF-16 surrogate at index ${lone} (half of a character such as an emoji), which cannot be written as UTF-8. Send whole characters.`);
  }
  let stats: Stats | undefined;
  try {
    stats = await stat(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw fsFailure(error, shown, 'access');
  }
  if (stats === undefined) return { absolute, shown, existing: undefined, bytes: Buffer.from(args.content, 'utf8'), kept: [] };
  if (stats.isDirectory()) {
    throw new ToolError('INVALID_ARGS', `'${shown}' is a directory; write_file needs a file path. Use list_dir to see what is inside.`);
  }
  if (!stats.isFile()) throw notRegularFile(shown, stats, 'written');
  if (stats.size > MAX_TEXT_FILE_BYTES) {
    throw new ToolError('TOOL_ERROR', `'${shown}' is ${stats.size} bytes, more than the ${MAX_TEXT_FILE_BYTES}-byte limit for replacing a file; use bash instead.`);
  }
  const existing = await readRegularFile(absolute, shown, MAX_TEXT_FILE_BYTES, 'write_file');
  assertReadAndUnchanged(ctx, absolute, shown, existing.bytes, 'write_file');

  const old = existing.bytes;
  const facts = scanUtf8(old, 5);
  if (facts.invalidCount > 0 && args.content.includes('\uFFFD')) {
    const lines = linesOfOffsets(
      old,
      facts.invalid.map((r) => r.offset),
    );
    const where = facts.invalid.map((r, i) => `offset ${r.offset} (line ${lines[i]}, bytes ${hexBytes(old, r)})`).join(', ');
    throw new ToolError(
      'UNDECODABLE_BYTES',
      `'${shown}' is not valid UTF-8 (${plural(facts.invalidCount, 'undecodable byte sequence')}: ${where}${facts.invalidCount > facts.invalid.length ? ', …' : ''}), and the content holds \uFFFD, which is how read_file showed those bytes. ` +
        'Writing it would replace the original bytes with EF BF BD. Use edit_file to change parts of the file (it keeps those bytes), or leave \uFFFD out if you mean to replace them.',
    );
  }
  let content = args.content;
  const kept: string[] = [];
  if (hasBom(old) && !content.startsWith('\uFEFF')) kept.push('byte-order mark');
  if (usesOnlyCrlf(old) && content.includes('\n') && !content.includes('\r')) {
    content = content.replace(/\n/g, '\r\n');
    kept.push('CRLF line endings');
  }
  const body = Buffer.from(content, 'utf8');
  const bytes = kept.includes('byte-order mark') ? Buffer.concat([UTF8_BOM, body]) : body;
  return { absolute, shown, existing, bytes, kept };
}

/** True when the bytes have line breaks and every one of them is CRLF. */
function usesOnlyCrlf(bytes: Buffer): boolean {
  let lf = 0;
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) {
    if (i === 0 || bytes[i - 1] !== 0x0d) return false;
    lf++;
  }
  return lf > 0;
}
