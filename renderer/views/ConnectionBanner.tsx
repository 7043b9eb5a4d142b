/**
 * Tells the person when the host is unreachable and when the next reconnect attempt is due; once
 * the bridge gave up (the server is gone), says to open the newly printed URL.
 */
import { useEffect, useState, type ReactNode } from 'react';
import { useApp } from './context.js';

export function ConnectionBanner(): ReactNode {
  const connection = useApp((s) => s.connection);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (connection.state !== 'reconnecting') return;
    const t = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(t);
  }, [connection.state]);
  if (connection.state === 'open') return null;
  if (connection.state === 'connecting' && connection.openCount === 0 && connection.attempt === 0) {
    return (
      <div className="banner info connection-banner" data-testid="connection-banner" data-state="connecting">
        Connecting to the Forkline host…
      </div>
    );
  }
  if (connection.state === 'closed' && connection.gaveUpAfterMs !== undefined) {
    return (
      <div className="banner error connection-banner" data-testid="connection-banner" data-state="gave-up" role="alert">
        <span data-testid="connection-gave-up">
          The Forkline server has not answered for {Math.round(connection.gaveUpAfterMs / 1000)} s, so this tab stopped reconnecting. If you restarted <code>forkline serve</code>, open the new URL it
          printed (every start has a new token, often a new port).
        </span>{' '}
        <button type="button" data-testid="connection-retry" onClick={() => window.location.reload()}>
          Try this address again
        </button>
      </div>
    );
  }
  const seconds = connection.nextRetryAt !== undefined ? Math.max(0, Math.ceil((connection.nextRetryAt - now) / 1000)) : undefined;
  return (
    <div className="banner error connection-banner" data-testid="connection-banner" data-state={connection.state} role="status">
      {connection.state === 'closed' ? 'The host connection is closed.' : 'The Forkline host is unreachable.'}{' '}
      {connection.state === 'reconnecting' && (
        <span>
          Reconnecting{seconds !== undefined ? ` in ${seconds}s` : '…'} (attempt {connection.attempt}).
        </span>
      )}
      {connection.lastError && <span className="muted"> {connection.lastError}</span>}
    </div>
  );
}
