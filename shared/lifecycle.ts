/**
 * Disposables (VS Code `lifecycle.ts` pattern): every resource has one owner that disposes it.
 */

/** Anything that holds a resource and releases it on `dispose()` (idempotent). */
export interface IDisposable {
  dispose(): void;
}

/** Wraps a teardown function as a disposable that runs at most once. */
export function toDisposable(fn: () => void): IDisposable {
  let done = false;
  return {
    dispose() {
      if (done) return;
      done = true;
      fn();
    },
  };
}

/**
 * A set of disposables disposed together. Disposing twice is a no-op; adding to a disposed store
 * disposes the newcomer at once (and reports it) so nothing leaks.
 */
export class DisposableStore implements IDisposable {
  private readonly items = new Set<IDisposable>();
  private disposed = false;

  get isDisposed(): boolean {
    return this.disposed;
  }

  add<T extends IDisposable>(item: T): T {
    if (this.disposed) {
      item.dispose();
      console.warn('DisposableStore: add() after dispose(); the item was disposed immediately');
      return item;
    }
    this.items.add(item);
    return item;
  }

  delete(item: IDisposable): void {
    if (this.items.delete(item)) item.dispose();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const errors: unknown[] = [];
    for (const item of [...this.items].reverse()) {
      try {
        item.dispose();
      } catch (error) {
        errors.push(error);
      }
    }
    this.items.clear();
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, 'several disposables failed');
  }
}

/** A slot whose value is disposed when replaced or when the slot is disposed. */
export class MutableDisposable<T extends IDisposable> implements IDisposable {
  private current: T | undefined;
  get value(): T | undefined {
    return this.current;
  }
  set value(next: T | undefined) {
    if (this.current === next) return;
    this.current?.dispose();
    this.current = next;
  }
  dispose(): void {
    this.value = undefined;
  }
}
