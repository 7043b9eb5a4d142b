/**
 * Short previews of long text: cut at a word boundary where one is near, and never inside a code
 * point or before a combining mark / joiner (so no lone surrogate and no orphaned accent or
 * emoji modifier ever shows). Lengths are in UTF-16 code units, the unit of `String.length`.
 *
 * Pure: no Node, no DOM.
 */

/** How far back (as a share of the budget) a cut may move to land on whitespace. */
const WORD_SLACK = 0.3;

/** True for a UTF-16 low (trailing) surrogate. */
function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

const MARK = /^\p{M}/u;

/** True for a code point that attaches to the one before it: combining mark, ZWJ, variation selector, emoji skin-tone modifier. */
function attaches(codePoint: number, char: string): boolean {
  return codePoint === 0x200d || (codePoint >= 0xfe00 && codePoint <= 0xfe0f) || (codePoint >= 0x1f3fb && codePoint <= 0x1f3ff) || MARK.test(char);
}

/** True when a cut at `index` would split a code point or detach a mark from its base. */
export function isUnsafeCut(text: string, index: number): boolean {
  if (index <= 0 || index >= text.length) return false;
  if (isLowSurrogate(text.charCodeAt(index))) return true;
  const codePoint = text.codePointAt(index)!;
  return attaches(codePoint, String.fromCodePoint(codePoint));
}

/** The nearest safe cut at or before `index` (0 at worst). */
export function safeCutBefore(text: string, index: number): number {
  let i = Math.max(0, Math.min(index, text.length));
  while (i > 0 && isUnsafeCut(text, i)) i--;
  return i;
}

/** The nearest safe cut at or after `index` (`text.length` at worst). */
export function safeCutAfter(text: string, index: number): number {
  let i = Math.max(0, Math.min(index, text.length));
  while (i < text.length && isUnsafeCut(text, i)) i++;
  return i;
}

/** The last `max` code units of `text`, moved forward to a safe cut (never a lone surrogate). */
export function sliceTail(text: string, max: number): string {
  if (text.length <= max) return text;
  return text.slice(safeCutAfter(text, text.length - max));
}

/** The first `max` code units of `text`, moved back to a safe cut. */
export function sliceHead(text: string, max: number): string {
  if (text.length <= max) return text;
  return text.slice(0, safeCutBefore(text, max));
}

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
  let cut = safeCutBefore(flat, budget);
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
  let start = safeCutAfter(flat, flat.length - budget);
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
