/**
 * A restartable inactivity timer: fires `onIdle` once when `touch()` has not been called for
 * `timeoutMs` while running. The `openai` client's request timeout stops at the response headers
 * and does not cover a stalled body (STACK.md §4), so the adapter runs one of these per attempt.
 */
import type { IDisposable } from '../../shared/lifecycle.js';

/** One per attempt; `timeoutMs` in milliseconds. */
export class IdleWatchdog implements IDisposable {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private paused = false;
  private fired = false;
  private disposed = false;

  constructor(
    private timeoutMs: number,
    private readonly onIdle: () => void,
  ) {}

  /** The silence (ms) that fires the watchdog now. */
  get currentTimeoutMs(): number {
    return this.timeoutMs;
  }

  /** Changes the allowed silence (ms) and restarts the countdown with it (unless paused, fired or disposed). */
  setTimeoutMs(timeoutMs: number): void {
    this.timeoutMs = timeoutMs;
    if (!this.paused) this.arm();
  }

  /** True once the timer has fired. */
  get hasFired(): boolean {
    return this.fired;
  }

  /** Starts (or restarts) the countdown. */
  start(): void {
    this.paused = false;
    this.arm();
  }

  /** Activity: restarts the countdown unless paused, fired or disposed. */
  touch(): void {
    if (!this.paused) this.arm();
  }

  /** Stops counting (e.g. while the consumer handles a chunk) until {@link resume}. */
  pause(): void {
    this.paused = true;
    this.clear();
  }

  /** Restarts a full countdown after {@link pause}. */
  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.arm();
  }

  /** Stops the timer for good; `onIdle` is never called afterwards. */
  dispose(): void {
    this.disposed = true;
    this.clear();
  }

  private arm(): void {
    if (this.fired || this.disposed) return;
    this.clear();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.fired || this.disposed || this.paused) return;
      this.fired = true;
      this.onIdle();
    }, this.timeoutMs);
  }

  private clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
