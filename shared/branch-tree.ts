/**
 * The branch picker's projection: the fork tree of a session's lineage (its root session and every
 * fork below it), flattened in display order with a depth, each node labelled by its title and
 * the first prompt typed after its fork point (its "first differing prompt").
 *
 * The prompts come from the host (`compareSessions(parent, child)`: `b.stats.firstPrompt` is the
 * child's first prompt after the boundary, `a.stats.firstPrompt` the parent's); this module only
 * decides which pairs to ask about and how to label the answers.
 *
 * Pure: no Node, no DOM.
 */
import type { SessionSummary } from './api.js';
import { distinctNames } from './distinct-names.js';
import { displayTitle, sessionTree } from './session-tree.js';
import { shorten } from './text-cut.js';

/** What the host answered for one (parent, child) fork pair. */
export interface ForkPrompts {
  /** The parent's first prompt after the child's fork point. */
  readonly parentPrompt?: string;
  /** The child's first prompt after its fork point. */
  readonly childPrompt?: string;
}

/** A fork pair's label data: still loading, answered, or the host could not answer. */
export type ForkPromptState = { readonly state: 'loading' } | { readonly state: 'ready'; readonly prompts: ForkPrompts } | { readonly state: 'error'; readonly message: string };

export interface BranchNode {
  readonly session: SessionSummary;
  readonly depth: number;
  /** The parent in the tree (absent for the root). */
  readonly parentId?: string;
  readonly childCount: number;
  readonly isRoot: boolean;
  /** The open session. */
  readonly isOpen: boolean;
  /** The fork works in another folder than its parent (a fork made "in its own folder"). */
  readonly ownFolder: boolean;
  readonly title: string;
  /** The label prompt (one line, shortened), when known. */
  readonly prompt?: string;
  /** What to show when there is no prompt (loading, none yet, error); undefined when `prompt` is set or nothing applies. */
  readonly promptNote?: string;
}

/** A (parent, child) pair to ask `compareSessions` about. */
export interface ForkPair {
  readonly parent: string;
  readonly child: string;
}

/** Longest label prompt, in characters. */
export const PROMPT_LABEL_MAX = 90;

/** A prompt as a one-line label: whitespace collapsed, shortened with `…`. Undefined for blank text. */
export function promptLabel(text: string | undefined, max = PROMPT_LABEL_MAX): string | undefined {
  const line = text?.replace(/\s+/g, ' ').trim();
  if (!line) return undefined;
  return shorten(line, max);
}

/** The listed parent of `session`, if any (a parent that is not listed makes the session a root). */
function listedParent(byId: ReadonlyMap<string, SessionSummary>, session: SessionSummary): SessionSummary | undefined {
  const parent = session.parentSession;
  return parent !== undefined && parent !== session.id ? byId.get(parent) : undefined;
}

/** The root of `sessionId`'s lineage among the listed sessions (itself when it has no listed parent); undefined when not listed. */
export function lineageRootId(sessions: readonly SessionSummary[], sessionId: string): string | undefined {
  const byId = new Map(sessions.map((s) => [s.id, s]));
  let current = byId.get(sessionId);
  if (!current) return undefined;
  const seen = new Set<string>([current.id]);
  for (;;) {
    const parent = listedParent(byId, current);
    if (!parent || seen.has(parent.id)) return current.id;
    seen.add(parent.id);
    current = parent;
  }
}

/** The root session and all its listed descendants. */
export function lineageSessions(sessions: readonly SessionSummary[], rootId: string): SessionSummary[] {
  const children = new Map<string, SessionSummary[]>();
  const byId = new Map(sessions.map((s) => [s.id, s]));
  for (const s of sessions) {
    const parent = listedParent(byId, s);
    if (!parent) continue;
    let list = children.get(parent.id);
    if (!list) children.set(parent.id, (list = []));
    list.push(s);
  }
  const root = byId.get(rootId);
  if (!root) return [];
  const out: SessionSummary[] = [];
  const seen = new Set<string>();
  const stack = [root];
  while (stack.length > 0) {
    const s = stack.pop()!;
    if (seen.has(s.id)) continue;
    seen.add(s.id);
    out.push(s);
    for (const c of children.get(s.id) ?? []) stack.push(c);
  }
  return out;
}

