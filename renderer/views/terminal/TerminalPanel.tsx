/**
 * An interactive terminal in the session's workspace: @xterm/xterm + the fit addon over the
 * host's pty (`openTerminal` / `writeTerminal` / `resizeTerminal` / `closeTerminal`, output via
 * `terminal/data` and `terminal/exit` pushes). Opened when the tab is first shown, closed when
 * the session view goes away or the person restarts it.
 */
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { describeError } from '../../host/host-client.js';
import { useClient, useRuntime, useSession } from '../context.js';

export function TerminalPanel(): ReactNode {
  const client = useClient();
  const runtime = useRuntime();
  const sessionId = useSession((s) => s.sessionId);
  const hostRef = useRef<HTMLDivElement>(null);
  const [exitCode, setExitCode] = useState<number | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    const host = hostRef.current;
    if (!host) return;
    setExitCode(undefined);
    setError(undefined);
    let disposed = false;
    const term = new Terminal({
      fontFamily: 'ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace',
      fontSize: 12,
      cursorBlink: true,
      scrollback: 5000,
      theme: { background: '#0d1117', foreground: '#d1d7e0', cursor: '#8ab4f8', selectionBackground: '#264f78' },
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(host);
    // Character metrics may not be measured yet at open: fit now, on the next frames and once fonts load.
    const refit = (): void => {
      if (disposed) return;
      try {
        fit.fit();
      } catch {
        /* not laid out yet (hidden tab) */
      }
    };
    refit();
    const frame = requestAnimationFrame(refit);
    const later = setTimeout(refit, 150);
    void document.fonts?.ready.then(refit);
    let terminalId: string | undefined;
    let detach: (() => void) | undefined;
    const disposables: { dispose(): void }[] = [];

    const opened = { cols: Math.max(2, term.cols), rows: Math.max(1, term.rows) };
    client
      .openTerminal({ sessionId, ...opened })
      .then(({ terminalId: id }) => {
        if (disposed) {
          void client.closeTerminal({ terminalId: id }).catch(() => undefined);
          return;
        }
        terminalId = id;
        detach = runtime.terminals.attach(id, {
          data: (text) => term.write(text),
          exit: (code) => setExitCode(code),
        });
        disposables.push(
          term.onData((data) => {
            void client.writeTerminal({ terminalId: id, data }).catch(() => undefined);
          }),
          term.onResize(({ cols, rows }) => {
            void client.resizeTerminal({ terminalId: id, cols, rows }).catch(() => undefined);
          }),
        );
        // A fit that landed while the terminal was opening: tell the pty the current size.
        if (term.cols !== opened.cols || term.rows !== opened.rows) void client.resizeTerminal({ terminalId: id, cols: term.cols, rows: term.rows }).catch(() => undefined);
        term.focus();
      })
      .catch((e: unknown) => {
        if (!disposed) setError(describeError(e));
      });

    const observer = new ResizeObserver(refit);
    observer.observe(host);

    return () => {
      disposed = true;
      cancelAnimationFrame(frame);
      clearTimeout(later);
      observer.disconnect();
      detach?.();
      for (const d of disposables) d.dispose();
      if (terminalId) void client.closeTerminal({ terminalId }).catch(() => undefined);
      term.dispose();
    };
  }, [client, runtime, sessionId, generation]);

  return (
    <div className="terminal-panel" data-testid="terminal-panel">
      {error && (
        <div className="banner error" data-testid="terminal-error">
          Terminal unavailable: {error}
        </div>
      )}
      {exitCode !== undefined && (
        <div className="banner" data-testid="terminal-exit">
          The shell exited with code {exitCode}.{' '}
          <button type="button" className="link-button" onClick={() => setGeneration((g) => g + 1)}>
            Restart
          </button>
        </div>
      )}
      <div className="terminal-host" data-testid="terminal-host" ref={hostRef} />
    </div>
  );
}
