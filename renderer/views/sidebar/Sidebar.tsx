/**
 * The session sidebar: New session (native folder dialog, else the folder browser), import
 * (.jsonl), title search, and the sessions as a lineage tree (fork children indented under their
 * parent) with a running/idle dot and per-row rename / fork / export / delete. Collapsible to a
 * narrow rail (Ctrl/Cmd+B).
 *
 * Keyboard: the list is one Tab stop (roving tabindex); ↑/↓/Home/End move between sessions, Enter
 * opens one, F2 renames it, Delete asks to delete it, Tab reaches the focused row's buttons; ↓ in
 * the search field enters the list, and ↓ on its last row enters the search results (SearchHits.tsx,
 * an F6 area of their own), as ↓ in the field does when no title matches.
 */
import { memo, useEffect, useLayoutEffect, useMemo, useRef, useState, type FocusEvent, type KeyboardEvent, type ReactNode } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { displayTitle, folderHints, sessionTree } from '../../../shared/session-tree.js';
import { SHORTCUTS } from '../../keyboard/commands.js';
import { byTestId, focusAfterRender } from '../../keyboard/focus-after-render.js';
import { shortcutLabel } from '../../keyboard/shortcut.js';
import { useApp, useOpenSession, useRuntime, useSession, useTimeline } from '../context.js';
import { ownFirstPrompt } from '../session/own-prompt.js';
import { CommandIcon, GearIcon, PlusIcon, SidebarIcon, ThemeIcon } from '../icons.js';
import { useImportFiles, useImportFolder } from '../import/use-import-files.js';
import { PLATFORM } from '../keyboard/use-commands.js';
import { SearchHits } from './SearchHits.js';
import { focusRow, SessionRow } from './SessionRow.js';
import { TeamSection } from '../team/TeamSection.js';
import { ROOMY_WIDTH, sidebarFolded, sidebarFoldedForRoom } from '../../state/app-store.js';

/**
 * Reports the selected session's own first prompt (title fallback; a fork's is the first after its
 * fork point); only inside a session scope. It renders nothing, so the list beside it keeps its place
 * in the tree (and its focus) while a session opens.
 */
function SelectedFirstMessage({ onText }: { readonly onText: (text: string | undefined) => void }): ReactNode {
  const timeline = useTimeline();
  const seedLength = useSession((s) => s.header?.seedLength);
  const text = ownFirstPrompt(timeline, seedLength);
  useEffect(() => onText(text), [onText, text]);
  useEffect(() => () => onText(undefined), [onText]);
  return null;
}

/** The search results' Tab stop inside the sidebar `nav`, when a search shows hits. */
function searchHitStop(nav: Element | null | undefined): HTMLElement | null | undefined {
  return nav?.querySelector<HTMLElement>('[data-testid="search-hit"][tabindex="0"]');
}

const SessionList = memo(function SessionList({ firstMessage }: { readonly firstMessage: string | undefined }): ReactNode {
  const { sessions, state, error, search, selectedId } = useApp(
    useShallow((s) => ({ sessions: s.sessions, state: s.sessionsState, error: s.sessionsError, search: s.search, selectedId: s.selectedId })),
  );
  const editSession = useApp((s) => s.editSession);
  const titles = useMemo(() => (selectedId && firstMessage ? new Map([[selectedId, firstMessage]]) : new Map<string, string>()), [selectedId, firstMessage]);
  const tree = useMemo(() => sessionTree(sessions, search, titles), [sessions, search, titles]);
  // Row titles, and the folder of rows whose titles read alike (the same task in two folders).
  const { rowTitles, folders } = useMemo(() => {
    const shown = new Map(tree.map((item) => [item.session.id, displayTitle(item.session, titles.get(item.session.id), sessions)]));
    return {
      rowTitles: shown,
      folders: folderHints(
        tree.map((item) => item.session),
        (id) => shown.get(id) ?? id,
      ),
    };
  }, [tree, titles, sessions]);
  const [focusId, setFocusId] = useState<string | undefined>();
  const listRef = useRef<HTMLUListElement>(null);
  // The Tab stop: the row last moved to, else the open session, else the first row.
  const activeId = tree.some((r) => r.session.id === focusId) ? focusId : tree.some((r) => r.session.id === selectedId) ? selectedId : tree[0]?.session.id;

  const onKeyDown = (e: KeyboardEvent<HTMLUListElement>): void => {
    const button = (e.target as HTMLElement).closest<HTMLElement>('[data-testid="session-open"]');
    const id = button?.dataset['sessionId'];
    if (!id) return;
    const i = tree.findIndex((r) => r.session.id === id);
    let next: number | undefined;
    if (e.key === 'ArrowDown' && i === tree.length - 1) {
      // Below the last session: the search results' Tab stop, when a search shows some.
      e.preventDefault();
      searchHitStop(listRef.current?.closest('nav'))?.focus();
      return;
    }
    if (e.key === 'ArrowDown') next = Math.min(tree.length - 1, i + 1);
    else if (e.key === 'ArrowUp') next = Math.max(0, i - 1);
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = tree.length - 1;
    else if (e.key === 'F2') {
      e.preventDefault();
      editSession({ sessionId: id, kind: 'rename' });
      return;
    } else if (e.key === 'Delete') {
      e.preventDefault();
      editSession({ sessionId: id, kind: 'delete' });
      return;
    }
    if (next === undefined) return;
    e.preventDefault();
    const target = tree[next]!.session.id;
    setFocusId(target);
    focusRow(listRef.current, target);
  };

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
  const onFocus = (e: FocusEvent<HTMLUListElement>): void => {
    const id = (e.target as HTMLElement).closest<HTMLElement>('[data-session-id]')?.dataset['sessionId'];
    if (id && id !== activeId) setFocusId(id);
  };
  return (
    <ul className="session-list" data-testid="session-list" aria-label="Sessions" aria-describedby="session-list-keys" ref={listRef} onKeyDown={onKeyDown} onFocus={onFocus}>
      {tree.map((item) => (
        <SessionRow
          key={item.session.id}
          item={item}
          selected={item.session.id === selectedId}
          active={item.session.id === activeId}
          title={rowTitles.get(item.session.id) ?? item.session.id}
          {...(folders.has(item.session.id) ? { folder: folders.get(item.session.id)! } : {})}
        />
      ))}
    </ul>
  );
});

