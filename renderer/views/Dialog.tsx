/**
 * A modal dialog and a confirm dialog built on it. Keyboard: focus moves into the dialog when it
 * opens (an `autoFocus` control inside wins, else the first control), Tab and Shift+Tab stay inside
 * it, Escape (or the backdrop) closes it, and focus returns to where it was when it closes
 * (WAI-ARIA APG "Dialog (Modal)" pattern) — or, when that control is gone or cannot take focus, to
 * a stable place near it (keyboard/focus-return.ts), never to the first control of the page.
 */
import { useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { rememberOpener, returnFocus } from '../keyboard/focus-return.js';

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

function focusables(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.getClientRects().length > 0);
}

/** A modal dialog (see the top of this file); `footer` stays in view under the scrolling body. */
export function Dialog({
  title,
  testId,
  onClose,
  children,
  wide,
  className,
  footer,
}: {
  readonly title: string;
  readonly testId: string;
  readonly onClose: () => void;
  readonly children: ReactNode;
  readonly wide?: boolean;
  readonly className?: string;
  /** Shown under the scrolling body, always in view, last in Tab order (e.g. a form's Cancel / Save). */
  readonly footer?: ReactNode;
}): ReactNode {
  const ref = useRef<HTMLDivElement>(null);
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;
  // What had focus before the dialog opened (read on the first render, before an autoFocus moves it).
  const [opener] = useState(rememberOpener);

  useEffect(() => {
    const root = ref.current;
    if (root && !root.contains(document.activeElement)) (focusables(root).find((el) => !el.classList.contains('dialog-close')) ?? root).focus();
    // Escape with focus outside the dialog (e.g. on the page body) still closes it.
    const onKey = (e: globalThis.KeyboardEvent): void => {
      if (e.key === 'Escape' && !e.defaultPrevented && !ref.current?.contains(e.target as Node)) {
        e.preventDefault();
        onCloseRef.current();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
      // Back to the opener, else a stable place near it (the main area when it was opened from nothing).
      returnFocus(opener);
    };
  }, [opener]);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      onClose();
      return;
    }
    if (e.key !== 'Tab' || !ref.current) return;
    const list = focusables(ref.current);
    if (list.length === 0) return;
    const first = list[0]!;
    const last = list[list.length - 1]!;
    if (e.shiftKey && (document.activeElement === first || document.activeElement === ref.current)) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  };

  return createPortal(
    <div className="backdrop" onClick={(e) => e.stopPropagation()} onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div
        ref={ref}
        className={`dialog${wide ? ' wide' : ''}${className ? ` ${className}` : ''}`}
        role="dialog"
        aria-modal="true"
        aria-label={title}
        data-testid={testId}
        tabIndex={-1}
        onKeyDown={onKeyDown}
      >
        <header className="dialog-head">
          <span className="dialog-title">{title}</span>
          <span className="spacer" />
          <button type="button" className="icon-button dialog-close" aria-label="Close" data-testid={`${testId}-close`} onClick={onClose}>
            ✕
          </button>
        </header>
        <div className="dialog-body">{children}</div>
        {footer}
      </div>
    </div>,
    document.body,
  );
}

/** A dialog asking to confirm a destructive action; Cancel has focus first. */
export function ConfirmDialog({
  title,
  message,
  confirmLabel,
  onConfirm,
  onCancel,
}: {
  readonly title: string;
  readonly message: ReactNode;
  readonly confirmLabel: string;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
}): ReactNode {
  return (
    <Dialog title={title} testId="confirm-dialog" onClose={onCancel}>
      <div className="confirm-message">{message}</div>
      <div className="dialog-buttons">
        <button type="button" data-testid="confirm-cancel" autoFocus onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="danger" data-testid="confirm-ok" onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}
