/**
 * The sidebar's Team section (issue 27): the team's sessions from the team store (who, when,
 * workspace name, status, tokens, cost), PostgreSQL full-text search over them, opening one
 * read-only (a local imported copy, shown in the usual timeline and debugger views) and
 * "Continue in a local folder" (that copy forked into a folder chosen here, with the rules of any
 * imported session). Its head also says what waits to publish from the shared workspaces, and
 * holds the settings: the connection string and "share new sessions of this workspace".
 *
 * The list follows the team store while shown: after this app's publish finishes and every
 * TEAM_LIST_REFRESH_MS (team-state.ts), without a loading state; rows are keyed by session id,
 * so a refresh keeps their elements and the focus in them.
 *
 * Keyboard: every control is a button or field in the Tab order; Enter in the search field
 * searches, Escape clears it. A missing or unreachable store is said in words, with what to do.
 */
import { useEffect, useState, type ReactNode } from 'react';
import { useStore } from 'zustand';
import { formatTokens, isoTime } from '../../../shared/format.js';
import { formatUsd } from '../../../shared/pricing.js';
import type { TeamSessionView, TeamStatus } from '../../../shared/team.js';
import { TEAM_LIST_REFRESH_MS, teamFailure, teamStoreFor, type TeamFailure, type TeamState } from '../../state/team-state.js';
import { useApp, useClient, useRuntime } from '../context.js';
import { FolderBrowser } from '../sidebar/FolderBrowser.js';
import { hitEventLabel, hitEventTitle } from '../sidebar/search-hit-text.js';
import { useOpenSubForm } from '../settings/open-sub-forms.js';

function useTeam<T>(selector: (state: TeamState) => T): T {
  return useStore(teamStoreFor(useClient()), selector);
}

/** Who published a team session's local copy, from its provenance file name `team:OWNER:ID.jsonl`. */
export function teamOwnerOf(file: string | undefined): string | undefined {
  return file?.startsWith('team:') ? file.split(':')[1] : undefined;
}

/** "3 sessions waiting to publish", or undefined when nothing waits. */
export function pendingLabel(status: TeamStatus | undefined): string | undefined {
  const n = status?.publisher.pending.length ?? 0;
  return n === 0 ? undefined : `${n} session${n === 1 ? '' : 's'} waiting to publish`;
}

/** The failure in words a person can act on. */
function failureText(failure: TeamFailure): string {
  if (failure.code === 'TEAM_STORE_NOT_CONFIGURED') return 'No team store is configured. Set its postgres:// connection string below (or FORKLINE_TEAM_STORE, or "teamStore" in cli.json).';
  if (failure.code === 'TEAM_STORE_UNREACHABLE') {
    const errno = /\b(E[A-Z]{3,})\b/.exec(failure.message)?.[1];
    return `The team store cannot be reached${errno ? ` (${errno})` : ''}. Is the server running, and is the connection string right? Nothing local is affected.`;
  }
  return `${failure.message} [${failure.code}]`;
}

/** The per-row marker of a local session the publisher has not fully published yet. */
export function TeamPendingMarker({ sessionId }: { readonly sessionId: string }): ReactNode {
  const waiting = useTeam((s) => s.status?.publisher.pending.find((p) => p.sessionId === sessionId)?.waitingEvents);
  if (waiting === undefined) return null;
  return (
    <span className="badge badge-muted" data-testid="session-publish-pending" title={`${waiting} events waiting to publish to the team store`}>
      ↑ <span className="sr-only">{waiting} events waiting to publish</span>
    </span>
  );
}

function PublishStatus({ status }: { readonly status: TeamStatus }): ReactNode {
  const label = pendingLabel(status);
  const { publisher } = status;
  if (!label && !publisher.lastError && publisher.refused.length === 0) return null;
  return (
    <div className="team-publish" data-testid="team-publish-status" data-state={publisher.state} role="status">
      {label && <span data-testid="team-publish-pending">{label}</span>}
      {publisher.lastError && publisher.state === 'retrying' && (
        <span className="warn-text" data-testid="team-publish-error">
          {' '}
          — {publisher.lastError.code === 'TEAM_STORE_UNREACHABLE' ? 'the team store is unreachable' : publisher.lastError.message}; retrying
          {publisher.nextRetryAt ? ` at ${isoTime(publisher.nextRetryAt).slice(11, 19)}` : ''}. Nothing local is lost.
        </span>
      )}
      {publisher.refused.map((r) => (
        <div className="warn-text" key={r.sessionId} data-testid="team-publish-refused">
          {r.sessionId.slice(0, 8)} not published: {r.message}
        </div>
      ))}
    </div>
  );
}