/** Tells the store whether the window is narrower than {@link ROOMY_WIDTH} (then an open side panel folds the sidebar). */
function useNarrowWindow(): void {
  const setLayoutFacts = useApp((s) => s.setLayoutFacts);
  useLayoutEffect(() => {
    const query = window.matchMedia(`(max-width: ${ROOMY_WIDTH - 0.02}px)`);
    const update = (): void => setLayoutFacts({ narrowWindow: query.matches });
    update();
    query.addEventListener('change', update);
    return () => query.removeEventListener('change', update);
  }, [setLayoutFacts]);
}

/** The collapsed sidebar: a narrow rail of icon buttons. */
function SidebarRail(): ReactNode {
  const runtime = useRuntime();
  const setCollapsed = useApp((s) => s.setSidebarCollapsed);
  const forRoom = useApp(sidebarFoldedForRoom);
  const openSettings = useApp((s) => s.openSettings);
  const openPalette = useApp((s) => s.openPalette);
  return (
    <nav className="sidebar-rail" data-testid="sidebar-rail" aria-label="Sessions (collapsed)" data-region="sessions" data-for-room={forRoom ? 'true' : 'false'}>
      <button
        type="button"
        className="icon-button"
        data-testid="sidebar-expand"
        data-focus-default=""
        title={
          forRoom
            ? `Folded to give the timeline room beside the side panel. Show the sidebar (${shortcutLabel(SHORTCUTS.sidebar, PLATFORM)}); it then stays open until the window is wide again`
            : `Show the sidebar (${shortcutLabel(SHORTCUTS.sidebar, PLATFORM)})`
        }
        aria-label={forRoom ? 'Show the sidebar (folded to give the timeline room)' : 'Show the sidebar'}
        onClick={() => setCollapsed(false)}
      >
        <SidebarIcon />
      </button>
      <button
        type="button"
        className="icon-button"
        data-testid="rail-new-session"
        title={`New session (${shortcutLabel(SHORTCUTS.newSession, PLATFORM)})`}
        aria-label="New session"
        onClick={() => void runtime.actions.newSession()}
      >
        <PlusIcon />
      </button>
      <button type="button" className="icon-button" title={`Commands (${shortcutLabel(SHORTCUTS.palette, PLATFORM)})`} aria-label="Commands" onClick={() => openPalette(true)}>
        <CommandIcon />
      </button>
      <button type="button" className="icon-button" title="Settings" aria-label="Settings" onClick={() => openSettings(true)}>
        <GearIcon />
      </button>
    </nav>
  );
}

