/**
 * In-session find: searches the text of every timeline row (not the page), so it reaches rows the
 * virtual list has not rendered; Enter / Shift+Enter step through matches and the timeline scrolls
 * to each. Ctrl/Cmd+F (bound by the app's keyboard layer to `openFind`) opens it; Escape closes it.
 * When the session was opened at its tail, it offers to load the earlier events too.
 */
import { useEffect, useRef, type ReactNode } from 'react';
import { firstOf, focusAfterRender } from '../../keyboard/focus-after-render.js';
import { mainTarget, regionTarget } from '../../keyboard/focus-regions.js';
import { useFocusInside } from '../common/use-focus-inside.js';
import { useApp, useRequiredSession, useSession } from '../context.js';

export interface FindBarProps {
  /** Matches in the rows shown. */
  readonly matches: number;
  /** 0-based position of the current match (when there are matches). */
  readonly current: number;
}

export function FindBar({ matches, current }: FindBarProps): ReactNode {
  const find = useApp((s) => s.find);
  const setQuery = useApp((s) => s.setFindQuery);
  const step = useApp((s) => s.stepFind);
  const close = useApp((s) => s.closeFind);
  const startSeq = useSession((s) => s.startSeq);
  const session = useRequiredSession();
  const input = useRef<HTMLInputElement>(null);
  const open = find !== undefined;
  useEffect(() => {
    if (open) input.current?.focus();
  }, [open]);
  // Closed (Esc, ✕) with focus in it: back to the timeline, where the current match is.
  const barRef = useRef<HTMLDivElement>(null);
  const focusInside = useFocusInside(barRef);
  useEffect(
    () => () => {
      if (focusInside.current) focusAfterRender(firstOf(regionTarget('timeline'), mainTarget));
    },
    [focusInside],
  );
  if (!find) return null;
  const query = find.query.trim();
  return (
    <div ref={barRef} className="find-bar" data-testid="find-bar" role="search">
      <input
        ref={input}
        type="search"
        className="search"
        data-testid="find-input"
        placeholder="Find in this session"
        aria-label="Find in this session"
        value={find.query}
        onChange={(e) => setQuery(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            step(e.shiftKey ? -1 : 1);
          } else if (e.key === 'Escape') {
            e.preventDefault();
            close();
          }
        }}
      />
      <span className="muted find-count" data-testid="find-count" aria-live="polite">
        {query === '' ? '' : matches === 0 ? 'no match' : `${current + 1} of ${matches}`}
      </span>
      <button type="button" className="icon-button" data-testid="find-prev" aria-label="Previous match" disabled={matches === 0} onClick={() => step(-1)}>
        ↑
      </button>
      <button type="button" className="icon-button" data-testid="find-next" aria-label="Next match" disabled={matches === 0} onClick={() => step(1)}>
        ↓
      </button>
      {startSeq > 0 && query !== '' && (
        <button
          type="button"
          className="link-button"
          data-testid="find-load-all"
          title="Search the earlier events of this session too"
          onClick={(e) => {
            void session.controller.loadEarlier(0).catch(() => undefined);
            // The button goes away once they are loaded: the search goes on in the input.
            focusAfterRender(() => input.current, { from: e.currentTarget });
          }}
        >
          search all {startSeq.toLocaleString('en-US')} earlier events too
        </button>
      )}
      <span className="spacer" />
      <button type="button" className="icon-button" data-testid="find-close" aria-label="Close find" onClick={close}>
        ✕
      </button>
    </div>
  );
}
