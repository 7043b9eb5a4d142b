/**
 * The start screen (nothing open): the provider setup card when no working provider is configured
 * (first run) or a send is waiting for one, and a composer that starts a session in a folder — a
 * recent workspace or one chosen in the folder browser — with its first prompt (which becomes the
 * session's title). Settings, import and the command palette are reachable from here.
 */
import { useMemo, useState, type KeyboardEvent, type ReactNode } from 'react';
import { SHORTCUTS } from '../../keyboard/commands.js';
import { byTestId, focusAfterRender } from '../../keyboard/focus-after-render.js';
import { shortcutLabel } from '../../keyboard/shortcut.js';
import { providerReadiness } from '../../state/provider-readiness.js';
import { useApp, useRuntime } from '../context.js';
import { PLATFORM } from '../keyboard/use-commands.js';
import { ProviderSetup } from '../setup/ProviderSetup.js';
import { FolderBrowser, useRecentWorkspaces } from '../sidebar/FolderBrowser.js';

export function StartScreen(): ReactNode {
  const runtime = useRuntime();
  const settings = useApp((s) => s.settings);
  const setupOpen = useApp((s) => s.setupOpen);
  const setupReason = useApp((s) => s.setupReason);
  const openSettings = useApp((s) => s.openSettings);
  const openPalette = useApp((s) => s.openPalette);
  const recent = useRecentWorkspaces();
  const readiness = useMemo(() => providerReadiness(settings), [settings]);
  const [chosen, setChosen] = useState<string | undefined>();
  const [browsing, setBrowsing] = useState(false);
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  /** Set once the setup card saved a provider here: the model line then says so. */
  const [saved, setSaved] = useState(false);
  const folder = chosen ?? recent[0];
  const showSetup = setupOpen || (settings !== undefined && !readiness.ready);
  const pendingText = setupOpen && setupReason === 'send' ? runtime.actions.pendingText : undefined;

  const start = async (): Promise<void> => {
    if (!folder) {
      setBrowsing(true);
      return;
    }
    if (!text.trim() || busy) return;
    setBusy(true);
    try {
      // A held prompt stays visible until the setup card starts it (this screen then gives way to the session).
      const outcome = await runtime.actions.startSession(folder, text);
      if (outcome === 'sent') setText('');
      // Held: the setup card opened above, and it comes first; failed: the prompt is still here.
      else focusAfterRender(byTestId(outcome === 'held' ? 'setup-provider' : 'start-input'));
    } finally {
      setBusy(false);
    }
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>): void => {
    if (e.key === 'Enter' && !e.shiftKey && !e.altKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void start();
    }
  };

  return (
    <div className="start-screen" data-testid="welcome">
      <div className="start-inner">
        <h1 className="start-title">Forkline</h1>
        <p className="muted start-tagline">A coding agent whose every session is an event log you can inspect, fork and compare.</p>
        {showSetup && (
          <section className="card setup-card" data-testid="provider-setup" aria-labelledby="setup-title">
            <h2 id="setup-title">Set up a model provider</h2>
            <p className="muted">
              {pendingText !== undefined
                ? 'Your message is kept and will be sent as soon as a provider answers.'
                : readiness.ready
                  ? 'Choose the provider and model new turns use.'
                  : `No provider is ready yet (the saved one: ${readiness.message}). Pick a provider, give its key if it needs one (or use a local Ollama), and test it.`}
            </p>
            <ProviderSetup
              onConfigured={() => {
                setSaved(true);
                void runtime.actions.providerConfigured();
                // The card goes away; the first prompt is next (a held one opens its session, which takes focus).
                focusAfterRender(byTestId('start-input'));
              }}
            />
          </section>
        )}
        <section className="card start-composer" data-testid="start-composer" aria-labelledby="start-title">
          <h2 id="start-title">Start a session</h2>
          <div className="start-folder">
            <label className="field start-folder-field">
              <span>Folder</span>
              {recent.length > 0 || chosen ? (
                <select data-testid="start-folder" value={folder} onChange={(e) => setChosen(e.target.value)}>
                  {[...new Set([...(chosen ? [chosen] : []), ...recent])].map((path) => (
                    <option key={path} value={path}>
                      {path}
                    </option>
                  ))}
                </select>
              ) : (
                <span className="muted" data-testid="start-folder-none">
                  No folder chosen yet.
                </span>
              )}
            </label>
            <button type="button" className="small" data-testid="start-choose-folder" onClick={() => setBrowsing(true)}>
              Choose a folder…
            </button>
          </div>
          {settings && readiness.ready && !showSetup && (
            <div className="start-model hint" data-testid="start-model" aria-live="polite">
              <span>
                {saved ? '✓ Saved — new turns use ' : 'New turns use '}
                <b className="mono">{settings.presets.find((p) => p.id === settings.active.provider)?.label ?? settings.active.provider}</b> · <b className="mono">{settings.active.model}</b>
              </span>
              <button type="button" className="link-button" data-testid="start-change-model" onClick={() => openSettings(true)}>
                change
              </button>
            </div>
          )}
          <textarea
            className="composer-input start-input"
            data-testid="start-input"
            aria-label="First prompt"
            aria-describedby="start-hint"
            placeholder="What should the agent do? (Enter starts the session)"
            rows={3}
            value={text}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={onKeyDown}
          />
          <div className="start-actions">
            <span className="hint" id="start-hint">
              Enter starts the session in the folder · Shift+Enter newline · its first prompt becomes its title
            </span>
            <span className="spacer" />
            <button type="button" className="primary" data-testid="start-send" disabled={busy || !text.trim()} onClick={() => void start()}>
              Start <kbd className="kbd">Enter</kbd>
            </button>
          </div>
        </section>
        <div className="start-links">
          <button type="button" className="link-button" data-testid="start-settings" onClick={() => openSettings(true)}>
            Settings ({shortcutLabel(SHORTCUTS.settings, PLATFORM)})
          </button>
          <button type="button" className="link-button" data-testid="start-import" onClick={() => document.querySelector<HTMLInputElement>('[data-testid="import-session-input"]')?.click()}>
            Import a .jsonl session log
          </button>
          <button type="button" className="link-button" data-testid="start-commands" onClick={() => openPalette(true)}>
            All commands ({shortcutLabel(SHORTCUTS.palette, PLATFORM)})
          </button>
        </div>
      </div>
      {browsing && (
        <FolderBrowser
          onChoose={(path) => {
            setChosen(path);
            setBrowsing(false);
            // The closing browser hands focus back to what opened it; the prompt is next.
            focusAfterRender(byTestId('start-input'), { from: document.querySelector('[data-testid="start-composer"]') });
          }}
          onCancel={() => setBrowsing(false)}
        />
      )}
    </div>
  );
}
