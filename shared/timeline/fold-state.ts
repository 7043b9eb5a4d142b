/**
 * The mutable bookkeeping behind a chain of Timeline values (see `shared/timeline.ts`): the row
 * array with copy-on-write editing, seq → row ownership, and the open turn / step / compaction
 * state that the per-family reducers (`*-reducers.ts` beside this file) read and update.
 *
 * Row rules every reducer keeps: rows are only appended (`push`) or replaced in place through
 * `edit` (which clones a row at most once per fold, so untouched rows keep their identity); every
 * folded event is owned by exactly one row (`own`), or by none.
 *
 * Pure: no Node, no DOM, no React.
 */
import type { TokenUsage } from '../chunks.js';
import type { SessionApprovalRule } from '../approval.js';
import type { SessionEvent, SessionEventType } from '../events.js';
import type { Loose } from '../event-read.js';
import type { BlockRowBase, EventRow, StepRow, TimelineRow, ToolRow } from '../timeline-rows.js';
import { SpanClock, type SpanMark } from '../span-clock.js';

export type Mutable<T> = { -readonly [K in keyof T]: T[K] };
export type AnyBlockRow = BlockRowBase<'text' | 'reasoning'>;
export type BlockKind = 'text' | 'reasoning' | 'tool';

/** What a reducer is handed: the fold state, the event, and its payload read loosely (`{}` when not an object). */
export type EventReducer = (fold: FoldState, event: SessionEvent, data: Loose) => void;

/** Reducers of one event family, by event type (keyed by the union, so a misspelt type fails to compile). */
export type ReducerTable = { readonly [K in SessionEventType]?: EventReducer };

export interface StepState {
  readonly turn: number;
  readonly step: number;
  /** Row index of the step marker. */
  rowIdx: number;
  attempt: number;
  /** The current attempt finished (finish chunk, message or retry): the next chunk opens a new one. */
  attemptClosed: boolean;
  sawChunk: boolean;
  /** Block index → row index, for the current attempt. */
  blocks: Map<number, number>;
  /** Block rows of the current attempt in creation order. */
  attemptRows: number[];
  /** Every tool row of the step (all attempts), for overlap detection. */
  tools: number[];
  usage: TokenUsage | undefined;
  /** Where the step opened on the log's clock (durations: shared/span-clock.ts). */
  readonly mark: SpanMark;
}

export interface TurnState {
  readonly rowIdx: number;
  /** Where the turn opened on the log's clock. */
  readonly mark: SpanMark;
  readonly stepKeys: string[];
}

export class FoldState {
  rows: TimelineRow[] = [];
  version = 0;
  lastSeq = -1;
  /** Rows created or cloned during the current fold (safe to mutate). */
  private readonly fresh = new Set<TimelineRow>();
  private readonly keyIndex = new Map<string, number>();
  /** Row index per folded seq (−1: no row); index = seq − ownerBase. */
  readonly owner: number[] = [];
  ownerBase = -1;

  // Turn / step family.
  readonly steps = new Map<string, StepState>();
  readonly turns = new Map<number, TurnState>();
  openTurn: number | undefined;
  openStep: string | undefined;
  // Tool family: `${turn}/${step}/${callId}` → row index.
  readonly calls = new Map<string, number>();
  // Compaction family: compaction id → row index.
  readonly compactions = new Map<string, number>();
  openCompaction: string | undefined;
  // Approval family: approval id → its row and the tool row it belongs to.
  readonly approvals = new Map<string, { row: number; tool: number | undefined; mark?: SpanMark; step?: string }>();
  /** The session's standing "allow for this session" rules logged so far (`approval/rule`), oldest first. */
  readonly approvalRules: SessionApprovalRule[] = [];
  /** Surface event seq → rows that show it (for shadowing). */
  readonly surfaceRows = new Map<number, number[]>();
  // Request family: the route in effect.
  currentModel: string | undefined;
  contextWindow: number | undefined;
  /** The log's own clock: a duration is known only where it ran forward (imported logs may not). */
  readonly clock = new SpanClock();
  /** Where each started tool call opened on the log's clock, by row index. */
  readonly toolMarks = new Map<number, SpanMark>();
  // Session facts.
  title: string | undefined;
  firstUserText: string | undefined;

