/**
 * Picks the transport for this window: the Electron preload's `window.forkline` bridge when
 * present, else the browser-mode WebSocket at `ws(s)://<location.host>/host?token=…` (the token
 * comes from the page URL's `token` parameter). A page without a token, or whose token the host
 * refuses, gets a status with `refused` set instead of reconnecting forever (the app shows the
 * token page); a host that stays unreachable for 60 s (the server is gone) is given up on too, and
 * the banner asks for the newly printed URL. DOM-only (reads `window` and `location`).
 */
import type { HostBridge, HostClient } from '../../shared/api.js';
import { createHostClient } from './host-client.js';
import { createWsBridge, hostSocketUrl, type ConnectionStatus, type RefusalReason, type WebSocketLike } from './ws-bridge.js';

export interface HostConnection {
  readonly client: HostClient;
  readonly status: () => ConnectionStatus;
  readonly onStatus: (listener: (status: ConnectionStatus) => void) => () => void;
  readonly mode: 'electron' | 'browser';
  dispose(): void;
}

function isBridge(value: unknown): value is HostBridge {
  return value !== null && typeof value === 'object' && typeof (value as HostBridge).call === 'function' && typeof (value as HostBridge).onPush === 'function';
}

/**
 * Asks browser mode's `GET /host/auth?token=…` whether the host accepts the page's token: 401 means
 * refused; anything else (or no answer) means it is only unreachable.
 */
async function checkToken(token: string): Promise<RefusalReason | undefined> {
  try {
    const response = await fetch(`/host/auth?token=${encodeURIComponent(token)}`, { cache: 'no-store' });
    return response.status === 401 ? 'wrong-token' : undefined;
  } catch {
    return undefined;
  }
}

/** How long an unreachable host is retried: 60 s, or the page URL's `reconnect=SECONDS` (1–3600). */
export const DEFAULT_RECONNECT_WINDOW_MS = 60_000;
function reconnectWindowMs(param: string | null): number {
  const seconds = Number(param);
  return param !== null && Number.isFinite(seconds) && seconds >= 1 && seconds <= 3600 ? seconds * 1000 : DEFAULT_RECONNECT_WINDOW_MS;
}

export function connectHost(): HostConnection {
  const preload = (window as unknown as { forkline?: unknown }).forkline;
  if (isBridge(preload)) {
    const open: ConnectionStatus = { state: 'open', attempt: 0, openCount: 1 };
    return { client: createHostClient(preload), status: () => open, onStatus: () => () => {}, mode: 'electron', dispose() {} };
  }
  const token = new URLSearchParams(window.location.search).get('token') ?? '';
  if (token === '') {
    // No token: nothing to try (the host refuses every connection without one).
    const refused: ConnectionStatus = { state: 'closed', attempt: 0, openCount: 0, refused: 'missing-token' };
    const client = createHostClient({
      call: (request) => Promise.resolve({ id: 0, ok: false, error: { name: 'HostUnreachableError', code: 'HOST_UNREACHABLE', message: `no token: ${request.method} was not sent` } }),
      onPush: () => () => {},
    });
    return { client, status: () => refused, onStatus: () => () => {}, mode: 'browser', dispose() {} };
  }
  const bridge = createWsBridge({
    url: hostSocketUrl(window.location),
    createSocket: (url) => new WebSocket(url) as unknown as WebSocketLike,
    checkRefused: () => checkToken(token),
    giveUpAfterMs: reconnectWindowMs(new URLSearchParams(window.location.search).get('reconnect')),
  });
  return {
    client: createHostClient(bridge),
    status: () => bridge.status,
    onStatus: (listener) => bridge.onStatus(listener),
    mode: 'browser',
    dispose: () => bridge.dispose(),
  };
}
