/**
 * Short previews of long text: cut at a word boundary where one is near, else on a grapheme
 * boundary (shared/text-cut.ts: never inside a code point, never detaching a combining mark, joiner
 * or emoji modifier). Lengths are in UTF-16 code units, the unit of `String.length`.
 *
 * Pure: no Node, no DOM.
 */
import { graphemeBoundaryAtOrAfter, graphemeBoundaryAtOrBefore } from './text-cut.js';

/** How far back (as a share of the budget) a cut may move to land on whitespace. */
const WORD_SLACK = 0.3;

export interface PreviewOptions {
  /** Collapse every run of whitespace (newlines included) into one space first (default false). */
  readonly oneLine?: boolean;
  /** Appended / prepended where text was cut (default `…`). */
  readonly ellipsis?: string;
}

function flatten(text: string, options: PreviewOptions | undefined): string {
  return options?.oneLine ? text.replace(/\s+/g, ' ').trim() : text;
}

/**
 * The beginning of `text` in at most `max` code units (ellipsis included), cut at the last
 * whitespace when it lies in the final 30 % of the budget, else at a safe code-point cut.
 */
export function headPreview(text: string, max: number, options?: PreviewOptions): string {
  const flat = flatten(text, options);
  const ellipsis = options?.ellipsis ?? '…';
  if (flat.length <= max) return flat;
  const budget = max - ellipsis.length;
  if (budget <= 0) return ellipsis.slice(0, Math.max(0, max));
  let cut = graphemeBoundaryAtOrBefore(flat, budget);
  const space = flat.slice(0, cut + 1).search(/\s\S*$/);
  if (space > 0 && space >= budget * (1 - WORD_SLACK)) cut = space;
  return `${flat.slice(0, cut).trimEnd()}${ellipsis}`;
}

/**
 * The end of `text` in at most `max` code units (ellipsis included), starting after the first
 * whitespace when it lies in the first 30 % of the budget (never mid-word), else at a safe cut.
 */
export function tailPreview(text: string, max: number, options?: PreviewOptions): string {
  const flat = flatten(text, options);
  const ellipsis = options?.ellipsis ?? '…';
  if (flat.length <= max) return flat;
  const budget = max - ellipsis.length;
  if (budget <= 0) return ellipsis.slice(0, Math.max(0, max));
  let start = graphemeBoundaryAtOrAfter(flat, flat.length - budget);
  // A cut exactly after whitespace is already a word start.
  if (!/\s/.test(flat[start - 1] ?? ' ')) {
    const rel = flat.slice(start).search(/\s/);
    if (rel >= 0 && rel <= budget * WORD_SLACK) start += rel + 1;
  }
  return `${ellipsis}${flat.slice(start).trimStart()}`;
}

/** The last line of `text` that has visible characters (for one-line previews of streaming text). */
export function lastLine(text: string): string {
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i]!.trim() !== '') return lines[i]!;
  return '';
}
