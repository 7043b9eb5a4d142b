/**
 * One open session: header (title, workspace, status, tabs, view toggles; it wraps on narrow
 * windows), banners (read-only, notices from opening), the find bar, the timeline or terminal, the
 * toasts' strip, the approval panel and composer. The inspectors live in the side dock (dock/SideDock.tsx).
 */
import { lazy, Suspense, useEffect, useRef, useState, type ReactNode } from 'react';
import type { EventLog } from '../../state/event-log.js';
import { byTestId, firstOf, focusAfterRender } from '../../keyboard/focus-after-render.js';
import { mainTarget } from '../../keyboard/focus-regions.js';
import { useClient, useOpenSession, useRuntime } from '../context.js';
import { ConfirmDialog } from '../Dialog.js';
import { displayTitle } from '../../../shared/session-tree.js';
import { useApp, useSession, useTimeline } from '../context.js';
import { BranchesToggle } from '../branches/BranchPicker.js';
import { TurnOutline } from '../outline/TurnOutline.js';
import { ownFirstPrompt } from './own-prompt.js';
import { Timeline } from '../timeline/Timeline.js';
import { ReplayBanner, ReplayButton } from '../replay/ReplayViews.js';
import { ApprovalPanel } from './ApprovalPanel.js';
import { Composer } from './Composer.js';
import { Toasts } from '../Toasts.js';
import { ImportedBanner } from './ContinueImported.js';
import { SessionContextMeter } from './SessionContextMeter.js';
import { SessionMeter } from './SessionMeter.js';

/**
 * The terminal (xterm.js, about a quarter of the renderer's code) is its own chunk, loaded the first
 * time a session's terminal tab is opened: a window that never opens one never parses it.
 */
const TerminalPanel = lazy(() => import('../terminal/TerminalPanel.js').then((m) => ({ default: m.TerminalPanel })));

