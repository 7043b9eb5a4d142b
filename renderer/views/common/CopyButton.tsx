/**
 * A button that copies text to the clipboard and says so. Uses the async Clipboard API, falling
 * back to a hidden textarea and `document.execCommand('copy')` where that API is unavailable
 * (insecure origins, older embedders).
 */
import { useState, type ReactNode } from 'react';

/** Copies `text`; resolves true on success. */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the textarea route
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  let ok: boolean;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}

export function CopyButton({ text, label, testId, title }: { readonly text: () => string; readonly label: string; readonly testId?: string; readonly title?: string }): ReactNode {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <button
      type="button"
      className="small"
      data-testid={testId}
      data-state={state}
      title={title}
      onClick={(e) => {
        e.stopPropagation();
        void copyText(text()).then((ok) => {
          setState(ok ? 'copied' : 'failed');
          setTimeout(() => setState('idle'), 1_500);
        });
      }}
    >
      {state === 'copied' ? 'Copied ✓' : state === 'failed' ? 'Copy failed' : label}
    </button>
  );
}
