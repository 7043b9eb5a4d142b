/**
 * Which timeline rows are shown, from the person's toggles. Pure.
 * - An approval that belongs to a shown tool call is shown once, on that call's row (its badge),
 *   never also as a separate approval row; an approval whose call has no row keeps its own row.
 * - `showLogEvents: false` hides log-only event rows (request headers, inbox splices, titles…).
 * - `modelView: true` ("what the model sees next"): only rows whose events are on the current
 *   surface — prompts, committed answers and reasoning, tool calls with their results, and the
 *   summary of the compaction in force (shown first: it replaced the head of the history) — with
 *   the turn and step markers of that content; everything shadowed, failed, dropped or log-only is
 *   left out, and no marker is left empty.
 */
import type { TimelineRow } from '../../../shared/timeline.js';

export interface RowFilter {
  readonly showLogEvents: boolean;
  readonly modelView: boolean;
}

/** Whether a content row is part of what the model sees next. */
function visibleToModel(row: TimelineRow): boolean {
  if (row.shadowedBy !== undefined) return false;
  switch (row.kind) {
    case 'user':
      return true;
    case 'text':
    case 'reasoning':
      return row.messageSeq !== undefined && row.failed === undefined && !row.partial;
    case 'tool':
      return row.state !== 'dropped' && row.messageSeq !== undefined;
    case 'compaction':
      return row.state === 'done' && row.replacementSeq !== undefined;
    default:
      return false;
  }
}

/** The rows of "what the model sees next" (see the module note). */
export function modelViewRows(rows: readonly TimelineRow[]): TimelineRow[] {
  const summaries: TimelineRow[] = [];
  const out: TimelineRow[] = [];
  let turn: TimelineRow | undefined;
  let step: TimelineRow | undefined;
  for (const row of rows) {
    if (row.kind === 'turn') {
      turn = row;
      step = undefined;
      continue;
    }
    if (row.kind === 'step') {
      step = row;
      continue;
    }
    if (!visibleToModel(row)) continue;
    if (row.kind === 'compaction') {
      summaries.push(row);
      continue;
    }
    // A marker is emitted with the first content row under it, so none is left empty.
    if (turn) {
      out.push(turn);
      turn = undefined;
    }
    if (step) {
      out.push(step);
      step = undefined;
    }
    out.push(row);
  }
  return [...summaries, ...out];
}

/** Ids of the approvals that a tool row shows. */
function approvalsOnToolRows(rows: readonly TimelineRow[]): ReadonlySet<string> {
  const ids = new Set<string>();
  for (const row of rows) if (row.kind === 'tool' && row.approval) ids.add(row.approval.id);
  return ids;
}

export function visibleRows(rows: readonly TimelineRow[], filter: RowFilter): readonly TimelineRow[] {
  if (filter.modelView) return modelViewRows(rows);
  const onTools = approvalsOnToolRows(rows);
  const merged = (row: TimelineRow): boolean => row.kind === 'approval' && onTools.has(row.id);
  if (filter.showLogEvents) return onTools.size === 0 ? rows : rows.filter((row) => !merged(row));
  return rows.filter((row) => !merged(row) && row.kind !== 'event');
}
