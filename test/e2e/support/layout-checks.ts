/**
 * Checks a person sees, run inside the page: controls that overlap each other or are cut off, and
 * axe-core's accessibility rules (injected from the installed axe-core).
 */
import axe from 'axe-core';
import type { Page } from 'playwright-core';

export interface LayoutProblem {
  readonly kind: 'overlap' | 'cut-off';
  readonly what: string;
  readonly detail: string;
}

/**
 * Visible controls (buttons, fields, links, tabs) that overlap another control or stick out of the
 * window or of an ancestor that hides overflow. A control scrolled (partly) out of a scroll
 * container is not "cut off": scrolling shows it. While a modal dialog is open only its controls
 * count (the rest is behind it).
 */
export async function layoutProblems(page: Page): Promise<LayoutProblem[]> {
  // Two frames: virtual rows measure and settle.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  return page.evaluate(() => {
    type Box = { l: number; t: number; r: number; b: number };
    const SELECTOR = 'button, input:not([type="hidden"]), select, textarea, a[href], [role="tab"]';
    const describe = (el: Element): string => {
      const id = el.getAttribute('data-testid');
      const label = (el.getAttribute('aria-label') ?? el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
      return `${el.tagName.toLowerCase()}${id ? `[${id}]` : ''}${label ? ` "${label}"` : ''}`;
    };
    const boxOf = (r: DOMRect): Box => ({ l: r.left, t: r.top, r: r.right, b: r.bottom });
    const meet = (a: Box, b: Box): Box => ({ l: Math.max(a.l, b.l), t: Math.max(a.t, b.t), r: Math.min(a.r, b.r), b: Math.min(a.b, b.b) });
    const area = (a: Box): number => Math.max(0, a.r - a.l) * Math.max(0, a.b - a.t);
    const modal = [...document.querySelectorAll('[role="dialog"][aria-modal="true"]')].at(-1);
    const scope = modal ?? document.body;
    const viewport: Box = { l: 0, t: 0, r: window.innerWidth, b: window.innerHeight };
    const problems: { kind: 'overlap' | 'cut-off'; what: string; detail: string }[] = [];
    const shown: { el: Element; box: Box }[] = [];
    for (const el of scope.querySelectorAll(SELECTOR)) {
      if (el.closest('[aria-hidden="true"], .sr-only, .xterm')) continue;
      if (el instanceof HTMLInputElement && (el.type === 'file' || el.hidden)) continue;
      const style = getComputedStyle(el);
      if (style.visibility !== 'visible' || Number(style.opacity) === 0) continue;
      const box = boxOf(el.getBoundingClientRect());
      if (area(box) < 1) continue;
      // Clip by ancestors: scroll containers (partly hidden = scrolled away) and hidden overflow (partly hidden = cut off).
      let scrollClip = viewport;
      let hardClip = viewport;
      for (let a = el.parentElement; a; a = a.parentElement) {
        const s = getComputedStyle(a);
        const clips = s.overflowX !== 'visible' || s.overflowY !== 'visible';
        if (!clips) continue;
        const r = boxOf(a.getBoundingClientRect());
        const scrolls = /(auto|scroll)/.test(`${s.overflowX} ${s.overflowY}`);
        if (scrolls) scrollClip = meet(scrollClip, r);
        else hardClip = meet(hardClip, r);
      }
      const inScroll = meet(box, scrollClip);
      if (area(inScroll) < 1) continue; // scrolled out of view
      if (area(inScroll) + 1 < area(box)) continue; // partly scrolled: not a layout fault
      const inside = meet(box, hardClip);
      if (area(inside) + 2 < area(box)) problems.push({ kind: 'cut-off', what: describe(el), detail: `box ${JSON.stringify(box)} outside ${JSON.stringify(hardClip)}` });
      shown.push({ el, box });
    }
    for (let i = 0; i < shown.length; i++) {
      for (let j = i + 1; j < shown.length; j++) {
        const a = shown[i]!;
        const b = shown[j]!;
        if (a.el.contains(b.el) || b.el.contains(a.el)) continue;
        const common = area(meet(a.box, b.box));
        if (common > 2) problems.push({ kind: 'overlap', what: `${describe(a.el)} × ${describe(b.el)}`, detail: `${Math.round(common)} px²` });
      }
    }
    return problems;
  });
}

/** What sticks out sideways in a scroll container (the timeline): its widths, its sideways scroll, and the elements past its edges. */
export interface SidewaysOverflow {
  readonly scrollWidth: number;
  readonly clientWidth: number;
  readonly scrollLeft: number;
  /** Elements (described) whose box reaches past the container's left or right inner edge. */
  readonly outside: readonly string[];
}

