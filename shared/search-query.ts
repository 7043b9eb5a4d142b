/**
 * Full-text search queries as a person types them, and the snippets shown for hits. The store
 * matches every term as a case-insensitive substring (SQLite FTS5 with the `trigram` tokenizer,
 * https://www.sqlite.org/fts5.html#the_trigram_tokenizer), so a term needs at least 3 characters
 * to be searchable; shorter ones are reported back as ignored.
 *
 * Pure: no Node, no DOM.
 */
import { graphemeBoundaryAtOrAfter, graphemeBoundaryAtOrBefore } from './text-cut.js';

/** Shortest searchable term (a trigram index cannot look up fewer characters). */
export const MIN_TERM_CHARS = 3;
/** Longest query accepted, in characters. */
export const MAX_QUERY_CHARS = 500;

export interface ParsedSearchQuery {
  /** Terms every hit must contain (as written, case kept; matched case-insensitively). */
  readonly terms: readonly string[];
  /** Terms too short to search. */
  readonly ignored: readonly string[];
}

/**
 * Splits a query into terms: whitespace separates terms; `"double quotes"` keep a phrase (spaces
 * included) as one term. Empty input gives no terms.
 */
export function parseSearchQuery(input: string): ParsedSearchQuery {
  const terms: string[] = [];
  const ignored: string[] = [];
  const text = input.slice(0, MAX_QUERY_CHARS);
  const re = /"([^"]*)"?|(\S+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const term = (m[1] ?? m[2] ?? '').trim();
    if (term === '') continue;
    if ([...term].length < MIN_TERM_CHARS) ignored.push(term);
    else if (!terms.some((t) => t.toLowerCase() === term.toLowerCase())) terms.push(term);
  }
  return { terms, ignored };
}

/** A piece of a snippet: plain text or a matched term. */
export interface SnippetPart {
  readonly text: string;
  readonly match: boolean;
}

/**
 * The context around the first occurrence of any term in `text` (case-insensitive): about
 * `radius` characters each side, cut at safe boundaries, whitespace collapsed, with every term
 * occurrence inside marked as a match. Falls back to the beginning of the text when no term occurs.
 */
export function searchSnippet(text: string, terms: readonly string[], radius = 70): SnippetPart[] {
  const lower = text.toLowerCase();
  const needles = terms.map((t) => t.toLowerCase()).filter((t) => t !== '');
  let first = -1;
  for (const needle of needles) {
    const at = lower.indexOf(needle);
    if (at >= 0 && (first < 0 || at < first)) first = at;
  }
  const center = first < 0 ? 0 : first;
  const start = graphemeBoundaryAtOrAfter(text, Math.max(0, center - radius));
  const end = graphemeBoundaryAtOrBefore(text, Math.min(text.length, center + radius * 2));
  const window = text.slice(start, end);
  const windowLower = window.toLowerCase();
  const parts: SnippetPart[] = [];
  if (start > 0) parts.push({ text: '…', match: false });
  let pos = 0;
  while (pos < window.length) {
    let next = -1;
    let len = 0;
    for (const needle of needles) {
      const at = windowLower.indexOf(needle, pos);
      if (at >= 0 && (next < 0 || at < next)) {
        next = at;
        len = needle.length;
      }
    }
    if (next < 0) {
      parts.push({ text: window.slice(pos), match: false });
      break;
    }
    if (next > pos) parts.push({ text: window.slice(pos, next), match: false });
    parts.push({ text: window.slice(next, next + len), match: true });
    pos = next + len;
  }
  if (end < text.length) parts.push({ text: '…', match: false });
  return parts.map((p) => (p.match ? p : { text: p.text.replace(/\s+/g, ' '), match: false })).filter((p) => p.text !== '');
}
