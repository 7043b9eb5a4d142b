/**
 * Which timeline rows are shown, from the person's toggles. Pure.
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

export function visibleRows(rows: readonly TimelineRow[], filter: RowFilter): readonly TimelineRow[] {
  if (filter.showLogEvents && !filter.modelView) return rows;
  return rows.filter((row) => (filter.modelView ? !hiddenInModelView(row) : row.kind !== 'event'));
}
