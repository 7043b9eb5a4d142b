/**
 * Timeline reducers for the request envelope and model retries: `request/header` (model in
 * effect), `request/context` (route and context window in effect, for the per-step context
 * meter), `llm/retry` (a failed attempt that will be retried) and `llm/warning` (something the
 * provider did that the person should know, e.g. a silently truncated prompt).
 */
import { asNumber, asObject, asString, readFailure } from '../event-read.js';
import type { CompactionRow, RetryRow, StepRow, WarningRow } from '../timeline-rows.js';
import { eventLabel } from './event-labels.js';
import type { ReducerTable } from './fold-state.js';
import type { PriceQuote } from '../pricing.js';

export const requestReducers = {
  'request/header': (fold, e, d) => {
    const header = asObject(d['header']);
    const config = asObject(header?.['config']);
    const provider = asString(config?.['provider']);
    const model = asString(config?.['model']);
    if (model) {
      fold.currentModel = provider ? `${provider}/${model}` : model;
      const st = fold.openStep ? fold.steps.get(fold.openStep) : undefined;
      if (st && st.rowIdx >= 0) fold.edit<StepRow>(st.rowIdx).model = fold.currentModel;
    }
    fold.eventRow(e, 'request/header', eventLabel('request/header', d));
  },

  'request/context': (fold, e, d) => {
    const window = asNumber(d['contextWindow']);
    fold.contextWindow = window !== undefined && window > 0 ? window : undefined;
    const st = fold.openStep ? fold.steps.get(fold.openStep) : undefined;
    if (st && st.rowIdx >= 0) {
      const row = fold.edit<StepRow>(st.rowIdx);
      if (fold.contextWindow !== undefined) row.contextWindow = fold.contextWindow;
      else delete row.contextWindow;
    }
    fold.eventRow(e, 'request/context', eventLabel('request/context', d));
  },

  'request/price': (fold, e, d) => {
    const where = fold.openStepNumbers();
    const turn = asNumber(d['turn']) ?? where.turn;
    const step = asNumber(d['step']) ?? where.step;
    const quote = asObject(d['quote']);
    const priced = quote && (quote['kind'] === 'known' || quote['kind'] === 'unknown') ? (quote as unknown as PriceQuote) : undefined;
    const compactionId = asString(d['compactionId']);
    if (compactionId !== undefined) {
      // A compaction's summary request: its price goes to the compaction row, not the step.
      const cIdx = fold.compactions.get(compactionId);
      if (cIdx !== undefined && priced) fold.edit<CompactionRow>(cIdx).price = priced;
    } else {
      const st = turn !== undefined && step !== undefined ? fold.steps.get(fold.stepKey(turn, step)) : undefined;
      if (st && st.rowIdx >= 0 && priced) fold.edit<StepRow>(st.rowIdx).price = priced;
    }
    fold.eventRow(e, 'request/price', eventLabel('request/price', d));
  },

  'llm/retry': (fold, e, d) => {
    const where = fold.openStepNumbers();
    const turn = asNumber(d['turn']) ?? where.turn ?? 0;
    const step = asNumber(d['step']) ?? where.step ?? 0;
    const st = fold.stepState(turn, step, e);
    const failure = readFailure(d['failure']) ?? { code: 'UNKNOWN' as const, message: '' };
    fold.failAttempt(st, failure);
    st.attemptClosed = true;
    const attempt = asNumber(d['attempt']) ?? asNumber(d['retry']) ?? st.attempt;
    const delayMs = asNumber(d['delayMs']) ?? 0;
    // The same failure again with nothing between: one row counts them (a refused connection retried five times is one line, not five).
    // Log-event rows (hidden unless "log events" is on: each attempt's request header) do not separate them.
    let lastIdx = fold.rows.length - 1;
    while (lastIdx >= 0 && fold.rows[lastIdx]!.kind === 'event') lastIdx--;
    const last = fold.rows[lastIdx];
    if (last?.kind === 'retry' && last.turn === turn && last.step === step && last.failure.code === failure.code) {
      const merged = fold.edit<RetryRow>(lastIdx);
      merged.attempt = attempt;
      merged.delayMs = delayMs;
      merged.failure = failure;
      fold.addRef(lastIdx, e.seq);
      fold.own(e.seq, lastIdx);
      if (st.rowIdx >= 0) fold.edit<StepRow>(st.rowIdx).finish = `error ${failure.code}`;
      return;
    }
    const row: RetryRow = {
      kind: 'retry',
      key: `retry:${e.seq}`,
      seq: e.seq,
      time: e.time,
      refSeqs: [e.seq],
      turn,
      step,
      attempt,
      firstAttempt: attempt,
      delayMs,
      failure,
    };
    fold.own(e.seq, fold.push(row));
    if (st.rowIdx >= 0) fold.edit<StepRow>(st.rowIdx).finish = `error ${failure.code}`;
  },

  'llm/warning': (fold, e, d) => {
    const where = fold.openStepNumbers();
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
    fold.own(e.seq, fold.push(row));
  },
} satisfies ReducerTable;
