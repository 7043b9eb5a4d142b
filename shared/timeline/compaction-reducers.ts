/**
 * Timeline reducers for the compaction transaction: `compaction/start` → `compaction/summary` →
 * replacement `user/message` → `compaction/end` (with `error`, and possibly the rejected summary,
 * on failure). One compaction row per transaction collects all of it, plus the token counts
 * before / after and the context window in effect.
 */
import type { SessionEvent } from '../events.js';
import { asArray, asNumber, asObject, asString, joinText, readFailure, readUsage } from '../event-read.js';
import type { CompactionRow } from '../timeline-rows.js';
import type { FoldState, Mutable, ReducerTable } from './fold-state.js';

function numbers(value: unknown): number[] {
  return asArray(value).filter((s): s is number => typeof s === 'number');
}

function compactionRow(fold: FoldState, e: SessionEvent, id: string, turn: number | null): number {
  const known = fold.compactions.get(id);
  if (known !== undefined) return known;
  const row: Mutable<CompactionRow> = { kind: 'compaction', key: `compaction:${e.seq}`, seq: e.seq, time: e.time, refSeqs: [], compactionId: id, turn, state: 'running', shadowedSeqs: [] };
  if (fold.contextWindow !== undefined) row.contextWindow = fold.contextWindow;
  const idx = fold.push(row);
  fold.compactions.set(id, idx);
  return idx;
}

function readRange(value: unknown): { start: number; end: number } | undefined {
  const range = asObject(value);
  const start = asNumber(range?.['start']);
  const end = asNumber(range?.['end']);
  return start !== undefined && end !== undefined ? { start, end } : undefined;
}

/**
 * Attaches a replacement `user/message` to its compaction row (by `source.compactionId`, else the
 * open compaction). Returns false when there is no such row (the message then gets its own row).
 */
export function attachCompactionReplacement(fold: FoldState, e: SessionEvent, text: string, compactionId: string | undefined): boolean {
  const id = compactionId ?? fold.openCompaction;
  const cIdx = id !== undefined ? fold.compactions.get(id) : undefined;
  if (cIdx === undefined) return false;
  const c = fold.edit<CompactionRow>(cIdx);
  c.replacementSeq = e.seq;
  c.replacementText = text;
  c.refSeqs = [...c.refSeqs, e.seq];
  const shadowed = fold.surfaceSeqs(e.sourceEventSeqs);
  if (c.shadowedSeqs.length === 0) c.shadowedSeqs = shadowed;
  fold.own(e.seq, cIdx);
  fold.surfaceRows.set(e.seq, [cIdx]);
  fold.markShadowed(shadowed.length > 0 ? shadowed : c.shadowedSeqs, e.seq);
  return true;
}

export const compactionReducers = {
  'compaction/start': (fold, e, d) => {
    const id = asString(d['compactionId']) ?? `seq-${e.seq}`;
    const idx = compactionRow(fold, e, id, asNumber(d['turn']) ?? null);
    const c = fold.edit<CompactionRow>(idx);
    c.refSeqs = [...c.refSeqs, e.seq];
    // Newer logs name the planned range at the start, so a failed attempt still shows what it would have replaced.
    const planned = numbers(d['shadowedSeqs']);
    if (planned.length > 0 && c.shadowedSeqs.length === 0) c.shadowedSeqs = planned;
    const range = readRange(d['shadowedRange']);
    if (range) c.shadowedRange = range;
    const shadowedTokens = asNumber(d['shadowedTokenCount']);
    if (shadowedTokens !== undefined) c.shadowedTokenCount = shadowedTokens;
    const before = asNumber(d['tokensBefore']);
    if (before !== undefined) c.tokensBefore = before;
    const maxTokens = asNumber(d['maxTokens']);
    if (maxTokens !== undefined) c.maxTokens = maxTokens;
    fold.own(e.seq, idx);
    fold.openCompaction = id;
  },

  'compaction/summary': (fold, e, d) => {
    const id = asString(d['compactionId']) ?? fold.openCompaction ?? `seq-${e.seq}`;
    const idx = compactionRow(fold, e, id, asNumber(d['turn']) ?? null);
    const c = fold.edit<CompactionRow>(idx);
    c.summary = joinText(d['summary']);
    const seqs = numbers(d['shadowedSeqs']);
    if (seqs.length > 0 || c.shadowedSeqs.length === 0) c.shadowedSeqs = seqs;
    const range = readRange(d['shadowedRange']);
    if (range) c.shadowedRange = range;
    const tokens = asNumber(d['shadowedTokenCount']);
    if (tokens !== undefined) c.shadowedTokenCount = tokens;
    const after = asNumber(d['tokensAfter']);
    if (after !== undefined) c.tokensAfter = after;
    const usage = readUsage(d['usage']);
    if (usage) c.usage = usage;
    const model = asString(d['model']);
    if (model) c.model = asString(d['provider']) ? `${asString(d['provider'])}/${model}` : model;
    c.refSeqs = [...c.refSeqs, e.seq];
    fold.own(e.seq, idx);
  },

  'compaction/end': (fold, e, d) => {
    const id = asString(d['compactionId']) ?? fold.openCompaction ?? `seq-${e.seq}`;
    const idx = compactionRow(fold, e, id, asNumber(d['turn']) ?? null);
    const c = fold.edit<CompactionRow>(idx);
    const error = asString(d['error']);
    c.state = error !== undefined ? 'failed' : 'done';
    if (error !== undefined) c.error = error;
    const failure = readFailure(d['failure']);
    if (failure) c.failure = failure;
    const rejected = joinText(d['rejectedSummary']);
    if (rejected !== '') c.rejectedSummary = rejected;
    const billed = readUsage(d['usage']);
    if (billed) c.usage = billed;
    c.endTime = e.time;
    c.refSeqs = [...c.refSeqs, e.seq];
    fold.own(e.seq, idx);
    if (fold.openCompaction === id) fold.openCompaction = undefined;
  },
} satisfies ReducerTable;
