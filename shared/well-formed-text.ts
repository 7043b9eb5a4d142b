/**
 * Well-formed UTF-16 (no lone surrogates). A string with half a surrogate pair cannot be encoded as
 * UTF-8; providers that validate UTF-8 refuse a request that contains one, so no logged string may
 * hold one (docs/architecture.md §6). ECMAScript 2024 `String.prototype.isWellFormed` / `toWellFormed` are used
 * where the runtime has them (Node ≥ 20, current browsers), with an equivalent scan otherwise.
 *
 * Pure: no Node, no DOM.
 */

interface WellFormedString {
  isWellFormed?(): boolean;
  toWellFormed?(): string;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const native = typeof (String.prototype as WellFormedString).isWellFormed === 'function';

/** True when `text` holds no lone surrogate (every UTF-16 unit pairs up into a code point). */
export function isWellFormedText(text: string): boolean {
  return native ? (text as unknown as Required<WellFormedString>).isWellFormed() : !LONE_SURROGATE.test(text);
}

/** `text` with every lone surrogate replaced by U+FFFD (REPLACEMENT CHARACTER). */
export function toWellFormedText(text: string): string {
  if (isWellFormedText(text)) return text;
  return native ? (text as unknown as Required<WellFormedString>).toWellFormed() : text.replace(LONE_SURROGATES, '\uFFFD');
}

/** The UTF-16 index of the first lone surrogate in `text`, or -1. */
export function firstLoneSurrogate(text: string): number {
  const match = LONE_SURROGATE.exec(text);
  return match ? match.index : -1;
}
