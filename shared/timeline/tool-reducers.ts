/**
 * Timeline reducers for tool calls: `tool/call` (the call started) and `tool/result` (its result,
 * or a pruning rewrite of an earlier result), plus the overlap lanes of parallel calls.
 */
import { describeRule, ruleAllows, type SessionApprovalRule } from '../approval.js';
import type { SessionEvent } from '../events.js';
import { asNumber, asString, toolResultFacts } from '../event-read.js';
import type { ToolRow } from '../timeline-rows.js';
import { overlapGroups, type OverlapSlot } from '../tool-overlap.js';
import { newBlockRow } from './block-rows.js';
import type { FoldState, ReducerTable, StepState } from './fold-state.js';

function toolRowFor(fold: FoldState, turn: number, step: number, callId: string, e: SessionEvent, name: string): number {
  const idx = fold.calls.get(`${turn}/${step}/${callId}`);
  if (idx !== undefined) return idx;
  const st = fold.stepState(turn, step, e);
  const created = newBlockRow(fold, st, 'tool', e, `call:${e.seq}`, undefined, callId);
  fold.edit<ToolRow>(created).name = name;
  return created;
}

function sameSlot(a: OverlapSlot | undefined, b: OverlapSlot | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  return a.group === b.group && a.size === b.size && a.lane === b.lane && a.lanes === b.lanes;
}

function updateOverlap(fold: FoldState, st: StepState): void {
  const tools = st.tools.filter((i) => {
    const row = fold.rows[i]!;
    return row.kind === 'tool' && row.callSeq !== undefined;
  });
  const slots = overlapGroups(
    tools.map((i) => {
      const row = fold.rows[i] as ToolRow;
      return { start: row.callSeq!, end: row.resultSeq };
    }),
  );
  tools.forEach((i, k) => {
    const row = fold.rows[i] as ToolRow;
    const slot = slots[k];
    if (!sameSlot(row.parallel, slot)) {
      const r = fold.edit<ToolRow>(i);
      if (slot) r.parallel = slot;
      else delete r.parallel;
    }
  });
}

export const toolReducers = {
  'tool/call': (fold, e, d) => {
    const where = fold.openStepNumbers();
    const turn = asNumber(d['turn']) ?? where.turn ?? 0;
    const step = asNumber(d['step']) ?? where.step ?? 0;
    const callId = asString(d['callId']) ?? `seq-${e.seq}`;
    const name = asString(d['name']) ?? '(unknown)';
    const idx = toolRowFor(fold, turn, step, callId, e, name);
    const r = fold.edit<ToolRow>(idx);
    r.callSeq = e.seq;
    r.startTime = e.time;
    fold.toolMarks.set(idx, fold.clock.mark(e.time));
    if (!r.name) r.name = name;
    const args = asString(d['arguments']);
    if (!r.arguments && args !== undefined) r.arguments = args;
    if (r.state === 'streaming' || r.state === 'pending' || r.state === 'dropped') r.state = 'running';
    r.refSeqs = [...r.refSeqs, e.seq];
    fold.own(e.seq, idx);
    updateOverlap(fold, fold.stepState(turn, step, e));
  },

  'tool/result': (fold, e, d) => {
    const where = fold.openStepNumbers();
    const turn = asNumber(d['turn']) ?? where.turn ?? 0;
    const step = asNumber(d['step']) ?? where.step ?? 0;
    const facts = toolResultFacts(d);
    const callId = facts.callId ?? `seq-${e.seq}`;
    const replace = typeof e.surfaceOp === 'object' && e.surfaceOp !== null;
    const existing = fold.calls.get(`${turn}/${step}/${callId}`);
    if (replace && existing !== undefined && fold.rows[existing]!.kind === 'tool' && (fold.rows[existing] as ToolRow).resultSeq !== undefined) {
      // A pruning rewrite of an earlier result: the row keeps the original text and notes the rewrite.
      const r = fold.edit<ToolRow>(existing);
      r.prunedBy = e.seq;
      if (r.shadowedBy === undefined) r.shadowedBy = e.seq;
      r.refSeqs = [...r.refSeqs, e.seq];
      fold.own(e.seq, existing);
      fold.surfaceRows.set(e.seq, [existing]);
      return;
    }
    const idx = existing ?? toolRowFor(fold, turn, step, callId, e, '(unknown)');
    const r = fold.edit<ToolRow>(idx);
    r.resultSeq = e.seq;
    r.endTime = e.time;
    const mark = fold.toolMarks.get(idx);
    const durationMs = mark ? fold.clock.since(mark, e.time) : undefined;
    if (durationMs !== undefined) r.durationMs = durationMs;
    r.isError = facts.isError || facts.errorCode !== undefined;
    if (facts.errorCode !== undefined) r.errorCode = facts.errorCode;
    if (facts.errorName !== undefined) r.errorName = facts.errorName;
    r.resultText = facts.text;
    if (facts.meta !== undefined) r.meta = facts.meta;
    r.state = r.isError ? 'error' : 'done';
    const rule = r.approval === undefined && !NOT_RUN.has(facts.errorCode ?? '') ? ruleFor(fold, r.name, r.arguments) : undefined;
    if (rule !== undefined) r.allowedByRule = describeRule(rule);
    if (facts.errorCode === 'TOOL_NOT_STARTED') r.crash = 'not-started';
    else if (facts.errorCode === 'TOOL_OUTCOME_UNKNOWN') r.crash = 'outcome-unknown';
    r.refSeqs = [...r.refSeqs, e.seq];
    fold.own(e.seq, idx);
    fold.surfaceRows.set(e.seq, [idx]);
    updateOverlap(fold, fold.stepState(turn, step, e));
  },
} satisfies ReducerTable;

/** Result codes of calls that never reached their body (refused before the policy let them run, or never started). */
const NOT_RUN: ReadonlySet<string> = new Set(['INVALID_ARGS', 'UNKNOWN_TOOL', 'DENIED', 'ABORTED_BEFORE_DISPATCH', 'TOOL_NOT_STARTED']);

/** The first standing session rule that covers a call of `name` with the raw `argumentsText`, if any. */
function ruleFor(fold: FoldState, name: string, argumentsText: string): SessionApprovalRule | undefined {
  if (fold.approvalRules.length === 0) return undefined;
  let args: unknown;
  try {
    args = JSON.parse(argumentsText);
  } catch {
    return undefined;
  }
  return fold.approvalRules.find((rule) => ruleAllows(rule, name, args));
}
