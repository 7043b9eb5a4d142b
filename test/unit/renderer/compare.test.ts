import { describe, expect, it } from 'vitest';
import { createAppStore } from '../../../renderer/state/app-store.js';
import { parseCompareDiff } from '../../../renderer/views/compare/patch-files.js';

const GIT_DIFF = `diff --git a/a.txt b/a.txt
index fbbee86..85c3040 100644
--- a/a.txt
+++ b/a.txt
@@ -1,2 +1,3 @@
-ALPHA
-BETA
+alpha
+beta
+gamma
diff --git a/README.md b/README.md
deleted file mode 100644
index 587be6b..0000000
--- a/README.md
+++ /dev/null
@@ -1 +0,0 @@
-# fork 1
diff --git a/logo.png b/logo.png
new file mode 100644
index 0000000..bdc955b
Binary files /dev/null and b/logo.png differ
`;

describe('compare file diff', () => {
  it('splits a git diff per file with numbered lines', () => {
    const parsed = parseCompareDiff(GIT_DIFF);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.files.map((f) => [f.path, f.added, f.removed, f.binary, f.created, f.deleted])).toEqual([
      ['a.txt', 3, 2, false, false, false],
      ['README.md', 0, 1, false, false, true],
      ['logo.png', 0, 0, true, true, false],
    ]);
    expect(parsed.files[0]!.lines.slice(0, 3)).toEqual([
      { kind: 'hunk', text: '@@ -1,2 +1,3 @@' },
      { kind: 'del', text: 'ALPHA', oldNo: 1 },
      { kind: 'del', text: 'BETA', oldNo: 2 },
    ]);
    expect(parsed.files[0]!.lines.at(-1)).toEqual({ kind: 'add', text: 'gamma', newNo: 3 });
  });

  it('an empty diff has no files; a cut diff still parses what it has', () => {
    expect(parseCompareDiff('')).toEqual({ ok: true, files: [], truncated: false });
    expect(parseCompareDiff(GIT_DIFF)).toMatchObject({ ok: true, truncated: false });
    // Cut inside the second file's hunk: the first file stays, the cut is reported.
    const cut = parseCompareDiff(GIT_DIFF.slice(0, GIT_DIFF.indexOf('-# fork 1')));
    expect(cut).toMatchObject({ ok: true, truncated: true });
    if (cut.ok) expect(cut.files.map((f) => f.path)).toEqual(['a.txt']);
    // Cut inside the only file: nothing readable, shown raw.
    expect(parseCompareDiff(GIT_DIFF.slice(0, 120))).toEqual({ ok: false, raw: GIT_DIFF.slice(0, 120) });
  });
});

describe('branches slice', () => {
  it('opens and closes the compare view; selecting a session closes it', () => {
    const app = createAppStore();
    expect(app.getState().branchesOpen).toBe(false);
    expect(app.getState().compare).toBeUndefined();
    app.getState().setBranchesOpen(true);
    app.getState().openCompare('s1', 's1');
    expect(app.getState().compare).toBeUndefined();
    app.getState().openCompare('s1', 's2');
    expect(app.getState().compare).toEqual({ a: 's1', b: 's2' });
    app.getState().closeCompare();
    expect(app.getState().compare).toBeUndefined();
    app.getState().openCompare('s2', 's3');
    // Navigating the fork tree keeps the picker open …
    app.getState().select('s3', { keepBranches: true });
    expect(app.getState()).toMatchObject({ selectedId: 's3', compare: undefined, branchesOpen: true, dockTab: 'branches' });
    // … any other selection closes it: the picker belongs to one lineage, it does not follow the person across sessions.
    app.getState().select('s1');
    expect(app.getState()).toMatchObject({ selectedId: 's1', branchesOpen: false });
    expect(createAppStore().getState().branchesOpen).toBe(false);
  });
});
