/**
 * JSONL session files: one header line, then one event (or packed chunk row) per line. Compatible
 * with the reference runtime's uncompressed `session.jsonl` (DeepSeek Harness
 * `packages/session/session-persistence-jsonl`), whose packed `text-chunks` / `reasoning-chunks` /
 * `tool-call-chunks` rows expand to the exact original events.
 *
 * Reading rules (docs/architecture.md §7): a torn last line is dropped with a warning; damage at or before the
 * last `turn/end` (the committed region) is a {@link SessionCorruptionError}; damage after it ends the
 * preserved prefix, with a warning that says how many lines were dropped. Nothing is dropped silently.
 *
 * Pure: strings in, strings out.
 */
import { SessionCorruptionError, SessionFormatUnsupportedError } from '../../shared/errors.js';
import { KNOWN_EVENT_TYPES, SESSION_FORMAT_VERSION, type ImportForeignData, type SessionEvent, type SessionHeader } from '../../shared/events.js';
import type { JsonObject, JsonValue } from '../../shared/json.js';
import { eventShapeProblem } from './event-shapes.js';
import { checkEventCount, checkFileSize, checkNesting, checkSeq, DEFAULT_IMPORT_LIMITS, isSafeSessionId, type ImportLimits } from './import-limits.js';
import { expandPackedRow, isPackedRow, packEvents, serializeEvent, serializePackedRow, type PackedRow } from './chunk-rows.js';
import { normalizeLegacyEvent } from './legacy-events.js';

export interface JsonlImport {
  readonly header: SessionHeader;
  /** Contiguous events from seq 0 (gaps filled with `import/elided` placeholders). */
  readonly events: SessionEvent[];
  /** Everything the reader repaired or dropped, in plain words. */
  readonly warnings: string[];
}

export interface ExportOptions {
  /** Pack runs of delta chunks into rows (default true; smaller files, same events). */
  readonly pack?: boolean;
}

/** Serialises a session as JSONL text (ends with a newline). */
export function exportJsonl(header: SessionHeader, events: readonly SessionEvent[], options: ExportOptions = {}): string {
  const lines: string[] = [serializeHeader(header)];
  const rows = options.pack === false ? events : packEvents(events);
  for (const row of rows) lines.push('seq0' in row ? serializePackedRow(row) : serializeEvent(row));
  return lines.join('\n') + '\n';
}

function serializeHeader(header: SessionHeader): string {
  const line: Record<string, JsonValue> = { type: 'session', version: header.version, id: header.id, createdAt: header.createdAt };
  if (header.cwd !== undefined) line['cwd'] = header.cwd;
  if (header.title !== undefined) line['title'] = header.title;
  if (header.parentSession !== undefined) line['parentSession'] = header.parentSession;
  if (header.seedLength !== undefined) line['seedLength'] = header.seedLength;
  // Always written (native when absent): content detection tells our exports from the reference runtime's by it.
  line['origin'] = (header.origin ?? { kind: 'native' }) as unknown as JsonValue;
  return JSON.stringify(line);
}

interface ParsedLine {
  readonly lineNo: number;
  readonly value: JsonObject | undefined;
  readonly error?: string;
}

/**
 * Parses a JSONL session file.
 * The file is untrusted: its size, every seq and every line's nesting are checked against `limits`
 * before anything is allocated for them, every event's payload must have its type's shape
 * (event-shapes.ts; a malformed one is a damaged line), and ids it names are used only when they
 * are safe ({@link isSafeSessionId}).
 * @param fallbackId used when the header has no usable id (placeholders such as `{{sessionId}}`).
 * @throws ImportLimitError (IMPORT_LIMIT_EXCEEDED) when the file is over a limit;
 *   SessionCorruptionError for damage in the committed region, a missing header or an event whose
 *   payload has the wrong shape; SessionFormatUnsupportedError for another format version. Unknown
 *   event types are kept as `import/foreign` records, never refused.
 */
