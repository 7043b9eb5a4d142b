/**
 * The session timeline: an incremental projection of session events into timeline rows
 * (`shared/timeline-rows.ts`) for the renderer's turn/step view and the raw event inspector.
 *
 * Incremental by construction: `foldEvents(timeline, events)` costs O(events) plus one shallow
 * copy of the row array per call, never a rebuild. Rows only ever get appended or replaced in
 * place (a row never moves), so row indexes and keys are stable; a row that changes becomes a new
 * object (copy-on-write, at most one copy per row per fold) and every untouched row keeps its
 * identity, which lets React skip it. Folding events one by one gives the same rows as folding
 * them all at once.
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
import type { TokenUsage } from './chunks.js';
import type { SessionEvent } from './events.js';
import {
  addUsage,
  asArray,
  asNumber,
  asObject,
  asString,
  assistantBlocks,
  assistantModel,
  joinText,
  readBlock,
  readFailure,
  readUsage,
  toolResultFacts,
  turnEndFacts,
  turnEndLabel,
  type Loose,
} from './event-read.js';
import type {
  ApprovalRow,
  BlockRowBase,
  CompactionRow,
  ElidedRow,
  EventRow,
  InstructionFileFacts,
  InstructionsRow,
  RetryRow,
  WarningRow,
  StepRow,
  TimelineRow,
  ToolRow,
  TurnEndRow,
  TurnRow,
  UserRow,
} from './timeline-rows.js';
import { SpanClock, type SpanMark } from './span-clock.js';
import { overlapGroups, type OverlapSlot } from './tool-overlap.js';
import { cutTail, shorten } from './text-cut.js';

export type * from './timeline-rows.js';

/** How many trailing characters a block row keeps in `tail`. */
export const TAIL_CHARS = 240;

export interface Timeline {
  readonly rows: readonly TimelineRow[];
  /** Highest seq folded so far (−1 when nothing was folded). */
  readonly lastSeq: number;
  /** Increments with every fold that changed the rows. */
  readonly version: number;
  /** The latest `session/title` event's title, if any. */
  readonly title?: string;
  /** Text of the first person-typed (`source.kind: user`) message, if any. */
  readonly firstUserText?: string;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type AnyBlockRow = BlockRowBase<'text' | 'reasoning'>;
type BlockKind = 'text' | 'reasoning' | 'tool';

interface StepState {
  readonly turn: number;
  readonly step: number;
  /** Row index of the step marker; −1 for chunks of a step that never logged `step/start`. */
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

interface TurnState {
  readonly rowIdx: number;
  readonly mark: SpanMark;
  readonly stepKeys: string[];
}

/** Mutable bookkeeping behind a chain of Timeline values. */
class Builder {
  rows: TimelineRow[] = [];
  version = 0;
  lastSeq = -1;
  private readonly fresh = new Set<TimelineRow>();
  private readonly keyIndex = new Map<string, number>();
  /** Row index per folded seq (−1: no row); index = seq − ownerBase. */
  readonly owner: number[] = [];
  ownerBase = -1;
  private readonly steps = new Map<string, StepState>();
  private readonly turns = new Map<number, TurnState>();
  private readonly calls = new Map<string, number>();
  private readonly compactions = new Map<string, number>();
  private readonly approvals = new Map<string, { row: number; tool: number | undefined }>();
  /** Surface event seq → rows that show it (for shadowing). */
  private readonly surfaceRows = new Map<number, number[]>();
  private openTurn: number | undefined;
  private openStep: string | undefined;
  private openCompaction: string | undefined;
  private currentModel: string | undefined;
  /** The log's own clock: a duration is known only where it ran forward (imported logs may not). */
  private readonly clock = new SpanClock();
  /** Where each started tool call opened on the log's clock, by row index. */
  private readonly toolMarks = new Map<number, SpanMark>();
  private changed = false;
  title: string | undefined;
  firstUserText: string | undefined;

  fold(events: readonly SessionEvent[]): boolean {
    this.changed = false;
    let copied = false;
    for (const event of events) {
      if (!Number.isSafeInteger(event.seq) || event.seq <= this.lastSeq) continue;
      if (!copied) {
        this.rows = this.rows.slice();
        copied = true;
      }
      this.setOwnerBase(event.seq);
      while (this.ownerBase + this.owner.length < event.seq) this.owner.push(-1);
      this.owner.push(-1);
      this.lastSeq = event.seq;
      this.clock.tick(event.time);
      this.apply(event);
      this.changed = true;
    }
    this.fresh.clear();
    return this.changed;
  }

  rowIndexOfKey(key: string): number {
    return this.keyIndex.get(key) ?? -1;
  }

  private setOwnerBase(seq: number): void {
    if (this.ownerBase < 0) this.ownerBase = seq;
  }

  private own(seq: number, rowIdx: number): void {
    const i = seq - this.ownerBase;
    if (i >= 0 && i < this.owner.length) this.owner[i] = rowIdx;
  }

  private push(row: TimelineRow): number {
    const idx = this.rows.length;
    this.rows.push(row);
    this.fresh.add(row);
    this.keyIndex.set(row.key, idx);
    return idx;
  }

  /** Returns a row that may be mutated during this fold (cloned on first edit). */
  private edit<T extends TimelineRow>(idx: number): Mutable<T> {
    const row = this.rows[idx]!;
    if (this.fresh.has(row)) return row as Mutable<T>;
    const clone = { ...row } as TimelineRow;
    this.rows[idx] = clone;
    this.fresh.add(clone);
    return clone as Mutable<T>;
  }

  private addRef(idx: number, seq: number): void {
    const row = this.edit(idx);
    row.refSeqs = [...row.refSeqs, seq];
  }

  private stepKey(turn: number, step: number): string {
    return `${turn}/${step}`;
  }