/** The child whose fork point is earliest (smallest seed length, then oldest): the root's label is its prompt after that point. */
function earliestChild(children: readonly SessionSummary[]): SessionSummary | undefined {
  let best: SessionSummary | undefined;
  for (const c of children) {
    if (!best) best = c;
    else {
      const a = c.seedLength ?? Number.POSITIVE_INFINITY;
      const b = best.seedLength ?? Number.POSITIVE_INFINITY;
      if (a < b || (a === b && (c.createdAt < best.createdAt || (c.createdAt === best.createdAt && c.id < best.id)))) best = c;
    }
  }
  return best;
}

/**
 * The pairs whose prompts label the tree of `openId`'s lineage: one per fork (parent, child). The
 * root's own label comes from the pair of its earliest fork, so no extra pair is needed.
 */
export function forkPairs(sessions: readonly SessionSummary[], openId: string): ForkPair[] {
  const rootId = lineageRootId(sessions, openId);
  if (rootId === undefined) return [];
  const lineage = lineageSessions(sessions, rootId);
  const ids = new Set(lineage.map((s) => s.id));
  return lineage.filter((s) => s.id !== rootId && s.parentSession !== undefined && ids.has(s.parentSession)).map((s) => ({ parent: s.parentSession!, child: s.id }));
}

function noteFor(state: ForkPromptState | undefined, isRoot: boolean): string | undefined {
  if (!state || state.state === 'loading') return 'loading first prompt…';
  if (state.state === 'error') return 'first prompt unavailable';
  return isRoot ? 'no prompt after the first fork yet' : 'no prompt since the fork yet';
}

/**
 * The fork tree of `openId`'s lineage: the root first, children in fork order (oldest first)
 * under their parent, with depths. `prompts` holds the host's answers per child id (see
 * {@link forkPairs}). Titles shared by several nodes get a hint (distinct-names.ts). Empty when `openId` is not listed.
 */
export function branchTree(sessions: readonly SessionSummary[], openId: string, prompts: ReadonlyMap<string, ForkPromptState> = new Map()): BranchNode[] {
  const rootId = lineageRootId(sessions, openId);
  if (rootId === undefined) return [];
  const lineage = lineageSessions(sessions, rootId);
  const byId = new Map(lineage.map((s) => [s.id, s]));
  const childrenOf = new Map<string, SessionSummary[]>();
  for (const s of lineage) {
    if (s.id === rootId || s.parentSession === undefined) continue;
    let list = childrenOf.get(s.parentSession);
    if (!list) childrenOf.set(s.parentSession, (list = []));
    list.push(s);
  }
  const nodes = sessionTree(lineage).map((row): BranchNode => {
    const s = row.session;
    const isRoot = s.id === rootId;
    const parent = isRoot ? undefined : byId.get(s.parentSession!);
    let state: ForkPromptState | undefined;
    let text: string | undefined;
    if (isRoot) {
      const first = earliestChild(childrenOf.get(s.id) ?? []);
      if (first) {
        state = prompts.get(first.id);
        if (state?.state === 'ready') text = state.prompts.parentPrompt;
      }
    } else {
      state = prompts.get(s.id);
      if (state?.state === 'ready') text = state.prompts.childPrompt;
    }
    const prompt = promptLabel(text);
    const applies = !isRoot || row.childCount > 0;
    const promptNote = prompt === undefined && applies ? noteFor(state, isRoot) : undefined;
    return {
      session: s,
      depth: row.depth,
      ...(parent ? { parentId: parent.id } : {}),
      childCount: row.childCount,
      isRoot,
      isOpen: s.id === openId,
      ownFolder: parent !== undefined && s.cwd !== undefined && s.cwd !== parent.cwd,
      title: displayTitle(s, undefined, sessions),
      ...(prompt !== undefined ? { prompt } : {}),
      ...(promptNote !== undefined ? { promptNote } : {}),
    };
  });
  // Two nodes of one title (identical fan-out variants, forks asked alike) read apart: a folder or short-id hint.
  const names = distinctNames(nodes.map((n) => ({ id: n.session.id, name: n.title, ...(n.session.cwd !== undefined ? { cwd: n.session.cwd } : {}) })));
  return nodes.map((n, i) => (names[i] === n.title ? n : { ...n, title: names[i]! }));
}