export function importJsonl(text: string, fallbackId: string, limits: ImportLimits = DEFAULT_IMPORT_LIMITS): JsonlImport {
  checkFileSize(text.length, limits);
  const warnings: string[] = [];
  const rawLines = text.split('\n');
  const endsWithNewline = text.endsWith('\n');
  if (endsWithNewline) rawLines.pop();
  const parsed: ParsedLine[] = rawLines.map((line, i) => {
    if (line.trim() === '') return { lineNo: i + 1, value: undefined, error: 'empty line' };
    checkNesting(line, `line ${i + 1}`, limits);
    try {
      const value: unknown = JSON.parse(line);
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return { lineNo: i + 1, value: undefined, error: 'not a JSON object' };
      return { lineNo: i + 1, value: value as JsonObject };
    } catch (error) {
      return { lineNo: i + 1, value: undefined, error: error instanceof Error ? error.message : String(error) };
    }
  });
  // A trailing blank line from a "\n\n" ending is harmless.
  while (parsed.length > 1 && parsed[parsed.length - 1]!.error === 'empty line') parsed.pop();
  const headerLine = parsed[0];
  if (!headerLine?.value || headerLine.value['type'] !== 'session') {
    throw new SessionCorruptionError('(file)', undefined, 'the first line is not a session header: this is not a Forkline or DeepSeek Harness session file');
  }
  const header = readHeader(headerLine.value, fallbackId, warnings);

  // The committed region ends at the last line that is a well-formed turn/end.
  let lastTurnEnd = 0;
  for (let i = parsed.length - 1; i > 0; i--) {
    if (parsed[i]!.value?.['type'] === 'turn/end') {
      lastTurnEnd = i;
      break;
    }
  }

  const events: SessionEvent[] = [];
  let nextSeq = 0;
  let elided = 0;
  for (let i = 1; i < parsed.length; i++) {
    const line = parsed[i]!;
    const isLast = i === parsed.length - 1;
    let decoded: SessionEvent[];
    try {
      if (!line.value) throw new Error(line.error ?? 'unreadable line');
      decoded = decodeLine(line.value, header.id);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (i <= lastTurnEnd) {
        throw new SessionCorruptionError(header.id, nextSeq, `line ${line.lineNo} is damaged (${reason}) inside the committed region`, { cause: error });
      }
      if (isLast && !endsWithNewline) {
        warnings.push(`dropped a torn last line (line ${line.lineNo}: ${reason})`);
      } else {
        warnings.push(`dropped ${parsed.length - i} line(s) from line ${line.lineNo} on: line ${line.lineNo} is damaged (${reason}) after the last completed turn`);
      }
      break;
    }
    const first = decoded[0]!;
    if (first.seq < nextSeq) {
      const message = `line ${line.lineNo} repeats seq ${first.seq} (expected ${nextSeq})`;
      if (i <= lastTurnEnd) throw new SessionCorruptionError(header.id, first.seq, message);
      warnings.push(`dropped ${parsed.length - i} line(s) from line ${line.lineNo} on: ${message}`);
      break;
    }
    // Checked before the gap is filled: a file cannot make us allocate for seqs it does not hold.
    const gap = checkSeq(nextSeq, first.seq, elided, limits);
    checkEventCount(first.seq + decoded.length, limits);
    if (gap > 0) {
      elided += gap;
      warnings.push(`seqs ${nextSeq}–${first.seq - 1} are missing from the file (before line ${line.lineNo}); kept as import/elided placeholders`);
      for (; nextSeq < first.seq; nextSeq++) events.push({ type: 'import/elided', seq: nextSeq, time: first.time, data: {} });
    }
    for (const event of decoded) {
      if (event.seq !== nextSeq) throw new SessionCorruptionError(header.id, event.seq, `line ${line.lineNo} has a seq gap inside a packed row`);
      events.push(event);
      nextSeq++;
    }
  }
  return { header, events, warnings };
}

