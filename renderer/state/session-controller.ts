/**
 * Keeps one open session's store in sync with the host: subscribes from `lastSeq + 1`, batches
 * live pushes per animation frame (one store update per frame however many pushes arrive),
 * resubscribes on a hole or after the connection reopens, and unsubscribes on dispose.
 *
 * Runtime-neutral: the host client and the frame scheduler are injected.
 */
import type { HostClient, HostPush, SubscribeResult } from '../../shared/api.js';
import type { IDisposable } from '../../shared/lifecycle.js';
import { HostCallError } from '../host/host-client.js';
import { FrameBatcher, type FrameScheduler } from './frame-batcher.js';
import { applyPushes, applySubscribeResult, createSessionStore, setSessionError, type SessionStore } from './session-store.js';

export type SessionPush = Extract<HostPush, { readonly sessionId: string }>;

export interface SessionControllerDeps {
  readonly client: Pick<HostClient, 'subscribeSession' | 'unsubscribeSession'>;
  readonly schedule: FrameScheduler;
}

export class SessionController implements IDisposable {
  readonly store: SessionStore;
  private readonly batcher: FrameBatcher<SessionPush>;
  private subscriptionId: string | undefined;
  /** Event pushes that arrived while a subscribe was in flight (their subscription is not known yet). */
  private early: SessionPush[] = [];
  private subscribing: Promise<void> | undefined;
  /** Set synchronously while a subscribe loop runs (the promise is assigned only after its first await). */
  private running = false;
  private again = false;
  private disposed = false;
  /** Counters for tests and diagnostics. */
  readonly stats = { subscribes: 0, flushes: 0, holes: 0 };

  constructor(
    readonly sessionId: string,
    private readonly deps: SessionControllerDeps,
  ) {
    this.store = createSessionStore(sessionId);
    this.batcher = new FrameBatcher<SessionPush>((items) => this.flush(items), deps.schedule);
  }

  /** Subscribes (first call) — same as `resubscribe`. */
  start(): Promise<void> {
    return this.resubscribe();
  }

  /** Queues a push for this session; applied at the next frame. */
  handlePush(push: HostPush): void {
    if (this.disposed || !('sessionId' in push) || push.sessionId !== this.sessionId) return;
    this.batcher.push(push);
  }

  /**
   * Drops the current subscription and subscribes again from `lastSeq + 1`. Concurrent calls
   * coalesce: one more subscribe runs after the current one when asked during it.
   */
  resubscribe(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.subscribing ?? Promise.resolve();
    }
    this.running = true;
    this.subscribing = this.subscribeLoop().finally(() => {
      this.running = false;
      this.subscribing = undefined;
    });
    return this.subscribing;
  }

  private async subscribeLoop(): Promise<void> {
    do {
      this.batcher.flushNow();
      this.again = false;
      const old = this.subscriptionId;
      this.subscriptionId = undefined;
      if (old) this.deps.client.unsubscribeSession({ subscriptionId: old }).catch(() => undefined);
      const fromSeq = this.store.getState().lastSeq + 1;
      this.stats.subscribes++;
      let result: SubscribeResult;
      try {
        result = await this.deps.client.subscribeSession({ sessionId: this.sessionId, fromSeq });
      } catch (error) {
        if (this.disposed) return;
        // Keep what we have; show the error only when nothing was loaded yet.
        const record = error instanceof HostCallError ? { name: error.name, code: error.code, message: error.message } : { name: 'Error', code: 'UNKNOWN', message: String(error) };
        if (this.store.getState().lastSeq < 0) setSessionError(this.store, record);
        // Stop unless someone asked for another subscribe meanwhile (a reconnect will ask again).
        continue;
      }
      if (this.disposed) {
        this.deps.client.unsubscribeSession({ subscriptionId: result.subscriptionId }).catch(() => undefined);
        return;
      }
      this.subscriptionId = result.subscriptionId;
      const outcome = applySubscribeResult(this.store, result);
      const early = this.early;
      this.early = [];
      const mine = early.filter((p) => p.kind !== 'session/events' || p.subscriptionId === result.subscriptionId);
      const replay = mine.length > 0 ? applyPushes(this.store, mine) : undefined;
      if (outcome.hole || replay?.hole) {
        this.stats.holes++;
        this.again = true;
      }
    } while (this.again && !this.disposed);
  }

  private flush(items: SessionPush[]): void {
    if (this.disposed) return;
    this.stats.flushes++;
    const apply: SessionPush[] = [];
    for (const push of items) {
      if (push.kind === 'session/events') {
        if (this.subscriptionId === undefined) {
          if (this.running) this.early.push(push);
          continue;
        }
        if (push.subscriptionId !== this.subscriptionId) continue;
      }
      apply.push(push);
    }
    if (apply.length === 0) return;
    const outcome = applyPushes(this.store, apply);
    if (outcome.hole) {
      this.stats.holes++;
      void this.resubscribe();
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.batcher.dispose();
    const id = this.subscriptionId;
    this.subscriptionId = undefined;
    if (id) this.deps.client.unsubscribeSession({ subscriptionId: id }).catch(() => undefined);
  }
}
