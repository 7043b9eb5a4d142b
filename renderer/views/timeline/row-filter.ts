/**
 * Which timeline rows are shown, from the person's toggles. Pure.
 * - An approval that belongs to a shown tool call is shown once, on that call's row (its badge),
 *   never also as a separate approval row; an approval whose call has no row keeps its own row.
 * - `showLogEvents: false` hides log-only event rows (request headers, inbox splices, titles…).
 * - `modelView: true` ("what the model sees") keeps only what reaches model requests: it hides
 *   rows a compaction or pruning shadowed, failed attempts and partial chunks, retries,
 *   approvals, log-only events and elisions (turn and step markers stay for orientation).
 */
import type { TimelineRow } from '../../../shared/timeline.js';

export interface RowFilter {
  readonly showLogEvents: boolean;
  readonly modelView: boolean;
}

function hiddenInModelView(row: TimelineRow): boolean {
  if (row.shadowedBy !== undefined) return true;
  switch (row.kind) {
    case 'event':
    case 'retry':
    case 'approval':
    case 'elided':
      return true;
    case 'text':
    case 'reasoning':
      return row.failed !== undefined || row.partial;
    case 'tool':
      return row.state === 'dropped';
    default:
      return false;
  }
}

/** Ids of the approvals that a tool row shows. */
function approvalsOnToolRows(rows: readonly TimelineRow[]): ReadonlySet<string> {
  const ids = new Set<string>();
  for (const row of rows) if (row.kind === 'tool' && row.approval) ids.add(row.approval.id);
  return ids;
}

export function visibleRows(rows: readonly TimelineRow[], filter: RowFilter): readonly TimelineRow[] {
  const onTools = approvalsOnToolRows(rows);
  const merged = (row: TimelineRow): boolean => row.kind === 'approval' && onTools.has(row.id);
  if (filter.showLogEvents && !filter.modelView) return onTools.size === 0 ? rows : rows.filter((row) => !merged(row));
  return rows.filter((row) => !merged(row) && (filter.modelView ? !hiddenInModelView(row) : row.kind !== 'event'));
}
