/**
 * The window: connection banner (or the token page), sidebar, the selected session / compare view /
 * start screen, the side dock, the keyboard layer (shortcuts and command palette), and the dialogs
 * (folder browser, provider setup, settings); the toasts' strip sits in the main area (Toasts.tsx).
 */
import { useEffect, type ReactNode } from 'react';
import { byTestId, focusAfterRender } from '../keyboard/focus-after-render.js';
import { regionTarget } from '../keyboard/focus-regions.js';
import { BoardView } from './compare/BoardView.js';
import { CompareView } from './compare/CompareView.js';
import { ConnectionBanner } from './ConnectionBanner.js';
import { SessionScope, useApp, useOpenSession, useRuntime } from './context.js';
import { Dialog } from './Dialog.js';
import { SideDock } from './dock/SideDock.js';
import { KeyboardLayer } from './keyboard/KeyboardLayer.js';
import { SessionView } from './session/SessionView.js';
import { SettingsDialog } from './settings/SettingsDialog.js';
import { ExportBundleDialog } from './sidebar/ExportBundleDialog.js';
import { ProviderSetup } from './setup/ProviderSetup.js';
import { FolderBrowser } from './sidebar/FolderBrowser.js';
import { Sidebar } from './sidebar/Sidebar.js';
import { ImportDropZone } from './import/ImportDropZone.js';
import { StartScreen } from './start/StartScreen.js';
import { ToastAnnouncer, Toasts } from './Toasts.js';
import { TokenPage } from './TokenPage.js';
import { MarkdownWarmup } from './markdown/Markdown.js';

/**
 * The compare view or board opening moves focus into it (README "Keyboard"), also when the control
 * that opened it stays on screen (the branch panel's "compare" beside the new view): the view's own
 * mount effect only takes focus that was lost, so this hands it over from the opener.
 */
function useFocusOpenedView(key: string | undefined): void {
  useEffect(() => {
    if (key === undefined) return;
    const opener = document.activeElement;
    if (!(opener instanceof HTMLElement) || opener === document.body || opener.closest('[data-region="compare"]')) return;
    return focusAfterRender(regionTarget('compare'), { from: opener });
  }, [key]);
}

/** The main area's view; a session's own view places the toasts' strip above its composer, the others get it at their bottom. */
function Main(): ReactNode {
  const session = useOpenSession();
  const selectedId = useApp((s) => s.selectedId);
  const compare = useApp((s) => s.compare);
  const board = useApp((s) => s.board);
  useFocusOpenedView(board ? `board:${board.ids.join(':')}` : compare ? `compare:${compare.a}:${compare.b}` : undefined);
  let view: ReactNode;
  if (board)
    view = (
      <BoardView key={board.ids.join(':')} ids={board.ids} {...(board.fanoutId !== undefined ? { fanoutId: board.fanoutId } : {})} {...(board.check !== undefined ? { check: board.check } : {})} />
    );
  else if (compare) view = <CompareView key={`${compare.a}:${compare.b}`} a={compare.a} b={compare.b} />;
  else if (!selectedId) view = <StartScreen />;
  else if (!session)
    view = (
      <div className="timeline-state" data-testid="timeline-loading">
        Opening session…
      </div>
    );
  else return <SessionView key={session.controller.sessionId} />;
  return (
    <>
      <div className="main-view">{view}</div>
      <Toasts />
    </>
  );
}

/** The setup card as a dialog, for a send from an open session (the start screen shows it inline). */
function SetupDialog(): ReactNode {
  const runtime = useRuntime();
  const openSetup = useApp((s) => s.openSetup);
  const reason = useApp((s) => s.setupReason);
  const close = (): void => {
    runtime.actions.dropPending();
    openSetup(false);
  };
  return (
    <Dialog title="Set up a model provider" testId="provider-setup-dialog" onClose={close} wide>
      <div data-testid="provider-setup">
        <p className="muted">
          {reason === 'send'
            ? 'No working model provider is set up, so nothing was sent — your message stays in the composer. Set one up here, then send it again.'
            : 'Choose the provider and model new turns use; it is tested before it is saved.'}
        </p>
        <ProviderSetup
          onConfigured={() => {
            void runtime.actions.providerConfigured();
            focusAfterRender(byTestId('composer-input'));
          }}
        />
      </div>
    </Dialog>
  );
}

export function App(): ReactNode {
  const runtime = useRuntime();
  const selectedId = useApp((s) => s.selectedId);
  const compare = useApp((s) => s.compare);
  const settingsOpen = useApp((s) => s.settingsOpen);
  const folderBrowserOpen = useApp((s) => s.folderBrowserOpen);
  const openFolderBrowser = useApp((s) => s.openFolderBrowser);
  const setupOpen = useApp((s) => s.setupOpen);
  const refused = useApp((s) => s.connection.refused);
  if (refused) return <TokenPage reason={refused} />;
  const onStartScreen = selectedId === undefined && compare === undefined;
  return (
    <div className="app" data-testid="app">
      <ConnectionBanner />
      <SessionScope sessionId={selectedId}>
        <div className="app-body">
          <Sidebar />
          <main className="main" id="main">
            <Main />
          </main>
          <SideDock />
        </div>
        <KeyboardLayer />
      </SessionScope>
      {folderBrowserOpen && (
        <FolderBrowser
          onChoose={(path) => void runtime.actions.createSession(path)}
          onCancel={() => {
            openFolderBrowser(false);
            // The button that opened it was disabled meanwhile, so the dialog may have nothing to hand focus back to.
            focusAfterRender(byTestId('new-session-button', 'rail-new-session'));
          }}
        />
      )}
      {setupOpen && !onStartScreen && <SetupDialog />}
      {settingsOpen && <SettingsDialog />}
      <ExportBundleDialog />
      <ImportDropZone />
      <ToastAnnouncer />
      <MarkdownWarmup />
    </div>
  );
}
