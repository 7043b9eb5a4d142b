/**
 * Names that read apart. Sessions listed side by side (the branch picker, the compare view's
 * Branch A/B pickers, the board's columns) can share a title — fan-out branches of two identical
 * variants, forks asked the same prompt — and their folders are uuids. A title used more than once
 * gets a hint: its folder's name when that tells them apart and is not just the session's id, else
 * the session's short id. Fan-out branches of identical variants are also named with their place in
 * the fan-out ("variant 2", {@link fanoutBranchTitle}) when they start.
 *
 * Pure: no Node, no DOM.
 */
import { folderName } from './session-tree.js';

/** Something named in a list: its id, its name and, when known, its folder. */
export interface Named {
  readonly id: string;
  readonly name: string;
  readonly cwd?: string;
  /** What tells it apart when known (a fan-out branch's `variant 2`): preferred to the folder and the short id. */
  readonly hint?: string;
}

/** The short id shown beside a name (the first 8 characters, as elsewhere in the app). */
export function shortId(id: string): string {
  return id.slice(0, 8);
}

/**
 * The names of `items` in order, each name used more than once followed by ` · <hint>`: their
 * own hints when every item of that name has a different one, else the folder's name when every item of that name has its own folder (and it is not its id), else the
 * short id. Names used once are unchanged.
 */
export function distinctNames(items: readonly Named[]): string[] {
  const groups = new Map<string, Named[]>();
  for (const item of items) {
    const list = groups.get(item.name);
    if (list) list.push(item);
    else groups.set(item.name, [item]);
  }
  return items.map((item) => {
    const group = groups.get(item.name)!;
    if (group.length < 2) return item.name;
    const hints = group.map((g) => g.hint);
    if (item.hint !== undefined && hints.every((h) => h !== undefined) && new Set(hints).size === group.length) return `${item.name} · ${item.hint}`;
    const folders = group.map((g) => (g.cwd ? folderName(g.cwd) : undefined));
    const byFolder = folders.every((f, i) => f !== undefined && !group[i]!.id.startsWith(f) && !f.startsWith(shortId(group[i]!.id))) && new Set(folders).size === group.length;
    return `${item.name} · ${byFolder ? folderName(item.cwd!) : shortId(item.id)}`;
  });
}

/**
 * A fan-out branch's title (README "Fan-out, apply, rewind"): its variant's label and the prompt's
 * title; a label shared with another variant of the same fan-out is preceded by the branch's place
 * in it (`variant 2 · model=m · fix the test`), so two identical variants never read alike.
 */
export function fanoutBranchTitle(labels: readonly string[], index: number, promptTitle: string): string {
  const label = labels[index] ?? '';
  const shared = labels.filter((l) => l === label).length > 1;
  return `${shared ? `variant ${index + 1} · ` : ''}${label} · ${promptTitle}`;
}

/** The place in its fan-out that {@link fanoutBranchTitle} put in a title (`variant 2 · …` → 2), if any. */
export function fanoutVariantNumber(title: string): number | undefined {
  const m = /^variant (\d+) · /.exec(title);
  return m ? Number(m[1]) : undefined;
}
