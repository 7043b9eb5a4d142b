/**
 * The browser-mode HostBridge: JSON over one WebSocket to `ws(s)://<host>/host?token=…`.
 *
 * Wire: the bridge sends `RpcRequest {id, method, params}`; the host answers
 * `RpcResponse {id, ok, result | error}` or pushes `{push: HostPush}`.
 *
 * Connection handling:
 * - calls made while the socket is not open are queued and sent once it opens;
 * - when the socket closes, calls already sent are answered `HOST_UNREACHABLE` (they may or may
 *   not have run; they are never re-sent), queued calls wait for the reconnect;
 * - reconnects with exponential backoff and reports every state change through `onStatus`, so
 *   the app can show a banner and resubscribe its sessions after `open`;
 * - every call has a timeout (`HOST_TIMEOUT`).
 *
 * Runtime-neutral: the socket constructor and timers are injected (tests use fakes; the browser
 * passes `WebSocket`, see `renderer/host/connect.ts`).
 */
import type { HostBridge, HostPush, RpcResponse } from '../../shared/api.js';
import type { IDisposable } from '../../shared/lifecycle.js';
import { backoffDelay, type BackoffOptions } from './backoff.js';
import { CLIENT_ERROR_CODES } from './host-client.js';
import { unpackSeqRuns } from '../../shared/wire-seq-runs.js';

/** The part of the DOM WebSocket the bridge uses. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onclose: ((event: { readonly code?: number; readonly reason?: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  onmessage: ((event: { readonly data: unknown }) => void) | null;
}

export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface ConnectionStatus {
  readonly state: ConnectionState;
  /** Reconnect attempts since the connection was last open. */
  readonly attempt: number;
  /** Epoch ms of the next reconnect attempt (state `reconnecting`). */
  readonly nextRetryAt?: number;
  /** Why the last connection ended. */
  readonly lastError?: string;
  /** Times the connection has (re)opened; a change tells subscribers to resubscribe. */
  readonly openCount: number;
  /**
   * The host refused this client (state `closed`, no more reconnects): `missing-token` (the page URL
   * has no token) or `wrong-token` (the host does not accept it, e.g. it restarted with a new one).
   */
  readonly refused?: RefusalReason;
  /**
   * The host stayed unreachable for longer than `giveUpAfterMs` (state `closed`, no more
   * reconnects): the server is gone, e.g. restarted elsewhere with a new URL.
   */
  readonly gaveUpAfterMs?: number;
}

export type RefusalReason = 'missing-token' | 'wrong-token';

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface WsBridgeOptions {
  readonly url: string;
  readonly createSocket: (url: string) => WebSocketLike;
  readonly timers?: Timers;
  readonly now?: () => number;
  readonly random?: () => number;
  readonly backoff?: BackoffOptions;
  readonly callTimeoutMs?: number;
  /**
   * Asked after a connection attempt failed before it opened: resolves with a reason when the host
   * refuses this client (then the bridge stops reconnecting), undefined when it is just unreachable.
   */
  readonly checkRefused?: () => Promise<RefusalReason | undefined>;
  /**
   * Stop reconnecting once the host has been unreachable this long (ms, counted from the moment
   * the connection was lost, or from the first attempt); undefined retries forever.
   */
  readonly giveUpAfterMs?: number;
}

export interface WsBridge extends HostBridge, IDisposable {
  readonly status: ConnectionStatus;
  onStatus(listener: (status: ConnectionStatus) => void): () => void;
}

const OPEN = 1;

interface Pending {
  readonly id: number;
  readonly frame: string;
  readonly method: string;
  sent: boolean;
  timer: unknown;
  resolve(response: RpcResponse): void;
}

const defaultTimers: Timers = {
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};

/** Parses one incoming frame: a response, a push, or `undefined` when malformed. */
export function parseFrame(data: unknown): { response: RpcResponse } | { push: HostPush } | undefined {
  if (typeof data !== 'string') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const o = value as Record<string, unknown>;
  if (o['push'] !== null && typeof o['push'] === 'object' && typeof (o['push'] as Record<string, unknown>)['kind'] === 'string') {
    return { push: unpackSeqRuns(o['push'] as HostPush) };
  }
  if (typeof o['id'] === 'number' && typeof o['ok'] === 'boolean') return { response: o as unknown as RpcResponse };
  return undefined;
}