function StoreSettings({ status, onDone, ids = 'team' }: { readonly status: TeamStatus | undefined; readonly onDone: () => void; readonly ids?: string }): ReactNode {
  const client = useClient();
  const store = teamStoreFor(client);
  const [url, setUrl] = useState('');
  const [error, setError] = useState<string>();
  useOpenSubForm(`${ids}-store`, url !== '' ? 'the team store connection string (Save)' : undefined);
  const save = async (): Promise<void> => {
    try {
      await client.setTeamSettings({ storeUrl: url });
      setError(undefined);
      setUrl('');
      await store.getState().refreshStatus();
      onDone();
      await store.getState().refreshList();
    } catch (e) {
      setError(failureText(teamFailure(e)));
    }
  };
  return (
    <form
      className="team-settings"
      data-testid={`${ids}-settings`}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <label className="field">
        <span className="muted">Team store (PostgreSQL connection string{status?.source === 'Settings' ? '; empty clears it' : ''})</span>
        <input
          className="mono"
          data-testid={`${ids}-store-url`}
          type="password"
          autoComplete="off"
          spellCheck={false}
          placeholder="postgres://you:password@host:5432/team"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
        />
      </label>
      <button type="submit" className="small" data-testid={`${ids}-store-save`}>
        Save
      </button>
      {error && (
        <div className="error-text" data-testid={`${ids}-settings-error`} role="alert">
          {error}
        </div>
      )}
    </form>
  );
}

/**
 * Settings' Team store section: the store in effect (password hidden) and the connection-string
 * form; sharing is turned on per workspace in the sidebar's Team section.
 */
export function TeamStoreSettingsSection(): ReactNode {
  const status = useTeam((s) => s.status);
  if (!status) return null;
  return (
    <section className="mcp-section team-settings-section" data-testid="settings-team-store" aria-labelledby="team-store-heading">
      <h3 id="team-store-heading">Team store</h3>
      <p className="muted">
        {status.configured ? (
          <>
            In use:{' '}
            <span className="mono" data-testid="settings-team-store-where">
              {status.where}
            </span>{' '}
            (from {status.source}).
          </>
        ) : (
          (status.configError ?? 'None configured.')
        )}{' '}
        Share a workspace's new sessions from the sidebar's Team section.
      </p>
      <StoreSettings status={status} onDone={() => undefined} ids="settings-team" />
    </section>
  );
}

/** The folder sharing is about: the open session's, else the most recent one. */
function useCurrentWorkspace(): string | undefined {
  const selected = useApp((s) => s.sessions.find((x) => x.id === s.selectedId));
  const recent = useApp((s) => s.sessions.find((x) => x.cwd !== undefined && x.origin?.kind !== 'imported')?.cwd);
  return selected?.origin?.kind === 'imported' ? recent : (selected?.cwd ?? recent);
}

function ShareToggle({ status }: { readonly status: TeamStatus }): ReactNode {
  const client = useClient();
  const runtime = useRuntime();
  const workspace = useCurrentWorkspace();
  if (!workspace) return null;
  const on = status.shared.some((s) => s.workspace === workspace);
  const name = workspace.split(/[\\/]/).filter(Boolean).pop() ?? workspace;
  return (
    <label className="team-share" title={workspace}>
      <input
        type="checkbox"
        data-testid="team-share-toggle"
        data-workspace={workspace}
        checked={on}
        onChange={(e) => {
          client.setTeamSettings({ share: { workspace, on: e.target.checked } }).then(
            () => teamStoreFor(client).getState().refreshStatus(),
            (error: unknown) => runtime.reportError('Share with the team', error),
          );
        }}
      />{' '}
      Share new sessions of <b>{name}</b> with the team store
    </label>
  );
}

