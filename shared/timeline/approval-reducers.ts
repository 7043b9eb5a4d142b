/**
 * Timeline reducers for approvals: `approval/asked` (a row, linked to the tool row it gates),
 * `approval/decided` (the outcome, on both rows) and `approval/rule` (a standing session rule: its
 * log row, and remembered so a later call it let through without asking is badged as such).
 */
import { asNumber, asObject, asString } from '../event-read.js';
import { headPreview } from '../preview.js';
import type { ApprovalRow, StepRow, ToolRow } from '../timeline-rows.js';
import type { Mutable, ReducerTable } from './fold-state.js';
import { eventLabel } from './event-labels.js';

export const approvalReducers = {
  'approval/rule': (fold, e, d) => {
    const toolName = asString(d['toolName']);
    const commandPrefix = asString(d['commandPrefix']);
    if (toolName !== undefined) fold.approvalRules.push({ toolName, ...(commandPrefix !== undefined ? { commandPrefix } : {}) });
    fold.eventRow(e, 'approval/rule', eventLabel('approval/rule', d));
  },

  'approval/asked': (fold, e, d) => {
    const id = asString(d['id']) ?? `seq-${e.seq}`;
    const callId = asString(d['callId']);
    const row: Mutable<ApprovalRow> = { kind: 'approval', key: `approval:${e.seq}`, seq: e.seq, time: e.time, refSeqs: [e.seq], id, toolName: asString(d['toolName']) ?? '(unknown)' };
    if (callId !== undefined) row.callId = callId;
    const reason = asString(d['reason']);
    if (reason !== undefined) row.reason = reason;
    // What the person was shown: the exact command and folder, or the file and its line counts.
    const preview = asObject(d['preview']);
    if (preview?.['kind'] === 'command') row.shown = `$ ${headPreview(asString(preview['command']) ?? '', 120, { oneLine: true })} · in ${asString(preview['cwd']) ?? '?'}`;
    else if (preview?.['kind'] === 'diff')
      row.shown = `${asString(preview['path']) ?? '?'} +${asNumber(preview['added']) ?? 0} −${asNumber(preview['removed']) ?? 0}${preview['created'] === true ? ' (new file)' : ''}`;
    const idx = fold.push(row);
    fold.own(e.seq, idx);
    let tool: number | undefined;
    if (callId !== undefined && fold.openStep) {
      tool = fold.calls.get(`${fold.openStep}/${callId}`);
      if (tool !== undefined) {
        const t = fold.edit<ToolRow>(tool);
        t.approval = { id };
        t.refSeqs = [...t.refSeqs, e.seq];
      }
    }
    // Where the wait began: the time until the decision is shown apart from the tool's own time.
    fold.approvals.set(id, { row: idx, tool, mark: fold.clock.mark(e.time), ...(fold.openStep !== undefined ? { step: fold.openStep } : {}) });
  },

  'approval/decided': (fold, e, d) => {
    const id = asString(d['id']) ?? '';
    const outcome = asString(d['outcome']) ?? 'unknown';
    const known = fold.approvals.get(id);
    if (!known) {
      fold.eventRow(e, 'approval/decided', `approval ${id} decided: ${outcome}`);
      return;
    }
    const a = fold.edit<ApprovalRow>(known.row);
    a.outcome = outcome;
    a.refSeqs = [...a.refSeqs, e.seq];
    fold.own(e.seq, known.row);
    const waitMs = known.mark ? fold.clock.since(known.mark, e.time) : undefined;
    if (waitMs !== undefined) a.waitMs = waitMs;
    if (known.tool !== undefined) {
      const t = fold.edit<ToolRow>(known.tool);
      t.approval = { id, outcome };
      t.refSeqs = [...t.refSeqs, e.seq];
      if (waitMs !== undefined) t.approvalWaitMs = (t.approvalWaitMs ?? 0) + waitMs;
    }
    const st = known.step !== undefined ? fold.steps.get(known.step) : undefined;
    if (waitMs !== undefined && st && st.rowIdx >= 0) {
      const s = fold.edit<StepRow>(st.rowIdx);
      s.approvalWaitMs = (s.approvalWaitMs ?? 0) + waitMs;
    }
  },
} satisfies ReducerTable;
