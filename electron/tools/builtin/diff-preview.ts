/**
 * The unified diff an approval shows for a file change (docs/architecture.md §6), made with the `diff` package
 * (jsdiff `structuredPatch` / `formatPatch`; https://github.com/kpdecker/jsdiff). Bounded: a diff
 * that would take more than {@link MAX_EDIT_LENGTH} edit steps to compute falls back to the
 * replaced text only, and the patch text is cut at {@link MAX_PATCH_CHARS} on a line boundary.
 */
import { formatPatch, structuredPatch } from 'diff';
import type { ApprovalPreview } from '../../../shared/approval.js';
import { cutHead } from '../../../shared/text-cut.js';

/** Most patch text shown (UTF-16 units); longer patches are cut with a note. */
export const MAX_PATCH_CHARS = 200_000;

/** jsdiff gives up (and we fall back) beyond this many edit steps, so huge rewrites stay cheap. */
const MAX_EDIT_LENGTH = 20_000;

/**
 * @param oldText the file as it is ('' for a new file), decoded for display.
 * @param newText the file as it would be.
 * @param fallback smaller texts (e.g. old_string/new_string) used when the whole-file diff is too costly.
 */
export function diffPreview(
  path: string,
  oldText: string,
  newText: string,
  options: { readonly created: boolean; readonly notes?: readonly string[]; readonly fallback?: { readonly oldText: string; readonly newText: string } },
): ApprovalPreview {
  const notes = [...(options.notes ?? [])];
  const oldName = options.created ? '/dev/null' : `a/${path}`;
  let patch = structuredPatch(oldName, `b/${path}`, oldText, newText, undefined, undefined, { context: 3, maxEditLength: MAX_EDIT_LENGTH });
  if (patch === undefined && options.fallback) {
    notes.push('the file is large: the diff shows only the replaced text, without line numbers of the file');
    patch = structuredPatch(oldName, `b/${path}`, options.fallback.oldText, options.fallback.newText, undefined, undefined, { context: 3 });
  }
  if (patch === undefined) {
    notes.push('the change is too large to show as a diff');
    return { kind: 'diff', path, created: options.created, patch: '', added: countLines(newText), removed: countLines(oldText), note: notes.join('; ') };
  }
  let added = 0;
  let removed = 0;
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) added++;
      else if (line.startsWith('-')) removed++;
    }
  }
  let text = formatPatch(patch);
  if (text.length > MAX_PATCH_CHARS) {
    const cut = cutHead(text, MAX_PATCH_CHARS);
    text = cut.slice(0, cut.lastIndexOf('\n') + 1);
    notes.push(`the diff was cut at ${MAX_PATCH_CHARS} characters`);
  }
  return { kind: 'diff', path, created: options.created, patch: text, added, removed, ...(notes.length > 0 ? { note: notes.join('; ') } : {}) };
}

function countLines(text: string): number {
  if (text === '') return 0;
  const n = text.split('\n').length;
  return text.endsWith('\n') ? n - 1 : n;
}
