/**
 * Write-behind batching for one live session (docs/architecture.md §7; reference runtime `SessionWriteBehind`).
 *
 * - `enqueue` never waits: the first pending event arms one fixed window timer (later events do
 *   not reset it); on expiry one write takes the whole pending queue.
 * - `flush()` cancels the timer and writes until the queue is empty, including events admitted
 *   meanwhile. Concurrent callers share one barrier promise.
 * - A failed background write puts its batch back in front (order kept), is reported through
 *   `onDidFail`, and pauses automatic retries until the next enqueue or flush; an explicit flush
 *   retries at once and rejects if the write fails again. Nothing is ever dropped.
 */
import { Emitter, type Event } from '../../shared/event.js';
import { StoreError } from '../../shared/errors.js';
import type { SessionEvent } from '../../shared/events.js';
import type { IDisposable } from '../../shared/lifecycle.js';

/** Writes one batch durably; throws on failure. May be synchronous (better-sqlite3) or async. */
export type BatchWriter = (events: readonly SessionEvent[]) => void | Promise<void>;

export interface WriteBehindOptions {
  /** The batching window in ms (default 50). */
  readonly windowMs?: number;
  readonly setTimer?: (fn: () => void, ms: number) => unknown;
  readonly clearTimer?: (handle: unknown) => void;
}

export interface WriteFailure {
  readonly error: unknown;
  /** Number of events waiting to be written (nothing was dropped). */
  readonly pending: number;
}

export class SessionWriteBehind implements IDisposable {
  private queue: SessionEvent[] = [];
  private timer: unknown;
  private writing: Promise<void> | undefined;
  private barrier: Promise<void> | undefined;
  private paused = false;
  private disposed = false;
  private readonly windowMs: number;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;
  private readonly failEmitter = new Emitter<WriteFailure>();
  /** Background write failures (already retained for retry). */
  readonly onDidFail: Event<WriteFailure> = this.failEmitter.event;
  /** Number of writes performed (batches), for tests and benchmarks. */
  writes = 0;

  constructor(
    private readonly write: BatchWriter,
    options: WriteBehindOptions = {},
  ) {
    this.windowMs = options.windowMs ?? 50;
    this.setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = options.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
  }

  /** Events not yet durably written. */
  get pendingCount(): number {
    return this.queue.length;
  }

  /** Queues an event (already frozen by the session, so it is not copied). */
  enqueue(event: SessionEvent): void {
    if (this.disposed) throw new StoreError('STORE_CLOSED', `event ${event.seq} arrived after the writer was disposed`);
    this.queue.push(event);
    this.paused = false;
    if (this.timer === undefined && this.writing === undefined) {
      this.timer = this.setTimer(() => {
        this.timer = undefined;
        void this.runBackground();
      }, this.windowMs);
    }
  }

  private async runBackground(): Promise<void> {
    if (this.paused || this.barrier) return;
    try {
      await this.writeOnce();
    } catch (error) {
      this.paused = true;
      this.failEmitter.fire({ error, pending: this.queue.length });
      return;
    }
    // Events that arrived during the write form the next batch, after a fresh window.
    if (this.queue.length > 0 && this.timer === undefined && !this.paused) {
      this.timer = this.setTimer(() => {
        this.timer = undefined;
        void this.runBackground();
      }, this.windowMs);
    }
  }

  /** Writes the whole current queue as one batch; on failure the batch goes back in front. */
  private writeOnce(): Promise<void> {
    if (this.writing) return this.writing;
    if (this.queue.length === 0) return Promise.resolve();
    const batch = this.queue;
    this.queue = [];
    const run = async (): Promise<void> => {
      try {
        await this.write(batch);
        this.writes++;
      } catch (error) {
        this.queue = batch.concat(this.queue);
        throw error;
      }
    };
    // The writer may be synchronous (better-sqlite3) and throw before `run()` returns, so the
    // active-write slot is cleared in a `.finally` that always runs after the assignment below
    // (clearing it inside `run` would happen first and leave a settled promise in the slot forever).
    const promise: Promise<void> = run().finally(() => {
      if (this.writing === promise) this.writing = undefined;
    });
    this.writing = promise;
    return promise;
  }

  /**
   * Resolves when every event enqueued before or during the call is durable.
   * @throws the write error when a batch cannot be written (the batch stays queued).
   */
  flush(): Promise<void> {
    if (this.barrier) return this.barrier;
    if (this.timer !== undefined) {
      this.clearTimer(this.timer);
      this.timer = undefined;
    }
    if (this.queue.length === 0 && !this.writing) return Promise.resolve();
    const drain = async () => {
      try {
        if (this.writing) await this.writing.catch(() => undefined);
        while (this.queue.length > 0) await this.writeOnce();
        this.paused = false;
      } finally {
        this.barrier = undefined;
      }
    };
    this.barrier = drain();
    return this.barrier;
  }

  /** Flushes, then refuses further events. */
  async close(): Promise<void> {
    await this.flush();
    this.dispose();
  }

  dispose(): void {
    if (this.timer !== undefined) this.clearTimer(this.timer);
    this.timer = undefined;
    this.disposed = true;
    this.failEmitter.dispose();
  }
}
