/**
 * `edit_file{path, old_string, new_string, replace_all?}`: exact-string replacement in a file this
 * session has read and that has not changed since (read-before-edit, docs/architecture.md §6). `old_string` must
 * occur exactly once unless `replace_all`. The new bytes' hash is recorded as read.
 *
 * Byte-faithful: the replacement is done on the file's bytes (the UTF-8 encodings of old_string and
 * new_string), so every byte outside the replaced ranges stays exactly as it was — bytes that are
 * not valid UTF-8, a byte-order mark, the line endings, the trailing newline — and the file keeps
 * its mode (file-bytes.ts). UTF-8 is self-synchronising, so a byte match of a valid needle is
 * exactly a match of the text. An old_string that can only match across undecodable bytes (it
 * contains the U+FFFD that read_file showed for them) is refused with their offsets.
 */
import { z } from 'zod';
import type { ApprovalPreview } from '../../../shared/approval.js';
import { firstLoneSurrogate } from '../../../shared/well-formed-text.js';
import { defineTool, ToolError, type ToolContext, type ToolDefinition } from '../tool.js';
import { resolveInWorkspace, toWorkspaceRelative } from '../workspace-path.js';
import { diffPreview } from './diff-preview.js';
import { readRegularFile, writeFileBytes, type FileBytes } from './file-bytes.js';
import { assertReadAndUnchanged, diffMeta, MAX_TEXT_FILE_BYTES, plural, sha256Hex } from './file-support.js';
import { hexBytes, linesOfOffsets, scanUtf8 } from './utf8-scan.js';

const parameters = z
  .object({
    path: z.string().min(1).describe('Path of the file to edit, relative to the workspace root. The file must have been read with read_file first.'),
    old_string: z
      .string()
      .min(1)
      .describe(
        'The exact text to replace, including whitespace and indentation, without the "N: " line-number prefixes that read_file shows. Must occur exactly once in the file unless replace_all is true; include surrounding lines to make it unique.',
      ),
    new_string: z.string().describe('The text to put in its place (must differ from old_string).'),
    replace_all: z.boolean().optional().describe('Replace every occurrence of old_string instead of exactly one. Default: false.'),
  })
  .strict();

type EditArgs = z.infer<typeof parameters>;

/** A checked edit: the file as read and the bytes it will have. */
interface EditPlan {
  readonly absolute: string;
  readonly shown: string;
  readonly file: FileBytes;
  readonly after: Buffer;
  readonly count: number;
  /** The line endings of old_string/new_string were turned into CRLF to match the file. */
  readonly crlf: boolean;
}

/**
 * Result content: `Edited 'p': replaced N occurrence(s).` (plus a note when the line endings of the
 * strings were converted to the file's CRLF).
 *
 * meta: `{path, oldText, newText, replacements, sha256}` (sha256 of the file after the edit) — the whole file before and after
 * (decoded for display); for a file over 256 KB just `old_string` / `new_string` with `partial: true`.
 *
 * Errors: `NOT_FOUND` (missing file), `FILE_NOT_READ`, `FILE_CHANGED`, `INVALID_ARGS` (a directory,
 * old_string === new_string, a lone surrogate in a string, old_string found 0 times, or more than
 * once without replace_all), `UNDECODABLE_BYTES` (old_string holds U+FFFD where the file has bytes
 * that are not UTF-8; names their offsets), `NOT_REGULAR_FILE`, `PATH_OUTSIDE_WORKSPACE`,
 * `TOOL_ERROR` (I/O failure, file too large).
 */
export function createEditFileTool(): ToolDefinition<typeof parameters> {
  return defineTool({
    name: 'edit_file',
    description:
      'Replace an exact string in a file of the workspace. The file must have been read with read_file in this session and must not have changed since. ' +
      'old_string must match the file exactly (whitespace included) and occur exactly once, unless replace_all is true. ' +
      'Every other byte of the file is kept as it is. To create a new file or rewrite a whole file use write_file.',
    parameters,
    risk: 'write',
    presentation: 'diff',
    async preview(args, ctx): Promise<ApprovalPreview> {
      const plan = await planEdit(args, ctx);
      return diffPreview(plan.shown, plan.file.bytes.toString('utf8'), plan.after.toString('utf8'), {
        created: false,
        fallback: { oldText: args.old_string, newText: args.new_string },
        ...(plan.crlf ? { notes: ['the line breaks of old_string and new_string were turned into CRLF to match the file'] } : {}),
      });
    },
    async execute(args, ctx) {
      const plan = await planEdit(args, ctx);
      await writeFileBytes(plan.absolute, plan.shown, plan.after, plan.file.stats);
      const sha256 = sha256Hex(plan.after);
      ctx.files.recordRead(plan.absolute, sha256);
      const oldText = plan.file.bytes.toString('utf8');
      const newText = plan.after.toString('utf8');
      return {
        content: `Edited '${plan.shown}': replaced ${plural(plan.count, 'occurrence')}.${plan.crlf ? ' (The file uses CRLF line endings; the line breaks of old_string and new_string were matched and written as CRLF.)' : ''}`,
        meta: diffMeta(plan.shown, oldText, newText, { replacements: plan.count, sha256 }, { oldText: args.old_string, newText: args.new_string }),
      };
    },
  });
}