/** The read-only banner, with a confirmed "Take over" for a session another running Forkline holds. */
function ReadOnlyBanner(): ReactNode {
  const sessionId = useSession((s) => s.sessionId);
  const client = useClient();
  const runtime = useRuntime();
  const open = useOpenSession();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const takeOver = async (): Promise<void> => {
    setConfirming(false);
    setBusy(true);
    try {
      await client.takeOverSession({ sessionId });
      await open?.controller.resubscribe();
      await runtime.refreshSessions();
      // The banner is gone and the session is writable now.
      focusAfterRender(mainTarget);
    } catch (error) {
      runtime.reportError('Take over', error);
      focusAfterRender(byTestId('take-over'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="banner warn" data-testid="readonly-banner">
      <span>Read-only: another running Forkline owns this session. You can inspect it here but not continue it.</span>
      <button type="button" className="small" data-testid="take-over" disabled={busy} onClick={() => setConfirming(true)}>
        Take over…
      </button>
      {confirming && (
        <ConfirmDialog
          title="Take over this session?"
          message="The other Forkline stops saving this session: anything it does from now on is refused, and its unfinished turn is closed as interrupted. Do this only if that window is stuck or gone."
          confirmLabel="Take over"
          onConfirm={() => void takeOver()}
          onCancel={() => setConfirming(false)}
        />
      )}
    </div>
  );
}

function Notices(): ReactNode {
  const sessionId = useSession((s) => s.sessionId);
  const notices = useSession((s) => s.notices);
  const readOnly = useSession((s) => s.readOnly);
  const imported = useSession((s) => s.imported !== undefined);
  const dismissed = useApp((s) => s.dismissedNotices);
  const dismiss = useApp((s) => s.dismissNotice);
  // An imported session's own banner says what its notice says.
  const visible = notices.filter((n) => !dismissed[`${sessionId}:${n}`] && !(imported && n.startsWith('Imported from ')));
  return (
    <>
      <ImportedBanner />
      {readOnly && !imported && <ReadOnlyBanner />}
      {visible.map((n) => (
        <div key={n} className="banner info" data-testid="notice">
          <span>{n}</span>
          <button
            type="button"
            className="icon-button"
            data-testid="notice-dismiss"
            aria-label="Dismiss"
            onClick={() => {
              dismiss(`${sessionId}:${n}`);
              // The notice is gone: the next one's button, else the session.
              focusAfterRender(firstOf(byTestId('notice-dismiss'), mainTarget));
            }}
          >
            ✕
          </button>
        </div>
      ))}
    </>
  );
}

function Header(): ReactNode {
  const header = useSession((s) => s.header);
  const sessionId = useSession((s) => s.sessionId);
  const status = useSession((s) => s.status);
  const lastSeq = useSession((s) => s.lastSeq);
  const sessions = useApp((s) => s.sessions);
  const summary = sessions.find((x) => x.id === sessionId);
  const parentCwd = header?.parentSession ? sessions.find((x) => x.id === header.parentSession)?.cwd : undefined;
  const tab = useApp((s) => s.tab);
  const setTab = useApp((s) => s.setTab);
  const showLogEvents = useApp((s) => s.showLogEvents);
  const toggleLogEvents = useApp((s) => s.toggleLogEvents);
  const modelView = useApp((s) => s.modelView);
  const toggleModelView = useApp((s) => s.toggleModelView);
  const openFind = useApp((s) => s.openFind);
  const findOpen = useApp((s) => s.find !== undefined);
  const outlineOpen = useApp((s) => s.outlineOpen);
  const toggleOutline = useApp((s) => s.toggleOutline);
  const readOnly = useSession((s) => s.readOnly);
  // Compact and Replay have nothing to work on before the first turn (the first turn/start is near the log's start).
  const hasTurns = useSession((s) => s.startSeq > 0 || logHasTurn(s.events));
  const runtime = useRuntime();
  const [compacting, setCompacting] = useState(false);
  const compact = async (): Promise<void> => {
    setCompacting(true);
    try {
      await runtime.actions.compact(sessionId);
    } finally {
      setCompacting(false);
      // The button was disabled while the summary was written (and stays so if a turn started).
      focusAfterRender(firstOf(byTestId('compact-button'), mainTarget));
    }
  };
  const timeline = useTimeline();
  const title = displayTitle(
    {
      id: sessionId,
      title: summary?.title ?? header?.title,
      ...(header?.cwd !== undefined ? { cwd: header.cwd } : {}),
      ...(header?.parentSession !== undefined ? { parentSession: header.parentSession } : {}),
      createdAt: header?.createdAt ?? 0,
    },
    ownFirstPrompt(timeline, header?.seedLength),
    sessions,
  );
  return (
    <header className="session-header">
      <div className="session-heading">
        <span className={`status-dot ${status}`} data-testid="session-status" data-status={status} title={status} aria-hidden="true" />
        <h1 className="session-name" data-testid="session-name" title={title}>
          {title}
        </h1>
        {status === 'running' && <span className="sr-only">running</span>}
        {header?.cwd && (
          <span className="muted mono clip session-cwd" title={header.cwd}>
            {header.cwd}
          </span>
        )}
        {header?.origin?.kind === 'imported' && (
          <span className="badge badge-muted" data-testid="session-imported-badge" title={`imported from ${header.origin.format}${header.origin.file ? ` (${header.origin.file})` : ''}`}>
            imported
          </span>
        )}
        {header?.parentSession && (
          <span className="badge badge-info" title={`forked from ${header.parentSession} at seq ${header.seedLength ?? '?'}`}>
            fork
          </span>
        )}
        {header?.parentSession && parentCwd !== undefined && header.cwd !== undefined && header.cwd !== parentCwd && (
          <span className="badge badge-info" data-testid="session-own-folder" title={`this fork works in its own folder; its parent works in ${parentCwd}`}>
            own folder
          </span>
        )}
        <SessionMeter sessionId={sessionId} summary={summary} readOnly={readOnly} />
        <SessionContextMeter />
        <span className="muted mono session-events">{lastSeq + 1} events</span>
      </div>
      <div className="session-toolbar">
        <div className="tabs" role="tablist" aria-label="Session view">
          <button type="button" role="tab" aria-selected={tab === 'timeline'} className={tab === 'timeline' ? 'active' : ''} data-testid="tab-timeline" onClick={() => setTab('timeline')}>
            Timeline
          </button>
          <button type="button" role="tab" aria-selected={tab === 'terminal'} className={tab === 'terminal' ? 'active' : ''} data-testid="tab-terminal" onClick={() => setTab('terminal')}>
            Terminal
          </button>
        </div>
        <span className="spacer" />
        <div className="toolbar-group">
          <button
            type="button"
            className={`small${findOpen ? ' active' : ''}`}
            data-testid="find-button"
            title="Find in this session (every row, also those not on screen) — Ctrl/Cmd+F"
            aria-pressed={findOpen}
            onClick={openFind}
          >
            Find
          </button>
          <button
            type="button"
            className={`small${outlineOpen ? ' active' : ''}`}
            data-testid="outline-button"
            title="Outline of the turns, to jump with"
            aria-pressed={outlineOpen}
            onClick={toggleOutline}
          >
            Outline
          </button>
          <label className="toggle-label" title="Show log-only events (request headers, inbox, titles…)">
            <input type="checkbox" data-testid="toggle-log-events" checked={showLogEvents} onChange={toggleLogEvents} /> log events
          </label>
          <label className="toggle-label" title="Show exactly what the model sees next: the summary in force, then the messages after it">
            <input type="checkbox" data-testid="toggle-model-view" checked={modelView} onChange={toggleModelView} /> model view
          </label>
          <button
            type="button"
            className="small"
            data-testid="compact-button"
            title={
              readOnly
                ? 'Read-only session: nothing can be compacted here'
                : !hasTurns
                  ? 'Nothing to compact yet: the session has no turns'
                  : 'Replace the oldest part of what the model sees with a summary (nothing is deleted)'
            }
            disabled={compacting || readOnly || status === 'running' || !hasTurns}
            onClick={() => void compact()}
          >
            Compact
          </button>
          <ReplayButton hasTurns={hasTurns} />
          <BranchesToggle />
        </div>
      </div>
    </header>
  );
}

/**
 * Focus asked for with `select(id, { focusSession: true })` (opened from the list, created, forked,
 * continued): once the session is loaded, its composer — or its timeline when it is read-only.
 */
function useFocusRequest(): void {
  const sessionId = useSession((s) => s.sessionId);
  const ready = useSession((s) => s.phase !== 'loading');
  const requested = useApp((s) => s.focusSessionFor === sessionId);
  const sessionFocused = useApp((s) => s.sessionFocused);
  const cancel = useRef<() => void>(undefined);
  useEffect(() => {
    if (!requested || !ready) return;
    // The session row (or the button) that opened it may still hold focus; the session takes it.
    cancel.current = focusAfterRender(mainTarget, { from: document.activeElement });
    sessionFocused();
  }, [requested, ready, sessionFocused]);
  useEffect(() => () => cancel.current?.(), []);
}

export function SessionView(): ReactNode {
  useFocusRequest();
  const tab = useApp((s) => s.tab);
  const outlineOpen = useApp((s) => s.outlineOpen);
  // The terminal stays mounted once opened, so switching tabs keeps its shell.
  const [terminalOpened, setTerminalOpened] = useState(false);
  if (tab === 'terminal' && !terminalOpened) setTerminalOpened(true);
  return (
    <div className="session-view" data-testid="session-view">
      <Header />
      <ReplayBanner />
      <Notices />
      <div className="session-body">
        {outlineOpen && tab === 'timeline' && <TurnOutline />}
        <div className="session-main">
          <div className={`tab-pane${tab === 'timeline' ? '' : ' hidden'}`}>
            <Timeline />
          </div>
          {terminalOpened && (
            <div className={`tab-pane${tab === 'terminal' ? '' : ' hidden'}`}>
              <Suspense
                fallback={
                  <div className="terminal-loading" role="status">
                    Opening the terminal…
                  </div>
                }
              >
                <TerminalPanel />
              </Suspense>
            </div>
          )}
          {/* Their own strip between the timeline and the composer: a toast never covers a row or Send. */}
          <Toasts />
          <ApprovalPanel />
          <Composer />
        </div>
      </div>
    </div>
  );
}

/** Whether `log` holds a `turn/start` (stops at the first: it is near the start of any log that has one). */
function logHasTurn(log: EventLog): boolean {
  for (let i = 0; i < log.length; i++) if (log.bySeq(log.baseSeq + i)?.type === 'turn/start') return true;
  return false;
}