  private openStepNumbers(): { turn?: number; step?: number } {
    if (!this.openStep) return this.openTurn === undefined ? {} : { turn: this.openTurn };
    const st = this.steps.get(this.openStep);
    return st ? { turn: st.turn, step: st.step } : {};
  }

  /**
   * The state of a step; a step that never logged `step/start` (damaged or hand-edited logs) gets
   * an implicit marker at the first event that names it, so every event has a row.
   */
  private stepState(turn: number, step: number, e: SessionEvent): StepState {
    const key = this.stepKey(turn, step);
    let st = this.steps.get(key);
    if (!st) {
      const row: StepRow = { kind: 'step', key: `step:${e.seq}`, seq: e.seq, time: e.time, refSeqs: [], turn, step, open: true, implicit: true, attempts: 1, chunkCount: 0 };
      const idx = this.push(row);
      st = { turn, step, rowIdx: idx, attempt: 1, attemptClosed: false, sawChunk: false, blocks: new Map(), attemptRows: [], tools: [], usage: undefined, mark: this.clock.mark(e.time) };
      this.steps.set(key, st);
      this.turns.get(turn)?.stepKeys.push(key);
    }
    return st;
  }

  private apply(e: SessionEvent): void {
    const d: Loose = asObject(e.data) ?? {};
    const type = e.type as string;
    switch (type) {
      case 'turn/start':
        return this.onTurnStart(e, d);
      case 'turn/end':
        return this.onTurnEnd(e, d);
      case 'step/start':
        return this.onStepStart(e, d);
      case 'step/end':
        return this.onStepEnd(e, d);
      case 'user/message':
        return this.onUserMessage(e, d);
      case 'assistant/chunk':
        return this.onChunk(e, d);
      case 'assistant/message':
        return this.onAssistantMessage(e, d);
      case 'tool/call':
        return this.onToolCall(e, d);
      case 'tool/result':
        return this.onToolResult(e, d);
      case 'llm/retry':
        return this.onRetry(e, d);
      case 'llm/warning':
        return this.onWarning(e, d);
      case 'approval/asked':
        return this.onApprovalAsked(e, d);
      case 'approval/decided':
        return this.onApprovalDecided(e, d);
      case 'compaction/start':
        return this.onCompactionStart(e, d);
      case 'compaction/summary':
        return this.onCompactionSummary(e, d);
      case 'compaction/end':
        return this.onCompactionEnd(e, d);
      case 'session/end-seed':
        return this.onEndSeed(e);
      case 'import/elided':
        return this.onElided(e);
      case 'request/header':
        return this.onRequestHeader(e, d);
      case 'instructions/loaded':
        return this.onInstructions(e, d);
      case 'session/title': {
        const title = asString(d['title']);
        if (title !== undefined && title.trim()) this.title = title;
        return this.eventRow(e, type, eventLabel(type, d));
      }
      default:
        return this.eventRow(e, type, eventLabel(type, d));
    }
  }

  // ---- turns and steps -------------------------------------------------------------------

  private onTurnStart(e: SessionEvent, d: Loose): void {
    const turn = asNumber(d['turn']) ?? (this.openTurn ?? 0) + 1;
    const row: TurnRow = { kind: 'turn', key: `turn:${e.seq}`, seq: e.seq, time: e.time, refSeqs: [e.seq], turn, steps: 0, ended: false };
    const idx = this.push(row);
    this.turns.set(turn, { rowIdx: idx, mark: this.clock.mark(e.time), stepKeys: [] });
    this.openTurn = turn;
    this.openStep = undefined;
    this.own(e.seq, idx);
  }

  private onTurnEnd(e: SessionEvent, d: Loose): void {
    const turn = asNumber(d['turn']) ?? this.openTurn ?? 0;
    const facts = turnEndFacts(d);
    const label = turnEndLabel(facts);
    const ts = this.turns.get(turn);
    let usage: TokenUsage | undefined;
    if (ts) {
      for (const key of ts.stepKeys) {
        const st = this.steps.get(key);
        if (st) {
          this.finishAttempt(st);
          usage = addUsage(usage, st.usage);
        }
      }
    }
    const durationMs = ts ? this.clock.since(ts.mark, e.time) : undefined;
    const row: Mutable<TurnEndRow> = { kind: 'turn-end', key: `turn-end:${e.seq}`, seq: e.seq, time: e.time, refSeqs: [e.seq], turn, end: facts, label };
    if (durationMs !== undefined) row.durationMs = durationMs;
    if (usage) row.usage = usage;
    if (facts.kind === 'interrupted') row.crash = 'interrupted';
    const idx = this.push(row);
    this.own(e.seq, idx);
    if (ts) {
      const t = this.edit<TurnRow>(ts.rowIdx);
      t.ended = true;
      t.end = facts;
      t.endLabel = label;
      if (durationMs !== undefined) t.durationMs = durationMs;
      t.refSeqs = [...t.refSeqs, e.seq];
    }
    if (this.openTurn === turn) {
      this.openTurn = undefined;
      this.openStep = undefined;
    }
  }

  private onStepStart(e: SessionEvent, d: Loose): void {
    const turn = asNumber(d['turn']) ?? this.openTurn ?? 0;
    const step = asNumber(d['step']) ?? 0;
    const row: Mutable<StepRow> = { kind: 'step', key: `step:${e.seq}`, seq: e.seq, time: e.time, refSeqs: [e.seq], turn, step, open: true, attempts: 1, chunkCount: 0 };
    if (this.currentModel) row.model = this.currentModel;
    const idx = this.push(row);
    const key = this.stepKey(turn, step);
    const st: StepState = { turn, step, rowIdx: idx, attempt: 1, attemptClosed: false, sawChunk: false, blocks: new Map(), attemptRows: [], tools: [], usage: undefined, mark: this.clock.mark(e.time) };
    this.steps.set(key, st);
    const ts = this.turns.get(turn);
    if (ts) {
      ts.stepKeys.push(key);
      const t = this.edit<TurnRow>(ts.rowIdx);
      t.steps += 1;
    }
    this.openStep = key;
    this.own(e.seq, idx);
  }

