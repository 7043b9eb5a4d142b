/**
 * Background passes that write the search documents imports deferred (moved out of
 * SessionRepository unchanged). Each pass is one short write transaction of
 * {@link SEARCH_PASS_EVENTS} events; passes are spaced by {@link SEARCH_PASS_GAP_MS} so other
 * work interleaves.
 */
import type { IDisposable } from '../../shared/lifecycle.js';
import type { SessionStore } from './session-store.js';

/** Events per background pass of deferred search documents (one short write transaction, tens of ms). */
export const SEARCH_PASS_EVENTS = 1_000;
/** Pause between background passes (ms), so other work interleaves. */
export const SEARCH_PASS_GAP_MS = 10;

/** Writes a store's deferred search documents in short passes, in the background or on demand. */
export class SearchPasses implements IDisposable {
  private searchPass: ReturnType<typeof setTimeout> | undefined;
  private disposed = false;

  constructor(private readonly store: Pick<SessionStore, 'indexPendingSearch'>) {}

  /**
   * Writes the search documents that imports deferred, in short passes
   * ({@link SEARCH_PASS_EVENTS} events each, one write transaction) spaced by
   * {@link SEARCH_PASS_GAP_MS}, until none remain — so a large import's index is built while the
   * app is otherwise idle, and a search right after it (which first writes whatever is still
   * pending) finds little left to do. The timers do not keep a process alive; what a process leaves
   * undone is done by the next search or the next background run. Calling it again while it runs
   * does nothing.
   */
  inBackground(): void {
    if (this.searchPass !== undefined || this.disposed) return;
    const pass = (): void => {
      this.searchPass = undefined;
      if (this.disposed) return;
      let more: boolean;
      try {
        more = this.store.indexPendingSearch(SEARCH_PASS_EVENTS);
      } catch {
        return; // a closed or busy store: the next search writes the documents instead
      }
      if (more) this.searchPass = setTimeout(pass, SEARCH_PASS_GAP_MS).unref();
    };
    this.searchPass = setTimeout(pass, SEARCH_PASS_GAP_MS).unref();
  }

  /**
   * Writes every deferred search document now, in the same short passes as
   * {@link inBackground} but yielding to the event loop between them (so a host stays
   * responsive while a search waits for a large import's documents). Call before a search that
   * must see every stored event; the store's own `search` would do the same in one blocking go.
   */
  async catchUp(): Promise<void> {
    while (!this.disposed && this.store.indexPendingSearch(SEARCH_PASS_EVENTS)) await new Promise<void>((resolve) => setImmediate(resolve));
  }

  /** Stops the background passes (what is left is written by the next search or run). */
  dispose(): void {
    this.disposed = true;
    clearTimeout(this.searchPass);
  }
}
