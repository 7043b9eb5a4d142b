/**
 * Cutting text for display, logs and model-visible results without splitting a character (docs/architecture.md §6:
 * "Text is cut at code-point (better: grapheme) boundaries, never by UTF-16 unit").
 *
 * Every cut here lands on a grapheme-cluster boundary (Unicode UAX #29, through `Intl.Segmenter`),
 * so `e` + U+0301, an emoji with a skin tone or a ZWJ family stay whole. A cluster that is itself
 * longer than {@link GRAPHEME_SLACK} code units (e.g. "Zalgo" text with hundreds of combining marks)
 * is cut at a code-point boundary instead, so a cut never loses more than that much of its budget.
 * No cut ever leaves half of a surrogate pair.
 *
 * Pure: no Node, no DOM (Intl.Segmenter exists in Node ≥ 16 and every current browser).
 */

/** A grapheme cluster longer than this (UTF-16 units) may be split at a code-point boundary. */
export const GRAPHEME_SLACK = 32;

let segmenter: Intl.Segmenter | undefined;
function graphemes(): Intl.Segmenter {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return segmenter;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * Fast path: between two code points below U+0300 there is always a grapheme boundary except
 * inside CR LF (UAX #29 GB3–GB5; every extending, prepend, spacing-mark, ZWJ and emoji code point
 * is at or above U+0300).
 */
function plainBoundary(text: string, index: number): boolean {
  const before = text.charCodeAt(index - 1);
  const after = text.charCodeAt(index);
  return before < 0x300 && after < 0x300 && !(before === 13 && after === 10);
}

/**
 * The largest index ≤ `index` that is a code-point boundary of `text` (never between the two
 * halves of a surrogate pair).
 */
export function codePointBoundaryAtOrBefore(text: string, index: number): number {
  if (index <= 0) return 0;
  if (index >= text.length) return text.length;
  return isLowSurrogate(text.charCodeAt(index)) && isHighSurrogate(text.charCodeAt(index - 1)) ? index - 1 : index;
}

/**
 * The largest index ≤ `index` that is a grapheme boundary of `text`, or a code-point boundary
 * when the cluster around `index` is longer than {@link GRAPHEME_SLACK} units.
 */
export function graphemeBoundaryAtOrBefore(text: string, index: number): number {
  if (index <= 0) return 0;
  if (index >= text.length) return text.length;
  if (plainBoundary(text, index)) return index;
  const around = graphemes().segment(text).containing(index);
  if (around === undefined || around.index === index) return index;
  if (index - around.index <= GRAPHEME_SLACK) return around.index;
  return codePointBoundaryAtOrBefore(text, index);
}

/**
 * The smallest index ≥ `index` that is a grapheme boundary (code-point boundary for clusters over
 * {@link GRAPHEME_SLACK} units).
 */
export function graphemeBoundaryAtOrAfter(text: string, index: number): number {
  if (index <= 0) return 0;
  if (index >= text.length) return text.length;
  if (plainBoundary(text, index)) return index;
  const around = graphemes().segment(text).containing(index);
  if (around === undefined || around.index === index) return index;
  const end = around.index + around.segment.length;
  if (end - index <= GRAPHEME_SLACK) return end;
  const cp = codePointBoundaryAtOrBefore(text, index);
  return cp === index ? index : index + 1;
}

/** The first at most `maxUnits` UTF-16 units of `text`, ending on a grapheme boundary. */
export function cutHead(text: string, maxUnits: number): string {
  if (text.length <= maxUnits) return text;
  return text.slice(0, graphemeBoundaryAtOrBefore(text, Math.max(0, maxUnits)));
}

/** The last at most `maxUnits` UTF-16 units of `text`, starting on a grapheme boundary. */
export function cutTail(text: string, maxUnits: number): string {
  if (text.length <= maxUnits) return text;
  return text.slice(graphemeBoundaryAtOrAfter(text, text.length - Math.max(0, maxUnits)));
}

/**
 * `text` when it has at most `max` UTF-16 units, else its head cut on a grapheme boundary plus
 * `ellipsis`, the whole at most `max` units long (the usual "label…" shortening).
 */
export function shorten(text: string, max: number, ellipsis = '…'): string {
  if (text.length <= max) return text;
  return cutHead(text, Math.max(0, max - ellipsis.length)) + ellipsis;
}

/** UTF-8 length of a code unit sequence, without allocating (lone surrogates count as U+FFFD, 3 bytes). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (isHighSurrogate(c) && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** The index in `text` after the longest prefix whose UTF-8 encoding fits in `maxBytes`. */
function utf8PrefixUnits(text: string, maxBytes: number): number {
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    const pair = isHighSurrogate(c) && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1));
    const size = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    i += pair ? 2 : 1;
  }
  return i;
}

/** The index in `text` where the longest suffix whose UTF-8 encoding fits in `maxBytes` starts. */
function utf8SuffixStart(text: string, maxBytes: number): number {
  let bytes = 0;
  let i = text.length;
  while (i > 0) {
    const c = text.charCodeAt(i - 1);
    const pair = isLowSurrogate(c) && i - 2 >= 0 && isHighSurrogate(text.charCodeAt(i - 2));
    const size = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    i -= pair ? 2 : 1;
  }
  return i;
}

/** The longest head of `text` that is at most `maxBytes` UTF-8 bytes and ends on a grapheme boundary. */
export function cutHeadUtf8(text: string, maxBytes: number): string {
  const end = utf8PrefixUnits(text, maxBytes);
  if (end >= text.length) return text;
  return text.slice(0, graphemeBoundaryAtOrBefore(text, end));
}

/** The longest tail of `text` that is at most `maxBytes` UTF-8 bytes and starts on a grapheme boundary. */
export function cutTailUtf8(text: string, maxBytes: number): string {
  const start = utf8SuffixStart(text, maxBytes);
  if (start <= 0) return text;
  return text.slice(graphemeBoundaryAtOrAfter(text, start));
}
