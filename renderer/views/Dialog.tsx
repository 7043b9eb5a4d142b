/** A minimal modal dialog (Escape or the backdrop closes it) and a confirm dialog built on it. */
import { useEffect, type ReactNode } from 'react';
import { createPortal } from 'react-dom';

export function Dialog({ title, testId, onClose, children, wide }: { readonly title: string; readonly testId: string; readonly onClose: () => void; readonly children: ReactNode; readonly wide?: boolean }): ReactNode {
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === 'Escape') onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);
  return createPortal(
    <div className="backdrop" onClick={(e) => e.stopPropagation()} onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className={`dialog${wide ? ' wide' : ''}`} role="dialog" aria-modal="true" aria-label={title} data-testid={testId}>
        <header className="dialog-head">
          <span className="dialog-title">{title}</span>
          <span className="spacer" />
          <button type="button" className="icon-button" aria-label="Close" data-testid={`${testId}-close`} onClick={onClose}>
            ✕
          </button>
        </header>
        <div className="dialog-body">{children}</div>
      </div>
    </div>,
    document.body,
  );
}

export function ConfirmDialog({ title, message, confirmLabel, onConfirm, onCancel }: { readonly title: string; readonly message: ReactNode; readonly confirmLabel: string; readonly onConfirm: () => void; readonly onCancel: () => void }): ReactNode {
  return (
    <Dialog title={title} testId="confirm-dialog" onClose={onCancel}>
      <div className="confirm-message">{message}</div>
      <div className="dialog-buttons">
        <button type="button" data-testid="confirm-cancel" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="danger" data-testid="confirm-ok" onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}
