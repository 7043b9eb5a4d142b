/**
 * Moving keyboard focus between the window's areas. Each area is an element with
 * `data-region="<name>"`; inside it, the element marked `data-focus-default` (the selected session
 * row, the timeline's active row, the first approval, …) gets focus, else the one marked
 * `data-focus-fallback` (the sidebar's New session, when the list has no row), else the area itself
 * when it is focusable, else its first focusable control. DOM-only.
 */
import type { Region } from './commands.js';
import { FOCUSABLE, firstOf, focusable, type FocusTarget } from './focus-after-render.js';

/**
 * Cycle order for F6 / Shift+F6 (areas that are not on screen are skipped; the compare view replaces
 * the timeline, approvals and composer). The sidebar's search results are an area of their own
 * inside the sessions area, while a search shows them.
 */
export const REGION_ORDER: readonly Region[] = ['sessions', 'search', 'compare', 'timeline', 'approvals', 'composer', 'dock'];

function regionElement(region: Region): HTMLElement | null {
  return document.querySelector<HTMLElement>(`[data-region="${region}"]`);
}

function visible(el: HTMLElement): boolean {
  return el.getClientRects().length > 0;
}

/** The element focusing `region` would focus now (undefined when the area is not on screen or has nothing to focus). */
export function regionDefault(region: Region): HTMLElement | undefined {
  const root = regionElement(region);
  if (!root || !visible(root)) return undefined;
  // An area nested in this one (the search results in the sidebar) is not part of it.
  const own = (el: HTMLElement): boolean => el.closest('[data-region]') === root;
  const preferred = [...root.querySelectorAll<HTMLElement>('[data-focus-default]')].find(own);
  if (preferred && focusable(preferred)) return preferred;
  // With no such element now (an empty session list): the area's main control, not its first one (the theme button).
  const fallback = [...root.querySelectorAll<HTMLElement>('[data-focus-fallback]')].find((el) => own(el) && focusable(el));
  if (fallback) return fallback;
  if (root.tabIndex >= 0) return root;
  // Not a control Tab skips (tabindex -1: the tabs of a tab list other than the selected one).
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].find((el) => own(el) && visible(el) && el.getAttribute('tabindex') !== '-1');
}

/** Focuses `region`'s default element. Returns false when the area is not on screen. */
export function focusRegion(region: Region): boolean {
  const target = regionDefault(region);
  if (!target) return false;
  target.focus();
  return document.activeElement === target;
}

/** A focus target (see focus-after-render.ts): the default element of `region`. */
export function regionTarget(region: Region): FocusTarget {
  return () => regionDefault(region);
}

/**
 * Where focus goes in the main area after its view changed: the composer when a message can be
 * typed, else the timeline's active row (a read-only session), else the compare view, else the
 * start screen's first prompt (nothing open).
 */
export const mainTarget: FocusTarget = firstOf(
  () => document.querySelector<HTMLElement>('[data-testid="composer-input"]'),
  regionTarget('timeline'),
  regionTarget('compare'),
  () => document.querySelector<HTMLElement>('[data-testid="start-input"]'),
);

/** Focuses the next (or previous) area on screen after the one holding focus. */
export function cycleRegion(direction: 1 | -1): void {
  // The innermost area holding focus (a search result is in the search area, not the sessions').
  const current = (document.activeElement as HTMLElement | null)?.closest<HTMLElement>('[data-region]')?.dataset['region'] as Region | undefined;
  const start = current !== undefined ? REGION_ORDER.indexOf(current) : direction > 0 ? -1 : REGION_ORDER.length;
  for (let i = 1; i <= REGION_ORDER.length; i++) {
    const index = (((start + direction * i) % REGION_ORDER.length) + REGION_ORDER.length) % REGION_ORDER.length;
    if (focusRegion(REGION_ORDER[index]!)) return;
  }
}