export function createWsBridge(options: WsBridgeOptions): WsBridge {
  const timers = options.timers ?? defaultTimers;
  const now = options.now ?? (() => Date.now());
  const random = options.random ?? Math.random;
  const callTimeoutMs = options.callTimeoutMs ?? 60_000;
  const pending = new Map<number, Pending>();
  const pushListeners = new Set<(push: HostPush) => void>();
  const statusListeners = new Set<(status: ConnectionStatus) => void>();
  let nextId = 1;
  let socket: WebSocketLike | undefined;
  let reconnectTimer: unknown;
  /** When the host became unreachable (epoch ms); undefined while connected. */
  let unreachableSince: number | undefined = now();
  let disposed = false;
  let status: ConnectionStatus = { state: 'connecting', attempt: 0, openCount: 0 };

  const setStatus = (next: ConnectionStatus): void => {
    status = next;
    for (const listener of [...statusListeners]) {
      try {
        listener(status);
      } catch (error) {
        console.error('connection status listener failed:', error);
      }
    }
  };

  const fail = (p: Pending, code: string, name: string, message: string): void => {
    timers.clearTimeout(p.timer);
    pending.delete(p.id);
    p.resolve({ id: p.id, ok: false, error: { name, code, message } });
  };

  const sendQueued = (): void => {
    if (!socket || socket.readyState !== OPEN) return;
    for (const p of pending.values()) {
      if (p.sent) continue;
      try {
        socket.send(p.frame);
        p.sent = true;
      } catch (error) {
        fail(p, CLIENT_ERROR_CODES.unreachable, 'HostUnreachableError', `could not send ${p.method}: ${String(error)}`);
      }
    }
  };

  const onMessage = (data: unknown): void => {
    const frame = parseFrame(data);
    if (!frame) {
      console.warn('host sent a malformed frame; ignored');
      return;
    }
    if ('push' in frame) {
      for (const listener of [...pushListeners]) {
        try {
          listener(frame.push);
        } catch (error) {
          console.error('push listener failed:', error);
        }
      }
      return;
    }
    const p = pending.get(frame.response.id);
    if (!p) return;
    timers.clearTimeout(p.timer);
    pending.delete(p.id);
    p.resolve(frame.response);
  };

  const scheduleReconnect = (reason: string): void => {
    if (disposed) return;
    unreachableSince ??= now();
    const giveUp = options.giveUpAfterMs;
    if (giveUp !== undefined && now() - unreachableSince >= giveUp) {
      for (const p of [...pending.values()]) fail(p, CLIENT_ERROR_CODES.unreachable, 'HostUnreachableError', 'the host stayed unreachable; this page stopped reconnecting');
      setStatus({ state: 'closed', attempt: status.attempt, lastError: reason, openCount: status.openCount, gaveUpAfterMs: giveUp });
      return;
    }
    const attempt = status.attempt + 1;
    const delay = backoffDelay(attempt, random, options.backoff);
    setStatus({ state: 'reconnecting', attempt, nextRetryAt: now() + delay, lastError: reason, openCount: status.openCount });
    reconnectTimer = timers.setTimeout(() => {
      reconnectTimer = undefined;
      connect();
    }, delay);
  };

  const connect = (): void => {
    if (disposed) return;
    let ws: WebSocketLike;
    try {
      ws = options.createSocket(options.url);
    } catch (error) {
      scheduleReconnect(`cannot open the connection: ${String(error)}`);
      return;
    }
    socket = ws;
    if (status.state !== 'reconnecting') setStatus({ ...status, state: 'connecting' });
    ws.onopen = () => {
      if (socket !== ws) return;
      opened = true;
      unreachableSince = undefined;
      setStatus({ state: 'open', attempt: 0, openCount: status.openCount + 1 });
      sendQueued();
    };
    ws.onmessage = (event) => {
      if (socket === ws) onMessage(event.data);
    };
    ws.onerror = () => {
      /* a close event follows */
    };
    let opened = false;
    ws.onclose = (event) => {
      if (socket !== ws) return;
      socket = undefined;
      for (const p of [...pending.values()]) {
        if (p.sent) fail(p, CLIENT_ERROR_CODES.unreachable, 'HostUnreachableError', `the connection closed before ${p.method} answered`);
      }
      const reason = `connection closed${event.code ? ` (${event.code}${event.reason ? `: ${event.reason}` : ''})` : ''}`;
      if (opened || !options.checkRefused) {
        scheduleReconnect(reason);
        return;
      }
      // The handshake failed: a refused token is final, an unreachable host is retried.
      options.checkRefused().then(
        (refused) => {
          if (disposed) return;
          if (refused === undefined) return scheduleReconnect(reason);
          for (const p of [...pending.values()]) fail(p, CLIENT_ERROR_CODES.unreachable, 'HostUnreachableError', 'the host refused this page (its token is missing or not accepted)');
          setStatus({ state: 'closed', attempt: status.attempt, lastError: reason, openCount: status.openCount, refused });
        },
        () => scheduleReconnect(reason),
      );
    };
  };

  connect();

  return {
    get status() {
      return status;
    },
    call(request) {
      return new Promise<RpcResponse>((resolve) => {
        const id = nextId++;
        if (disposed) {
          resolve({ id, ok: false, error: { name: 'HostUnreachableError', code: CLIENT_ERROR_CODES.unreachable, message: 'the host connection was closed' } });
          return;
        }
        const p: Pending = { id, method: request.method, frame: JSON.stringify({ id, method: request.method, params: request.params }), sent: false, timer: undefined, resolve };
        p.timer = timers.setTimeout(() => {
          if (pending.has(id)) fail(p, CLIENT_ERROR_CODES.timeout, 'HostTimeoutError', `${request.method} got no answer within ${callTimeoutMs} ms`);
        }, callTimeoutMs);
        pending.set(id, p);
        sendQueued();
      });
    },
    onPush(listener) {
      pushListeners.add(listener);
      return () => pushListeners.delete(listener);
    },
    onStatus(listener) {
      statusListeners.add(listener);
      return () => statusListeners.delete(listener);
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      if (reconnectTimer !== undefined) timers.clearTimeout(reconnectTimer);
      const ws = socket;
      socket = undefined;
      for (const p of [...pending.values()]) fail(p, CLIENT_ERROR_CODES.unreachable, 'HostUnreachableError', 'the host connection was closed');
      try {
        ws?.close(1000, 'disposed');
      } catch {
        /* already closed */
      }
      setStatus({ state: 'closed', attempt: 0, openCount: status.openCount });
      pushListeners.clear();
      statusListeners.clear();
    },
  };
}

/** The WebSocket URL for browser mode: `ws(s)://<host>/host?token=<token>`. */
export function hostSocketUrl(location: { readonly protocol: string; readonly host: string; readonly search: string }): string {
  const token = new URLSearchParams(location.search).get('token') ?? '';
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${location.host}/host?token=${encodeURIComponent(token)}`;
}
