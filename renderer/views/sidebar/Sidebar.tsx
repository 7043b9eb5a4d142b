/**
 * The session sidebar: search by title, New session (native folder dialog, else the folder
 * browser), import (.jsonl), and the sessions as a lineage tree (fork children indented under
 * their parent) with a running/idle dot and per-row rename / fork / export / delete.
 */
import { memo, useMemo, useRef, useState, type ReactNode } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { SessionSummary } from '../../../shared/api.js';
import { displayTitle, sessionTree, type SessionTreeRow } from '../../../shared/session-tree.js';
import { useApp, useClient, useOpenSession, useRuntime, useTimeline } from '../context.js';
import { ConfirmDialog } from '../Dialog.js';
import { DeleteIcon, ExportIcon, ForkIcon, RenameIcon, ThemeIcon } from '../icons.js';
import { useImportFiles } from '../import/use-import-files.js';
import { FolderBrowser } from './FolderBrowser.js';
import { SearchHits } from './SearchHits.js';
import { SessionActivityBadge } from './SessionActivityBadge.js';

/** The selected session's logged title or first user message (title fallback); only inside a session scope. */
function SelectedFirstMessage({ onText }: { readonly onText: (text: string | undefined) => ReactNode }): ReactNode {
  const timeline = useTimeline();
  return onText(timeline.title ?? timeline.firstUserText);
}

