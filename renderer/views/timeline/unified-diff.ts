/**
 * Unified diff lines for the diff view (write_file / edit_file results), built with the `diff`
 * package. Pure (no DOM).
 */
import { createTwoFilesPatch, parsePatch, structuredPatch, type StructuredPatchHunk } from 'diff';

export interface DiffLine {
  readonly kind: 'hunk' | 'add' | 'del' | 'ctx' | 'note';
  readonly text: string;
  readonly oldNo?: number;
  readonly newNo?: number;
}

export function diffLines(path: string, oldText: string, newText: string, context = 3): DiffLine[] {
  const patch = structuredPatch(path, path, oldText, newText, undefined, undefined, { context });
  return hunkLines(patch.hunks);
}

/** Diff lines of a unified-diff text (one file), e.g. an approval preview's patch; [] when it cannot be parsed. */
export function patchLines(patch: string): DiffLine[] {
  if (patch.trim() === '') return [];
  try {
    return parsePatch(patch).flatMap((file) => hunkLines(file.hunks));
  } catch {
    return [];
  }
}

function hunkLines(hunks: readonly StructuredPatchHunk[]): DiffLine[] {
  const out: DiffLine[] = [];
  for (const hunk of hunks) {
    out.push({ kind: 'hunk', text: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@` });
    let oldNo = hunk.oldStart;
    let newNo = hunk.newStart;
    for (const line of hunk.lines) {
      const mark = line[0];
      const text = line.slice(1);
      if (mark === '+') out.push({ kind: 'add', text, newNo: newNo++ });
      else if (mark === '-') out.push({ kind: 'del', text, oldNo: oldNo++ });
      else if (mark === '\\') out.push({ kind: 'note', text: line });
      else out.push({ kind: 'ctx', text, oldNo: oldNo++, newNo: newNo++ });
    }
  }
  return out;
}

/** The whole patch as unified-diff text (for copying). */
export function unifiedDiffText(path: string, oldText: string, newText: string): string {
  return createTwoFilesPatch(`a/${path}`, `b/${path}`, oldText, newText);
}

/** Counts of added and removed lines. */
export function diffStat(lines: readonly DiffLine[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const l of lines) {
    if (l.kind === 'add') added++;
    else if (l.kind === 'del') removed++;
  }
  return { added, removed };
}
