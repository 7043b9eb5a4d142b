/**
 * The find bar (Ctrl/Cmd+F) over the open session's visible timeline rows: Enter / Shift+Enter go
 * to the next / previous match (scrolling the timeline there), Esc closes and returns focus to the
 * timeline.
 */
import { useMemo, useState, type KeyboardEvent, type ReactNode } from 'react';
import { useApp, useTimeline } from '../context.js';
import { visibleRows } from '../timeline/row-filter.js';
import { findRows } from './find-rows.js';

export function FindBar(): ReactNode {
  const timeline = useTimeline();
  const showLogEvents = useApp((s) => s.showLogEvents);
  const modelView = useApp((s) => s.modelView);
  const openFind = useApp((s) => s.openFind);
  const reveal = useApp((s) => s.reveal);
  const [query, setQuery] = useState('');
  const [current, setCurrent] = useState(-1);
  const rows = useMemo(() => visibleRows(timeline.rows, { showLogEvents, modelView }), [timeline.rows, showLogEvents, modelView]);
  const matches = useMemo(() => findRows(rows, query), [rows, query]);

  const go = (step: 1 | -1): void => {
    if (matches.length === 0) return;
    const next = current < 0 ? (step > 0 ? 0 : matches.length - 1) : (current + step + matches.length) % matches.length;
    setCurrent(next);
    reveal(rows[matches[next]!]!.seq);
  };
  const close = (): void => {
    openFind(false);
    requestAnimationFrame(() => document.querySelector<HTMLElement>('[data-region="timeline"] [data-focus-default], [data-region="timeline"]')?.focus());
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>): void => {
    if (e.key === 'Enter') {
      e.preventDefault();
      go(e.shiftKey ? -1 : 1);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      close();
    }
  };
  const status = !query.trim() ? '' : matches.length === 0 ? 'no match' : current < 0 ? `${matches.length} match${matches.length === 1 ? '' : 'es'}` : `${current + 1} of ${matches.length}`;

  return (
    <div className="find-bar" data-testid="find-bar" role="search">
      <input
        data-testid="find-input"
        type="search"
        aria-label="Find in this session"
        placeholder="Find in this session…"
        autoFocus
        value={query}
        onChange={(e) => {
          setQuery(e.target.value);
          setCurrent(-1);
        }}
        onKeyDown={onKeyDown}
      />
      <span className="muted find-status" data-testid="find-status" aria-live="polite">
        {status}
      </span>
      <button type="button" className="small" data-testid="find-previous" disabled={matches.length === 0} aria-label="Previous match (Shift+Enter)" onClick={() => go(-1)}>
        ↑
      </button>
      <button type="button" className="small" data-testid="find-next" disabled={matches.length === 0} aria-label="Next match (Enter)" onClick={() => go(1)}>
        ↓
      </button>
      <button type="button" className="icon-button" data-testid="find-close" aria-label="Close find (Esc)" onClick={close}>
        ✕
      </button>
    </div>
  );
}
