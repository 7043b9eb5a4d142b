/**
 * `forkline export` as a stream (README "JSON output": exporting a session holding 50 MB of reasoning
 * peaked at about 877 MB, because the whole log was loaded, packed and joined into one string).
 * The log is read in pages, packed and written page by page with backpressure, so memory holds one
 * page and what the reader has not taken yet, whatever the session's size.
 *
 * The bytes are exactly those of `exportJsonl(header, events)` (session/jsonl.ts): packing runs of
 * chunks is greedy and a run spans at most {@link MAX_PACKED_MEMBERS} events, so every row that
 * starts more than that many events before the end of what has been read is final; the rest is
 * carried into the next page. Crash recovery runs first, as on every read path.
 */
import type { SessionEvent } from '../../shared/events.js';
import { MAX_PACKED_MEMBERS, packEvents, serializeEvent, serializePackedRow, type PackedRow } from '../session/chunk-rows.js';
import { exportJsonl } from '../session/jsonl.js';
import type { SessionRepository } from '../store/session-repository.js';

/** Events read per page (a page holds them plus at most one packing run carried over). */
export const EXPORT_PAGE_EVENTS = 512;

/** Where the export goes: `write` resolves when more may be written; `open` false stops early (the reader left). */
export interface ExportSink {
  write(text: string): Promise<void>;
  readonly open: boolean;
}

/**
 * Writes session `id` as JSONL to `sink`, page by page.
 * @returns the number of events written (less than the log when the sink closed early).
 * @throws as {@link SessionRepository.recover} (SESSION_NOT_FOUND, corruption).
 */
export async function streamExport(repository: SessionRepository, id: string, sink: ExportSink, pageEvents = EXPORT_PAGE_EVENTS): Promise<number> {
  const { record } = repository.recover(id);
  const count = record.eventCount;
  await sink.write(exportJsonl(record.header, []));
  let buffer: SessionEvent[] = [];
  let bufferStart = 0;
  let next = 0;
  let written = 0;
  while (next < count && sink.open) {
    const page = repository.store.readRange(id, next, Math.min(count, next + pageEvents));
    if (page.length === 0) break;
    next += page.length;
    buffer = buffer.length === 0 ? page : buffer.concat(page);
    const last = next >= count;
    // Rows starting before `limit` cannot reach the buffer's end: they are final.
    const limit = last ? Infinity : bufferStart + buffer.length - MAX_PACKED_MEMBERS;
    const rows = packEvents(buffer);
    const lines: string[] = [];
    let keepFrom = buffer.length;
    for (const row of rows) {
      const start = 'seq0' in row ? (row as PackedRow).seq0 : (row as SessionEvent).seq;
      if (start >= limit) {
        keepFrom = start - bufferStart;
        break;
      }
      lines.push('seq0' in row ? serializePackedRow(row as PackedRow) : serializeEvent(row as SessionEvent));
    }
    written += keepFrom;
    buffer = buffer.slice(keepFrom);
    bufferStart += keepFrom;
    if (lines.length > 0) await sink.write(`${lines.join('\n')}\n`);
  }
  return written;
}
