/**
 * The title fallback of a session with no stored title: its first typed prompt — for a fork, the
 * first one after its fork point (the inherited history's prompt belongs to the parent, so a fork
 * must not borrow it as its name). Pure.
 */
import { rowIndexOfSeq, type Timeline } from '../../../shared/timeline.js';

/** The first person-typed prompt at or after `fromSeq` (whole log when undefined). */
export function ownFirstPrompt(timeline: Timeline, fromSeq: number | undefined): string | undefined {
  if (fromSeq === undefined || fromSeq <= 0) return timeline.title ?? timeline.firstUserText;
  if (timeline.lastSeq < fromSeq) return undefined;
  let i = rowIndexOfSeq(timeline, fromSeq);
  if (i < 0) i = 0;
  for (; i < timeline.rows.length; i++) {
    const row = timeline.rows[i]!;
    if (row.kind === 'user' && row.sourceKind === 'user' && row.seq >= fromSeq && row.replaces === undefined && row.text.trim()) return row.text;
  }
  return undefined;
}
