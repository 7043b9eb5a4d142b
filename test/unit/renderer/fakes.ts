/**
 * Test doubles for the renderer's injected dependencies: a manual frame scheduler, manual timers,
 * a fake WebSocket, and a scripted host client.
 */
import type { HostClient, HostPush, SubscribeResult } from '../../../shared/api.js';
import type { SessionEvent } from '../../../shared/events.js';
import type { FrameScheduler } from '../../../renderer/state/frame-batcher.js';
import type { Timers, WebSocketLike } from '../../../renderer/host/ws-bridge.js';

/** Frames run only when the test calls `frame()`. */
export class ManualFrames {
  private queue: (() => void)[] = [];
  scheduled = 0;
  readonly schedule: FrameScheduler = (callback) => {
    this.scheduled++;
    this.queue.push(callback);
    return () => {
      this.queue = this.queue.filter((c) => c !== callback);
    };
  };

  get pending(): number {
    return this.queue.length;
  }

  frame(): void {
    const run = this.queue;
    this.queue = [];
    for (const c of run) c();
  }
}

/** Timers that fire when the test advances the clock. */
export class ManualTimers implements Timers {
  now = 0;
  private nextId = 1;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.set(id, { at: this.now + ms, fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  advance(ms: number): void {
    const until = this.now + ms;
    for (;;) {
      const due = [...this.timers.entries()].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.now = due[1].at;
      due[1].fn();
    }
    this.now = until;
  }
  get count(): number {
    return this.timers.size;
  }
}

export class FakeSocket implements WebSocketLike {
  readyState = 0;
  readonly sent: string[] = [];
  closed = false;
  onopen: ((event: unknown) => void) | null = null;
  onclose: ((event: { readonly code?: number; readonly reason?: string }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  onmessage: ((event: { readonly data: unknown }) => void) | null = null;
  constructor(readonly url: string) {}
  send(data: string): void {
    if (this.readyState !== 1) throw new Error('not open');
    this.sent.push(data);
  }
  close(): void {
    this.closed = true;
    this.readyState = 3;
  }
  open(): void {
    this.readyState = 1;
    this.onopen?.({});
  }
  receive(value: unknown): void {
    this.onmessage?.({ data: typeof value === 'string' ? value : JSON.stringify(value) });
  }
  drop(code = 1006): void {
    this.readyState = 3;
    this.onclose?.({ code });
  }
  requests(): { id: number; method: string; params: unknown }[] {
    return this.sent.map((s) => JSON.parse(s) as { id: number; method: string; params: unknown });
  }
}

export function ev(seq: number, type = 'session/title', data: unknown = { title: `t${seq}` }): SessionEvent {
  return { seq, type, time: 1000 + seq, data } as unknown as SessionEvent;
}

export function evs(from: number, to: number): SessionEvent[] {
  const out: SessionEvent[] = [];
  for (let s = from; s <= to; s++) out.push(ev(s));
  return out;
}

export function subscribeResult(subscriptionId: string, events: SessionEvent[], extra: Partial<SubscribeResult> = {}): SubscribeResult {
  return {
    subscriptionId,
    header: { version: 0, id: 's1', createdAt: 0, cwd: '/w' },
    events,
    status: 'idle',
    inbox: { nextTurn: [], nextStep: [] },
    approvals: [],
    notices: [],
    readOnly: false,
    startSeq: events[0]?.seq ?? 0,
    eventCount: (events[events.length - 1]?.seq ?? -1) + 1,
    ...extra,
  };
}

interface Deferred<T> {
  resolve(value: T): void;
  reject(error: unknown): void;
}

/** A host client whose subscribe calls the test answers by hand. */
export class ScriptedClient {
  readonly subscribeCalls: { sessionId: string; fromSeq: number; answer: Deferred<SubscribeResult> }[] = [];
  readonly unsubscribed: string[] = [];
  private readonly pushListeners = new Set<(push: HostPush) => void>();
  readonly calls: { method: string; params: unknown }[] = [];
  listSessionsResult: unknown = [];

  readonly client = new Proxy({} as HostClient, {
    get: (_t, prop: string) => {
      if (prop === 'onPush') return (l: (push: HostPush) => void) => (this.pushListeners.add(l), () => this.pushListeners.delete(l));
      if (prop === 'subscribeSession') {
        return (params: { sessionId: string; fromSeq: number }) => new Promise<SubscribeResult>((resolve, reject) => this.subscribeCalls.push({ ...params, answer: { resolve, reject } }));
      }
      if (prop === 'unsubscribeSession') {
        return (params: { subscriptionId: string }) => {
          this.unsubscribed.push(params.subscriptionId);
          return Promise.resolve(null);
        };
      }
      if (prop === 'listSessions') {
        return (params: unknown) => {
          this.calls.push({ method: prop, params });
          return Promise.resolve(this.listSessionsResult);
        };
      }
      return (params: unknown) => {
        this.calls.push({ method: prop, params });
        return Promise.resolve(null);
      };
    },
  });

  push(push: HostPush): void {
    for (const l of this.pushListeners) l(push);
  }
}

export const flush = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));
