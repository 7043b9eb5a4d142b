/**
 * Collects items (live pushes) and hands them over once per frame: the first `push` after a
 * flush schedules one callback; everything pushed until it runs is flushed together, in order.
 * The scheduler is injected (the browser uses requestAnimationFrame, tests a manual queue).
 */
import type { IDisposable } from '../../shared/lifecycle.js';

/** Schedules `callback` once; returns a function that cancels it. */
export type FrameScheduler = (callback: () => void) => () => void;

export class FrameBatcher<T> implements IDisposable {
  private queue: T[] = [];
  private cancel: (() => void) | undefined;
  private disposed = false;

  constructor(
    private readonly flush: (items: T[]) => void,
    private readonly schedule: FrameScheduler,
  ) {}

  get pending(): number {
    return this.queue.length;
  }

  push(item: T): void {
    if (this.disposed) return;
    this.queue.push(item);
    if (!this.cancel) this.cancel = this.schedule(() => this.run());
  }

  /** Flushes now (e.g. before a resubscribe), cancelling the scheduled frame. */
  flushNow(): void {
    this.cancel?.();
    this.run();
  }

  private run(): void {
    this.cancel = undefined;
    if (this.disposed || this.queue.length === 0) return;
    const items = this.queue;
    this.queue = [];
    this.flush(items);
  }

  dispose(): void {
    this.disposed = true;
    this.cancel?.();
    this.cancel = undefined;
    this.queue = [];
  }
}
