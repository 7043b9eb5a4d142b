/**
 * The sidebar's session lineage: sessions arranged as a tree by `parentSession` (fork children
 * under their parent), flattened in display order with a depth for indentation, optionally
 * filtered by a title search that keeps the ancestors of each match for context.
 *
 * Pure: no Node, no DOM.
 */
import type { SessionSummary } from './api.js';
import { shorten } from './text-cut.js';

export interface SessionTreeRow {
  readonly session: SessionSummary;
  readonly depth: number;
  readonly childCount: number;
  /** Shown only because a descendant matches the search. */
  readonly contextOnly: boolean;
}

/** The last path segment of a folder (`/home/me/proj` → `proj`). */
export function folderName(cwd: string): string {
  const parts = cwd.split(/[\\/]+/).filter(Boolean);
  return parts[parts.length - 1] ?? cwd;
}

/**
 * Display title: the stored title, else the first user message, else — for a fork that has no
 * prompt of its own yet — `fork N of <nearest titled ancestor>` (N = its place among its parent's
 * forks, from `sessions`; titles never stack), else `New session in <folder>`, else a short id.
 * A fork gets its title from its own first prompt (the host titles an untitled session by it), so
 * fork titles say what the branch does differently; a fork whose title is its parent's (the same
 * first prompt, or a title an older build copied) reads `fork N · <title>`, so the sidebar and the
 * branch picker never show two identical names for a parent and its fork.
 */
export function displayTitle(
  session: Pick<SessionSummary, 'id' | 'title'> & Partial<Pick<SessionSummary, 'cwd' | 'parentSession' | 'createdAt'>>,
  firstMessage?: string,
  sessions: readonly SessionSummary[] = [],
): string {
  const title = session.title?.trim();
  const first = firstMessage?.replace(/\s+/g, ' ').trim();
  const own = title || (first ? shorten(first, 80) : undefined);
  const siblings = (): SessionSummary[] => sessions.filter((s) => s.parentSession === session.parentSession).sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  if (own !== undefined) {
    // A fork titled like its parent (the same first prompt, an older build's inherited title)
    // would read as a second copy of it: say which fork it is. Display only; the log is untouched.
    const parent = session.parentSession !== undefined ? sessions.find((s) => s.id === session.parentSession) : undefined;
    if (!parent || parent.title?.trim() !== own) return own;
    const n = siblings().findIndex((s) => s.id === session.id) + 1;
    // The fork part first: a narrow sidebar cuts the end of a title.
    return `fork${n > 0 ? ` ${n}` : ''} · ${own}`;
  }
  if (session.parentSession !== undefined) {
    const byId = new Map(sessions.map((s) => [s.id, s]));
    const n = siblings().findIndex((s) => s.id === session.id) + 1;
    let ancestor = byId.get(session.parentSession);
    const seen = new Set<string>([session.id]);
    while (ancestor && !ancestor.title?.trim() && ancestor.parentSession !== undefined && !seen.has(ancestor.id)) {
      seen.add(ancestor.id);
      ancestor = byId.get(ancestor.parentSession);
    }
    const base = ancestor?.title?.trim();
    return `fork${n > 0 ? ` ${n}` : ''}${base ? ` of ${shorten(base, 60)}` : ` of session ${session.parentSession.slice(0, 8)}`}`;
  }
  if (session.cwd) return `New session in ${folderName(session.cwd)}`;
  return `session ${session.id.slice(0, 8)}`;
}

/**
 * Roots newest first (by `updatedAt`), children oldest first (fork order) under their parent.
 * A session whose parent is not listed is a root. `titles` supplies fallback titles per id.
 */
export function sessionTree(sessions: readonly SessionSummary[], search = '', titles: ReadonlyMap<string, string> = new Map()): SessionTreeRow[] {
  const byId = new Map(sessions.map((s) => [s.id, s]));
  const children = new Map<string, SessionSummary[]>();
  const roots: SessionSummary[] = [];
  for (const s of sessions) {
    const parent = s.parentSession;
    if (parent !== undefined && parent !== s.id && byId.has(parent)) {
      let list = children.get(parent);
      if (!list) children.set(parent, (list = []));
      list.push(s);
    } else {
      roots.push(s);
    }
  }
  roots.sort((a, b) => b.updatedAt - a.updatedAt || a.id.localeCompare(b.id));
  for (const list of children.values()) list.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));

  const needle = search.trim().toLowerCase();
  const matches = (s: SessionSummary): boolean => !needle || displayTitle(s, titles.get(s.id), sessions).toLowerCase().includes(needle);
  // Which sessions have a matching descendant (memoised; cycles cut by `visiting`).
  const hasMatch = new Map<string, boolean>();
  const visiting = new Set<string>();
  const subtreeMatches = (s: SessionSummary): boolean => {
    const known = hasMatch.get(s.id);
    if (known !== undefined) return known;
    if (visiting.has(s.id)) return false;
    visiting.add(s.id);
    let result = matches(s);
    for (const c of children.get(s.id) ?? []) if (subtreeMatches(c)) result = true;
    visiting.delete(s.id);
    hasMatch.set(s.id, result);
    return result;
  };

  const out: SessionTreeRow[] = [];
  const seen = new Set<string>();
  const walk = (s: SessionSummary, depth: number): void => {
    if (seen.has(s.id) || !subtreeMatches(s)) return;
    seen.add(s.id);
    const kids = children.get(s.id) ?? [];
    out.push({ session: s, depth, childCount: kids.length, contextOnly: !matches(s) });
    for (const c of kids) walk(c, depth + 1);
  };
  for (const r of roots) walk(r, 0);
  // Sessions caught in a parent cycle are never reached from a root: list them flat.
  for (const s of sessions) if (!seen.has(s.id) && matches(s)) walk(s, 0);
  return out;
}

/**
 * Folder hints for rows that would otherwise read alike: for every title shown more than once in
 * `rows` (by `titleOf`) whose sessions are in different folders, each such session's folder, as
 * its last path part — or its last two or more when those are still alike (`a/app` and `b/app`).
 * Keyed by session id; sessions with a unique title, or whose duplicates share one folder, get
 * none. Paths are split on `/` and `\`.
 */
export function folderHints(rows: readonly Pick<SessionSummary, 'id' | 'cwd'>[], titleOf: (id: string) => string): Map<string, string> {
  const byTitle = new Map<string, Pick<SessionSummary, 'id' | 'cwd'>[]>();
  for (const row of rows) {
    const title = titleOf(row.id);
    const group = byTitle.get(title);
    if (group) group.push(row);
    else byTitle.set(title, [row]);
  }
  const hints = new Map<string, string>();
  for (const group of byTitle.values()) {
    const folders = [...new Set(group.map((r) => r.cwd ?? ''))];
    if (group.length < 2 || folders.length < 2) continue;
    const parts = new Map(folders.map((f) => [f, f.split(/[\\/]+/).filter(Boolean)]));
    const longest = Math.max(...[...parts.values()].map((p) => p.length));
    // The fewest trailing parts that tell every folder of the group apart.
    let depth = 1;
    while (depth < longest && new Set(folders.map((f) => parts.get(f)!.slice(-depth).join('/'))).size < folders.length) depth++;
    for (const row of group) {
      const tail = parts
        .get(row.cwd ?? '')!
        .slice(-depth)
        .join('/');
      hints.set(row.id, tail || (row.cwd ?? '') || 'no folder');
    }
  }
  return hints;
}
