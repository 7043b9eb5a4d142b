/**
 * Timeline reducers for model-visible messages: `user/message` (typed prompts, steering, injected
 * context, replacements) and `assistant/message` (commits the attempt's streamed block rows, or
 * creates rows for blocks that never streamed).
 */
import { asNumber, asObject, asString, assistantBlocks, assistantModel, joinText, readUsage } from '../event-read.js';
import { cutTail } from '../text-cut.js';
import type { StepRow, ToolRow, UserRow } from '../timeline-rows.js';
import { TAIL_CHARS, blockKind, isFailed, newBlockRow, rowBlockKind } from './block-rows.js';
import { attachCompactionReplacement } from './compaction-reducers.js';
import type { AnyBlockRow, Mutable, ReducerTable } from './fold-state.js';

export const messageReducers = {
  'user/message': (fold, e, d) => {
    const source = asObject(d['source']);
    const sourceKind = asString(source?.['kind']) ?? 'user';
    const text = joinText(d['content']);
    const replace = typeof e.surfaceOp === 'object' && e.surfaceOp !== null;
    const compactionId = asString(source?.['compactionId']);
    if ((replace || compactionId !== undefined) && attachCompactionReplacement(fold, e, text, compactionId)) return;
    const row: Mutable<UserRow> = { kind: 'user', key: `user:${e.seq}`, seq: e.seq, time: e.time, refSeqs: [e.seq], text, sourceKind };
    if (fold.firstUserText === undefined && sourceKind === 'user' && !replace && text.trim()) fold.firstUserText = text;
    const messageId = asString(d['id']);
    if (messageId !== undefined) row.messageId = messageId;
    const plugin = asString(source?.['plugin']);
    const form = asString(source?.['form']);
    if (plugin) row.sourceLabel = form ? `${plugin} · ${form}` : plugin;
    const where = fold.openStepNumbers();
    if (where.turn !== undefined) row.turn = where.turn;
    if (where.step !== undefined) row.step = where.step;
    let shadowed: number[] = [];
    if (replace) {
      shadowed = fold.surfaceSeqs(e.sourceEventSeqs);
      row.replaces = shadowed;
    }
    const idx = replace ? fold.push(row) : fold.placeAboveFreshStep(fold.push(row));
    fold.own(e.seq, idx);
    fold.surfaceRows.set(e.seq, [idx]);
    if (shadowed.length > 0) fold.markShadowed(shadowed, e.seq);
  },

  'assistant/message': (fold, e, d) => {
    const turn = asNumber(d['turn']) ?? fold.openTurn ?? 0;
    const step = asNumber(d['step']) ?? 0;
    const st = fold.stepState(turn, step, e);
    const blocks = assistantBlocks(d);
    const interrupted = d['interrupted'] === true;
    const usage = readUsage(d['usage']);
    const model = assistantModel(d);
    // A message after a failed attempt belongs to a new attempt — except an interrupted message,
    // which is exactly the kept prefix of the cancelled (aborted) attempt's rows.
    const candidates = !interrupted && st.attemptClosed && st.attemptRows.some((i) => isFailed(fold.rows[i]!)) ? [] : st.attemptRows;
    const used = new Set<number>();
    const shown: number[] = [];
    let cursor = 0;
    blocks.forEach((block, blockNo) => {
      const kind = blockKind(block.type);
      if (!kind) return;
      let found = -1;
      for (let k = cursor; k < candidates.length; k++) {
        if (rowBlockKind(fold.rows[candidates[k]!]!) !== kind) continue;
        found = k;
        break;
      }
      let idx: number;
      if (found >= 0) {
        idx = candidates[found]!;
        cursor = found + 1;
      } else {
        idx = newBlockRow(fold, st, kind, e, `msg:${e.seq}:${blockNo}`, undefined, block.id);
      }
      used.add(idx);
      shown.push(idx);
      const row = fold.rows[idx]!;
      if (row.kind === 'tool') {
        const r = fold.edit<ToolRow>(idx);
        const id = block.id ?? r.callId;
        if (r.callId !== id) r.callId = id;
        fold.calls.set(`${turn}/${step}/${id}`, idx);
        if (block.name) r.name = block.name;
        if (block.arguments !== undefined) r.arguments = block.arguments;
        if (r.state === 'streaming' || r.state === 'dropped') r.state = 'pending';
        r.messageSeq = e.seq;
        r.refSeqs = [...r.refSeqs, e.seq];
      } else if (row.kind === 'text' || row.kind === 'reasoning') {
        const r = fold.edit<AnyBlockRow>(idx);
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
      const row = fold.rows[idx]!;
      if (row.kind === 'tool' && (row.state === 'streaming' || row.state === 'pending')) fold.edit<ToolRow>(idx).state = 'dropped';
      else if ((row.kind === 'text' || row.kind === 'reasoning') && row.streaming) fold.edit<AnyBlockRow>(idx).streaming = false;
    }
    if (usage) st.usage = usage;
    if (st.rowIdx >= 0) {
      const sr = fold.edit<StepRow>(st.rowIdx);
      if (usage) sr.usage = usage;
      // A response whose provider reported no usage (and none streamed): budgets count it at its worst case.
      if (!usage && !st.usage) sr.usageUnreported = true;
      else delete sr.usageUnreported;
      if (model) sr.model = model;
    }
    st.attemptClosed = true;
    fold.surfaceRows.set(e.seq, shown);
    fold.own(e.seq, shown[0] ?? st.rowIdx);
    if (shown.length === 0 && st.rowIdx >= 0) fold.addRef(st.rowIdx, e.seq);
  },
} satisfies ReducerTable;
