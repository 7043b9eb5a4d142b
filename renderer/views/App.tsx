/** The window: connection banner, sidebar, the selected session or the compare view, the branch picker, settings dialog, toasts. */
import type { ReactNode } from 'react';
import { BranchPicker } from './branches/BranchPicker.js';
import { CompareView } from './compare/CompareView.js';
import { ConnectionBanner } from './ConnectionBanner.js';
import { SessionScope, useApp, useOpenSession } from './context.js';
import { SessionView } from './session/SessionView.js';
import { SettingsDialog } from './settings/SettingsDialog.js';
import { Sidebar } from './sidebar/Sidebar.js';
import { ImportDropZone } from './import/ImportDropZone.js';
import { Toasts } from './Toasts.js';

function Main(): ReactNode {
  const session = useOpenSession();
  const selectedId = useApp((s) => s.selectedId);
  const compare = useApp((s) => s.compare);
  if (compare) return <CompareView key={`${compare.a}:${compare.b}`} a={compare.a} b={compare.b} />;
  if (!selectedId) {
    return (
      <div className="welcome" data-testid="welcome">
        <h1>Forkline</h1>
        <p>Open a session on the left, start a new one in a folder, or import a session log to inspect it — drop a Claude Code, Codex, OpenHands, DeepSeek Harness or Forkline log anywhere on this window.</p>
      </div>
    );
  }
  if (!session) {
    return (
      <div className="timeline-state" data-testid="timeline-loading">
        Opening session…
      </div>
    );
  }
  return <SessionView key={session.controller.sessionId} />;
}

export function App(): ReactNode {
  const selectedId = useApp((s) => s.selectedId);
  const settingsOpen = useApp((s) => s.settingsOpen);
  const branchesOpen = useApp((s) => s.branchesOpen);
  return (
    <div className="app" data-testid="app">
      <ConnectionBanner />
      <SessionScope sessionId={selectedId}>
        <div className="app-body">
          <Sidebar />
          <main className="main">
            <Main />
          </main>
          {branchesOpen && <BranchPicker />}
        </div>
      </SessionScope>
      {settingsOpen && <SettingsDialog />}
      <ImportDropZone />
      <Toasts />
    </div>
  );
}
