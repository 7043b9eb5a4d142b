/**
 * Timeline reducers for the turn / step family: `turn/start`, `turn/end`, `step/start`,
 * `step/end` and `session/end-seed` (where inherited or resumed history ends).
 */
import type { TokenUsage } from '../chunks.js';
import { addUsage, asNumber, turnEndFacts, turnEndLabel } from '../event-read.js';
import type { CompactionRow, StepRow, TurnEndRow, TurnRow } from '../timeline-rows.js';
import type { Mutable, ReducerTable, StepState } from './fold-state.js';
import { usageCost } from '../pricing.js';

export const turnReducers = {
  'turn/start': (fold, e, d) => {
    const turn = asNumber(d['turn']) ?? (fold.openTurn ?? 0) + 1;
    const row: TurnRow = { kind: 'turn', key: `turn:${e.seq}`, seq: e.seq, time: e.time, refSeqs: [e.seq], turn, steps: 0, ended: false };
    const idx = fold.push(row);
    fold.turns.set(turn, { rowIdx: idx, mark: fold.clock.mark(e.time), stepKeys: [] });
    fold.openTurn = turn;
    fold.openStep = undefined;
    fold.own(e.seq, idx);
  },

  'turn/end': (fold, e, d) => {
    const turn = asNumber(d['turn']) ?? fold.openTurn ?? 0;
    const facts = turnEndFacts(d);
    const label = turnEndLabel(facts);
    const ts = fold.turns.get(turn);
    let usage: TokenUsage | undefined;
    let knownUsd = 0;
    let unknownCount = 0;
    let billed = 0;
    if (ts) {
      for (const key of ts.stepKeys) {
        const st = fold.steps.get(key);
        if (st) {
          fold.finishAttempt(st);
          usage = addUsage(usage, st.usage);
          // The step's cost at the price logged for its request (as the step header shows it).
          const price = st.rowIdx >= 0 ? (fold.rows[st.rowIdx] as StepRow | undefined)?.price : undefined;
          if (st.usage || price?.kind === 'unknown') billed++;
          if (price?.kind === 'known' && st.usage) knownUsd += usageCost(st.usage, price).usd;
          else if (st.usage || price?.kind === 'unknown') unknownCount++;
        }
      }
    }
    // The turn's compactions: their summary requests were billed too.
    for (const cIdx of fold.compactions.values()) {
      const c = fold.rows[cIdx] as CompactionRow | undefined;
      if (c?.kind !== 'compaction' || c.turn !== turn || (!c.usage && c.price?.kind !== 'unknown')) continue;
      billed++;
      if (c.price?.kind === 'known' && c.usage) knownUsd += usageCost(c.usage, c.price).usd;
      else unknownCount++;
    }
    const durationMs = ts ? fold.clock.since(ts.mark, e.time) : undefined;
    const row: Mutable<TurnEndRow> = { kind: 'turn-end', key: `turn-end:${e.seq}`, seq: e.seq, time: e.time, refSeqs: [e.seq], turn, end: facts, label };
    if (durationMs !== undefined) row.durationMs = durationMs;
    if (usage) row.usage = usage;
    if (billed > 0) row.cost = { ...(unknownCount === 0 ? { usd: knownUsd } : {}), knownUsd, unknownCount };
    if (facts.kind === 'interrupted') row.crash = 'interrupted';
    const idx = fold.push(row);
    fold.own(e.seq, idx);
    if (ts) {
      const t = fold.edit<TurnRow>(ts.rowIdx);
      t.ended = true;
      t.end = facts;
      t.endLabel = label;
      if (durationMs !== undefined) t.durationMs = durationMs;
      t.refSeqs = [...t.refSeqs, e.seq];
    }
    if (fold.openTurn === turn) {
      fold.openTurn = undefined;
      fold.openStep = undefined;
    }
  },

  'step/start': (fold, e, d) => {
    const turn = asNumber(d['turn']) ?? fold.openTurn ?? 0;
    const step = asNumber(d['step']) ?? 0;
    const row: Mutable<StepRow> = { kind: 'step', key: `step:${e.seq}`, seq: e.seq, time: e.time, refSeqs: [e.seq], turn, step, open: true, attempts: 1, chunkCount: 0 };
    if (fold.currentModel) row.model = fold.currentModel;
    if (fold.contextWindow !== undefined) row.contextWindow = fold.contextWindow;
    const idx = fold.push(row);
    const key = fold.stepKey(turn, step);
    const st: StepState = {
      turn,
      step,
      rowIdx: idx,
      attempt: 1,
      attemptClosed: false,
      sawChunk: false,
      blocks: new Map(),
      attemptRows: [],
      tools: [],
      usage: undefined,
      mark: fold.clock.mark(e.time),
    };
    fold.steps.set(key, st);
    const ts = fold.turns.get(turn);
    if (ts) {
      ts.stepKeys.push(key);
      fold.edit<TurnRow>(ts.rowIdx).steps += 1;
    }
    fold.openStep = key;
    fold.own(e.seq, idx);
  },

  'step/end': (fold, e, d) => {
    const turn = asNumber(d['turn']) ?? fold.openTurn ?? 0;
    const step = asNumber(d['step']) ?? 0;
    const key = fold.stepKey(turn, step);
    const st = fold.steps.get(key);
    if (!st || st.rowIdx < 0) {
      fold.eventRow(e, 'step/end', `step ${turn}.${step} ended (no step/start in the log)`);
      return;
    }
    fold.finishAttempt(st);
    const row = fold.edit<StepRow>(st.rowIdx);
    row.open = false;
    row.endTime = e.time;
    const durationMs = fold.clock.since(st.mark, e.time);
    if (durationMs !== undefined) row.durationMs = durationMs;
    row.refSeqs = [...row.refSeqs, e.seq];
    fold.own(e.seq, st.rowIdx);
    if (fold.openStep === key) fold.openStep = undefined;
  },

  'session/end-seed': (fold, e) => {
    if (fold.openCompaction !== undefined) {
      const idx = fold.compactions.get(fold.openCompaction);
      if (idx !== undefined) fold.edit<CompactionRow>(idx).state = 'stale';
      fold.openCompaction = undefined;
    }
    if (fold.openStep) {
      const st = fold.steps.get(fold.openStep);
      if (st) fold.finishAttempt(st);
    }
    fold.openTurn = undefined;
    fold.openStep = undefined;
    // A boundary right after another one (a fork's boundary, then "resumed here" when the child
    // first runs; only log-only rows between) is the same place: one separator, owning both events.
    for (let i = fold.rows.length - 1; i >= 0; i--) {
      const prev = fold.rows[i]!;
      if (prev.kind === 'event') continue;
      if (prev.kind === 'end-seed') {
        fold.addRef(i, e.seq);
        fold.own(e.seq, i);
        return;
      }
      break;
    }
    const idx = fold.push({ kind: 'end-seed', key: `end-seed:${e.seq}`, seq: e.seq, time: e.time, refSeqs: [e.seq] });
    fold.own(e.seq, idx);
  },
} satisfies ReducerTable;