function download(fileName: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/x-ndjson' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

interface RowProps {
  readonly item: SessionTreeRow;
  readonly selected: boolean;
  readonly title: string;
}

const SessionRow = memo(function SessionRow({ item, selected, title }: RowProps): ReactNode {
  const { session, depth } = item;
  const client = useClient();
  const runtime = useRuntime();
  const select = useApp((s) => s.select);
  const [renaming, setRenaming] = useState(false);
  const [draft, setDraft] = useState('');
  const [confirmDelete, setConfirmDelete] = useState(false);

  const act = async (label: string, fn: () => Promise<void>): Promise<void> => {
    try {
      await fn();
    } catch (error) {
      runtime.reportError(label, error);
    }
  };
  const rename = (): Promise<void> =>
    act('Rename', async () => {
      const t = draft.trim();
      setRenaming(false);
      if (!t || t === session.title) return;
      await client.renameSession({ sessionId: session.id, title: t });
      await runtime.refreshSessions();
    });
  const fork = (): Promise<void> =>
    act('Fork', async () => {
      const child = await client.forkSession({ sessionId: session.id });
      await runtime.refreshSessions();
      select(child.id);
    });
  const exportJsonl = (): Promise<void> =>
    act('Export', async () => {
      const { fileName, jsonl } = await client.exportSession({ sessionId: session.id });
      download(fileName, jsonl);
    });
  const remove = (): Promise<void> =>
    act('Delete', async () => {
      setConfirmDelete(false);
      await client.deleteSession({ sessionId: session.id });
      if (runtime.app.getState().selectedId === session.id) select(undefined);
      await runtime.refreshSessions();
    });

  return (
    <li
      className={`session-row${selected ? ' selected' : ''}${item.contextOnly ? ' context-only' : ''}`}
      data-testid="session-row"
      data-session-id={session.id}
      data-status={session.status}
      data-depth={depth}
      aria-selected={selected}
      style={{ paddingLeft: 8 + depth * 14 }}
      onClick={() => select(session.id)}
    >
      {depth > 0 && <span className="lineage" aria-hidden="true">└</span>}
      <span className={`status-dot ${session.status}`} data-testid="session-status-dot" title={session.status === 'running' ? 'running' : 'idle'} />
      {renaming ? (
        <input
          className="rename-input"
          data-testid="session-rename-input"
          autoFocus
          value={draft}
          onClick={(e) => e.stopPropagation()}
          onChange={(e) => setDraft(e.target.value)}
          onBlur={() => void rename()}
          onKeyDown={(e) => {
            if (e.key === 'Enter') void rename();
            if (e.key === 'Escape') setRenaming(false);
          }}
        />
      ) : (
        <span className="session-title" data-testid="session-title" title={`${title}\n${session.cwd ?? ''}\n${session.eventCount} events`}>
          {title}
        </span>
      )}
      <SessionActivityBadge session={session} />
      {session.ownedElsewhere && <span className="badge badge-muted" title="Another Forkline owns this session">read-only</span>}
      {session.origin?.kind === 'imported' && (
        <span className="badge badge-muted" data-testid="session-imported" title={`imported from ${session.origin.format}: read-only; open it to continue it in Forkline`}>
          {session.origin.format}
        </span>
      )}
      <span className="row-actions" onClick={(e) => e.stopPropagation()}>
        <button
          type="button"
          className="icon-button"
          data-testid="session-rename-button"
          title="Rename" aria-label="Rename"
          onClick={() => {
            setDraft(session.title ?? title);
            setRenaming(true);
          }}
        >
          <RenameIcon />
        </button>
        {session.origin?.kind !== 'imported' && (
          <button type="button" className="icon-button" data-testid="session-fork-button" title="Fork at the last closed turn" aria-label="Fork" onClick={() => void fork()}>
            <ForkIcon />
          </button>
        )}
        <button type="button" className="icon-button" data-testid="session-export-button" title="Export JSONL" aria-label="Export JSONL" onClick={() => void exportJsonl()}>
          <ExportIcon />
        </button>
        <button type="button" className="icon-button danger" data-testid="session-delete-button" title="Delete" aria-label="Delete" onClick={() => setConfirmDelete(true)}>
          <DeleteIcon />
        </button>
      </span>
      {confirmDelete && (
        <ConfirmDialog
          title="Delete session"
          message={
            <>
              Delete <b>{title}</b> and its {session.eventCount} events? This cannot be undone.
            </>
          }
          confirmLabel="Delete"
          onConfirm={() => void remove()}
          onCancel={() => setConfirmDelete(false)}
        />
      )}
    </li>
  );
});

const SessionList = memo(function SessionList({ firstMessage }: { readonly firstMessage: string | undefined }): ReactNode {
  const { sessions, state, error, search, selectedId } = useApp(
    useShallow((s) => ({ sessions: s.sessions, state: s.sessionsState, error: s.sessionsError, search: s.search, selectedId: s.selectedId })),
  );
  const titles = useMemo(() => (selectedId && firstMessage ? new Map([[selectedId, firstMessage]]) : new Map<string, string>()), [selectedId, firstMessage]);
  const tree = useMemo(() => sessionTree(sessions, search, titles), [sessions, search, titles]);
  if (state === 'error' && sessions.length === 0) {
    return (
      <div className="sidebar-state error" data-testid="sidebar-error">
        Could not list sessions: {error}
      </div>
    );
  }
  if ((state === 'loading' || state === 'idle') && sessions.length === 0) {
    return (
      <div className="sidebar-state" data-testid="sidebar-loading">
        Loading sessions…
      </div>
    );
  }
  if (sessions.length === 0) {
    return (
      <div className="sidebar-state" data-testid="sidebar-empty">
        No sessions yet. Start one with <b>New session</b> or import a .jsonl log.
      </div>
    );
  }
  if (tree.length === 0) {
    return (
      <div className="sidebar-state" data-testid="sidebar-empty">
        No session title matches “{search}”.
      </div>
    );
  }

  return (
    <ul className="session-list" data-testid="session-list">
      {tree.map((item) => (
        <SessionRow key={item.session.id} item={item} selected={item.session.id === selectedId} title={displayTitle(item.session, titles.get(item.session.id))} />
      ))}
    </ul>
  );
});

export function Sidebar(): ReactNode {
  const client = useClient();
  const runtime = useRuntime();
  const search = useApp((s) => s.search);
  const setSearch = useApp((s) => s.setSearch);
  const select = useApp((s) => s.select);
  const open = useOpenSession();
  const [browsing, setBrowsing] = useState(false);
  const [creating, setCreating] = useState(false);
  const fileRef = useRef<HTMLInputElement>(null);
  const theme = useApp((s) => s.theme);
  const setTheme = useApp((s) => s.setTheme);
  const toggleTheme = (): void => setTheme(theme === 'dark' ? 'light' : 'dark');

  const create = async (cwd: string): Promise<void> => {
    setBrowsing(false);
    try {
      const summary: SessionSummary = await client.createSession({ cwd });
      await runtime.refreshSessions();
      select(summary.id);
    } catch (error) {
      runtime.reportError('New session', error);
    }
  };

  const newSession = async (): Promise<void> => {
    setCreating(true);
    try {
      const chosen = await client.chooseWorkspace({});
      if (chosen) await create(chosen.path);
      else setBrowsing(true);
    } catch (error) {
      runtime.reportError('Choose folder', error);
    } finally {
      setCreating(false);
    }
  };

  const importFiles = useImportFiles();

  const list = (firstMessage: string | undefined): ReactNode => <SessionList firstMessage={firstMessage} />;

  return (
    <nav className="sidebar" data-testid="sidebar" aria-label="Sessions">
      <div className="sidebar-head">
        <span className="brand">Forkline</span>
        <span className="spacer" />
        <button type="button" className="icon-button" data-testid="theme-toggle" title="Switch light/dark theme" aria-label="Switch theme" onClick={toggleTheme}>
          <ThemeIcon />
        </button>
        <button type="button" className="primary small" data-testid="new-session-button" disabled={creating} onClick={() => void newSession()}>
          New session
        </button>
      </div>
      <div className="sidebar-tools">
        <input className="search" type="search" placeholder="Search sessions and messages" data-testid="sidebar-search" value={search} onChange={(e) => setSearch(e.target.value)} aria-label="Search session titles, messages and tool output" />
        <button
          type="button"
          className="small"
          data-testid="import-session-button"
          title="Import session logs: Claude Code, Codex, OpenHands, DeepSeek Harness or Forkline (or drop them on the window)"
          onClick={() => fileRef.current?.click()}
        >
          Import
        </button>
        <input
          ref={fileRef}
          type="file"
          multiple
          accept=".jsonl,.json,application/x-ndjson,application/jsonl,application/json,text/plain"
          hidden
          data-testid="import-session-input"
          onChange={(e) => {
            const files = Array.from(e.target.files ?? []);
            e.target.value = '';
            if (files.length > 0) void importFiles(files);
          }}
        />
      </div>
      <div className="sidebar-scroll">
        {open ? <SelectedFirstMessage onText={list} /> : list(undefined)}
        <SearchHits query={search} />
      </div>
      {browsing && <FolderBrowser onChoose={(path) => void create(path)} onCancel={() => setBrowsing(false)} />}
    </nav>
  );
}