  /** Starts a fold: the row array is copied once so earlier Timeline values keep theirs. */
  beginFold(): void {
    this.rows = this.rows.slice();
  }

  /** Ends a fold: rows become immutable again. */
  endFold(): void {
    this.fresh.clear();
  }

  /** Registers `event` as folded (no owner yet) and moves the log's clock to its time. */
  noteEvent(event: SessionEvent): void {
    const seq = event.seq;
    if (this.ownerBase < 0) this.ownerBase = seq;
    while (this.ownerBase + this.owner.length < seq) this.owner.push(-1);
    this.owner.push(-1);
    this.lastSeq = seq;
    this.clock.tick(event.time);
  }

  rowIndexOfKey(key: string): number {
    return this.keyIndex.get(key) ?? -1;
  }

  /** Makes row `rowIdx` the owner of `seq` (the row the raw inspector opens for it). */
  own(seq: number, rowIdx: number): void {
    const i = seq - this.ownerBase;
    if (i >= 0 && i < this.owner.length) this.owner[i] = rowIdx;
  }

  push(row: TimelineRow): number {
    const idx = this.rows.length;
    this.rows.push(row);
    this.fresh.add(row);
    this.keyIndex.set(row.key, idx);
    return idx;
  }

  /**
   * Shows a message that opens a step above that step's header: the user's prompt or a follow-up
   * is spliced into the step's request, so it is logged after its `step/start`, but a reader expects
   * "You" first and then what the agent did. Swaps the message row (just pushed at `rowIdx`) with the
   * open step's header while the step has shown nothing (only log-event rows follow the header);
   * otherwise leaves the rows as they are. Returns the message row's index.
   */
  placeAboveFreshStep(rowIdx: number): number {
    const st = this.openStep !== undefined ? this.steps.get(this.openStep) : undefined;
    if (!st || st.sawChunk || st.attempt !== 1 || st.tools.length > 0 || st.attemptRows.length > 0) return rowIdx;
    const headerIdx = st.rowIdx;
    if (headerIdx < 0 || headerIdx >= rowIdx) return rowIdx;
    for (let i = headerIdx + 1; i < rowIdx; i++) if (this.rows[i]!.kind !== 'event') return rowIdx;
    const header = this.rows[headerIdx]!;
    const message = this.rows[rowIdx]!;
    this.rows[headerIdx] = message;
    this.rows[rowIdx] = header;
    this.keyIndex.set(message.key, headerIdx);
    this.keyIndex.set(header.key, rowIdx);
    st.rowIdx = rowIdx;
    // The events the header owns (its step/start, and whatever was attached to it) are all at or after its seq.
    for (let i = Math.max(0, header.seq - this.ownerBase); i < this.owner.length; i++) if (this.owner[i] === headerIdx) this.owner[i] = rowIdx;
    return headerIdx;
  }

  /** Returns a row that may be mutated during this fold (cloned on first edit). */
  edit<T extends TimelineRow>(idx: number): Mutable<T> {
    const row = this.rows[idx]!;
    if (this.fresh.has(row)) return row as Mutable<T>;
    const clone = { ...row } as TimelineRow;
    this.rows[idx] = clone;
    this.fresh.add(clone);
    return clone as Mutable<T>;
  }

  addRef(idx: number, seq: number): void {
    const row = this.edit(idx);
    row.refSeqs = [...row.refSeqs, seq];
  }

  stepKey(turn: number, step: number): string {
    return `${turn}/${step}`;
  }

  openStepNumbers(): { turn?: number; step?: number } {
    if (!this.openStep) return this.openTurn === undefined ? {} : { turn: this.openTurn };
    const st = this.steps.get(this.openStep);
    return st ? { turn: st.turn, step: st.step } : {};
  }

