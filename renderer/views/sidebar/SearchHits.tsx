/**
 * Full-text search results in the sidebar: every session's messages and tool output (the host's
 * SQLite FTS5 index), newest first, each with its session, what matched (prompt, answer, tool
 * output, summary) and a snippet with the matched terms marked. A hit opens its session scrolled
 * to the row, opened when the match is folded away, with the matched text marked. Queries run as the person types (debounced).
 * Each hit names its session and that session's folder, and the logged event it is in ("event 227",
 * explained in its tooltip; search-hit-text.ts).
 *
 * Keyboard: the results are an F6 area of their own (`data-region="search"`) and one Tab stop
 * (roving tabindex): ↑/↓/Home/End move between hits, Enter opens one; ↑ on the first hit goes back
 * to the last session row, else to the search field.
 */
import { useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import type { SearchResult } from '../../../shared/api.js';
import { describeError } from '../../host/host-client.js';
import { useApp, useClient } from '../context.js';
import { searchHitPlace } from './search-hit-text.js';

/** Wait after the last keystroke before searching, ms. */
const DEBOUNCE_MS = 200;
/**
 * What part of a session a hit is in. An assistant message is indexed whole — its answer, its
 * thinking and its tool calls in one document — so its hits say "agent", not "answer" (a match in
 * the thinking was labelled an answer).
 */
const KIND_LABEL: Record<string, { readonly label: string; readonly title: string }> = {
  user: { label: 'prompt', title: 'in a message to the agent' },
  assistant: { label: 'agent', title: "in the agent's message: its answer, thinking or tool calls" },
  tool: { label: 'tool output', title: 'in what a tool returned' },
  summary: { label: 'summary', title: 'in a compaction summary' },
};

/** The sidebar's full-text search results for `query` (nothing while it is empty). */
export function SearchHits({ query }: { readonly query: string }): ReactNode {
  const client = useClient();
  const sessions = useApp((s) => s.sessions);
  const openAt = useApp((s) => s.openAt);
  const [state, setState] = useState<{ query: string; result?: SearchResult; error?: string }>();
  // The hit holding the list's Tab stop (by key, so it stays when the results change around it).
  const [focusKey, setFocusKey] = useState<string | undefined>();
  const listRef = useRef<HTMLUListElement>(null);
  useEffect(() => {
    if (query.trim() === '') return;
    let active = true;
    const timer = setTimeout(() => {
      client.searchSessions({ query, limit: 50 }).then(
        (result) => active && setState({ query, result }),
        (error: unknown) => active && setState({ query, error: describeError(error) }),
      );
    }, DEBOUNCE_MS);
    return () => {
      active = false;
      clearTimeout(timer);
    };
  }, [client, query]);
  if (query.trim() === '') return null;
  const current = state?.query === query ? state : undefined;
  const result = current?.result;
  const keys = result?.hits.map((hit) => `${hit.sessionId}:${hit.seq}`) ?? [];
  const activeKey = focusKey !== undefined && keys.includes(focusKey) ? focusKey : keys[0];

  const onKeyDown = (e: KeyboardEvent<HTMLUListElement>): void => {
    const key = (e.target as HTMLElement).closest<HTMLElement>('[data-testid="search-hit"]')?.dataset['key'];
    const i = key === undefined ? -1 : keys.indexOf(key);
    if (i < 0 || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    let next: number | undefined;
    if (e.key === 'ArrowDown') next = Math.min(keys.length - 1, i + 1);
    else if (e.key === 'ArrowUp' && i === 0) {
      // Above the first hit: the last session row (it then holds the list's Tab stop), else the search field.
      const nav = listRef.current?.closest('nav');
      const above = [...(nav?.querySelectorAll<HTMLElement>('[data-testid="session-open"]') ?? [])].at(-1) ?? nav?.querySelector<HTMLElement>('[data-testid="sidebar-search"]');
      if (above) {
        e.preventDefault();
        above.focus();
      }
      return;
    } else if (e.key === 'ArrowUp') next = i - 1;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = keys.length - 1;
    if (next === undefined) return;
    e.preventDefault();
    const target = keys[next]!;
    setFocusKey(target);
    listRef.current?.querySelector<HTMLElement>(`[data-testid="search-hit"][data-key="${CSS.escape(target)}"]`)?.focus();
  };

  return (
    <section className="search-hits" data-testid="search-hits" data-region="search" aria-label="Matches in messages and tool output">
      <div className="search-hits-head">
        <span className="section-label">in messages and tool output</span>
        {result && (
          <span className="muted" data-testid="search-hits-count">
            {result.hits.length}
            {result.more ? '+' : ''}
          </span>
        )}
      </div>
      {!current && <div className="muted">Searching…</div>}
      {current?.error && <div className="error-text">{current.error}</div>}
      {result && result.terms.length === 0 && <div className="muted">Type at least 3 characters to search messages.</div>}
      {result && result.terms.length > 0 && result.hits.length === 0 && (
        <div className="muted" data-testid="search-no-hits">
          No message or tool output contains {result.terms.map((t) => `“${t}”`).join(' and ')}.
        </div>
      )}
      <ul
        className="search-hit-list"
        ref={listRef}
        aria-label="Matches"
        aria-describedby="search-hit-keys"
        onKeyDown={onKeyDown}
        onFocus={(e) => {
          const key = (e.target as HTMLElement).closest<HTMLElement>('[data-testid="search-hit"]')?.dataset['key'];
          if (key !== undefined && key !== activeKey) setFocusKey(key);
        }}
      >
        {result?.hits.map((hit) => {
          const key = `${hit.sessionId}:${hit.seq}`;
          const active = key === activeKey;
          const place = searchHitPlace(
            hit,
            sessions.find((s) => s.id === hit.sessionId),
            sessions,
          );
          return (
            <li key={key}>
              <button
                type="button"
                className="search-hit"
                data-testid="search-hit"
                data-session-id={hit.sessionId}
                data-seq={hit.seq}
                data-key={key}
                tabIndex={active ? 0 : -1}
                {...(active ? { 'data-focus-default': '' } : {})}
                title={place.title}
                onClick={() => openAt(hit.sessionId, hit.seq, hit.snippet.find((part) => part.match)?.text ?? result.terms[0])}
              >
                <span className="search-hit-head">
                  <span className="search-hit-title clip" data-testid="search-hit-session">
                    {place.session}
                  </span>
                  <span className="badge badge-muted" data-testid="search-hit-kind" title={KIND_LABEL[hit.kind]?.title}>
                    {KIND_LABEL[hit.kind]?.label ?? hit.kind}
                  </span>
                </span>
                <span className="search-hit-place muted">
                  {place.folder !== undefined && (
                    <span className="search-hit-folder clip" data-testid="search-hit-folder">
                      in {place.folder}
                    </span>
                  )}
                  <span className="search-hit-event" data-testid="search-hit-event">
                    {place.event}
                  </span>
                </span>
                <span className="search-hit-snippet">{hit.snippet.map((part, i) => (part.match ? <mark key={i}>{part.text}</mark> : <span key={i}>{part.text}</span>))}</span>
              </button>
            </li>
          );
        })}
      </ul>
      {result?.ignored && result.ignored.length > 0 && <div className="muted">Ignored (too short): {result.ignored.join(', ')}</div>}
      <p className="sr-only" id="search-hit-keys">
        Arrow keys move between matches, Enter opens the session at the match. Each match names its session, its folder and the number of the logged event it is in.
      </p>
    </section>
  );
}
