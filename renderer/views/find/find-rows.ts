/**
 * A minimal in-session find for Ctrl/Cmd+F: which timeline rows contain the query (case-insensitive)
 * in what they show — messages, reasoning, tool names, arguments and results, turn endings,
 * retries, log-only event labels. Pure. (The debugger work, issue 13, owns the full find view.)
 */
import type { TimelineRow } from '../../../shared/timeline.js';

/** The searchable text of a row. */
export function rowText(row: TimelineRow): string {
  switch (row.kind) {
    case 'user':
    case 'text':
    case 'reasoning':
      return row.text;
    case 'tool':
      return `${row.name} ${row.arguments} ${row.resultText ?? ''} ${row.errorCode ?? ''}`;
    case 'turn-end':
      return `${row.label} ${row.end.failure?.message ?? ''}`;
    case 'retry':
      return `${row.failure.code} ${row.failure.message}`;
    case 'approval':
      return `${row.toolName} ${row.reason ?? ''} ${row.outcome ?? ''}`;
    case 'compaction':
      return row.summary ?? '';
    case 'event':
      return `${row.type} ${row.label}`;
    default:
      return '';
  }
}

/** Indexes (into `rows`) of the rows whose text contains `query`; none for a blank query. */
export function findRows(rows: readonly TimelineRow[], query: string): number[] {
  const needle = query.trim().toLowerCase();
  if (!needle) return [];
  const out: number[] = [];
  rows.forEach((row, i) => {
    if (rowText(row).toLowerCase().includes(needle)) out.push(i);
  });
  return out;
}