  /**
   * The state of a step; a step that never logged `step/start` (damaged or hand-edited logs, or a
   * log loaded from the middle of a step) gets an implicit marker at the first event that names
   * it, so every event has a row.
   */
  stepState(turn: number, step: number, e: SessionEvent): StepState {
    const key = this.stepKey(turn, step);
    let st = this.steps.get(key);
    if (!st) {
      const row: Mutable<StepRow> = { kind: 'step', key: `step:${e.seq}`, seq: e.seq, time: e.time, refSeqs: [], turn, step, open: true, implicit: true, attempts: 1, chunkCount: 0 };
      if (this.currentModel) row.model = this.currentModel;
      if (this.contextWindow !== undefined) row.contextWindow = this.contextWindow;
      const idx = this.push(row);
      st = { turn, step, rowIdx: idx, attempt: 1, attemptClosed: false, sawChunk: false, blocks: new Map(), attemptRows: [], tools: [], usage: undefined, mark: this.clock.mark(e.time) };
      this.steps.set(key, st);
      this.turns.get(turn)?.stepKeys.push(key);
    }
    return st;
  }

  /** A generic one-line row for a log-only event, placed in the open step. */
  eventRow(e: SessionEvent, type: string, label: string, extra?: Partial<Pick<EventRow, 'todos' | 'preview'>>): void {
    const row: Mutable<EventRow> = { kind: 'event', key: `event:${e.seq}`, seq: e.seq, time: e.time, refSeqs: [e.seq], type, label };
    const where = this.openStepNumbers();
    if (where.turn !== undefined) row.turn = where.turn;
    if (where.step !== undefined) row.step = where.step;
    if (extra?.todos !== undefined) row.todos = extra.todos;
    if (extra?.preview !== undefined) row.preview = extra.preview;
    this.own(e.seq, this.push(row));
  }

  /** Chunks that never reached a message when the step closes: an interrupted partial. */
  finishAttempt(st: StepState): void {
    for (const idx of st.attemptRows) {
      const row = this.rows[idx]!;
      if (row.kind === 'tool') {
        if (row.state === 'streaming') this.edit<ToolRow>(idx).state = 'dropped';
      } else if ((row.kind === 'text' || row.kind === 'reasoning') && row.streaming) {
        const r = this.edit<AnyBlockRow>(idx);
        r.streaming = false;
        if (r.messageSeq === undefined && !r.failed) r.partial = true;
      }
    }
    st.attemptClosed = true;
  }

  /** Marks the current attempt's uncommitted rows failed (retry or error finish). */
  failAttempt(st: StepState, failure: NonNullable<AnyBlockRow['failed']>): void {
    for (const idx of st.attemptRows) {
      const row = this.rows[idx]!;
      if (row.kind === 'tool') {
        if (row.state === 'streaming') this.edit<ToolRow>(idx).state = 'dropped';
      } else if ((row.kind === 'text' || row.kind === 'reasoning') && row.messageSeq === undefined && !row.failed) {
        const r = this.edit<AnyBlockRow>(idx);
        r.failed = failure;
        r.streaming = false;
      }
    }
  }

  /** The entries of `sourceEventSeqs` that are surface events shown by some row. */
  surfaceSeqs(seqs: readonly unknown[] | undefined): number[] {
    const out: number[] = [];
    for (const s of seqs ?? []) if (typeof s === 'number' && this.surfaceRows.has(s)) out.push(s);
    return out;
  }

  /** Marks the rows showing `seqs` as hidden from the model by the replacement `by`. */
  markShadowed(seqs: readonly number[], by: number): void {
    for (const s of seqs) {
      for (const idx of this.surfaceRows.get(s) ?? []) {
        if (this.rows[idx]!.shadowedBy === undefined) this.edit(idx).shadowedBy = by;
      }
    }
  }
}