/**
 * Sideways overflow of the scroll container `selector`: its scroll width against its width, its
 * scroll position, and every element inside it whose box reaches past its left or right inner edge.
 * An element inside a container of its own that scrolls or hides its overflow (a code block, an
 * ellipsis) is left out: that container is checked instead. Containers matching `seeThrough` do not
 * count as such (a last-resort clip, so the check still sees what it would hide).
 */
export async function sidewaysOverflow(page: Page, selector: string, options: { seeThrough?: string } = {}): Promise<SidewaysOverflow> {
  return page.evaluate(
    ([sel, seeThrough]) => {
      const scroller = document.querySelector<HTMLElement>(sel);
      if (!scroller) throw new Error(`no ${sel}`);
      const outer = scroller.getBoundingClientRect();
      const left = outer.left + scroller.clientLeft;
      const right = left + scroller.clientWidth;
      const outside: string[] = [];
      for (const el of scroller.querySelectorAll<HTMLElement>('*')) {
        if (el.closest('.sr-only')) continue;
        const box = el.getBoundingClientRect();
        if (box.width < 1 || box.height < 1) continue;
        let clipped = false;
        for (let a = el.parentElement; a && a !== scroller; a = a.parentElement) {
          if (seeThrough && a.matches(seeThrough)) continue;
          if (getComputedStyle(a).overflowX !== 'visible') clipped = true;
        }
        if (clipped || (box.left >= left - 1 && box.right <= right + 1)) continue;
        const id = el.getAttribute('data-testid');
        const label = (el.getAttribute('aria-label') ?? el.getAttribute('placeholder') ?? el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
        outside.push(
          `${el.tagName.toLowerCase()}${id ? `[${id}]` : ''}${label ? ` "${label}"` : ''} spans ${Math.round(box.left)}–${Math.round(box.right)} in ${Math.round(left)}–${Math.round(right)}`,
        );
      }
      return { scrollWidth: scroller.scrollWidth, clientWidth: scroller.clientWidth, scrollLeft: scroller.scrollLeft, outside };
    },
    [selector, options.seeThrough ?? ''] as const,
  );
}

/**
 * Undefined when the focused element is wholly in sight: inside the window and inside every
 * ancestor that scrolls or clips; else what it is and where, for a failure message.
 */
export async function focusOutOfSight(page: Page): Promise<string | undefined> {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return 'nothing holds focus';
    const box = el.getBoundingClientRect();
    const what = `${el.tagName.toLowerCase()}${el.getAttribute('data-testid') ? `[${el.getAttribute('data-testid')}]` : ''} at ${JSON.stringify({ l: Math.round(box.left), t: Math.round(box.top), r: Math.round(box.right), b: Math.round(box.bottom) })}`;
    if (box.left < -1 || box.top < -1 || box.right > window.innerWidth + 1 || box.bottom > window.innerHeight + 1) return `${what}: outside the window`;
    for (let a = el.parentElement; a; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
      const r = a.getBoundingClientRect();
      const l = r.left + a.clientLeft;
      const t = r.top + a.clientTop;
      if (box.left < l - 1 || box.top < t - 1 || box.right > l + a.clientWidth + 1 || box.bottom > t + a.clientHeight + 1) {
        return `${what}: outside ${a.tagName.toLowerCase()}${a.getAttribute('data-testid') ? `[${a.getAttribute('data-testid')}]` : ''} ${JSON.stringify({ l: Math.round(l), t: Math.round(t), r: Math.round(l + a.clientWidth), b: Math.round(t + a.clientHeight) })}`;
      }
    }
    return undefined;
  });
}

export interface AxeViolation {
  readonly id: string;
  readonly impact: string;
  readonly help: string;
  readonly targets: readonly string[];
}

/** axe-core's serious and critical violations on the page as it is now. */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated over the debugging protocol: the page's CSP (script-src 'self') forbids an inline <script>.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(`${axe.source};void 0`);
  return page.evaluate(async () => {
    const run = (
      window as unknown as { axe: { run: (ctx: Document, options: object) => Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] }> } }
    ).axe.run;
    const result = await run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact ?? '', help: v.help, targets: v.nodes.slice(0, 5).map((n) => String(n.target.join(' '))) }));
  });
}

/**
 * Unfolds the sidebar when it is folded to its rail to make room for a side panel (below 1200 px
 * an open side panel does that: sidebar-fold.e2e), as a user would before picking another session.
 */
export async function unfoldSidebarForRoom(page: Page): Promise<void> {
  if ((await page.locator('[data-testid="sidebar-rail"][data-for-room="true"]').count()) === 0) return;
  await page.getByTestId('sidebar-expand').click();
  await page.getByTestId('sidebar').waitFor();
}

/** The two window sizes the new-user checks run at: the narrow one (1000×700) and a common laptop one (1440×900). */
export const NARROW_AND_WIDE = [
  { width: 1000, height: 700 },
  { width: 1440, height: 900 },
] as const;
