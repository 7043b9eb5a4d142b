/**
 * The compare view's file diff: the host's unified `git diff` between two branches' latest
 * checkpoints, split per file into numbered lines for the diff table (parsed with the `diff`
 * package). Pure (no DOM). A diff the parser cannot read comes back as one raw entry.
 */
import { parsePatch } from 'diff';
import type { DiffLine } from '../timeline/unified-diff.js';

export interface PatchFile {
  /** Path in the newer side (the older side's for a deleted file). */
  readonly path: string;
  readonly lines: readonly DiffLine[];
  readonly added: number;
  readonly removed: number;
  readonly binary: boolean;
  readonly created: boolean;
  readonly deleted: boolean;
}

export type ParsedPatch = { readonly ok: true; readonly files: readonly PatchFile[] } | { readonly ok: false; readonly raw: string };

/** `a/src/x.ts` → `src/x.ts`; `/dev/null` → undefined. */
function stripPrefix(name: string | undefined): string | undefined {
  if (name === undefined || name === '/dev/null') return undefined;
  return /^[ab]\//.test(name) ? name.slice(2) : name;
}

export function parseCompareDiff(diff: string): ParsedPatch {
  if (diff.trim() === '') return { ok: true, files: [] };
  let patches: ReturnType<typeof parsePatch>;
  try {
    patches = parsePatch(diff);
  } catch {
    return { ok: false, raw: diff };
  }
  const files: PatchFile[] = [];
  for (const patch of patches) {
    const path = stripPrefix(patch.newFileName) ?? stripPrefix(patch.oldFileName);
    if (path === undefined) continue;
    const lines: DiffLine[] = [];
    let added = 0;
    let removed = 0;
    for (const hunk of patch.hunks) {
      lines.push({ kind: 'hunk', text: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@` });
      let oldNo = hunk.oldStart;
      let newNo = hunk.newStart;
      for (const line of hunk.lines) {
        const mark = line[0];
        const text = line.slice(1);
        if (mark === '+') {
          lines.push({ kind: 'add', text, newNo: newNo++ });
          added++;
        } else if (mark === '-') {
          lines.push({ kind: 'del', text, oldNo: oldNo++ });
          removed++;
        } else if (mark === '\\') lines.push({ kind: 'note', text: line });
        else lines.push({ kind: 'ctx', text, oldNo: oldNo++, newNo: newNo++ });
      }
    }
    files.push({
      path,
      lines,
      added,
      removed,
      binary: patch.isBinary === true,
      created: patch.isCreate === true || stripPrefix(patch.oldFileName) === undefined,
      deleted: patch.isDelete === true || stripPrefix(patch.newFileName) === undefined,
    });
  }
  return { ok: true, files };
}
