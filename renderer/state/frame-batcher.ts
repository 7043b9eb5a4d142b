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

/**
 * One frame for everyone: wraps `base` so that every callback scheduled before the frame runs
 * goes out in one `base` callback, in the order scheduled. Each open session has its own
 * {@link FrameBatcher}; with their own frames, N sessions streaming at once (a fan-out board)
 * meant N animation-frame callbacks per frame, each followed by its own React commit (React flushes
 * external-store updates in the microtask after each callback). Shared, the N flushes land in one
 * task and React commits once. A callback that throws does not stop the others; its error is
 * rethrown afterwards (in a microtask), so it still reaches the console.
 */
export function sharedFrameScheduler(base: FrameScheduler): FrameScheduler {
  let pending: (() => void)[] = [];
  let cancelBase: (() => void) | undefined;
  const runAll = (): void => {
    cancelBase = undefined;
    const due = pending;
    pending = [];
    for (const callback of due) {
      try {
        callback();
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  };
  return (callback) => {
    let entry: (() => void) | undefined = () => callback();
    const wrapped = (): void => entry?.();
    pending.push(wrapped);
    cancelBase ??= base(runAll);
    return () => {
      entry = undefined;
      const i = pending.indexOf(wrapped);
      if (i >= 0) pending.splice(i, 1);
      if (pending.length === 0 && cancelBase) {
        cancelBase();
        cancelBase = undefined;
      }
    };
  };
}
