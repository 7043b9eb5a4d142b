/**
 * Showing a find match inside its row (issue 25 item 7): the text range of the first occurrence of
 * the query in a rendered row, marked with the CSS Custom Highlight API (`CSS.highlights`, no DOM
 * change under React; Chromium 105+, https://drafts.csswg.org/css-highlight-api-1/) and scrolled
 * into view in every scrolling box around it (a tool's terminal output, then the timeline).
 *
 * The marks are named {@link FIND_MARK} (the current match) and {@link FIND_HITS} (the other
 * occurrences in the current row); renderer/styles/timeline.css styles them.
 */

/** Highlight name of the current match. */
export const FIND_MARK = 'forkline-find-current';
/** Highlight name of the other occurrences in the current row. */
export const FIND_HITS = 'forkline-find-hits';

/** Whether this browser can mark ranges (it still scrolls to them when it cannot). */
function highlightsSupported(): boolean {
  return typeof CSS !== 'undefined' && 'highlights' in CSS && typeof Highlight !== 'undefined';
}

/**
 * The ranges of every case-insensitive occurrence of `query` in the visible text of `root`, in
 * document order (an occurrence may span several text nodes, as Markdown formatting splits them).
 * Text in `.sr-only` and hidden elements is skipped.
 */
export function findTextRanges(root: Element, query: string, limit = 200): Range[] {
  const needle = query.trim().toLowerCase();
  if (needle === '') return [];
  const nodes: Text[] = [];
  const starts: number[] = [];
  let text = '';
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) => (node.parentElement?.closest('.sr-only, [hidden], [aria-hidden="true"]') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    nodes.push(node as Text);
    starts.push(text.length);
    text += (node as Text).data;
  }
  const haystack = text.toLowerCase();
  const at = (offset: number): { node: Text; offset: number } => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { node: nodes[lo]!, offset: offset - starts[lo]! };
  };
  const out: Range[] = [];
  for (let i = haystack.indexOf(needle); i >= 0 && out.length < limit; i = haystack.indexOf(needle, i + needle.length)) {
    const start = at(i);
    const end = at(i + needle.length - 1);
    const range = document.createRange();
    range.setStart(start.node, start.offset);
    range.setEnd(end.node, end.offset + 1);
    out.push(range);
  }
  return out;
}

/** Marks `current` (and `others`) in the page, replacing any earlier marks. */
export function markRanges(current: Range | undefined, others: readonly Range[] = []): void {
  if (!highlightsSupported()) return;
  if (current) CSS.highlights.set(FIND_MARK, new Highlight(current));
  else CSS.highlights.delete(FIND_MARK);
  if (others.length > 0) CSS.highlights.set(FIND_HITS, new Highlight(...others));
  else CSS.highlights.delete(FIND_HITS);
}

/** Removes the find marks. */
export function clearMarks(): void {
  markRanges(undefined);
}

/** The range marked as the current match, if any (for tests and the screen reader line). */
export function markedRange(): Range | undefined {
  if (!highlightsSupported()) return undefined;
  const mark = CSS.highlights.get(FIND_MARK);
  const first = mark ? [...mark][0] : undefined;
  return first instanceof Range ? first : undefined;
}

/**
 * Scrolls every scrolling box from the range up to `outer` (inclusive) so the range is in view,
 * centred where it was out of view.
 * @returns whether the range is now inside `outer`'s visible box.
 */
export function scrollRangeIntoView(range: Range, outer: HTMLElement): boolean {
  for (let el = range.startContainer.parentElement; el; el = el.parentElement) {
    const style = getComputedStyle(el);
    const scrolls = /(auto|scroll)/.test(`${style.overflowY} ${style.overflowX}`) && (el.scrollHeight > el.clientHeight || el.scrollWidth > el.clientWidth);
    if (scrolls) {
      const box = el.getBoundingClientRect();
      const r = range.getBoundingClientRect();
      if (r.top < box.top || r.bottom > box.bottom) el.scrollTop += r.top - box.top - (box.height - r.height) / 2;
      if (r.left < box.left || r.right > box.right) el.scrollLeft += r.left - box.left - (box.width - r.width) / 2;
    }
    if (el === outer) break;
  }
  const box = outer.getBoundingClientRect();
  const r = range.getBoundingClientRect();
  return r.height > 0 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
}