/** Checks every precondition of an edit and computes the new bytes; changes nothing. */
async function planEdit(args: EditArgs, ctx: ToolContext): Promise<EditPlan> {
  const absolute = await resolveInWorkspace(ctx.cwd, args.path);
  const shown = toWorkspaceRelative(ctx.cwd, absolute);
  if (args.old_string === args.new_string) {
    throw new ToolError('INVALID_ARGS', 'old_string and new_string are identical, so the edit would change nothing. Pass the text you want in new_string.');
  }
  for (const [name, value] of [
    ['old_string', args.old_string],
    ['new_string', args.new_string],
  ] as const) {
    const at = firstLoneSurrogate(value);
    if (at !== -1)
      throw new ToolError('INVALID_ARGS', `${name} holds a lone UTF-16 surrogate at index ${at} (half of a character such as an emoji), which cannot be written as UTF-8. Send whole characters.`);
  }
  let file: FileBytes;
  try {
    file = await readRegularFile(absolute, shown, MAX_TEXT_FILE_BYTES, 'edit_file');
  } catch (error) {
    if (error instanceof ToolError && error.code === 'NOT_FOUND') {
      throw new ToolError('NOT_FOUND', `The file '${shown}' does not exist. Check the path with glob or list_dir, or use write_file to create a new file.`);
    }
    throw error;
  }
  assertReadAndUnchanged(ctx, absolute, shown, file.bytes, 'edit_file');
  const before = file.bytes;

  let search = Buffer.from(args.old_string, 'utf8');
  let replacement = Buffer.from(args.new_string, 'utf8');
  let count = countOccurrences(before, search);
  let crlf = false;
  // read_file hides the `\r` of CRLF endings; accept the LF form the model saw.
  if (count === 0 && args.old_string.includes('\n') && !args.old_string.includes('\r') && before.includes('\r\n')) {
    const toCrlf = (s: string) => Buffer.from(s.replace(/\r?\n/g, '\r\n'), 'utf8');
    const crlfCount = countOccurrences(before, toCrlf(args.old_string));
    if (crlfCount > 0) {
      search = toCrlf(args.old_string);
      replacement = toCrlf(args.new_string);
      count = crlfCount;
      crlf = true;
    }
  }
  if (count === 0) {
    const facts = args.old_string.includes('\uFFFD') ? scanUtf8(before, 5) : undefined;
    if (facts !== undefined && facts.invalidCount > 0) {
      const lines = linesOfOffsets(
        before,
        facts.invalid.map((r) => r.offset),
      );
      const where = facts.invalid.map((r, i) => `offset ${r.offset} (line ${lines[i]}, bytes ${hexBytes(before, r)})`).join(', ');
      throw new ToolError(
        'UNDECODABLE_BYTES',
        `old_string contains \uFFFD, but '${shown}' has bytes that are not valid UTF-8 there (read_file shows them as \uFFFD): ${where}${facts.invalidCount > facts.invalid.length ? ', …' : ''}. ` +
          'edit_file keeps such bytes as they are and cannot match them. Choose an old_string that does not include them (edit the text around them), or use bash for those bytes.',
      );
    }
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
  const after = replaceBytes(before, search, replacement, args.replace_all === true ? Infinity : 1);
  return { absolute, shown, file, after, count, crlf };
}

/** Non-overlapping occurrences of `needle` (non-empty) in `haystack` (text or bytes). */
export function countOccurrences(haystack: string | Buffer, needle: string | Buffer): number {
  let count = 0;
  const step = needle.length;
  for (let i = haystack.indexOf(needle as never); i !== -1; i = haystack.indexOf(needle as never, i + step)) count++;
  return count;
}

/** Replaces up to `limit` non-overlapping occurrences literally; every other byte is copied as is. */
function replaceBytes(bytes: Buffer, search: Buffer, replacement: Buffer, limit: number): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  let done = 0;
  for (let at = bytes.indexOf(search); at !== -1 && done < limit; at = bytes.indexOf(search, from)) {
    parts.push(bytes.subarray(from, at), replacement);
    from = at + search.length;
    done++;
  }
  parts.push(bytes.subarray(from));
  return Buffer.concat(parts);
}
