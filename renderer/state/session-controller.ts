/**
 * Keeps one open session's store in sync with the host: subscribes from `lastSeq + 1`, batches
 * live pushes per animation frame (one store update per frame however many pushes arrive),
 * resubscribes on a hole or after the connection reopens, and unsubscribes on dispose.
 *
 * Runtime-neutral: the host client and the frame scheduler are injected.
 */
import type { HostClient, HostPush, SubscribeResult } from '../../shared/api.js';
import type { SessionEvent } from '../../shared/events.js';
import type { IDisposable } from '../../shared/lifecycle.js';
import { HostCallError } from '../host/host-client.js';
import { FrameBatcher, type FrameScheduler } from './frame-batcher.js';
import { applyPushes, applySubscribeResult, createSessionStore, prependSessionEvents, setSessionError, setSessionPrelude, type SessionStore } from './session-store.js';

/**
 * How many of a session's newest events are loaded when it opens — about a screenful of rows — so
 * the first rows cost the same whatever the session's length (docs/architecture.md §13 time to first rows).
 */
export const OPEN_TAIL_EVENTS = 200;
/**
 * Right after the first rows are shown, earlier events are fetched in the background until about
 * this many are loaded (more history to scroll through without asking); the rest loads on demand.
 */
export const BACKGROUND_EVENTS = 3_000;
/** …starting this long after the first rows arrived (so it never competes with their first paint), ms. */
export const BACKGROUND_DELAY_MS = 600;
/** Earlier events loaded per "show earlier" step. */
export const EARLIER_PAGE_EVENTS = 5_000;

export type SessionPush = Extract<HostPush, { readonly sessionId: string }>;

export interface SessionControllerDeps {
  readonly client: Pick<HostClient, 'subscribeSession' | 'unsubscribeSession'> & Partial<Pick<HostClient, 'readEvents' | 'readEnvelope'>>;
  /** Events loaded when the session opens (default {@link OPEN_TAIL_EVENTS}; `Infinity` loads all). */
  readonly openTail?: number;
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
      const tail = this.deps.openTail ?? OPEN_TAIL_EVENTS;
      let result: SubscribeResult;
      try {
        result = await this.deps.client.subscribeSession({ sessionId: this.sessionId, fromSeq, ...(fromSeq === 0 && Number.isFinite(tail) ? { tail } : {}) });
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
      // Opened at the tail: after the first rows are in, fetch the envelope in effect there and
      // some more history in the background.
      if (fromSeq === 0 && result.startSeq > 0) {
        const start = result.startSeq;
        setTimeout(() => {
          if (this.disposed) return;
          void this.loadPrelude(start);
          const more = BACKGROUND_EVENTS - result.events.length;
          if (more > 0) void this.loadEarlier(Math.max(0, start - more)).catch(() => undefined);
        }, BACKGROUND_DELAY_MS);
      }
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

  private async loadPrelude(beforeSeq: number): Promise<void> {
    const read = this.deps.client.readEnvelope;
    if (!read) return;
    try {
      const { events } = await read({ sessionId: this.sessionId, beforeSeq });
      if (!this.disposed) setSessionPrelude(this.store, events);
    } catch {
      // The steps then show their token counts without the window; nothing else depends on it.
    }
  }

  private loadingEarlier: Promise<void> | undefined;

  /**
   * Loads earlier events of a session opened at its tail: down to `toSeq` (inclusive; default one
   * page before the loaded ones). Concurrent calls share the running load.
   */
  loadEarlier(toSeq?: number): Promise<void> {
    if (this.loadingEarlier) return this.loadingEarlier.then(() => (toSeq !== undefined && toSeq < this.store.getState().startSeq ? this.loadEarlier(toSeq) : undefined));
    const run = async (): Promise<void> => {
      const read = this.deps.client.readEvents;
      const start = this.store.getState().startSeq;
      if (!read || start === 0) return;
      const from = Math.max(0, Math.min(toSeq ?? start - EARLIER_PAGE_EVENTS, start - 1));
      // In pages the host accepts (at most 200,000 events per read).
      let end = start;
      const pages: (readonly SessionEvent[])[] = [];
      while (end > from) {
        const begin = Math.max(from, end - 200_000);
        const { events } = await read({ sessionId: this.sessionId, fromSeq: begin, toSeq: end });
        if (this.disposed) return;
        pages.unshift(events);
        end = begin;
      }
      prependSessionEvents(this.store, pages.flat());
    };
    this.loadingEarlier = run().finally(() => {
      this.loadingEarlier = undefined;
    });
    return this.loadingEarlier;
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