export function Sidebar(): ReactNode {
  const runtime = useRuntime();
  const collapsed = useApp(sidebarFolded);
  const setCollapsed = useApp((s) => s.setSidebarCollapsed);
  useNarrowWindow();
  const search = useApp((s) => s.search);
  const setSearch = useApp((s) => s.setSearch);
  const openSettings = useApp((s) => s.openSettings);
  const open = useOpenSession();
  const [creating, setCreating] = useState(false);
  const fileRef = useRef<HTMLInputElement>(null);
  const navRef = useRef<HTMLElement>(null);
  const theme = useApp((s) => s.theme);
  const setTheme = useApp((s) => s.setTheme);
  const toggleTheme = (): void => setTheme(theme === 'dark' ? 'light' : 'dark');

  const [firstMessage, setFirstMessage] = useState<string | undefined>();

  const newSession = async (): Promise<void> => {
    setCreating(true);
    try {
      await runtime.actions.newSession();
    } finally {
      setCreating(false);
      // The button was disabled meanwhile; unless a dialog or the new session took focus, it gets it back.
      focusAfterRender(byTestId('new-session-button'));
    }
  };

  // Hiding or showing the sidebar removes the button that did it: the one that undoes it takes focus.
  const wasCollapsed = useRef(collapsed);
  useEffect(() => {
    if (wasCollapsed.current === collapsed) return;
    wasCollapsed.current = collapsed;
    return focusAfterRender(byTestId(collapsed ? 'sidebar-expand' : 'sidebar-collapse'));
  }, [collapsed]);

  const importFiles = useImportFiles();
  const importFolder = useImportFolder();

  const importInput = (
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
  );
  // A folder of JSON files (Cline / Roo Code tasks, opencode storage): `webkitdirectory` is not in React's typings.
  const folderInput = (
    <input
      type="file"
      hidden
      data-testid="import-folder-input"
      ref={(el) => el?.setAttribute('webkitdirectory', '')}
      onChange={(e) => {
        const files = Array.from(e.target.files ?? []);
        e.target.value = '';
        if (files.length > 0) void importFolder(files);
      }}
    />
  );

  if (collapsed) {
    return (
      <>
        <SidebarRail />
        {importInput}
        {folderInput}
      </>
    );
  }

  return (
    <nav className="sidebar" data-testid="sidebar" aria-label="Sessions" data-region="sessions" ref={navRef}>
      <div className="sidebar-head">
        <span className="brand">Forkline</span>
        <span className="spacer" />
        <button type="button" className="icon-button" data-testid="theme-toggle" title="Switch light/dark theme" aria-label="Switch theme" onClick={toggleTheme}>
          <ThemeIcon />
        </button>
        <button
          type="button"
          className="icon-button"
          data-testid="settings-button"
          title={`Settings (${shortcutLabel(SHORTCUTS.settings, PLATFORM)})`}
          aria-label="Settings"
          onClick={() => openSettings(true)}
        >
          <GearIcon />
        </button>
        <button
          type="button"
          className="icon-button"
          data-testid="sidebar-collapse"
          title={`Hide the sidebar (${shortcutLabel(SHORTCUTS.sidebar, PLATFORM)})`}
          aria-label="Hide the sidebar"
          onClick={() => setCollapsed(true)}
        >
          <SidebarIcon />
        </button>
      </div>
      <div className="sidebar-tools">
        <button
          type="button"
          className="primary small new-session"
          data-testid="new-session-button"
          data-focus-fallback=""
          disabled={creating}
          title={`New session (${shortcutLabel(SHORTCUTS.newSession, PLATFORM)})`}
          onClick={() => void newSession()}
        >
          <PlusIcon /> New session
        </button>
        <button
          type="button"
          className="small"
          data-testid="import-session-button"
          title="Import session logs: Claude Code, Codex, Gemini CLI, OpenHands, DeepSeek Harness or Forkline (or drop them on the window)"
          onClick={() => fileRef.current?.click()}
        >
          Import
        </button>
        <button
          type="button"
          className="small"
          data-testid="import-folder-button"
          title="Import a session folder: a Cline / Roo Code task folder (or their tasks folder), or opencode's storage folder"
          aria-label="Import a session folder"
          onClick={() => document.querySelector<HTMLInputElement>('[data-testid="import-folder-input"]')?.click()}
        >
          Folder…
        </button>
        {importInput}
        {folderInput}
      </div>
      <div className="sidebar-search">
        <input
          className="search"
          type="search"
          placeholder="Search…"
          data-testid="sidebar-search"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          aria-label="Search session titles, messages and tool output"
          onKeyDown={(e) => {
            if (e.key === 'ArrowDown') {
              e.preventDefault();
              (navRef.current?.querySelector<HTMLElement>('[data-testid="session-open"][tabindex="0"]') ?? searchHitStop(navRef.current))?.focus();
            }
          }}
        />
      </div>
      <div className="sidebar-scroll">
        {open && <SelectedFirstMessage onText={setFirstMessage} />}
        <SessionList firstMessage={open ? firstMessage : undefined} />
        <SearchHits query={search} />
        <TeamSection />
      </div>
      <p className="sr-only" id="session-list-keys">
        Arrow keys move between sessions, Enter opens one, F2 renames it, Delete deletes it. Below the last session come the matches in messages, when a search shows some.
      </p>
    </nav>
  );
}
