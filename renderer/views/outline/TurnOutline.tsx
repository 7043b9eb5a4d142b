/**
 * The turn outline: every turn of the open session (its first prompt, steps, how it ended and how
 * long it took), with compactions and resume / fork boundaries between them; click to jump there.
 * The turn in view is marked. Esc inside it closes it (focus goes back to the Outline button).
 */
import { useEffect, useMemo, useRef, type ReactNode } from 'react';
import { byTestId, firstOf, focusAfterRender, onceGone } from '../../keyboard/focus-after-render.js';
import { mainTarget } from '../../keyboard/focus-regions.js';
import { formatDuration } from '../../../shared/format.js';
import { turnOutline } from '../../../shared/timeline-find.js';
import { useFocusInside } from '../common/use-focus-inside.js';
import { useApp, useRequiredSession, useSession, useTimeline } from '../context.js';

const END_TONE: Record<string, string> = { completed: 'ok', 'max-tokens': 'warn', blocked: 'warn', aborted: 'warn', error: 'bad', interrupted: 'bad', 'source-ended': 'warn', budget: 'warn' };

export function TurnOutline(): ReactNode {
  const timeline = useTimeline();
  const items = useMemo(() => turnOutline(timeline.rows), [timeline.rows]);
  const scrollTo = useApp((s) => s.scrollTo);
  const toggle = useApp((s) => s.toggleOutline);
  const jumpSeq = useApp((s) => s.jump?.seq);
  const startSeq = useSession((s) => s.startSeq);
  const session = useRequiredSession();
  // Closed with focus in it: the toggle in the header takes focus back from the panel's close button.
  const panelRef = useRef<HTMLElement>(null);
  const focusInside = useFocusInside(panelRef);
  useEffect(
    () => () => {
      if (focusInside.current) focusAfterRender(firstOf(byTestId('outline-button'), mainTarget));
    },
    [focusInside],
  );
  const currentKey = useMemo(() => {
    if (jumpSeq === undefined) return undefined;
    let key: string | undefined;
    for (const item of items) if (item.seq <= jumpSeq) key = item.key;
    return key;
  }, [items, jumpSeq]);
  return (
    <nav
      ref={panelRef}
      className="side-panel outline-panel"
      data-testid="turn-outline"
      aria-label="Turn outline"
      onKeyDown={(e) => {
        if (e.defaultPrevented) return;
        // ↑ ↓ Home End move between the outline's entries, as in the session list.
        if (['ArrowDown', 'ArrowUp', 'Home', 'End'].includes(e.key) && (e.target as HTMLElement).classList.contains('outline-button')) {
          const buttons = [...(panelRef.current?.querySelectorAll<HTMLElement>('.outline-button') ?? [])];
          const at = buttons.indexOf(e.target as HTMLElement);
          const next = e.key === 'Home' ? 0 : e.key === 'End' ? buttons.length - 1 : at + (e.key === 'ArrowDown' ? 1 : -1);
          const target = buttons[Math.max(0, Math.min(buttons.length - 1, next))];
          if (target) {
            e.preventDefault();
            target.focus();
          }
          return;
        }
        if (e.key !== 'Escape') return;
        // Handled here: Esc must not also cancel a running turn.
        e.preventDefault();
        // Focus moves first (to the Outline button that opened it), so it never drops with the panel.
        document.querySelector<HTMLElement>('[data-testid="outline-button"]')?.focus();
        toggle();
      }}
    >
      <header className="panel-head">
        <span className="panel-title">Outline</span>
        <span className="muted">{items.filter((i) => i.kind === 'turn').length} turns</span>
        <span className="spacer" />
        <button type="button" className="icon-button" data-testid="turn-outline-close" aria-label="Close outline" onClick={toggle}>
          ✕
        </button>
      </header>
      <ol className="panel-body outline-list">
        {startSeq > 0 && (
          <li className="outline-item muted">
            <button
              type="button"
              className="link-button"
              data-testid="outline-load-earlier"
              onClick={(e) => {
                const from = e.currentTarget;
                // The button goes away once they are loaded: the first turn (the first of those it brought in) takes focus.
                session.controller.loadEarlier(0).then(
                  () =>
                    focusAfterRender(
                      onceGone(from, () => panelRef.current?.querySelector<HTMLElement>('[data-testid="outline-item"] .outline-button')),
                      { from },
                    ),
                  () => undefined,
                );
              }}
            >
              load the earlier turns ({startSeq.toLocaleString('en-US')} events)
            </button>
          </li>
        )}
        {items.map((item) => (
          <li
            key={item.key}
            className={`outline-item kind-${item.kind}${item.key === currentKey ? ' current' : ''}`}
            data-testid="outline-item"
            data-kind={item.kind}
            data-seq={item.seq}
            data-turn={item.turn}
          >
            <button type="button" className="outline-button" aria-current={item.key === currentKey ? 'location' : undefined} onClick={() => scrollTo(item.seq)}>
              {item.kind === 'turn' ? (
                <>
                  <span className="outline-turn mono">{item.turn}</span>
                  <span className="outline-title">{item.title}</span>
                  <span className="outline-facts">
                    {item.endKind === undefined ? (
                      <span className="badge badge-info">running</span>
                    ) : (
                      item.endKind !== 'completed' && <span className={`badge badge-${END_TONE[item.endKind] ?? 'muted'}`}>{item.endLabel ?? item.endKind}</span>
                    )}
                    <span className="muted">
                      {item.steps} step{item.steps === 1 ? '' : 's'}
                      {item.durationMs !== undefined ? ` · ${formatDuration(item.durationMs)}` : ''}
                    </span>
                  </span>
                </>
              ) : (
                <span className="outline-title muted">{item.title}</span>
              )}
            </button>
          </li>
        ))}
        {items.length === 0 && <li className="muted">No turns yet.</li>}
      </ol>
    </nav>
  );
}
