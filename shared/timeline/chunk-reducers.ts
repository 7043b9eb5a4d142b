/**
 * Timeline reducer for `assistant/chunk`: streamed deltas build text, reasoning and tool-call
 * rows of the step's current attempt; `usage` and `finish` chunks update the step marker
 * (a failed finish marks the attempt's uncommitted rows failed).
 */
import { asNumber, asObject, asString, readBlock, readFailure, readUsage } from '../event-read.js';
import { cutTail } from '../text-cut.js';
import type { StepRow, ToolRow } from '../timeline-rows.js';
import { TAIL_CHARS, blockKind, ensureBlock, noteChunk, ownByStep } from './block-rows.js';
import type { AnyBlockRow, ReducerTable } from './fold-state.js';

export const chunkReducers = {
  'assistant/chunk': (fold, e, d) => {
    const turn = asNumber(d['turn']) ?? fold.openTurn ?? 0;
    const step = asNumber(d['step']) ?? 0;
    const st = fold.stepState(turn, step, e);
    if (st.attemptClosed) {
      st.attemptClosed = false;
      st.attempt += 1;
      st.blocks = new Map();
      st.attemptRows = [];
      if (st.rowIdx >= 0) fold.edit<StepRow>(st.rowIdx).attempts = st.attempt;
    }
    const chunk = asObject(d['chunk']) ?? {};
    // An attempt's failure (a refused connection, a timeout) is a chunk, but no token came: it does not start the step's time to first token.
    const failureOnly = chunk['type'] === 'finish' && ['error', 'aborted'].includes(asString(asObject(chunk['reason'])?.['kind']) ?? '');
    if (st.rowIdx >= 0) {
      const sr = fold.edit<StepRow>(st.rowIdx);
      sr.chunkCount += 1;
      if (!st.sawChunk && !sr.implicit && !failureOnly) {
        const ttftMs = fold.clock.since(st.mark, e.time);
        if (ttftMs !== undefined) sr.ttftMs = ttftMs;
      }
    }
    if (!failureOnly) st.sawChunk = true;
    const index = asNumber(chunk['index']) ?? 0;
    switch (chunk['type']) {
      case 'block-start': {
        const kind = blockKind(asString(chunk['blockType']));
        if (!kind) return ownByStep(fold, e, st);
        return noteChunk(fold, ensureBlock(fold, st, index, kind, e), e.seq);
      }
      case 'text-delta':
      case 'reasoning-delta': {
        const idx = ensureBlock(fold, st, index, chunk['type'] === 'text-delta' ? 'text' : 'reasoning', e);
        const row = fold.rows[idx]!;
        const text = asString(chunk['text']) ?? '';
        if (row.kind === 'text' || row.kind === 'reasoning') {
          const r = fold.edit<AnyBlockRow>(idx);
          r.text += text;
          r.tail = cutTail(r.tail + text, TAIL_CHARS);
        }
        return noteChunk(fold, idx, e.seq);
      }
      case 'tool-call-delta': {
        const id = asString(chunk['id']);
        const idx = ensureBlock(fold, st, index, 'tool', e, id);
        const row = fold.rows[idx]!;
        if (row.kind === 'tool') {
          const r = fold.edit<ToolRow>(idx);
          if (id && r.callId !== id) {
            r.callId = id;
            fold.calls.set(`${st.turn}/${st.step}/${id}`, idx);
          }
          const name = asString(chunk['name']);
          if (name) r.name = name;
          r.arguments += asString(chunk['argumentsDelta']) ?? '';
        }
        return noteChunk(fold, idx, e.seq);
      }
      case 'block-end': {
        const block = readBlock(chunk['block']);
        const kind = blockKind(block?.type);
        if (!block || !kind) return ownByStep(fold, e, st);
        const idx = ensureBlock(fold, st, index, kind, e, block.id);
        const row = fold.rows[idx]!;
        if (row.kind === 'tool') {
          const r = fold.edit<ToolRow>(idx);
          if (block.id && r.callId !== block.id) {
            r.callId = block.id;
            fold.calls.set(`${st.turn}/${st.step}/${block.id}`, idx);
          }
          if (block.name) r.name = block.name;
          if (block.arguments !== undefined) r.arguments = block.arguments;
        } else if (row.kind === 'text' || row.kind === 'reasoning') {
          const r = fold.edit<AnyBlockRow>(idx);
          r.text = block.text;
          r.tail = cutTail(block.text, TAIL_CHARS);
        }
        return noteChunk(fold, idx, e.seq);
      }
      case 'usage': {
        const usage = readUsage(chunk['usage']);
        if (usage) {
          st.usage = usage;
          if (st.rowIdx >= 0) fold.edit<StepRow>(st.rowIdx).usage = usage;
        }
        return ownByStep(fold, e, st);
      }
      case 'finish': {
        const reason = asObject(chunk['reason']);
        const kind = asString(reason?.['kind']) ?? 'stop';
        const failure = kind === 'error' || kind === 'aborted' ? (readFailure(reason?.['failure']) ?? { code: 'UNKNOWN' as const, message: '' }) : undefined;
        if (st.rowIdx >= 0) fold.edit<StepRow>(st.rowIdx).finish = failure ? `${kind} ${failure.code}` : kind;
        if (failure) fold.failAttempt(st, failure);
        st.attemptClosed = true;
        return ownByStep(fold, e, st);
      }
      default:
        return ownByStep(fold, e, st);
    }
  },
} satisfies ReducerTable;
