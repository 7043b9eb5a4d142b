/** A small HostApi client over a real browser-mode WebSocket (token + Origin), for integration tests. */
import WebSocket from 'ws';
import type { HostPush, RpcResponse } from '../../shared/api.js';
import type { SessionEvent } from '../../shared/events.js';

export class HostWsClient {
  private nextId = 1;
  private readonly waiting = new Map<number, (r: RpcResponse) => void>();
  readonly pushes: HostPush[] = [];
  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (raw) => {
      const message = JSON.parse(raw.toString()) as RpcResponse | { push: HostPush };
      if ('push' in message) this.pushes.push(message.push);
      else this.waiting.get(message.id)?.(message);
    });
  }

  /** Connects to `ws://127.0.0.1:PORT/host?token=…` with the page's Origin. */
  static connect(url: string, origin: string): Promise<HostWsClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { origin });
      ws.once('open', () => resolve(new HostWsClient(ws)));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      ws.once('error', reject);
    });
  }

  /** Calls a host method; rejects with an Error carrying the host's `code`. */
  async call<T>(method: string, params: unknown): Promise<T> {
    const id = this.nextId++;
    const response = await new Promise<RpcResponse>((resolve) => {
      this.waiting.set(id, resolve);
      this.ws.send(JSON.stringify({ id, method, params }));
    });
    this.waiting.delete(id);
    if (!response.ok) throw Object.assign(new Error(response.error.message), { code: response.error.code });
    return response.result as T;
  }

  /** Every live event pushed for a subscription so far. */
  eventsFor(subscriptionId: string): SessionEvent[] {
    return this.pushes.flatMap((p) => (p.kind === 'session/events' && p.subscriptionId === subscriptionId ? [...p.events] : []));
  }

  close(): void {
    this.ws.close();
  }
}