function TeamRow({ row, onContinue }: { readonly row: TeamSessionView; readonly onContinue: (row: TeamSessionView) => void }): ReactNode {
  const open = useOpenTeamSession();
  const title = row.title ?? row.id.slice(0, 8);
  return (
    <li className="team-row" data-testid="team-session-row" data-team-session-id={row.id}>
      <button type="button" className="team-open" data-testid="team-session-open" data-team-session-id={row.id} title={`Open ${title} read-only`} onClick={() => void open(row.id)}>
        <span className="session-title clip">{title}</span>
        <span className="team-meta muted" data-testid="team-session-meta">
          {row.owner}
          {row.mine ? ' (you)' : ''} · {isoTime(row.updatedAt).slice(0, 16).replace('T', ' ')} · {row.workspace ?? 'no folder'} · {row.status ?? 'no turns'} ·{' '}
          {formatTokens(row.inputTokens + row.outputTokens)} tokens · {row.inputTokens + row.outputTokens === 0 ? 'no steps' : row.costUsd !== undefined ? formatUsd(row.costUsd) : 'price unknown'}
        </span>
      </button>
      <button type="button" className="small" data-testid="team-session-continue" aria-label={`Continue ${title} in a local folder`} onClick={() => onContinue(row)}>
        Continue in a local folder
      </button>
    </li>
  );
}

/** Opens a team session read-only (its local copy), optionally at a seq with a term marked. */
function useOpenTeamSession(): (teamSessionId: string, at?: { seq: number; text?: string }) => Promise<void> {
  const client = useClient();
  const runtime = useRuntime();
  const select = useApp((s) => s.select);
  const openAt = useApp((s) => s.openAt);
  return async (teamSessionId, at) => {
    try {
      const copy = await client.openTeamSession({ teamSessionId });
      await runtime.refreshSessions();
      if (at) openAt(copy.id, at.seq, at.text);
      else select(copy.id, { focusSession: true });
    } catch (error) {
      runtime.reportError('Open team session', error);
    }
  };
}