/**
 * The session header from a header line `{type:'session', version, id, createdAt, cwd?, …}`.
 * @param fallbackId used when the line's id is not usable (placeholders such as `{{sessionId}}`).
 * @throws SessionFormatUnsupportedError for a format version other than {@link SESSION_FORMAT_VERSION}.
 */
export function readHeader(line: JsonObject, fallbackId: string, warnings: string[]): SessionHeader {
  const version = line['version'] ?? SESSION_FORMAT_VERSION;
  if (version !== SESSION_FORMAT_VERSION) {
    throw new SessionFormatUnsupportedError(
      typeof version === 'number' && version > SESSION_FORMAT_VERSION
        ? `session format version ${version} is newer than this build understands (${SESSION_FORMAT_VERSION}); upgrade Forkline`
        : `session format version ${String(version)} is not supported and no upgrade path ships`,
    );
  }
  const rawId = line['id'];
  let id = fallbackId;
  if (isSafeSessionId(rawId)) id = rawId;
  else warnings.push(`the header id ${JSON.stringify(rawId)} is not usable; imported as ${fallbackId}`);
  const createdAt = typeof line['createdAt'] === 'number' && Number.isSafeInteger(line['createdAt']) ? line['createdAt'] : 0;
  const header: { -readonly [K in keyof SessionHeader]: SessionHeader[K] } = { version: SESSION_FORMAT_VERSION, id, createdAt };
  if (typeof line['cwd'] === 'string') header.cwd = line['cwd'];
  if (typeof line['title'] === 'string') header.title = line['title'];
  // Lineage facts only (the file carries its whole log); an unsafe id is dropped, not used.
  if (isSafeSessionId(line['parentSession'])) header.parentSession = line['parentSession'];
  else if (line['parentSession'] !== undefined) warnings.push(`the header's parentSession ${JSON.stringify(line['parentSession'])} is not a usable id; dropped`);
  const seedLength = line['seedLength'];
  if (typeof seedLength === 'number' && Number.isSafeInteger(seedLength) && seedLength >= 0) header.seedLength = seedLength;
  return header;
}

/**
 * The event envelopes of one line: a packed row expands to its members, any other line is one
 * envelope with a string `type`, a safe non-negative `seq`, a finite `time` and `data`. The type is
 * not checked against our vocabulary (see {@link decodeLine}).
 * @throws Error (PackedRowError) naming what is wrong with the line.
 */
export function decodeEnvelopes(value: JsonObject): SessionEvent[] {
  if (isPackedRow(value)) return expandPackedRow(value as unknown as PackedRow);
  const type = value['type'];
  const seq = value['seq'];
  const time = value['time'];
  if (typeof type !== 'string') throw new Error('event has no type');
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) throw new Error('event has no valid seq');
  if (typeof time !== 'number' || !Number.isFinite(time)) throw new Error('event has no valid time');
  const data = value['data'];
  if (data === null || typeof data !== 'object') throw new Error('event has no data object');
  return [value as unknown as SessionEvent];
}

/**
 * One line as events of our vocabulary. A type this build does not know is never a refusal
 * (docs/importing.md): the envelope is kept whole in an `import/foreign` event at the same seq, marked
 * model-visible when it carries a surface op (it changed what the writer's model saw).
 */
function decodeLine(value: JsonObject, sessionId: string): SessionEvent[] {
  return decodeEnvelopes(value).map((event) => {
    if (KNOWN_EVENT_TYPES.has(event.type) || event.ignorable === true) {
      const normalized = normalizeLegacyEvent(event, sessionId);
      // A payload with the wrong shape is a damaged line (docs/security.md): readers rely on these fields.
      const problem = eventShapeProblem(normalized);
      if (problem !== undefined) throw new Error(problem);
      return normalized;
    }
    const foreign: ImportForeignData = {
      format: 'deepseek-harness',
      type: event.type,
      record: value,
      ...(value['surfaceOp'] !== undefined ? { modelVisible: true as const } : {}),
      note: 'an event type this build does not know',
    };
    return { type: 'import/foreign', seq: event.seq, time: event.time, data: foreign } as SessionEvent;
  });
}
