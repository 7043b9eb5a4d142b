/**
 * Finding things in a session's timeline rows — the in-session find (which reaches rows the
 * virtual list has not rendered, because it searches the rows, not the page) and the turn outline.
 *
 * Pure: no Node, no DOM.
 */
import { headPreview } from './preview.js';
import type { TimelineRow } from './timeline-rows.js';

/**
 * Indexes (into `rows`) of the rows whose text contains `query` (case-insensitive), in order;
 * empty for a blank query. `textOf` is what a row shows (the renderer's `rowSearchText`, built from
 * the labels its row views render).
 */
export function findRows(rows: readonly TimelineRow[], query: string, textOf: (row: TimelineRow) => string): number[] {
  const needle = query.trim().toLowerCase();
  if (needle === '') return [];
  const out: number[] = [];
  rows.forEach((row, i) => {
    if (textOf(row).toLowerCase().includes(needle)) out.push(i);
  });
  return out;
}

/** One entry of the turn outline. */
export interface OutlineItem {
  readonly kind: 'turn' | 'compaction' | 'end-seed';
  /** Row key and seq to jump to. */
  readonly key: string;
  readonly seq: number;
  readonly turn?: number;
  /** The turn's first prompt (one line), or what the item is. */
  readonly title: string;
  readonly steps?: number;
  /** `completed`, `error`, `aborted`, `interrupted`, …; absent while the turn runs. */
  readonly endKind?: string;
  readonly endLabel?: string;
  readonly durationMs?: number;
}

const TITLE_CHARS = 90;

/** The turns of a timeline (with compactions and resume / fork boundaries between them), in order. */
export function turnOutline(rows: readonly TimelineRow[]): OutlineItem[] {
  const items: { -readonly [K in keyof OutlineItem]: OutlineItem[K] }[] = [];
  let current: (typeof items)[number] | undefined;
  let titled = false;
  for (const row of rows) {
    if (row.kind === 'turn') {
      current = { kind: 'turn', key: row.key, seq: row.seq, turn: row.turn, title: `Turn ${row.turn}`, steps: row.steps };
      if (row.end) current.endKind = row.end.kind;
      if (row.endLabel !== undefined) current.endLabel = row.endLabel;
      if (row.durationMs !== undefined) current.durationMs = row.durationMs;
      titled = false;
      items.push(current);
    } else if (row.kind === 'user' && current && !titled && (row.sourceKind === 'user' || row.sourceKind === 'steer') && row.text.trim() !== '') {
      current.title = headPreview(row.text, TITLE_CHARS, { oneLine: true });
      titled = true;
    } else if (row.kind === 'compaction') {
      items.push({ kind: 'compaction', key: row.key, seq: row.seq, title: row.state === 'done' ? `compaction: ${row.shadowedSeqs.length} events summarised` : `compaction ${row.state}` });
    } else if (row.kind === 'end-seed') {
      items.push({ kind: 'end-seed', key: row.key, seq: row.seq, title: 'resumed / forked here' });
    }
  }
  return items;
}
