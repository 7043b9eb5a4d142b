/**
 * Transient messages (newest last) in their own strip of the layout, between the timeline and the
 * approval panel / composer (at the bottom of the main area in the views that have no composer):
 * the strip takes its own height, so a toast never covers a row, a link or the composer. Each
 * closes itself after a while (5 s, errors and import summaries 8 s), but never while the pointer is
 * over it or focus is in it, so its detail can be read and its Dismiss button reached; Esc dismisses
 * the newest (the palette's "Dismiss the newest message", keyboard/commands.ts), the one holding
 * focus first. An import summary toast carries its detail lines (the same lines `forkline import`
 * prints), folded under "details" (Tab, Enter opens them) so the toast stays one or two lines.
 * Info toasts are read out by one polite live region that is always in the page (ToastAnnouncer):
 * a region inserted with its text is not announced by every screen reader; errors are alerts.
 */
import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { bySelector, firstOf, focusAfterRender } from '../keyboard/focus-after-render.js';
import { mainTarget } from '../keyboard/focus-regions.js';
import type { Toast as ToastFacts } from '../state/app-store.js';
import { useApp } from './context.js';

function Toast({ id, text, tone, detail }: ToastFacts): ReactNode {
  const drop = useApp((s) => s.dropToast);
  const ref = useRef<HTMLDivElement>(null);
  // Dismissed (or timed out) while its button held focus: the next toast's button, else the session.
  // A layout-effect cleanup runs while the toast is still in the page, so it can tell.
  useLayoutEffect(() => {
    const el = ref.current;
    return () => {
      if (el?.contains(document.activeElement)) focusAfterRender(firstOf(bySelector('[data-testid="toast"] button'), mainTarget));
    };
  }, []);
  const [held, setHeld] = useState({ pointer: false, focus: false });
  const paused = held.pointer || held.focus;
  useEffect(() => {
    if (paused) return;
    const t = setTimeout(() => drop(id), detail || tone === 'error' ? 8000 : 5000);
    return () => clearTimeout(t);
  }, [drop, id, tone, detail, paused]);
  return (
    <div
      ref={ref}
      className={`toast ${tone}${detail ? ' with-detail' : ''}`}
      data-testid="toast"
      data-tone={tone}
      data-toast-id={id}
      data-paused={paused ? 'true' : 'false'}
      {...(tone === 'error' ? { role: 'alert' } : {})}
      onPointerEnter={() => setHeld((h) => ({ ...h, pointer: true }))}
      onPointerLeave={() => setHeld((h) => ({ ...h, pointer: false }))}
      onFocus={() => setHeld((h) => ({ ...h, focus: true }))}
      onBlur={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setHeld((h) => ({ ...h, focus: false }));
      }}
    >
      <div className="toast-body">
        <span className="toast-text">{text}</span>
        {detail && (
          // Folded: the summary's lines opened over a third of the timeline at 1000×700 and hid the rows
          // the import had just opened; the session's own banner already says where it came from.
          <details className="toast-more" data-testid="toast-more">
            <summary>details</summary>
            <ul className="toast-detail" data-testid="toast-detail">
              {detail.map((line, i) => (
                <li key={i}>{line}</li>
              ))}
            </ul>
          </details>
        )}
      </div>
      <button type="button" className="icon-button" data-testid="toast-dismiss" aria-label="Dismiss" onClick={() => drop(id)}>
        ✕
      </button>
    </div>
  );
}

/** The strip of toasts; nothing (no height) when there are none. */
export function Toasts(): ReactNode {
  const toasts = useApp((s) => s.toasts);
  if (toasts.length === 0) return null;
  return (
    <div className="toasts" data-testid="toast-strip" role="region" aria-label="Messages">
      {toasts.map((t) => (
        <Toast key={t.id} {...t} />
      ))}
    </div>
  );
}

/**
 * The polite live region that reads out each new info toast (an export's file and size, an import's
 * summary): always mounted, visually hidden; each message replaces the last as a new node, so the
 * same text said twice is read twice.
 */
export function ToastAnnouncer(): ReactNode {
  const latest = useApp((s) => s.toasts.findLast((t) => t.tone === 'info'));
  const [said, setSaid] = useState<{ id: number; text: string }>();
  if (latest && latest.id !== said?.id && (said === undefined || latest.id > said.id)) setSaid({ id: latest.id, text: latest.text });
  return (
    <div className="sr-only" role="status" aria-live="polite" data-testid="toast-announcer">
      {said && <span key={said.id}>{said.text}</span>}
    </div>
  );
}
