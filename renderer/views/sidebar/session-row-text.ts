/**
 * Words of a session row that are worked out from its summary: the short label of an imported
 * session's badge and the row's tooltip (the whole title, where it came from, its folder and size).
 * Pure: no DOM.
 */
import type { SessionSummary } from '../../../shared/api.js';

/**
 * The badge of a session imported from `format`: the format's first word (`claude-code` → `claude`,
 * `gemini-cli` → `gemini`), so the badge stays compact beside the title; the whole id is in its tooltip.
 */
export function importedBadgeLabel(format: string): string {
  const first = format.split(/[-_\s]+/).find((part) => part !== '');
  return first ?? format;
}

/**
 * The row's tooltip: the whole title first (the row may show it cut with an ellipsis), then where an
 * imported session came from, its folder and its event count, one a line.
 */
export function sessionRowTooltip(title: string, session: Pick<SessionSummary, 'cwd' | 'eventCount' | 'origin'>): string {
  const origin = session.origin?.kind === 'imported' ? `imported from ${session.origin.format}${session.origin.file ? ` (${session.origin.file})` : ''}: read-only` : undefined;
  return [title, origin, session.cwd ?? '', `${session.eventCount} events`].filter((line) => line !== undefined).join('\n');
}
