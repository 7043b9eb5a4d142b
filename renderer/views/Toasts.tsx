/** Transient messages about failed actions (newest last); each closes itself after a while. */
import { useEffect, type ReactNode } from 'react';
import { useApp } from './context.js';

function Toast({ id, text, tone }: { readonly id: number; readonly text: string; readonly tone: 'error' | 'info' }): ReactNode {
  const drop = useApp((s) => s.dropToast);
  useEffect(() => {
    const t = setTimeout(() => drop(id), tone === 'error' ? 8000 : 5000);
    return () => clearTimeout(t);
  }, [drop, id, tone]);
  return (
    <div className={`toast ${tone}`} data-testid="toast" data-tone={tone} role={tone === 'error' ? 'alert' : 'status'}>
      <span>{text}</span>
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
