/**
 * Deliberate focus targets for actions whose control goes away. A button that unmounts or disables
 * itself, or an action that replaces the view it lives in, leaves focus on `<body>`, and the next
 * Tab then starts from the top of the page. Such an action names where focus goes instead:
 * `focusAfterRender(target)` focuses what `target()` returns once React has rendered it (visible and
 * enabled), checking after each frame for a while, and only while focus is lost (on `<body>`) or
 * still on (or in) the control that started the action (`from`). When the person or another control has
 * moved focus meanwhile, it gives up: a deliberate target never steals focus. Nor does it take focus
 * out of an open modal dialog: it waits for the dialog to close. DOM-only.
 */

/** Finds the element to focus now; `null`/`undefined` while it is not rendered yet. */
export type FocusTarget = () => HTMLElement | null | undefined;

export interface FocusAfterRenderOptions {
  /** The control (or area) that started the action: focus may also be taken from it or from inside it (e.g. a row that stays). */
  readonly from?: Element | null;
  /** How long to wait for the target (a session opening, a button enabled again). */
  readonly timeoutMs?: number;
}

/** Controls that take focus (hidden inputs, disabled controls and `tabindex="-1"` excluded). */
export const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** True when `el` can take focus now: in the document, laid out, not disabled. */
export function focusable(el: HTMLElement | null | undefined): el is HTMLElement {
  return el !== null && el !== undefined && el.isConnected && el.getClientRects().length > 0 && !(el as HTMLButtonElement).disabled && !el.closest('[inert]');
}

/** Focus is nowhere a person put it: on the page body (its control went away) or on nothing. */
export function focusLost(): boolean {
  const active = document.activeElement;
  return active === null || active === document.body || active === document.documentElement;
}

/**
 * Focuses `target` after the next render(s). Returns a function that cancels the request (for effect
 * cleanups). The first check runs after the next frame, so a button that is about to be disabled or
 * removed by the state the action just set is not mistaken for the target.
 */
export function focusAfterRender(target: FocusTarget, options: FocusAfterRenderOptions = {}): () => void {
  const from = options.from === document.body ? null : (options.from ?? null);
  const deadline = performance.now() + (options.timeoutMs ?? 3_000);
  let frame = 0;
  let cancelled = false;
  const attempt = (): void => {
    if (cancelled) return;
    const active = document.activeElement;
    // Someone else has moved focus (the person, a dialog's autofocus): leave it there.
    if (!focusLost() && !(from !== null && from.contains(active))) return;
    const el = target();
    // An open modal dialog (the command palette, Settings) keeps focus until it closes: a session that
    // finished opening behind it waits (a person typing in the palette must not lose the field).
    const modal = active?.closest('[aria-modal="true"]');
    if (focusable(el) && !(modal && !modal.contains(el))) {
      if (active !== el) el.focus();
      return;
    }
    if (performance.now() < deadline) frame = requestAnimationFrame(attempt);
  };
  frame = requestAnimationFrame(attempt);
  return () => {
    cancelled = true;
    cancelAnimationFrame(frame);
  };
}

/** A target: the first element matching one of these selectors (in this order) that can take focus now. */
export function bySelector(...selectors: readonly string[]): FocusTarget {
  return () => {
    for (const selector of selectors) {
      const el = document.querySelector<HTMLElement>(selector);
      if (focusable(el)) return el;
    }
    return undefined;
  };
}

/** A target: the first element with one of these test ids (in this order) that can take focus now. */
export function byTestId(...ids: readonly string[]): FocusTarget {
  return bySelector(...ids.map((id) => `[data-testid="${id}"]`));
}

/** A target: the first target that has an element able to take focus now. */
export function firstOf(...targets: readonly FocusTarget[]): FocusTarget {
  return () => {
    for (const t of targets) {
      const el = t();
      if (focusable(el)) return el;
    }
    return undefined;
  };
}

/** The first control inside `root` (or `root` itself, when it is one) that can take focus now, in document order. */
export function firstFocusableIn(root: Element | null | undefined): HTMLElement | undefined {
  if (!root) return undefined;
  const selector = `${FOCUSABLE}, summary`;
  if (root instanceof HTMLElement && root.matches(selector) && focusable(root)) return root;
  return [...root.querySelectorAll<HTMLElement>(selector)].find(focusable);
}

/**
 * A target: the first control inside `root()` that comes after `marker` in document order, outside
 * it — after "show more" appends items below the last one shown (`marker`), the first new one.
 */
export function firstFocusableAfter(root: () => Element | null | undefined, marker: Element | null | undefined): FocusTarget {
  return () => {
    const container = root();
    if (!container || !marker) return undefined;
    return [...container.querySelectorAll<HTMLElement>(`${FOCUSABLE}, summary`)].find(
      (el) => !marker.contains(el) && (marker.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0 && focusable(el),
    );
  };
}

/**
 * A target that resolves only once `control` has left the document: for an action whose control
 * goes away when its outcome is rendered (a "load the earlier ones" button), so a target that
 * already exists is not taken before the new items are in.
 */
export function onceGone(control: Element, target: FocusTarget): FocusTarget {
  return () => (control.isConnected ? undefined : target());
}
