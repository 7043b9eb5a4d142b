/**
 * Three-way apply (`forkline apply BRANCH`, README "Fan-out, apply, rewind"): a branch's file changes (fork point
 * checkpoint → branch's final checkpoint) brought into another folder that may have changed since
 * the fork. Per file: the folder unchanged since the fork takes the branch's version; the same
 * change on both sides is kept; different changes are merged line by line (node-diff3) — and when
 * the same lines changed on both sides, nothing at all is written and the conflicting files and
 * hunks are returned. Changes made only in the folder are never touched.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { diff3Merge } from 'node-diff3';
import { ForklineError } from '../../shared/errors.js';
import type { WorkspaceCheckpoints } from './checkpoints.js';

/** What the apply does (or would do) to one path. */
export interface AppliedFile {
  readonly path: string;
  /** `A` created, `M` replaced or merged, `D` deleted. */
  readonly status: 'A' | 'M' | 'D';
  /** `theirs`: the branch's version; `merged`: both sides' changes; `same`: already as the branch has it (nothing written). */
  readonly how: 'theirs' | 'merged' | 'same';
}

export interface ApplyConflict {
  readonly path: string;
  /** Each conflicting hunk with conflict markers (the folder's lines, then the branch's). */
  readonly hunks: readonly string[];
}

export interface ApplyOutcome {
  /** False when there were conflicts (then nothing was written). */
  readonly applied: boolean;
  readonly files: readonly AppliedFile[];
  readonly conflicts: readonly ApplyConflict[];
}

type Content = Buffer | undefined;

/**
 * Merges the change `base` → `theirs` (two checkpoints) into `folder`.
 * @throws ForklineError APPLY_UNAVAILABLE when the folder does not exist; CHECKPOINT_FAILED from git.
 */
export async function threeWayApply(checkpoints: WorkspaceCheckpoints, params: { readonly base: string; readonly theirs: string; readonly folder: string }): Promise<ApplyOutcome> {
  const folder = resolve(params.folder);
  if (!existsSync(folder))
    throw new ForklineError('APPLY_UNAVAILABLE', `the folder ${folder} no longer exists: restore it (or fork the branch into a folder with forkline fork BRANCH --worktree) before applying`);
  const changed = await checkpoints.changedFiles(params.base, params.theirs);
  const writes: { path: string; content: Content }[] = [];
  const files: AppliedFile[] = [];
  const conflicts: ApplyConflict[] = [];
  for (const { path } of changed) {
    const target = resolve(folder, path);
    if (target !== folder && !target.startsWith(folder + sep)) continue; // never outside the folder
    const base = await checkpoints.readBlob(params.base, path);
    const theirs = await checkpoints.readBlob(params.theirs, path);
    const ours = readIfFile(target);
    const status: AppliedFile['status'] = theirs === undefined ? 'D' : ours === undefined ? 'A' : 'M';
    if (same(ours, theirs)) {
      files.push({ path, status, how: 'same' });
      continue;
    }
    if (same(ours, base)) {
      writes.push({ path, content: theirs });
      files.push({ path, status, how: 'theirs' });
      continue;
    }
    // Both sides changed the file.
    if (ours === undefined || theirs === undefined || base === undefined || isBinary(ours) || isBinary(theirs) || isBinary(base)) {
      conflicts.push({ path, hunks: [describeWhole(base, ours, theirs)] });
      continue;
    }
    const merged = mergeText(ours.toString('utf8'), base.toString('utf8'), theirs.toString('utf8'));
    if (merged.conflicts.length > 0) conflicts.push({ path, hunks: merged.conflicts });
    else {
      writes.push({ path, content: Buffer.from(merged.text, 'utf8') });
      files.push({ path, status, how: 'merged' });
    }
  }
  if (conflicts.length > 0) return { applied: false, files, conflicts };
  for (const { path, content } of writes) {
    const target = join(folder, path);
    if (content === undefined) rmSync(target, { force: true });
    else {
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, content);
    }
  }
  return { applied: true, files, conflicts };
}

function readIfFile(file: string): Content {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

function same(a: Content, b: Content): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.equals(b);
}

function isBinary(content: Buffer): boolean {
  return content.subarray(0, 8000).includes(0);
}

function describeWhole(base: Content, ours: Content, theirs: Content): string {
  const state = (c: Content) => (c === undefined ? 'absent' : isBinary(c) ? 'binary' : 'changed');
  return `the whole file: at the fork point ${base === undefined ? 'absent' : 'present'}, in the folder ${state(ours)}, in the branch ${state(theirs)}`;
}

/** Lines with their line ends, so a merge keeps the file's bytes. */
function lines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/**
 * A line-wise three-way merge of texts; `conflicts` lists each hunk both sides changed differently
 * (with markers), and `text` is meaningful only when there are none. Pure.
 */
export function mergeText(ours: string, base: string, theirs: string): { text: string; conflicts: string[] } {
  const regions = diff3Merge<string>(lines(ours), lines(base), lines(theirs), { excludeFalseConflicts: true });
  let text = '';
  const conflicts: string[] = [];
  for (const region of regions) {
    if (region.ok) text += region.ok.join('');
    else if (region.conflict) {
      const c = region.conflict;
      const end = (s: string[]) => (s.length > 0 && !s.at(-1)!.endsWith('\n') ? '\n' : '');
      conflicts.push(
        `@@ fork point lines ${c.oIndex + 1}-${c.oIndex + c.o.length}, folder line ${c.aIndex + 1}, branch line ${c.bIndex + 1} @@\n<<<<<<< folder\n${c.a.join('')}${end(c.a)}=======\n${c.b.join('')}${end(c.b)}>>>>>>> branch\n`,
      );
    }
  }
  return { text, conflicts };
}
