/**
 * Browser mode opened without its token, or with one the host does not accept (each `forkline
 * serve` run makes a new one): a clear page that says so and what to do, instead of "host
 * unreachable, reconnecting" forever.
 */
import type { ReactNode } from 'react';
import type { RefusalReason } from '../host/ws-bridge.js';

export function TokenPage({ reason }: { readonly reason: RefusalReason }): ReactNode {
  return (
    <main className="token-page" data-testid="token-page" data-reason={reason}>
      <div className="card token-card">
        <h1>{reason === 'missing-token' ? 'This link needs its token' : 'This link’s token is not accepted'}</h1>
        <p>
          {reason === 'missing-token'
            ? 'Forkline’s browser mode only talks to pages opened with the secret token it prints when it starts, so other web pages cannot reach your sessions. This address has no token.'
            : 'The Forkline server refused this page’s token. A new token is made every time the server starts, so an old link stops working after a restart.'}
        </p>
        <p>
          Open the full address printed by <code>npm run serve</code> (or <code>forkline serve</code>), which looks like <code>http://127.0.0.1:PORT/?token=…</code>.
        </p>
        <button type="button" className="primary" onClick={() => window.location.reload()}>
          Try again
        </button>
      </div>
    </main>
  );
}
