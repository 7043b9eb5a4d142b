/**
 * A JSONL export read for replay (`forkline replay FILE.jsonl`, the corpus): `importJsonl`, plus the
 * export's `origin` — which the importer does not take from a file, since it would let a file claim
 * to be native — kept when it says the log was imported from another agent: that only makes the
 * replay stricter (its requests are then not comparable).
 */
import type { SessionEvent, SessionHeader } from '../../shared/events.js';
import { importJsonl } from '../session/jsonl.js';

/** The header and events of a JSONL session export. @throws what `importJsonl` throws. */
export function readReplayFile(text: string, fallbackId: string): { header: SessionHeader; events: SessionEvent[]; warnings: string[] } {
  const parsed = importJsonl(text, fallbackId);
  const firstLine = text.slice(0, text.indexOf('\n') >= 0 ? text.indexOf('\n') : text.length);
  let origin: unknown;
  try {
    origin = (JSON.parse(firstLine) as { origin?: unknown }).origin;
  } catch {
    origin = undefined;
  }
  const o = origin as { kind?: unknown; format?: unknown } | undefined;
  if (o?.kind === 'imported' && typeof o.format === 'string') {
    return { ...parsed, header: { ...parsed.header, origin: { kind: 'imported', format: o.format, importedAt: 0 } } };
  }
  return parsed;
}
