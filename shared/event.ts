/**
 * Typed events (VS Code `event.ts` pattern): a class keeps a private `Emitter<T>` and exposes only
 * `emitter.event`; subscribing returns a disposable. A throwing listener is reported and contained,
 * so one bad observer cannot change the outcome for the others.
 */
import type { IDisposable } from './lifecycle.js';

/** Subscribe with a listener; dispose the result to unsubscribe. */
export type Event<T> = (listener: (value: T) => void) => IDisposable;

export class Emitter<T> implements IDisposable {
  private listeners: ((value: T) => void)[] = [];
  private disposed = false;

  constructor(private readonly onListenerError: (error: unknown) => void = (e) => console.error('listener failed:', e)) {}

  readonly event: Event<T> = (listener) => {
    if (this.disposed) return { dispose() {} };
    this.listeners.push(listener);
    let removed = false;
    return {
      dispose: () => {
        if (removed) return;
        removed = true;
        this.listeners = this.listeners.filter((l) => l !== listener);
      },
    };
  };

  get hasListeners(): boolean {
    return this.listeners.length > 0;
  }

  fire(value: T): void {
    for (const listener of this.listeners) {
      try {
        listener(value);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }

  dispose(): void {
    this.disposed = true;
    this.listeners = [];
  }
}
