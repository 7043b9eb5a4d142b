/** Writing helpers shared by the two-process store test and its child (`store-writer-child.ts`). */
import type { SessionEvent } from '../../shared/events.js';
import { ForklineError } from '../../shared/errors.js';
import type { SqliteSessionStore } from '../../electron/store/sqlite-session-store.js';

/** `n` contiguous log-only events from `from`, tagged with the writer's name. */
export function titleBatch(writer: string, from: number, n: number, round: number): SessionEvent[] {
  return Array.from({ length: n }, (_, i) => ({ seq: from + i, type: 'session/title', time: Date.now(), data: { title: `${writer} ${round}.${i}` } }) as SessionEvent);
}

function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // widen the window between reading the next seq and appending
  }
}

/** One racing round: read the shared next seq, wait a little, append; a lost race is STALE_APPEND. */
export function raceOnce(store: SqliteSessionStore, writer: string, round: number): 'ok' | 'stale' {
  const next = store.get('shared')!.eventCount;
  spin(Math.random() * 0.5);
  try {
    store.append('shared', titleBatch(writer, next, 3, round));
    return 'ok';
  } catch (error) {
    if (ForklineError.isInstance(error) && error.code === 'STALE_APPEND') return 'stale';
    throw error;
  }
}
