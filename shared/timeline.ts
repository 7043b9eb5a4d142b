/**
 * The session timeline: an incremental projection of session events into timeline rows
 * (`shared/timeline-rows.ts`) for the renderer's turn/step view and the raw event inspector.
 *
 * Each event family has its own small reducer module under `shared/timeline/` (turns and steps,
 * messages, chunks, tools, approvals, compaction, requests, log-only events), registered in
 * `shared/timeline/reducers.ts`; this module owns the fold loop and the public API.
 *
 * Incremental by construction: `foldEvents(timeline, events)` costs O(events) plus one shallow
 * copy of the row array per call, never a rebuild. Rows only ever get appended or replaced in
 * place (a row never moves), so row indexes and keys are stable; a row that changes becomes a new
 * object (copy-on-write, at most one copy per row per fold) and every untouched row keeps its
 * identity, which lets React skip it. Folding events one by one gives the same rows as folding
 * them all at once. A log may start at any seq (a session opened at its tail): rows then begin
 * where the events do.
 *
 * Ownership: each `Timeline` value shares bookkeeping with the value it was folded from, so only
 * the latest value may be folded further (folding a stale value throws). Values themselves are
 * immutable and safe to keep for rendering.
 *
 * The projection never throws on odd payloads: legacy reference-runtime shapes and damaged events
 * are read through `shared/event-read.ts` and still produce rows.
 *
 * Pure: no Node, no DOM, no React.
 */
import type { SessionEvent } from './events.js';
import type { TimelineRow } from './timeline-rows.js';
import { FoldState, type Mutable } from './timeline/fold-state.js';
import { reduceEvent } from './timeline/reducers.js';

export type * from './timeline-rows.js';
export { TAIL_CHARS } from './timeline/block-rows.js';
export { eventLabel } from './timeline/event-labels.js';

export interface Timeline {
  readonly rows: readonly TimelineRow[];
  /** Highest seq folded so far (−1 when nothing was folded). */
  readonly lastSeq: number;
  /** Seq of the first folded event (−1 when nothing was folded). */
  readonly firstSeq: number;
  /** Increments with every fold that changed the rows. */
  readonly version: number;
  /** The latest `session/title` event's title, if any. */
  readonly title?: string;
  /** Text of the first person-typed (`source.kind: user`) message, if any. */
  readonly firstUserText?: string;
}

const folds = new WeakMap<Timeline, FoldState>();

function foldInto(state: FoldState, events: readonly SessionEvent[]): boolean {
  let changed = false;
  for (const event of events) {
    if (!Number.isSafeInteger(event.seq) || event.seq <= state.lastSeq) continue;
    if (!changed) {
      state.beginFold();
      changed = true;
    }
    state.noteEvent(event);
    reduceEvent(state, event);
  }
  state.endFold();
  return changed;
}

/** An empty timeline. */
export function createTimeline(): Timeline {
  const timeline: Timeline = { rows: [], lastSeq: -1, firstSeq: -1, version: 0 };
  folds.set(timeline, new FoldState());
  return timeline;
}

/**
 * Folds `events` (ascending seqs; seqs ≤ `lastSeq` are ignored) into `timeline`. Returns the same
 * value when nothing changed. Only the latest value of a chain may be folded.
 * @throws Error when `timeline` is not the latest value of its chain.
 */
export function foldEvents(timeline: Timeline, events: readonly SessionEvent[]): Timeline {
  const state = folds.get(timeline);
  if (!state) throw new Error('foldEvents: not a timeline made by createTimeline()');
  if (state.version !== timeline.version) throw new Error('foldEvents: only the latest timeline value can be folded');
  if (!foldInto(state, events)) return timeline;
  state.version += 1;
  const next: Mutable<Timeline> = { rows: state.rows, lastSeq: state.lastSeq, firstSeq: state.ownerBase, version: state.version };
  if (state.title !== undefined) next.title = state.title;
  if (state.firstUserText !== undefined) next.firstUserText = state.firstUserText;
  folds.set(next, state);
  return next;
}

/** Timeline of a whole event list. */
export function timelineOf(events: readonly SessionEvent[]): Timeline {
  return foldEvents(createTimeline(), events);
}

/** Index of the row that shows `seq` (−1 when none). */
export function rowIndexOfSeq(timeline: Timeline, seq: number): number {
  const state = folds.get(timeline);
  if (!state || seq > timeline.lastSeq) return -1;
  const i = seq - state.ownerBase;
  const idx = i >= 0 && i < state.owner.length ? state.owner[i]! : -1;
  return idx < timeline.rows.length ? idx : -1;
}

/** Index of the row with `key` (−1 when none). */
export function rowIndexOfKey(timeline: Timeline, key: string): number {
  const idx = folds.get(timeline)?.rowIndexOfKey(key) ?? -1;
  return idx < timeline.rows.length ? idx : -1;
}

/**
 * The seqs of every event a row shows (its `refSeqs` plus the chunks it owns), ascending; at most
 * `limit` of them, with the full count in `total`.
 */
export function rowEventSeqs(timeline: Timeline, rowIndex: number, limit = 500): { seqs: number[]; total: number } {
  const row = timeline.rows[rowIndex];
  const state = folds.get(timeline);
  if (!row || !state) return { seqs: [], total: 0 };
  const range = 'chunkRange' in row ? row.chunkRange : undefined;
  const chunkCount = 'chunkCount' in row && row.kind !== 'step' ? row.chunkCount : 0;
  const set = new Set<number>(row.refSeqs);
  let total = set.size + chunkCount;
  if (range) {
    // Chunks interleave with other rows' events: keep the seqs this row owns, stopping at the limit.
    const { owner, ownerBase } = state;
    for (let s = range.first; s <= range.last && set.size < limit + row.refSeqs.length; s++) if (owner[s - ownerBase] === rowIndex) set.add(s);
  }
  if (row.kind === 'elided') {
    for (let s = row.fromSeq; s <= row.toSeq && set.size < limit; s++) set.add(s);
    total = row.toSeq - row.fromSeq + 1;
  }
  const all = [...set].sort((a, b) => a - b);
  return { seqs: all.slice(0, limit), total: Math.max(total, all.length) };
}

/** Text of the first person-typed user message (sidebar title fallback). */
export function firstUserText(timeline: Timeline): string | undefined {
  return timeline.firstUserText;
}
