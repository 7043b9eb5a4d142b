/**
 * The compare view's projections (docs/architecture.md §10: two branches from their common boundary —
 * transcript, tokens, time, file diff): the figures table built from a {@link CompareResult}, the
 * transcript rows each branch added after the common history, and where that history ends.
 *
 * Pure: no Node, no DOM.
 */
import type { CompareResult } from './api.js';
import type { BranchStats } from './branch-stats.js';
import { formatDuration, formatTokens } from './format.js';
import { branchCostLabel } from './session-cost.js';
import type { TimelineRow, TimelineRowKind } from './timeline-rows.js';

export type FigureKey = 'turns' | 'steps' | 'toolCalls' | 'inputTokens' | 'cacheReadTokens' | 'outputTokens' | 'reasoningTokens' | 'cost' | 'duration' | 'lastTurnEnd' | 'firstPrompt';

/** One line of the figures table: a label and each branch's value as shown. */
export interface FigureRow {
  readonly key: FigureKey;
  readonly label: string;
  readonly a: string;
  readonly b: string;
  /** The two branches differ on this figure. */
  readonly differs: boolean;
  /** Numeric figures are right-aligned; text figures wrap. */
  readonly numeric: boolean;
}

interface FigureSpec {
  readonly key: FigureKey;
  readonly label: string;
  readonly numeric: boolean;
  readonly value: (s: BranchStats) => string;
}

const FIGURES: readonly FigureSpec[] = [
  { key: 'turns', label: 'turns', numeric: true, value: (s) => String(s.turns) },
  { key: 'steps', label: 'steps', numeric: true, value: (s) => String(s.steps) },
  { key: 'toolCalls', label: 'tool calls', numeric: true, value: (s) => String(s.toolCalls) },
  // Input is the total the provider billed (uncached + cached); the cached part is the next row.
  { key: 'inputTokens', label: 'input tokens (total)', numeric: true, value: (s) => formatTokens(s.inputTokens + s.cacheReadTokens) },
  { key: 'cacheReadTokens', label: 'of which cached', numeric: true, value: (s) => formatTokens(s.cacheReadTokens) },
  { key: 'outputTokens', label: 'output tokens (total)', numeric: true, value: (s) => formatTokens(s.outputTokens) },
  { key: 'reasoningTokens', label: 'of which reasoning', numeric: true, value: (s) => formatTokens(s.reasoningTokens ?? 0) },
  { key: 'cost', label: 'cost', numeric: true, value: (s) => costText(s) },
  { key: 'duration', label: 'total time', numeric: true, value: (s) => (s.turns > 0 ? formatDuration(s.durationMs) : '—') },
  { key: 'lastTurnEnd', label: 'last turn ended', numeric: false, value: (s) => s.lastTurnEnd ?? '—' },
  { key: 'firstPrompt', label: 'first prompt', numeric: false, value: (s) => s.firstPrompt?.trim() || '—' },
];

/** `$0.0123`, `price unknown`, or `no steps` (shared/session-cost.ts branchCostLabel; never `$0` for a branch that ran nothing). */
function costText(s: BranchStats): string {
  return branchCostLabel(s);
}

/** The figures table of a comparison, in display order. */
export function compareFigures(result: Pick<CompareResult, 'a' | 'b'>): FigureRow[] {
  return FIGURES.map((f) => {
    const a = f.value(result.a.stats);
    const b = f.value(result.b.stats);
    return { key: f.key, label: f.label, a, b, differs: a !== b, numeric: f.numeric };
  });
}

/** Row kinds a compare transcript shows: turns, what the person typed, what the model said and did. */
const TRANSCRIPT_KINDS: ReadonlySet<TimelineRowKind> = new Set<TimelineRowKind>(['turn', 'user', 'text', 'tool', 'turn-end']);

/**
 * The transcript a branch added after the common history: its timeline rows from seq `fromSeq` on
 * (up to, not including, `toSeq` when given: the shared history itself is `0`–`commonLength`),
 * keeping turns, user-role messages, assistant text and tool calls; failed attempts' text and
 * interrupted partials are dropped (the retry that followed carries the answer).
 */
export function transcriptAfter(rows: readonly TimelineRow[], fromSeq: number, toSeq = Number.POSITIVE_INFINITY): TimelineRow[] {
  const out: TimelineRow[] = [];
  for (const row of rows) {
    if (row.seq < fromSeq || row.seq >= toSeq || !TRANSCRIPT_KINDS.has(row.kind)) continue;
    if (row.kind === 'text' && (row.failed !== undefined || (row.partial && row.text === ''))) continue;
    if (row.kind === 'tool' && row.state === 'dropped') continue;
    out.push(row);
  }
  return out;
}

/** How many turns ended before seq `boundary` (the common history's length in turns). */
export function turnsBefore(rows: readonly TimelineRow[], boundary: number): number {
  let n = 0;
  for (const row of rows) if (row.kind === 'turn-end' && row.seq < boundary) n++;
  return n;
}

/** One line describing the common history, e.g. `14 shared events (2 turns)` or `no shared history`. */
export function commonHistoryLabel(commonLength: number, turns?: number): string {
  if (commonLength <= 0) return 'no shared history: the figures cover both whole sessions';
  const events = `${commonLength} shared event${commonLength === 1 ? '' : 's'}`;
  return turns === undefined ? events : `${events} (${turns} turn${turns === 1 ? '' : 's'})`;
}

/**
 * The folded shared history's line: `shared history: 3 turns up to turn 3`, counted on a timeline
 * holding it (`boundary` = the common length); events only when no turn ended in it.
 */
export function sharedHistoryLabel(rows: readonly TimelineRow[], boundary: number): string {
  let turns = 0;
  let last: number | undefined;
  for (const row of rows) {
    if (row.kind !== 'turn-end' || row.seq >= boundary) continue;
    turns++;
    last = row.turn;
  }
  if (last === undefined) return `shared history: ${boundary} event${boundary === 1 ? '' : 's'}, no whole turn`;
  return `shared history: ${turns} turn${turns === 1 ? '' : 's'} up to turn ${last}`;
}

/** What the common history of sessions needs of each: its length and where it was forked from. */
export interface Lineage {
  readonly eventCount: number;
  readonly parentSession?: string;
  /** Events inherited from `parentSession` (a fork's seed). */
  readonly seedLength?: number;
}

/**
 * Number of leading events every one of `ids` shares: for two, along each one's fork lineage to
 * their lowest common ancestor, the smallest seed length taken on the way (a session is its own
 * ancestor); for more, the smallest over the first session paired with each other one. 0 for
 * unrelated sessions or an unknown one.
 */
export function commonHistoryLength(lookup: (id: string) => Lineage | undefined, ids: readonly string[]): number {
  const chain = (id: string): Map<string, number> => {
    const out = new Map<string, number>();
    let limit = Number.POSITIVE_INFINITY;
    let current: string | undefined = id;
    while (current !== undefined && !out.has(current)) {
      const record = lookup(current);
      if (!record) break;
      out.set(current, Math.min(limit, record.eventCount));
      if (record.parentSession === undefined || record.seedLength === undefined) break;
      limit = Math.min(limit, record.seedLength);
      current = record.parentSession;
    }
    return out;
  };
  const pair = (a: string, b: string): number => {
    const right = chain(b);
    for (const [id, limit] of chain(a)) {
      const other = right.get(id);
      if (other !== undefined) return Math.min(limit, other);
    }
    return 0;
  };
  if (ids.length < 2) return 0;
  return Math.min(...ids.slice(1).map((id) => pair(ids[0]!, id)));
}
