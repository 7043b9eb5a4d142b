/**
 * Electron IPC transport (docs/architecture.md §9): one `invoke` channel for HostApi calls and one `send` channel
 * for the live feed, carrying the same RPC messages as the WebSocket transport. Every call's sender
 * is checked: it must be the app window's own top-level frame showing the app's own page.
 */
import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import type { HostPush, RpcResponse } from '../../../shared/api.js';
import type { IDisposable } from '../../../shared/lifecycle.js';
import { dispatch } from '../dispatch.js';
import type { HostConnectionFactory } from './ws-server.js';

export const IPC_CALL_CHANNEL = 'forkline:call';
export const IPC_PUSH_CHANNEL = 'forkline:push';

export interface IpcTransportOptions {
  readonly ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>;
  readonly host: HostConnectionFactory;
  /** The app window's web contents: the only allowed sender. */
  readonly webContents: WebContents;
  /** True for the URL of the app's own page (file:// of the built renderer). */
  readonly isAppUrl: (url: string) => boolean;
}

/**
 * Checks that an IPC call comes from the app window's top-level frame on the app's page.
 * Returns a reason when it does not.
 */
export function untrustedSenderReason(event: Pick<IpcMainInvokeEvent, 'sender' | 'senderFrame'>, webContents: WebContents, isAppUrl: (url: string) => boolean): string | undefined {
  if (event.sender !== webContents) return 'the call did not come from the Forkline window';
  const frame = event.senderFrame;
  if (!frame) return 'the sending frame is gone';
  if (frame.parent !== null) return 'the call came from a sub-frame';
  if (!isAppUrl(frame.url)) return `the call came from a foreign page (${frame.url})`;
  return undefined;
}

export interface IpcTransport extends IDisposable {
  /** Drops the page's subscriptions and terminals (call when the page reloads). */
  reset(): void;
}

/** Registers the IPC handler; dispose to remove it and close the connection. */
export function registerIpcTransport(options: IpcTransportOptions): IpcTransport {
  const { webContents } = options;
  const connect = () =>
    options.host.connect((push: HostPush) => {
      if (!webContents.isDestroyed()) webContents.send(IPC_PUSH_CHANNEL, push);
    });
  let connection = connect();
  options.ipcMain.handle(IPC_CALL_CHANNEL, async (event: IpcMainInvokeEvent, request: unknown): Promise<RpcResponse> => {
    const id = typeof (request as { id?: unknown })?.id === 'number' ? (request as { id: number }).id : -1;
    const reason = untrustedSenderReason(event, webContents, options.isAppUrl);
    if (reason !== undefined) return { id, ok: false, error: { name: 'HostError', code: 'FORBIDDEN_SENDER', message: reason } };
    const { method, params } = (request ?? {}) as { method?: unknown; params?: unknown };
    return dispatch(connection, { id, method, params });
  });
  return {
    reset: () => {
      connection.dispose();
      connection = connect();
    },
    dispose: () => {
      options.ipcMain.removeHandler(IPC_CALL_CHANNEL);
      connection.dispose();
    },
  };
}
