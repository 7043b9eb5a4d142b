/**
 * Block rows (assistant text, reasoning and tool-call rows) shared by the chunk, message and tool
 * reducers: creating them for an attempt, and counting the chunks each one owns.
 */
import type { SessionEvent } from '../events.js';
import type { TimelineRow, ToolRow } from '../timeline-rows.js';
import type { AnyBlockRow, BlockKind, FoldState, Mutable, StepState } from './fold-state.js';

/** How many trailing characters a block row keeps in `tail`. */
export const TAIL_CHARS = 240;

export function blockKind(type: string | undefined): BlockKind | undefined {
  switch (type) {
    case 'text':
      return 'text';
    case 'reasoning':
      return 'reasoning';
    case 'tool-call':
      return 'tool';
    default:
      return undefined;
  }
}

export function rowBlockKind(row: TimelineRow): BlockKind | undefined {
  return row.kind === 'text' || row.kind === 'reasoning' || row.kind === 'tool' ? row.kind : undefined;
}

export function isFailed(row: TimelineRow): boolean {
  return (row.kind === 'text' || row.kind === 'reasoning') && row.failed !== undefined;
}

/** A new block row of the step's current attempt. */
export function newBlockRow(fold: FoldState, st: StepState, kind: BlockKind, e: SessionEvent, key: string, index: number | undefined, callId?: string): number {
  if (kind === 'tool') {
    const id = callId ?? `${st.turn}/${st.step}/#${index ?? e.seq}`;
    const row: Mutable<ToolRow> = {
      kind: 'tool',
      key,
      seq: e.seq,
      time: e.time,
      refSeqs: [],
      turn: st.turn,
      step: st.step,
      attempt: st.attempt,
      callId: id,
      name: '',
      arguments: '',
      state: 'streaming',
      isError: false,
      chunkCount: 0,
    };
    if (index !== undefined) row.index = index;
    const idx = fold.push(row);
    st.tools.push(idx);
    fold.calls.set(`${st.turn}/${st.step}/${id}`, idx);
    return idx;
  }
  const row: AnyBlockRow = {
    kind,
    key,
    seq: e.seq,
    time: e.time,
    refSeqs: [],
    turn: st.turn,
    step: st.step,
    attempt: st.attempt,
    index: index ?? -1,
    text: '',
    tail: '',
    streaming: true,
    interrupted: false,
    partial: false,
    chunkCount: 0,
  };
  return fold.push(row);
}

/** The row of block `index` in the step's current attempt, created on first use. */
export function ensureBlock(fold: FoldState, st: StepState, index: number, kind: BlockKind, e: SessionEvent, callId?: string): number {
  const existing = st.blocks.get(index);
  if (existing !== undefined) return existing;
  // The blocks before this one are done streaming (providers send them in order).
  for (const prev of st.attemptRows) {
    const row = fold.rows[prev]!;
    if (row.kind === 'reasoning' && row.streaming && !row.superseded) fold.edit<AnyBlockRow>(prev).superseded = true;
  }
  const idx = newBlockRow(fold, st, kind, e, `blk:${e.seq}`, index, callId);
  st.blocks.set(index, idx);
  st.attemptRows.push(idx);
  return idx;
}

/** Counts chunk `seq` as built into row `idx` (and owned by it). */
export function noteChunk(fold: FoldState, idx: number, seq: number): void {
  const r = fold.edit<AnyBlockRow | ToolRow>(idx);
  r.chunkCount += 1;
  r.chunkRange = r.chunkRange ? { first: r.chunkRange.first, last: seq } : { first: seq, last: seq };
  fold.own(seq, idx);
}

/** A chunk that builds no block (usage, finish, …) is owned by its step marker. */
export function ownByStep(fold: FoldState, e: SessionEvent, st: StepState): void {
  if (st.rowIdx >= 0) {
    fold.own(e.seq, st.rowIdx);
    fold.addRef(st.rowIdx, e.seq);
  }
}
