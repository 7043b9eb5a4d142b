/**
 * Transient messages (newest last); each closes itself after a while. An import summary toast
 * carries its detail lines (the same lines `forkline import` prints) and stays a little longer.
 */
import { useEffect, useLayoutEffect, useRef, type ReactNode } from 'react';
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
  useEffect(() => {
    const t = setTimeout(() => drop(id), detail ? 20_000 : tone === 'error' ? 8000 : 5000);
    return () => clearTimeout(t);
  }, [drop, id, tone, detail]);
  return (
    <div ref={ref} className={`toast ${tone}${detail ? ' with-detail' : ''}`} data-testid="toast" data-tone={tone} role={tone === 'error' ? 'alert' : 'status'}>
      <div className="toast-body">
        <span className="toast-text">{text}</span>
        {detail && (
          <ul className="toast-detail" data-testid="toast-detail">
            {detail.map((line, i) => (
              <li key={i}>{line}</li>
            ))}
          </ul>
        )}
      </div>
      <button type="button" className="icon-button" aria-label="Dismiss" onClick={() => drop(id)}>
        ✕
      </button>
    </div>
  );
}

export function Toasts(): ReactNode {
  const toasts = useApp((s) => s.toasts);
  if (toasts.length === 0) return null;
  return (
    <div className="toasts">
      {toasts.map((t) => (
        <Toast key={t.id} {...t} />
      ))}
    </div>
  );
}
