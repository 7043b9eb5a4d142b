/**
 * Picks the transport for this window: the Electron preload's `window.forkline` bridge when
 * present, else the browser-mode WebSocket at `ws(s)://<location.host>/host?token=…` (the token
 * comes from the page URL's `token` parameter). DOM-only (reads `window` and `location`).
 */
import type { HostBridge, HostClient } from '../../shared/api.js';
import { createHostClient } from './host-client.js';
import { createWsBridge, hostSocketUrl, type ConnectionStatus, type WebSocketLike } from './ws-bridge.js';

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

export function connectHost(): HostConnection {
  const preload = (window as unknown as { forkline?: unknown }).forkline;
  if (isBridge(preload)) {
    const open: ConnectionStatus = { state: 'open', attempt: 0, openCount: 1 };
    return { client: createHostClient(preload), status: () => open, onStatus: () => () => {}, mode: 'electron', dispose() {} };
  }
  const bridge = createWsBridge({
    url: hostSocketUrl(window.location),
    createSocket: (url) => new WebSocket(url) as unknown as WebSocketLike,
  });
  return {
    client: createHostClient(bridge),
    status: () => bridge.status,
    onStatus: (listener) => bridge.onStatus(listener),
    mode: 'browser',
    dispose: () => bridge.dispose(),
  };
}
