/**
 * The compare view's file diff: the host's unified `git diff` between two branches' latest
 * checkpoints, split per file into numbered lines for the diff table (parsed with the `diff`
 * package). Pure (no DOM). A diff cut short (the host cuts at ~1 MB) keeps its complete files and
 * reports the cut; one the parser cannot read at all comes back raw.
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

export type ParsedPatch =
  /** `truncated`: the text ended inside a file; that file and anything after it are left out. */
  { readonly ok: true; readonly files: readonly PatchFile[]; readonly truncated: boolean } | { readonly ok: false; readonly raw: string };

const FILE_HEADER = '\ndiff --git ';

function tryParse(diff: string): ReturnType<typeof parsePatch> | undefined {
  try {
    return parsePatch(diff);
  } catch {
    return undefined;
  }
}

/** `a/src/x.ts` → `src/x.ts`; `/dev/null` → undefined. */
function stripPrefix(name: string | undefined): string | undefined {
  if (name === undefined || name === '/dev/null') return undefined;
  return /^[ab]\//.test(name) ? name.slice(2) : name;
}

export function parseCompareDiff(diff: string): ParsedPatch {
  if (diff.trim() === '') return { ok: true, files: [], truncated: false };
  let truncated = false;
  let patches = tryParse(diff);
  if (!patches) {
    // Cut inside a file: keep the files before the last file header.
    const cut = diff.lastIndexOf(FILE_HEADER);
    patches = cut > 0 ? tryParse(diff.slice(0, cut + 1)) : undefined;
    if (!patches) return { ok: false, raw: diff };
    truncated = true;
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
  return { ok: true, files, truncated };
}
