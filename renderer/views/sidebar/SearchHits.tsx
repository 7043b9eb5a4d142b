/**
 * Full-text search results in the sidebar: every session's messages and tool output (the host's
 * SQLite FTS5 index), newest first, each with its session, what matched (prompt, answer, tool
 * output, summary) and a snippet with the matched terms marked. A hit opens its session scrolled
 * to the row, opened when the match is folded away, with the matched text marked. Queries run as the person types (debounced).
 */
import { useEffect, useState, type ReactNode } from 'react';
import type { SearchResult } from '../../../shared/api.js';
import { displayTitle } from '../../../shared/session-tree.js';
import { describeError } from '../../host/host-client.js';
import { useApp, useClient } from '../context.js';

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

export function SearchHits({ query }: { readonly query: string }): ReactNode {
  const client = useClient();
  const sessions = useApp((s) => s.sessions);
  const openAt = useApp((s) => s.openAt);
  const [state, setState] = useState<{ query: string; result?: SearchResult; error?: string }>();
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
  return (
    <section className="search-hits" data-testid="search-hits" aria-label="Matches in messages and tool output">
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
      <ul className="search-hit-list">
        {result?.hits.map((hit) => {
          const summary = sessions.find((s) => s.id === hit.sessionId);
          return (
            <li key={`${hit.sessionId}:${hit.seq}`}>
              <button
                type="button"
                className="search-hit"
                data-testid="search-hit"
                data-session-id={hit.sessionId}
                data-seq={hit.seq}
                onClick={() => openAt(hit.sessionId, hit.seq, hit.snippet.find((part) => part.match)?.text ?? result.terms[0])}
              >
                <span className="search-hit-head">
                  <span className="search-hit-title clip">{summary ? displayTitle(summary) : hit.sessionId.slice(0, 8)}</span>
                  <span className="badge badge-muted" data-testid="search-hit-kind" title={KIND_LABEL[hit.kind]?.title}>
                    {KIND_LABEL[hit.kind]?.label ?? hit.kind}
                  </span>
                  <span className="muted mono">#{hit.seq}</span>
                </span>
                <span className="search-hit-snippet">{hit.snippet.map((part, i) => (part.match ? <mark key={i}>{part.text}</mark> : <span key={i}>{part.text}</span>))}</span>
              </button>
            </li>
          );
        })}
      </ul>
      {result?.ignored && result.ignored.length > 0 && <div className="muted">Ignored (too short): {result.ignored.join(', ')}</div>}
    </section>
  );
}