  private onStepEnd(e: SessionEvent, d: Loose): void {
    const turn = asNumber(d['turn']) ?? this.openTurn ?? 0;
    const step = asNumber(d['step']) ?? 0;
    const key = this.stepKey(turn, step);
    const st = this.steps.get(key);
    if (!st || st.rowIdx < 0) {
      this.eventRow(e, 'step/end', `step ${turn}.${step} ended (no step/start in the log)`);
      return;
    }
    this.finishAttempt(st);
    const row = this.edit<StepRow>(st.rowIdx);
    row.open = false;
    row.endTime = e.time;
    const durationMs = this.clock.since(st.mark, e.time);
    if (durationMs !== undefined) row.durationMs = durationMs;
    row.refSeqs = [...row.refSeqs, e.seq];
    this.own(e.seq, st.rowIdx);
    if (this.openStep === key) this.openStep = undefined;
  }

  /** Chunks that never reached a message when the step closes: an interrupted partial. */
  private finishAttempt(st: StepState): void {
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

  // ---- messages ----------------------------------------------------------------------------

  private onUserMessage(e: SessionEvent, d: Loose): void {
    const source = asObject(d['source']);
    const sourceKind = asString(source?.['kind']) ?? 'user';
    const text = joinText(d['content']);
    const replace = typeof e.surfaceOp === 'object' && e.surfaceOp !== null;
    const compactionId = asString(source?.['compactionId']);
    if (replace || compactionId !== undefined) {
      const cIdx = compactionId !== undefined ? this.compactions.get(compactionId) : this.openCompaction !== undefined ? this.compactions.get(this.openCompaction) : undefined;
      if (cIdx !== undefined) {
        const c = this.edit<CompactionRow>(cIdx);
        c.replacementSeq = e.seq;
        c.replacementText = text;
        c.refSeqs = [...c.refSeqs, e.seq];
        const shadowed = this.surfaceSeqs(e.sourceEventSeqs);
        if (c.shadowedSeqs.length === 0) c.shadowedSeqs = shadowed;
        this.own(e.seq, cIdx);
        this.surfaceRows.set(e.seq, [cIdx]);
        this.markShadowed(shadowed.length > 0 ? shadowed : c.shadowedSeqs, e.seq);
        return;
      }
    }
    const row: Mutable<UserRow> = { kind: 'user', key: `user:${e.seq}`, seq: e.seq, time: e.time, refSeqs: [e.seq], text, sourceKind };
    if (this.firstUserText === undefined && sourceKind === 'user' && !replace && text.trim()) this.firstUserText = text;
    const messageId = asString(d['id']);
    if (messageId !== undefined) row.messageId = messageId;
    const plugin = asString(source?.['plugin']);
    const form = asString(source?.['form']);
    if (plugin) row.sourceLabel = form ? `${plugin} · ${form}` : plugin;
    const where = this.openStepNumbers();
    if (where.turn !== undefined) row.turn = where.turn;
    if (where.step !== undefined) row.step = where.step;
    let shadowed: number[] = [];
    if (replace) {
      shadowed = this.surfaceSeqs(e.sourceEventSeqs);
      row.replaces = shadowed;
    }
    const idx = this.push(row);
    this.own(e.seq, idx);
    this.surfaceRows.set(e.seq, [idx]);
    if (shadowed.length > 0) this.markShadowed(shadowed, e.seq);
  }

  /** The entries of `sourceEventSeqs` that are surface events shown by some row. */
  private surfaceSeqs(seqs: readonly number[] | undefined): number[] {
    const out: number[] = [];
    for (const s of asArray(seqs)) if (typeof s === 'number' && this.surfaceRows.has(s)) out.push(s);
    return out;
  }

  private markShadowed(seqs: readonly number[], by: number): void {
    for (const s of seqs) {
      for (const idx of this.surfaceRows.get(s) ?? []) {
        if (this.rows[idx]!.shadowedBy === undefined) this.edit(idx).shadowedBy = by;
      }
    }
  }

  private onChunk(e: SessionEvent, d: Loose): void {
    const turn = asNumber(d['turn']) ?? this.openTurn ?? 0;
    const step = asNumber(d['step']) ?? 0;
    const st = this.stepState(turn, step, e);
    if (st.attemptClosed) {
      st.attemptClosed = false;
      st.attempt += 1;
      st.blocks = new Map();
      st.attemptRows = [];
      if (st.rowIdx >= 0) this.edit<StepRow>(st.rowIdx).attempts = st.attempt;
    }
    if (st.rowIdx >= 0) {
      const sr = this.edit<StepRow>(st.rowIdx);
      sr.chunkCount += 1;
      if (!st.sawChunk && !sr.implicit) {
        const ttftMs = this.clock.since(st.mark, e.time);
        if (ttftMs !== undefined) sr.ttftMs = ttftMs;
      }
    }
    st.sawChunk = true;
    const chunk = asObject(d['chunk']) ?? {};
    const index = asNumber(chunk['index']) ?? 0;
    switch (chunk['type']) {
      case 'block-start': {
        const kind = blockKind(asString(chunk['blockType']));
        if (!kind) return this.ownByStep(e, st);
        return this.noteChunk(this.ensureBlock(st, index, kind, e), e.seq);
      }
      case 'text-delta':
      case 'reasoning-delta': {
        const idx = this.ensureBlock(st, index, chunk['type'] === 'text-delta' ? 'text' : 'reasoning', e);
        const row = this.rows[idx]!;
        const text = asString(chunk['text']) ?? '';
        if (row.kind === 'text' || row.kind === 'reasoning') {
          const r = this.edit<AnyBlockRow>(idx);
          r.text += text;
          r.tail = cutTail(r.tail + text, TAIL_CHARS);
        }
        return this.noteChunk(idx, e.seq);
      }
      case 'tool-call-delta': {
        const id = asString(chunk['id']);
        const idx = this.ensureBlock(st, index, 'tool', e, id);
        const row = this.rows[idx]!;
        if (row.kind === 'tool') {
          const r = this.edit<ToolRow>(idx);
          if (id && r.callId !== id) {
            r.callId = id;
            this.calls.set(`${st.turn}/${st.step}/${id}`, idx);
          }
          const name = asString(chunk['name']);
          if (name) r.name = name;
          r.arguments += asString(chunk['argumentsDelta']) ?? '';
        }
        return this.noteChunk(idx, e.seq);
      }
      case 'block-end': {
        const block = readBlock(chunk['block']);
        const kind = blockKind(block?.type);
        if (!block || !kind) return this.ownByStep(e, st);
        const idx = this.ensureBlock(st, index, kind, e, block.id);
        const row = this.rows[idx]!;
        if (row.kind === 'tool') {
          const r = this.edit<ToolRow>(idx);
          if (block.id && r.callId !== block.id) {
            r.callId = block.id;
            this.calls.set(`${st.turn}/${st.step}/${block.id}`, idx);
          }
          if (block.name) r.name = block.name;
          if (block.arguments !== undefined) r.arguments = block.arguments;
        } else if (row.kind === 'text' || row.kind === 'reasoning') {
          const r = this.edit<AnyBlockRow>(idx);
          r.text = block.text;
          r.tail = cutTail(block.text, TAIL_CHARS);
        }
        return this.noteChunk(idx, e.seq);
      }
      case 'usage': {
        const usage = readUsage(chunk['usage']);
        if (usage) {
          st.usage = usage;
          if (st.rowIdx >= 0) this.edit<StepRow>(st.rowIdx).usage = usage;
        }
        return this.ownByStep(e, st);
      }
      case 'finish': {
        const reason = asObject(chunk['reason']);
        const kind = asString(reason?.['kind']) ?? 'stop';
        const failure = kind === 'error' || kind === 'aborted' ? readFailure(reason?.['failure']) ?? { code: 'UNKNOWN' as const, message: '' } : undefined;
        if (st.rowIdx >= 0) this.edit<StepRow>(st.rowIdx).finish = failure ? `${kind} ${failure.code}` : kind;
        if (failure) this.failAttempt(st, failure);
        st.attemptClosed = true;
        return this.ownByStep(e, st);
      }
      default:
        return this.ownByStep(e, st);
    }
  }

  private ownByStep(e: SessionEvent, st: StepState): void {
    if (st.rowIdx >= 0) {
      this.own(e.seq, st.rowIdx);
      this.addRef(st.rowIdx, e.seq);
    }
  }

  private noteChunk(idx: number, seq: number): void {
    const r = this.edit<AnyBlockRow | ToolRow>(idx);
    r.chunkCount += 1;
    r.chunkRange = r.chunkRange ? { first: r.chunkRange.first, last: seq } : { first: seq, last: seq };
    this.own(seq, idx);
  }

  private failAttempt(st: StepState, failure: NonNullable<AnyBlockRow['failed']>): void {
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

  private ensureBlock(st: StepState, index: number, kind: BlockKind, e: SessionEvent, callId?: string): number {
    const existing = st.blocks.get(index);
    if (existing !== undefined) return existing;
    const idx = this.newBlockRow(st, kind, e, `blk:${e.seq}`, index, callId);
    st.blocks.set(index, idx);
    st.attemptRows.push(idx);
    return idx;
  }

  private newBlockRow(st: StepState, kind: BlockKind, e: SessionEvent, key: string, index: number | undefined, callId?: string): number {
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
      const idx = this.push(row);
      st.tools.push(idx);
      this.calls.set(`${st.turn}/${st.step}/${id}`, idx);
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
    return this.push(row);
  }

  private onAssistantMessage(e: SessionEvent, d: Loose): void {
    const turn = asNumber(d['turn']) ?? this.openTurn ?? 0;
    const step = asNumber(d['step']) ?? 0;
    const st = this.stepState(turn, step, e);
    const blocks = assistantBlocks(d);
    const interrupted = d['interrupted'] === true;
    const usage = readUsage(d['usage']);
    const model = assistantModel(d);
    // A message after a failed attempt belongs to a new attempt — except an interrupted message,
    // which is exactly the kept prefix of the cancelled (aborted) attempt's rows.
    const candidates = !interrupted && st.attemptClosed && st.attemptRows.some((i) => isFailed(this.rows[i]!)) ? [] : st.attemptRows;
    const used = new Set<number>();
    const shown: number[] = [];
    let cursor = 0;
    blocks.forEach((block, blockNo) => {
      const kind = blockKind(block.type);
      if (!kind) return;
      let found = -1;
      for (let k = cursor; k < candidates.length; k++) {
        const row = this.rows[candidates[k]!]!;
        if (rowBlockKind(row) !== kind) continue;
        found = k;
        break;
      }
      let idx: number;
      if (found >= 0) {
        idx = candidates[found]!;
        cursor = found + 1;
      } else {
        idx = this.newBlockRow(st, kind, e, `msg:${e.seq}:${blockNo}`, undefined, block.id);
      }
      used.add(idx);
      shown.push(idx);
      const row = this.rows[idx]!;
      if (row.kind === 'tool') {
        const r = this.edit<ToolRow>(idx);
        const id = block.id ?? r.callId;
        if (r.callId !== id) r.callId = id;
        this.calls.set(`${turn}/${step}/${id}`, idx);
        if (block.name) r.name = block.name;
        if (block.arguments !== undefined) r.arguments = block.arguments;
        if (r.state === 'streaming' || r.state === 'dropped') r.state = 'pending';
        r.messageSeq = e.seq;
        r.refSeqs = [...r.refSeqs, e.seq];
      } else if (row.kind === 'text' || row.kind === 'reasoning') {
        const r = this.edit<AnyBlockRow>(idx);
        r.text = block.text;
        r.tail = cutTail(block.text, TAIL_CHARS);
        r.streaming = false;
        r.partial = false;
        r.messageSeq = e.seq;
        r.interrupted = interrupted;
        if (interrupted) r.failed = undefined;
        r.refSeqs = [...r.refSeqs, e.seq];
      }
    });
    for (const idx of candidates) {
      if (used.has(idx)) continue;
      const row = this.rows[idx]!;
      if (row.kind === 'tool' && (row.state === 'streaming' || row.state === 'pending')) this.edit<ToolRow>(idx).state = 'dropped';
      else if ((row.kind === 'text' || row.kind === 'reasoning') && row.streaming) this.edit<AnyBlockRow>(idx).streaming = false;
    }
    if (usage) st.usage = usage;
    if (st.rowIdx >= 0) {
      const sr = this.edit<StepRow>(st.rowIdx);
      if (usage) sr.usage = usage;
      if (model) sr.model = model;
    }
    st.attemptClosed = true;
    this.surfaceRows.set(e.seq, shown);
    this.own(e.seq, shown[0] ?? st.rowIdx);
    if (shown.length === 0 && st.rowIdx >= 0) this.addRef(st.rowIdx, e.seq);
  }

  // ---- tools -------------------------------------------------------------------------------

  private toolRowFor(turn: number, step: number, callId: string, e: SessionEvent, name: string): number {
    const key = `${turn}/${step}/${callId}`;
    const idx = this.calls.get(key);
    if (idx !== undefined) return idx;
    const st = this.stepState(turn, step, e);
    const created = this.newBlockRow(st, 'tool', e, `call:${e.seq}`, undefined, callId);
    this.edit<ToolRow>(created).name = name;
    return created;
  }

  private onToolCall(e: SessionEvent, d: Loose): void {
    const where = this.openStepNumbers();
    const turn = asNumber(d['turn']) ?? where.turn ?? 0;
    const step = asNumber(d['step']) ?? where.step ?? 0;
    const callId = asString(d['callId']) ?? `seq-${e.seq}`;
    const name = asString(d['name']) ?? '(unknown)';
    const idx = this.toolRowFor(turn, step, callId, e, name);
    const r = this.edit<ToolRow>(idx);
    r.callSeq = e.seq;
    r.startTime = e.time;
    this.toolMarks.set(idx, this.clock.mark(e.time));
    if (!r.name) r.name = name;
    const args = asString(d['arguments']);
    if (!r.arguments && args !== undefined) r.arguments = args;
    if (r.state === 'streaming' || r.state === 'pending' || r.state === 'dropped') r.state = 'running';
    r.refSeqs = [...r.refSeqs, e.seq];
    this.own(e.seq, idx);
    this.updateOverlap(this.stepState(turn, step, e));
  }

  private onToolResult(e: SessionEvent, d: Loose): void {
    const where = this.openStepNumbers();
    const turn = asNumber(d['turn']) ?? where.turn ?? 0;
    const step = asNumber(d['step']) ?? where.step ?? 0;
    const facts = toolResultFacts(d);
    const callId = facts.callId ?? `seq-${e.seq}`;
    const replace = typeof e.surfaceOp === 'object' && e.surfaceOp !== null;
    const existing = this.calls.get(`${turn}/${step}/${callId}`);
    if (replace && existing !== undefined && this.rows[existing]!.kind === 'tool' && (this.rows[existing] as ToolRow).resultSeq !== undefined) {
      // A pruning rewrite of an earlier result: the row keeps the original text and notes the rewrite.
      const r = this.edit<ToolRow>(existing);
      r.prunedBy = e.seq;
      if (r.shadowedBy === undefined) r.shadowedBy = e.seq;
      r.refSeqs = [...r.refSeqs, e.seq];
      this.own(e.seq, existing);
      this.surfaceRows.set(e.seq, [existing]);
      return;
    }
    const idx = existing ?? this.toolRowFor(turn, step, callId, e, '(unknown)');
    const r = this.edit<ToolRow>(idx);
    r.resultSeq = e.seq;
    r.endTime = e.time;
    const mark = this.toolMarks.get(idx);
    const durationMs = mark ? this.clock.since(mark, e.time) : undefined;
    if (durationMs !== undefined) r.durationMs = durationMs;
    r.isError = facts.isError || facts.errorCode !== undefined;
    if (facts.errorCode !== undefined) r.errorCode = facts.errorCode;
    if (facts.errorName !== undefined) r.errorName = facts.errorName;
    r.resultText = facts.text;
    if (facts.meta !== undefined) r.meta = facts.meta;
    r.state = r.isError ? 'error' : 'done';
    if (facts.errorCode === 'TOOL_NOT_STARTED') r.crash = 'not-started';
    else if (facts.errorCode === 'TOOL_OUTCOME_UNKNOWN') r.crash = 'outcome-unknown';
    r.refSeqs = [...r.refSeqs, e.seq];
    this.own(e.seq, idx);
    this.surfaceRows.set(e.seq, [idx]);
    this.updateOverlap(this.stepState(turn, step, e));
  }

  private updateOverlap(st: StepState): void {
    const tools = st.tools.filter((i) => {
      const row = this.rows[i]!;
      return row.kind === 'tool' && row.callSeq !== undefined;
    });
    const slots = overlapGroups(
      tools.map((i) => {
        const row = this.rows[i] as ToolRow;
        return { start: row.callSeq!, end: row.resultSeq };
      }),
    );
    tools.forEach((i, k) => {
      const row = this.rows[i] as ToolRow;
      const slot = slots[k];
      if (!sameSlot(row.parallel, slot)) {
        const r = this.edit<ToolRow>(i);
        if (slot) r.parallel = slot;
        else delete r.parallel;
      }
    });
  }

  private onRetry(e: SessionEvent, d: Loose): void {
    const where = this.openStepNumbers();
    const turn = asNumber(d['turn']) ?? where.turn ?? 0;
    const step = asNumber(d['step']) ?? where.step ?? 0;
    const st = this.stepState(turn, step, e);
    const failure = readFailure(d['failure']) ?? { code: 'UNKNOWN' as const, message: '' };
    this.failAttempt(st, failure);
    st.attemptClosed = true;
    const row: RetryRow = {
      kind: 'retry',
      key: `retry:${e.seq}`,
      seq: e.seq,
      time: e.time,
      refSeqs: [e.seq],
      turn,
      step,
      attempt: asNumber(d['attempt']) ?? asNumber(d['retry']) ?? st.attempt,
      delayMs: asNumber(d['delayMs']) ?? 0,
      failure,
    };
    this.own(e.seq, this.push(row));
    if (st.rowIdx >= 0) this.edit<StepRow>(st.rowIdx).finish = `error ${failure.code}`;
  }

  private onWarning(e: SessionEvent, d: Loose): void {
    const where = this.openStepNumbers();
    const hint = asString(d['hint']);
    const row: WarningRow = {
      kind: 'warning',
      key: `warning:${e.seq}`,
      seq: e.seq,
      time: e.time,
      refSeqs: [e.seq],
      turn: asNumber(d['turn']) ?? where.turn ?? 0,
      step: asNumber(d['step']) ?? where.step ?? 0,
      code: asString(d['code']) ?? 'WARNING',
      message: asString(d['message']) ?? '',
      ...(hint !== undefined ? { hint } : {}),
    };
    this.own(e.seq, this.push(row));
  }

  private onApprovalAsked(e: SessionEvent, d: Loose): void {
    const id = asString(d['id']) ?? `seq-${e.seq}`;
    const callId = asString(d['callId']);
    const row: Mutable<ApprovalRow> = { kind: 'approval', key: `approval:${e.seq}`, seq: e.seq, time: e.time, refSeqs: [e.seq], id, toolName: asString(d['toolName']) ?? '(unknown)' };
    if (callId !== undefined) row.callId = callId;
    const reason = asString(d['reason']);
    if (reason !== undefined) row.reason = reason;
    const preview = asObject(d['preview']);
    if (preview?.['kind'] === 'command') row.shown = `$ ${clip(asString(preview['command']) ?? '', 120)} · in ${asString(preview['cwd']) ?? '?'}`;
    else if (preview?.['kind'] === 'diff') row.shown = `${asString(preview['path']) ?? '?'} +${asNumber(preview['added']) ?? 0} −${asNumber(preview['removed']) ?? 0}${preview['created'] === true ? ' (new file)' : ''}`;
    const idx = this.push(row);
    this.own(e.seq, idx);
    let tool: number | undefined;
    if (callId !== undefined && this.openStep) {
      tool = this.calls.get(`${this.openStep}/${callId}`);
      if (tool !== undefined) {
        const t = this.edit<ToolRow>(tool);
        t.approval = { id };
        t.refSeqs = [...t.refSeqs, e.seq];
      }
    }
    this.approvals.set(id, { row: idx, tool });
  }

  private onApprovalDecided(e: SessionEvent, d: Loose): void {
    const id = asString(d['id']) ?? '';
    const outcome = asString(d['outcome']) ?? 'unknown';
    const known = this.approvals.get(id);
    if (!known) {
      this.eventRow(e, 'approval/decided', `approval ${id} decided: ${outcome}`);
      return;
    }
    const a = this.edit<ApprovalRow>(known.row);
    a.outcome = outcome;
    a.refSeqs = [...a.refSeqs, e.seq];
    this.own(e.seq, known.row);
    if (known.tool !== undefined) {
      const t = this.edit<ToolRow>(known.tool);
      t.approval = { id, outcome };
      t.refSeqs = [...t.refSeqs, e.seq];
    }
  }

  // ---- compaction, seeds, elisions ---------------------------------------------------------

  private compactionRow(e: SessionEvent, id: string, turn: number | null): number {
    const known = this.compactions.get(id);
    if (known !== undefined) return known;
    const row: CompactionRow = { kind: 'compaction', key: `compaction:${e.seq}`, seq: e.seq, time: e.time, refSeqs: [], compactionId: id, turn, state: 'running', shadowedSeqs: [] };
    const idx = this.push(row);
    this.compactions.set(id, idx);
    return idx;
  }

  private onCompactionStart(e: SessionEvent, d: Loose): void {
    const id = asString(d['compactionId']) ?? `seq-${e.seq}`;
    const idx = this.compactionRow(e, id, asNumber(d['turn']) ?? null);
    this.addRef(idx, e.seq);
    this.own(e.seq, idx);
    this.openCompaction = id;
  }

  private onCompactionSummary(e: SessionEvent, d: Loose): void {
    const id = asString(d['compactionId']) ?? this.openCompaction ?? `seq-${e.seq}`;
    const idx = this.compactionRow(e, id, asNumber(d['turn']) ?? null);
    const c = this.edit<CompactionRow>(idx);
    c.summary = joinText(d['summary']);
    c.shadowedSeqs = asArray(d['shadowedSeqs']).filter((s): s is number => typeof s === 'number');
    const range = asObject(d['shadowedRange']);
    const start = asNumber(range?.['start']);
    const end = asNumber(range?.['end']);
    if (start !== undefined && end !== undefined) c.shadowedRange = { start, end };
    const tokens = asNumber(d['shadowedTokenCount']);
    if (tokens !== undefined) c.shadowedTokenCount = tokens;
    const model = asString(d['model']);
    if (model) c.model = asString(d['provider']) ? `${asString(d['provider'])}/${model}` : model;
    c.refSeqs = [...c.refSeqs, e.seq];
    this.own(e.seq, idx);
  }

  private onCompactionEnd(e: SessionEvent, d: Loose): void {
    const id = asString(d['compactionId']) ?? this.openCompaction ?? `seq-${e.seq}`;
    const idx = this.compactionRow(e, id, asNumber(d['turn']) ?? null);
    const c = this.edit<CompactionRow>(idx);
    const error = asString(d['error']);
    c.state = error !== undefined ? 'failed' : 'done';
    if (error !== undefined) c.error = error;
    c.refSeqs = [...c.refSeqs, e.seq];
    this.own(e.seq, idx);
    if (this.openCompaction === id) this.openCompaction = undefined;
  }

  private onEndSeed(e: SessionEvent): void {
    if (this.openCompaction !== undefined) {
      const idx = this.compactions.get(this.openCompaction);
      if (idx !== undefined) this.edit<CompactionRow>(idx).state = 'stale';
      this.openCompaction = undefined;
    }
    if (this.openStep) {
      const st = this.steps.get(this.openStep);
      if (st) this.finishAttempt(st);
    }
    this.openTurn = undefined;
    this.openStep = undefined;
    const idx = this.push({ kind: 'end-seed', key: `end-seed:${e.seq}`, seq: e.seq, time: e.time, refSeqs: [e.seq] });
    this.own(e.seq, idx);
  }

  private onElided(e: SessionEvent): void {
    const lastIdx = this.rows.length - 1;
    const last = this.rows[lastIdx];
    if (last && last.kind === 'elided' && last.toSeq === e.seq - 1) {
      this.edit<ElidedRow>(lastIdx).toSeq = e.seq;
      this.own(e.seq, lastIdx);
      return;
    }
    const row: ElidedRow = { kind: 'elided', key: `elided:${e.seq}`, seq: e.seq, time: e.time, refSeqs: [], fromSeq: e.seq, toSeq: e.seq };
    this.own(e.seq, this.push(row));
  }

  private onRequestHeader(e: SessionEvent, d: Loose): void {
    const header = asObject(d['header']);
    const config = asObject(header?.['config']);
    const provider = asString(config?.['provider']);
    const model = asString(config?.['model']);
    if (model) {
      this.currentModel = provider ? `${provider}/${model}` : model;
      const st = this.openStep ? this.steps.get(this.openStep) : undefined;
      if (st && st.rowIdx >= 0) this.edit<StepRow>(st.rowIdx).model = this.currentModel;
    }
    this.eventRow(e, 'request/header', eventLabel('request/header', d));
  }

  private onInstructions(e: SessionEvent, d: Loose): void {
    const files: InstructionFileFacts[] = [];
    for (const item of asArray(d['files'])) {
      const f = asObject(item);
      const path = asString(f?.['path']);
      if (!f || path === undefined) continue;
      const bytes = asNumber(f['bytes']);
      files.push({
        path,
        shownPath: asString(f['shownPath']) ?? path,
        scope: asString(f['scope']) ?? 'project',
        sha256: asString(f['sha256']) ?? '',
        ...(bytes !== undefined ? { bytes } : {}),
        ...(f['truncated'] === true ? { truncated: true } : {}),
      });
    }
    const row: Mutable<InstructionsRow> = { kind: 'instructions', key: `instructions:${e.seq}`, seq: e.seq, time: e.time, refSeqs: [e.seq], placement: asString(d['placement']) ?? 'system', files };
    const callId = asString(d['callId']);
    if (callId !== undefined) row.callId = callId;
    const where = this.openStepNumbers();
    if (where.turn !== undefined) row.turn = where.turn;
    if (where.step !== undefined) row.step = where.step;
    this.own(e.seq, this.push(row));
  }

  private eventRow(e: SessionEvent, type: string, label: string): void {
    const row: Mutable<EventRow> = { kind: 'event', key: `event:${e.seq}`, seq: e.seq, time: e.time, refSeqs: [e.seq], type, label };
    const where = this.openStepNumbers();
    if (where.turn !== undefined) row.turn = where.turn;
    if (where.step !== undefined) row.step = where.step;
    this.own(e.seq, this.push(row));
  }
}

function blockKind(type: string | undefined): BlockKind | undefined {
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

function rowBlockKind(row: TimelineRow): BlockKind | undefined {
  return row.kind === 'text' || row.kind === 'reasoning' || row.kind === 'tool' ? row.kind : undefined;
}

function isFailed(row: TimelineRow): boolean {
  return (row.kind === 'text' || row.kind === 'reasoning') && row.failed !== undefined;
}

function sameSlot(a: OverlapSlot | undefined, b: OverlapSlot | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  return a.group === b.group && a.size === b.size && a.lane === b.lane && a.lanes === b.lanes;
}

function clip(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return shorten(oneLine, max);
}

/** One-line label of a log-only event. */
export function eventLabel(type: string, d: Loose): string {
  switch (type) {
    case 'request/header': {
      const header = asObject(d['header']);
      const config = asObject(header?.['config']);
      const model = [asString(config?.['provider']), asString(config?.['model'])].filter(Boolean).join('/');
      const effort = asString(config?.['reasoningEffort']);
      const tools = asArray(header?.['tools']).length;
      return `request header (${asString(d['reason']) ?? '?'}) ${model}${effort ? ` · effort ${effort}` : ''}${tools ? ` · ${tools} tools` : ''}`;
    }
    case 'request/context': {
      const window = asNumber(d['contextWindow']);
      return `request context ${[asString(d['provider']), asString(d['model'])].filter(Boolean).join('/')}${window ? ` · window ${window}` : ''}`;
    }
    case 'agent/inbox/spliced': {
      const target = asString(d['target']) ?? '?';
      const inserted = asArray(d['inserted']);
      const removed = asNumber(d['removedCount']) ?? 0;
      const parts: string[] = [];
      if (removed > 0) parts.push(d['outcome'] === 'canceled' ? `canceled ${removed}` : `claimed ${removed}`);
      if (inserted.length > 0) {
        const first = asObject(inserted[0]);
        const kind = asString(asObject(first?.['source'])?.['kind']);
        parts.push(`queued ${inserted.length}${kind ? ` ${kind}` : ''}: “${clip(joinText(first?.['content']), 60)}”`);
      }
      return `inbox ${target}: ${parts.join(', ') || 'no change'}`;
    }
    case 'session/title':
      return `title: ${asString(d['title']) ?? ''}`;
    case 'todo/write': {
      const todos = asArray(d['todos']);
      const done = todos.filter((t) => asObject(t)?.['status'] === 'completed').length;
      return `todos ${done}/${todos.length} done`;
    }
    case 'workspace/checkpoint':
      return `workspace checkpoint ${(asString(d['commit']) ?? '').slice(0, 10)} (turn ${asNumber(d['turn']) ?? '?'})`;
    case 'approval/policy':
      return `approval policy: ${asString(d['policy']) ?? '?'}`;
    case 'approval/rule': {
      const prefix = asString(d['commandPrefix']);
      return `allowed for this session: ${asString(d['toolName']) ?? '?'}${prefix !== undefined ? ` commands starting with \`${clip(prefix, 80)}\`` : ''}`;
    }
    case 'compaction/prune':
      return `tool result pruned (${asArray(d['shadowedSeqs']).length} shadowed, ~${asNumber(d['shadowedTokenCount']) ?? 0} tokens)`;
    case 'import/foreign': {
      // A record of an imported log kept raw (issue 12): name its own type and format.
      const note = asString(d['note']);
      return `${asString(d['format']) ?? 'imported'} ${asString(d['type']) ?? 'record'}${d['modelVisible'] === true ? ' · model-visible, not replayed' : ''}${note ? ` · ${clip(note, 80)}` : ''}`;
    }
    default:
      return type;
  }
}

// ---- public API --------------------------------------------------------------------------------

const builders = new WeakMap<Timeline, Builder>();

/** An empty timeline. */
export function createTimeline(): Timeline {
  const timeline: Timeline = { rows: [], lastSeq: -1, version: 0 };
  builders.set(timeline, new Builder());
  return timeline;
}

/**
 * Folds `events` (ascending seqs; seqs ≤ `lastSeq` are ignored) into `timeline`. Returns the same
 * value when nothing changed. Only the latest value of a chain may be folded.
 * @throws Error when `timeline` is not the latest value of its chain.
 */
export function foldEvents(timeline: Timeline, events: readonly SessionEvent[]): Timeline {
  const builder = builders.get(timeline);
  if (!builder) throw new Error('foldEvents: not a timeline made by createTimeline()');
  if (builder.version !== timeline.version) throw new Error('foldEvents: only the latest timeline value can be folded');
  if (!builder.fold(events)) return timeline;
  builder.version += 1;
  const next: Mutable<Timeline> = { rows: builder.rows, lastSeq: builder.lastSeq, version: builder.version };
  if (builder.title !== undefined) next.title = builder.title;
  if (builder.firstUserText !== undefined) next.firstUserText = builder.firstUserText;
  builders.set(next, builder);
  return next;
}

/** Timeline of a whole event list. */
export function timelineOf(events: readonly SessionEvent[]): Timeline {
  return foldEvents(createTimeline(), events);
}

/** Index of the row that shows `seq` (−1 when none). */
export function rowIndexOfSeq(timeline: Timeline, seq: number): number {
  const builder = builders.get(timeline);
  if (!builder || seq > timeline.lastSeq) return -1;
  const i = seq - builder.ownerBase;
  const idx = i >= 0 && i < builder.owner.length ? builder.owner[i]! : -1;
  return idx < timeline.rows.length ? idx : -1;
}

/** Index of the row with `key` (−1 when none). */
export function rowIndexOfKey(timeline: Timeline, key: string): number {
  const idx = builders.get(timeline)?.rowIndexOfKey(key) ?? -1;
  return idx < timeline.rows.length ? idx : -1;
}

/**
 * The seqs of every event a row shows (its `refSeqs` plus the chunks it owns), ascending; at most
 * `limit` of them, with the full count in `total`.
 */
export function rowEventSeqs(timeline: Timeline, rowIndex: number, limit = 500): { seqs: number[]; total: number } {
  const row = timeline.rows[rowIndex];
  const builder = builders.get(timeline);
  if (!row || !builder) return { seqs: [], total: 0 };
  const range = 'chunkRange' in row ? row.chunkRange : undefined;
  const chunkCount = 'chunkCount' in row && row.kind !== 'step' ? row.chunkCount : 0;
  const set = new Set<number>(row.refSeqs);
  let total = set.size + chunkCount;
  if (range) {
    // Chunks interleave with other rows' events: keep the seqs this row owns, stopping at the limit.
    const { owner, ownerBase } = builder;
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
