/**
 * A small HostApi client over a real WebSocket (what the browser-mode renderer speaks), for tests
 * that drive `startBrowserServer` like a browser tab would.
 */
import WebSocket from 'ws';
import type { HostPush, RpcResponse } from '../../shared/api.js';
import type { SessionEvent } from '../../shared/events.js';

/** A host call that failed: the error's stable code and message. */
export class HostCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'HostCallError';
  }
}

export class WsHostClient {
  private nextId = 1;
  private readonly waiting = new Map<number, (r: RpcResponse) => void>();
  readonly pushes: HostPush[] = [];
  /** Bytes of the largest message the host sent so far (a whole-file answer would show here). */
  largestMessageBytes = 0;
  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (raw: Buffer) => {
      this.largestMessageBytes = Math.max(this.largestMessageBytes, raw.length);
      const message = JSON.parse(raw.toString()) as RpcResponse | { push: HostPush };
      if ('push' in message) this.pushes.push(message.push);
      else this.waiting.get(message.id)?.(message);
    });
  }

  /** Connects with the server's token and Origin, as the served page does. */
  static connect(port: number, token: string): Promise<WsHostClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/host?token=${token}`, { origin: `http://127.0.0.1:${port}` });
      ws.once('open', () => resolve(new WsHostClient(ws)));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      ws.once('error', reject);
    });
  }

  /** Calls a host method. @throws HostCallError with the host's error code. */
  async call<T>(method: string, params: unknown): Promise<T> {
    const id = this.nextId++;
    const response = await new Promise<RpcResponse>((resolve) => {
      this.waiting.set(id, resolve);
      this.ws.send(JSON.stringify({ id, method, params }));
    });
    this.waiting.delete(id);
    if (!response.ok) throw new HostCallError(response.error.code, response.error.message);
    return response.result as T;
  }

  /** The error code a call fails with (fails the test when it succeeds). */
  async failureCode(method: string, params: unknown): Promise<string> {
    try {
      await this.call(method, params);
    } catch (error) {
      if (error instanceof HostCallError) return error.code;
      throw error;
    }
    throw new Error(`${method} succeeded but was expected to fail`);
  }

  /** Every live event pushed for a subscription so far. */
  eventsFor(subscriptionId: string): SessionEvent[] {
    return this.pushes.flatMap((p) => (p.kind === 'session/events' && p.subscriptionId === subscriptionId ? [...p.events] : []));
  }

  close(): void {
    this.ws.close();
  }
}
