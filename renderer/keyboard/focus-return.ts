/**
 * Handing focus back when a modal dialog closes (WAI-ARIA APG "Dialog (Modal)": focus returns to
 * the control that opened it). A dialog remembers its opener when it opens (`rememberOpener`) and
 * gives focus back when it closes (`returnFocus`). The opener may be gone or unable to take focus by
 * then — a row deleted by the dialog, a button re-rendered, one disabled while its call runs, row
 * actions that show only while their row holds focus, or no opener at all (a shortcut pressed with
 * focus on the page, the command palette that closed before its command opened the dialog) — so the
 * return goes down a list of stable places instead of to the first control of the page (the
 * sidebar's theme button was where Settings opened by Ctrl+, on the start screen handed focus):
 *
 * 1. the opener itself;
 * 2. the element that replaced it: the same `data-testid`, in the same session's row (or in none);
 * 3. while the opener is still in the page but disabled, it is waited for a moment (its call runs);
 * 4. the first control of the opener's row, list item, section or form, when that is still there
 *    (opened from inside another dialog that is still open: that, else the dialog's first control);
 * 5. the default element of the opener's F6 area (focus-regions.ts);
 * 6. the main area (composer, timeline, compare view, the start screen's prompt), else the sessions.
 *
 * DOM-only.
 */
import type { Region } from './commands.js';
import { FOCUSABLE, focusAfterRender, focusable, focusLost, type FocusTarget } from './focus-after-render.js';
import { mainTarget, regionDefault } from './focus-regions.js';

/** What a dialog keeps of the control that had focus when it opened. */
export interface Opener {
  /** The element itself; undefined when focus was on the page (a shortcut pressed with nothing focused). */
  readonly element?: HTMLElement;
  readonly testId?: string;
  /** The session it belongs to (its own `data-session-id` or its row's). */
  readonly sessionId?: string;
  /** The F6 area it was in. */
  readonly region?: Region;
  /** Its row, list item, section or form (the nearest one), for step 4. */
  readonly group?: HTMLElement;
  /** The modal dialog it is in (a confirmation opened from Settings): while that is open, focus stays in it. */
  readonly dialog?: HTMLElement;
}

/** How long a disabled opener (its call still running) is waited for before the next place is taken. */
const DISABLED_WAIT_MS = 1_500;

/** Containers whose first control stands in for a control of theirs that went away. */
const GROUP = 'li, [role="row"], [role="listitem"], section, form, fieldset, [role="group"]';

/** The session an element belongs to (its own `data-session-id` or its row's). */
function sessionOf(el: Element): string | undefined {
  return el.closest<HTMLElement>('[data-session-id]')?.dataset['sessionId'];
}

/** Records the element holding focus now (read it before the dialog takes focus: on its first render). */
export function rememberOpener(active: Element | null = document.activeElement): Opener {
  if (!(active instanceof HTMLElement) || active === document.body || active === document.documentElement) return {};
  const region = active.closest<HTMLElement>('[data-region]');
  const group = active.parentElement?.closest<HTMLElement>(GROUP);
  const dialog = active.closest<HTMLElement>('[aria-modal="true"]');
  return {
    element: active,
    ...(active.dataset['testid'] !== undefined ? { testId: active.dataset['testid'] } : {}),
    ...(sessionOf(active) !== undefined ? { sessionId: sessionOf(active)! } : {}),
    ...(region?.dataset['region'] !== undefined ? { region: region.dataset['region'] as Region } : {}),
    // Only a group inside the area: an area-wide container's first control is not a stand-in.
    ...(group && (!region || (region !== group && region.contains(group))) ? { group } : {}),
    ...(dialog ? { dialog } : {}),
  };
}

/** The element that replaced `opener` after a re-render: the same test id (and session id), able to take focus now. */
function replacement(opener: Opener): HTMLElement | undefined {
  if (opener.testId === undefined) return undefined;
  return [...document.querySelectorAll<HTMLElement>(`[data-testid="${CSS.escape(opener.testId)}"]`)].find((el) => focusable(el) && sessionOf(el) === opener.sessionId);
}

/** The first control Tab reaches in `group` (roving lists: their Tab stop). */
function firstInGroup(group: HTMLElement | undefined): HTMLElement | undefined {
  if (!group?.isConnected) return undefined;
  return [...group.querySelectorAll<HTMLElement>(FOCUSABLE)].find((el) => focusable(el) && el.getAttribute('tabindex') !== '-1');
}

/** True while `el` is in the page and laid out but cannot take focus because it is disabled. */
function disabledForNow(el: HTMLElement | undefined): boolean {
  return el !== undefined && el.isConnected && el.getClientRects().length > 0 && !focusable(el);
}

/**
 * Where focus goes back to for `opener` (steps 1–6 above), as a focus target. The wait of step 3
 * counts from the call, so call it when the dialog closes.
 */
export function openerTarget(opener: Opener): FocusTarget {
  const until = performance.now() + DISABLED_WAIT_MS;
  return () => {
    const own = opener.element;
    if (focusable(own)) return own;
    const same = replacement(opener);
    if (same) return same;
    if (disabledForNow(own) && performance.now() < until) return undefined;
    // Opened from inside a dialog that is still open: somewhere in it, never behind it.
    if (opener.dialog?.isConnected) return firstInGroup(opener.group) ?? firstInGroup(opener.dialog) ?? opener.dialog;
    return firstInGroup(opener.group) ?? (opener.region !== undefined ? regionDefault(opener.region) : undefined) ?? mainTarget() ?? regionDefault('sessions');
  };
}

/**
 * Gives focus back for a dialog that closed: at once when the place is there, else once it has
 * rendered (only while focus is still lost: a control that took focus meanwhile keeps it).
 */
export function returnFocus(opener: Opener): void {
  const target = openerTarget(opener);
  const el = target();
  if (focusable(el) && focusLost()) {
    el.focus();
    if (document.activeElement === el) return;
  }
  focusAfterRender(target);
}
