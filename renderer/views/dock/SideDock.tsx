/**
 * The right-hand dock: the side panels (branch picker, raw event inspector, request inspector)
 * share one column, one panel in front at a time, with a tab per open panel. So opening every panel
 * never squeezes the timeline or covers a control, whatever the window width; the dock itself is
 * one F6 area. Tabs follow the WAI-ARIA APG tabs pattern (←/→ move between them). Esc anywhere
 * inside the dock closes the panel in front — never the compare view or board beside it — except
 * in a text field that still holds text (there Esc is the field's); focus goes to the panel left in
 * front, else the timeline.
 */
import { useEffect, useLayoutEffect, useRef, type KeyboardEvent, type ReactNode } from 'react';
import { firstOf, focusAfterRender } from '../../keyboard/focus-after-render.js';
import { mainTarget, regionTarget } from '../../keyboard/focus-regions.js';
import { typedText } from '../../keyboard/shortcut.js';
import type { DockTab } from '../../state/app-store.js';
import { BranchPicker } from '../branches/BranchPicker.js';
import { useFocusInside } from '../common/use-focus-inside.js';
import { useApp, useOpenSession } from '../context.js';
import { RawInspector } from '../inspector/RawInspector.js';
import { RequestInspector } from '../inspector/RequestInspector.js';

const LABELS: Record<DockTab, string> = { branches: 'Branches', events: 'Events', request: 'Request' };

/** The dock panels open now, in tab order. */
function useOpenTabs(): DockTab[] {
  const session = useOpenSession();
  const branchesOpen = useApp((s) => s.branchesOpen);
  const inspecting = useApp((s) => s.inspector !== undefined && s.compare === undefined);
  const requesting = useApp((s) => s.requestTarget !== undefined && s.compare === undefined);
  const tabs: DockTab[] = [];
  if (branchesOpen) tabs.push('branches');
  if (session && inspecting) tabs.push('events');
  if (session && requesting) tabs.push('request');
  return tabs;
}

export function SideDock(): ReactNode {
  const tabs = useOpenTabs();
  const dockTab = useApp((s) => s.dockTab);
  const setDockTab = useApp((s) => s.setDockTab);
  const setBranchesOpen = useApp((s) => s.setBranchesOpen);
  const inspect = useApp((s) => s.inspect);
  const inspectRequest = useApp((s) => s.inspectRequest);
  // The sidebar folds beside an open dock in a narrow window (before paint: no frame with both squeezing the timeline).
  const setLayoutFacts = useApp((s) => s.setLayoutFacts);
  const open = tabs.length > 0;
  useLayoutEffect(() => setLayoutFacts({ dockOpen: open }), [open, setLayoutFacts]);
  const inspectorKey = useApp((s) => (s.inspector ? (s.inspector.kind === 'row' ? `row:${s.inspector.rowKey}` : `seq:${s.inspector.seq}`) : ''));
  // A panel that closes with focus in it takes its close button along: the panel left in front, else the timeline row.
  const dockRef = useRef<HTMLDivElement>(null);
  const focusInside = useFocusInside(dockRef);
  const openCount = useRef(tabs.length);
  useEffect(() => {
    const closed = tabs.length < openCount.current;
    openCount.current = tabs.length;
    if (closed && focusInside.current) return focusAfterRender(firstOf(regionTarget('dock'), regionTarget('timeline'), mainTarget));
  }, [tabs.length, focusInside]);
  if (tabs.length === 0) return null;
  const active = tabs.includes(dockTab) ? dockTab : tabs[tabs.length - 1]!;

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
    e.preventDefault();
    const i = tabs.indexOf(active);
    const next = tabs[(i + (e.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length]!;
    setDockTab(next);
    focusAfterRender(() => document.getElementById(`dock-tab-${next}`), { from: e.currentTarget });
  };

  const onDockKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    if (e.key !== 'Escape' || e.defaultPrevented) return;
    // A text field still holding text keeps Esc (it is the field's); a checkbox or a drop-down does
    // not: a ticked branch's box is an input with a value ("on"), and its Esc went on to close the
    // compare view behind the panel instead of the panel the focus was in.
    if ((typedText(e.target) ?? '') !== '') return;
    // Handled here: Esc must not also cancel a running turn.
    e.preventDefault();
    if (active === 'branches') setBranchesOpen(false);
    else if (active === 'events') inspect(undefined);
    else inspectRequest(undefined);
  };

  return (
    <div ref={dockRef} className="side-dock" data-testid="side-dock" data-region="dock" data-tab={active} onKeyDown={onDockKeyDown}>
      {tabs.length > 1 && (
        <div className="dock-tabs" role="tablist" aria-label="Side panels" onKeyDown={onKeyDown}>
          {tabs.map((tab) => (
            <button
              key={tab}
              type="button"
              role="tab"
              id={`dock-tab-${tab}`}
              aria-selected={tab === active}
              aria-controls="dock-panel"
              tabIndex={tab === active ? 0 : -1}
              className={tab === active ? 'active' : ''}
              data-testid="dock-tab"
              data-tab={tab}
              onClick={() => setDockTab(tab)}
            >
              {LABELS[tab]}
            </button>
          ))}
        </div>
      )}
      <div className="dock-panel" id="dock-panel" {...(tabs.length > 1 ? { role: 'tabpanel', 'aria-labelledby': `dock-tab-${active}` } : {})}>
        {active === 'branches' && <BranchPicker />}
        {active === 'events' && <RawInspector key={inspectorKey} />}
        {active === 'request' && <RequestInspector />}
      </div>
    </div>
  );
}
