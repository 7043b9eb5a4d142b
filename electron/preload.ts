/**
 * Preload (sandboxed, context-isolated): exposes exactly one object, `window.forkline`, a
 * {@link HostBridge} whose `call` forwards only whitelisted HostApi method names over one IPC
 * channel, and whose `onPush` delivers the live feed. No Node API reaches the page.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { HOST_METHODS, type HostBridge, type HostPush, type RpcResponse } from '../shared/api.js';

const CALL_CHANNEL = 'forkline:call';
const PUSH_CHANNEL = 'forkline:push';
let nextId = 1;

const bridge: HostBridge = {
  call(request: { method: string; params: unknown }): Promise<RpcResponse> {
    const id = nextId++;
    if (!(HOST_METHODS as readonly string[]).includes(request.method)) {
      return Promise.resolve({ id, ok: false, error: { name: 'HostError', code: 'UNKNOWN_METHOD', message: `unknown host method ${request.method}` } });
    }
    return ipcRenderer.invoke(CALL_CHANNEL, { id, method: request.method, params: request.params }) as Promise<RpcResponse>;
  },
  onPush(listener: (push: HostPush) => void): () => void {
    const handler = (_event: IpcRendererEvent, push: HostPush) => listener(push);
    ipcRenderer.on(PUSH_CHANNEL, handler);
    return () => ipcRenderer.off(PUSH_CHANNEL, handler);
  },
};

contextBridge.exposeInMainWorld('forkline', bridge);
