/**
 * One stored session's trace (issue 26): its log (crash recovery first, as on every read path)
 * through {@link SessionSpanBuilder}, with the fork link resolved along the stored lineage.
 */
import type { SessionRepository } from '../store/session-repository.js';
import { forkLinkTarget, SessionSpanBuilder, type SpanRecord } from './session-spans.js';

/**
 * Every span of `sessionId`'s own events (a fork's inherited prefix stays in its parent's trace).
 * @throws StoreError SESSION_NOT_FOUND / SESSION_LIVE, SessionCorruptionError (from loading).
 */
export function sessionTrace(repository: SessionRepository, sessionId: string, options: { readonly includeContent: boolean }): SpanRecord[] {
  const loaded = repository.load(sessionId);
  const header = loaded.record.header;
  const forkedFrom = forkLinkTarget(header, loaded.events, (id) => repository.get(id)?.header);
  const builder = new SessionSpanBuilder({ header, includeContent: options.includeContent, ...(forkedFrom ? { forkedFrom } : {}) });
  const spans: SpanRecord[] = [];
  for (const event of loaded.events) spans.push(...builder.add(event));
  spans.push(...builder.finish());
  return spans;
}
