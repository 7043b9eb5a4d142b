/**
 * "Model-visible means logged" (docs/architecture.md §3): rebuilds every model request of a session from its log
 * prefix (messages from the surface, envelope from the last `request/header`) and returns the
 * serialised bodies, to compare byte for byte with what the scripted server received.
 */
import type { SessionEvent, SessionHeader } from '../../shared/events.js';
import type { OpenAiCompatibleClient } from '../../electron/llm/openai-compatible-client.js';
import { Session } from '../../electron/session/session.js';

/**
 * The request bodies rebuilt from the log, one per model attempt (each attempt's first chunk ends
 * its prefix); only attempts from `fromSeq` on (e.g. a fork child's own, after an imported prefix).
 */
export function rebuildRequestBodies(header: SessionHeader, events: readonly SessionEvent[], client: OpenAiCompatibleClient, fromSeq = 0): string[] {
  const bodies: string[] = [];
  for (const e of events) {
    if (e.type !== 'assistant/chunk' || e.seq < fromSeq) continue;
    const prev = events[e.seq - 1];
    if (prev?.type === 'assistant/chunk') continue;
    const prefix = new Session({ header, seed: events.slice(0, e.seq) });
    bodies.push(JSON.stringify(client.requestBody({ header: prefix.requestHeader()!, messages: prefix.deriveMessages() })));
  }
  return bodies;
}