function TeamSearch(): ReactNode {
  const store = teamStoreFor(useClient());
  const search = useTeam((s) => s.search);
  const open = useOpenTeamSession();
  const [query, setQuery] = useState('');
  return (
    <div className="team-search">
      <input
        className="search"
        type="search"
        data-testid="team-search"
        placeholder="Search the team's sessions…"
        aria-label="Search the team's sessions (full text; Enter searches)"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            void store.getState().runSearch(query);
          } else if (e.key === 'Escape' && query !== '') {
            e.preventDefault();
            setQuery('');
            store.getState().clearSearch();
          }
        }}
      />
      {search && !search.hits && !search.error && <div className="muted">Searching…</div>}
      {search?.error && (
        <div className="error-text" data-testid="team-search-error">
          {failureText(search.error)}
        </div>
      )}
      {search?.hits && search.hits.length === 0 && (
        <div className="muted" data-testid="team-search-none">
          Nothing in the team's sessions matches “{search.query}”.
        </div>
      )}
      {search?.hits && search.hits.length > 0 && (
        <ul className="search-hit-list" aria-label="Matches in the team's sessions">
          {search.hits.map((hit) => {
            const parts = hit.snippet.split(/(\[\[.*?\]\])/);
            const term = parts.find((p) => p.startsWith('[['))?.slice(2, -2);
            return (
              <li key={`${hit.sessionId}:${hit.seq}`}>
                <button
                  type="button"
                  className="search-hit"
                  data-testid="team-search-hit"
                  data-team-session-id={hit.sessionId}
                  data-seq={hit.seq}
                  title={`in ${hit.owner}'s session “${hit.title ?? hit.sessionId.slice(0, 8)}” — ${hitEventTitle(hit.seq)}`}
                  onClick={() => void open(hit.sessionId, { seq: hit.seq, ...(term ? { text: term } : {}) })}
                >
                  <span className="search-hit-head">
                    <span className="search-hit-title clip">{hit.title ?? hit.sessionId.slice(0, 8)}</span>
                  </span>
                  <span className="search-hit-place muted">
                    <span className="search-hit-folder clip">by {hit.owner}</span>
                    <span className="search-hit-event" data-testid="team-search-hit-event">
                      {hitEventLabel(hit.seq)}
                    </span>
                  </span>
                  <span className="search-hit-snippet">{parts.map((p, i) => (p.startsWith('[[') ? <mark key={i}>{p.slice(2, -2)}</mark> : <span key={i}>{p}</span>))}</span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}

export function TeamSection(): ReactNode {
  const client = useClient();
  const runtime = useRuntime();
  const select = useApp((s) => s.select);
  const toast = useApp((s) => s.toast);
  const store = teamStoreFor(client);
  const status = useTeam((s) => s.status);
  const { sessions, listState, listError } = useTeam((s) => s);
  const [expanded, setExpanded] = useState(false);
  const [editing, setEditing] = useState(false);
  const [continuing, setContinuing] = useState<TeamSessionView>();

  useEffect(() => {
    if (expanded && status?.configured && listState === 'idle') void store.getState().refreshList();
  }, [expanded, status?.configured, listState, store]);

  // While the list is on screen (and the window visible): fetched again every TEAM_LIST_REFRESH_MS, quietly.
  const showing = expanded && status?.configured === true;
  useEffect(() => {
    const state = store.getState();
    state.setVisible(showing);
    if (!showing) return;
    const tick = (): void => {
      if (document.visibilityState === 'visible') void store.getState().refreshList({ quiet: true });
    };
    const timer = setInterval(tick, TEAM_LIST_REFRESH_MS);
    document.addEventListener('visibilitychange', tick);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', tick);
      store.getState().setVisible(false);
    };
  }, [showing, store]);

  if (!status) return null;
  const continueIn = async (row: TeamSessionView, cwd: string): Promise<void> => {
    setContinuing(undefined);
    try {
      const child = await client.forkTeamSession({ teamSessionId: row.id, cwd });
      await runtime.refreshSessions();
      select(child.id, { focusSession: true });
      toast(`Continued ${row.owner}'s session in ${child.cwd ?? cwd}: a live session whose history is theirs; send the next message.`, 'info');
    } catch (error) {
      runtime.reportError('Continue in a local folder', error);
    }
  };

  return (
    <section className="team-section" data-testid="team-section" aria-label="Team">
      <div className="search-hits-head team-head">
        <button type="button" className="link section-label" data-testid="team-toggle" aria-expanded={expanded} onClick={() => setExpanded(!expanded)}>
          {expanded ? '▾' : '▸'} Team
        </button>
        {expanded && status.configured && (
          <button type="button" className="link muted" data-testid="team-refresh" onClick={() => void store.getState().refreshList()}>
            Refresh
          </button>
        )}
      </div>
      <PublishStatus status={status} />
      {expanded && (
        <div className="team-body">
          {!status.configured && (
            <div className="sidebar-state" data-testid="team-not-configured">
              {status.configError ??
                'No team store is configured. Set its postgres:// connection string here (or FORKLINE_TEAM_STORE, or "teamStore" in cli.json) to see and share the team\'s sessions.'}
            </div>
          )}
          {status.configured && !editing && (
            <div className="muted team-where">
              <span className="clip" data-testid="team-store-where" title={`from ${status.source}`}>
                {status.where}
              </span>{' '}
              <button type="button" className="link" data-testid="team-store-change" onClick={() => setEditing(true)}>
                Change
              </button>
            </div>
          )}
          {(!status.configured || editing) && <StoreSettings status={status} onDone={() => setEditing(false)} />}
          {status.configured && <ShareToggle status={status} />}
          {status.configured && <TeamSearch />}
          {status.configured && listState === 'loading' && !sessions && <div className="muted">Loading the team's sessions…</div>}
          {status.configured && listState === 'error' && listError && (
            <div className="error-text" data-testid="team-error" role="alert" title={listError.message}>
              {failureText(listError)}{' '}
              <button type="button" className="link" data-testid="team-retry" onClick={() => void store.getState().refreshList()}>
                Try again
              </button>
            </div>
          )}
          {status.configured && sessions && sessions.length === 0 && (
            <div className="muted" data-testid="team-empty">
              No team sessions yet.
            </div>
          )}
          {status.configured && sessions && sessions.length > 0 && (
            <ul className="team-list" data-testid="team-session-list" aria-label="The team's sessions">
              {sessions.map((row) => (
                <TeamRow key={row.id} row={row} onContinue={setContinuing} />
              ))}
            </ul>
          )}
        </div>
      )}
      {continuing && <FolderBrowser onChoose={(path) => void continueIn(continuing, path)} onCancel={() => setContinuing(undefined)} />}
    </section>
  );
}
