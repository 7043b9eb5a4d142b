/**
 * Group commit for live sessions' write-behind batches (docs/architecture.md §7).
 *
 * Every commit of the SQLite store is fsync'ed (`synchronous = FULL`) on the calling thread, and a
 * live session's durability barriers (before a model request, before a tool body, …) each need one.
 * With N sessions running at once (a fan-out), N commits per barrier round serialise on the main
 * thread, so each branch's step gets slower with every other live branch. The committer collects
 * the batches that all live sessions submit within one turn of the event loop (until the next
 * `setImmediate`) and writes them in one write transaction: one fsync for all of them.
 *
 * - A single pending batch is appended on its own, exactly as before (no outer transaction).
 * - Several are appended inside one `store.atomically`; each append is its own savepoint (SQLite:
 *   a nested transaction; the memory store's append checks before it changes anything), so a
 *   refused batch (a stale seq, a lost claim) rejects only its own promise and the others commit.
 * - A failure of the commit itself rejects every batch of the group; the write-behind puts each
 *   back in its queue, so nothing is dropped.
 * - Where the store can defer a commit's fsync (SQLite in WAL mode: `atomicallyDeferringSync`,
 *   `syncCommitted`), the group commits without waiting for the disk and the promises settle once
 *   the write-ahead log has been fdatasync'ed on libuv's thread pool: the thread that runs every
 *   agent never blocks on the disk, and groups committed while a sync runs share the next one.
 *   Durability is unchanged: a batch's promise resolves only once it is on disk.
 * - `commitNow()` writes what is pending at once (the repository calls it when it is disposed,
 *   before its store may close).
 */
import type { AppendOptions, SessionStore } from './session-store.js';
import type { SessionEvent } from '../../shared/events.js';

interface Pending {
  readonly sessionId: string;
  readonly events: readonly SessionEvent[];
  readonly options: AppendOptions;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** Collects live sessions' batches per event-loop turn and commits them together. */
export class GroupCommitter {
  private pending: Pending[] = [];
  private scheduled: ReturnType<typeof setImmediate> | undefined;
  /** Commits performed (one per group), for tests and benchmarks. */
  commits = 0;
  /** Batches written, over all commits. */
  batches = 0;

  constructor(private readonly store: Pick<SessionStore, 'append' | 'atomically' | 'atomicallyDeferringSync' | 'syncCommitted'>) {}

  /**
   * Appends `events` to `sessionId` in the next group commit.
   * @returns a promise that resolves once the batch is committed, or rejects with the store's error
   *   for this batch (or for the whole commit).
   */
  append(sessionId: string, events: readonly SessionEvent[], options: AppendOptions): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ sessionId, events, options, resolve, reject });
      this.scheduled ??= setImmediate(() => {
        this.scheduled = undefined;
        this.commitNow();
      });
    });
  }

  /** Commits every pending batch now (synchronously); their promises settle afterwards. */
  commitNow(): void {
    if (this.scheduled !== undefined) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    const group = this.pending;
    this.pending = [];
    if (group.length === 0) return;
    const deferring = this.store.atomicallyDeferringSync !== undefined && this.store.syncCommitted !== undefined;
    if (group.length === 1 && !deferring) {
      const only = group[0]!;
      try {
        this.store.append(only.sessionId, only.events, only.options);
      } catch (error) {
        only.reject(error);
        return;
      }
      this.commits++;
      this.batches++;
      only.resolve();
      return;
    }
    const failures = new Map<Pending, unknown>();
    try {
      const inOneTransaction = <T>(fn: () => T): T => (deferring ? this.store.atomicallyDeferringSync!(fn) : this.store.atomically(fn));
      inOneTransaction(() => {
        for (const entry of group) {
          try {
            this.store.append(entry.sessionId, entry.events, entry.options);
          } catch (error) {
            failures.set(entry, error);
          }
        }
      });
    } catch (error) {
      for (const entry of group) entry.reject(error);
      return;
    }
    this.commits++;
    const settle = (syncError?: unknown): void => {
      for (const entry of group) {
        if (failures.has(entry)) entry.reject(failures.get(entry));
        else if (syncError !== undefined) entry.reject(syncError);
        else {
          this.batches++;
          entry.resolve();
        }
      }
    };
    if (!deferring) return settle();
    this.store.syncCommitted!().then(
      () => settle(),
      (error: unknown) => settle(error),
    );
  }
}
