/**
 * SessionImport: one streaming import of a session log of any format we read (issue 12).
 *
 * Text goes in by chunks (`write`), records come out one at a time (`record-source.ts`), the
 * format is decided by content from the first decisive record (`detect-format.ts`), and that
 * format's importer writes our events through an {@link ImportedLogWriter} in batches. Memory
 * stays bounded by one record, one batch and the importer's small state, whatever the file size.
 *
 * Damage rules (DESIGN §7, issue 12):
 * - a last line cut off mid-record (no newline, not JSON) is skipped with a warning — the import
 *   goes on with everything before it;
 * - any other unreadable line refuses the import with SESSION_CORRUPT naming the line, except in
 *   event logs with explicit turn ends (ours, the reference runtime's), where damage after the last
 *   completed turn only ends the log (the rest is skipped with a warning);
 * - a file that matches no format is UNSUPPORTED_FORMAT, listing the formats we read.
 * A refused import leaves nothing behind.
 */
import { SessionCorruptionError, UnsupportedFormatError } from '../../shared/errors.js';
import { SESSION_FORMAT_VERSION, type SessionHeader } from '../../shared/events.js';
import type { JsonValue } from '../../shared/json.js';
import {
  IMPORT_FORMATS,
  MAX_SKIPPED_LISTED,
  importFormatList,
  type ImportFormatId,
  type ImportSummary,
  type SkippedLine,
} from '../../shared/import-summary.js';
import { ClaudeCodeImporter } from './claude-code.js';
import { CodexImporter } from './codex.js';
import { DETECTION_RECORD_LIMIT, formatOfRecord } from './detect-format.js';
import { ImportedLogWriter, type ImportSink } from './log-writer.js';
import { OpenHandsImporter } from './openhands.js';
import { GeminiCliImporter } from './gemini-cli.js';
import { ClineImporter } from './cline.js';
import { OpencodeImporter } from './opencode.js';
import { JsonArraySplitter, LineSplitter, type RawRecord } from './record-source.js';
import { JsonDocumentCollector, startsJsonDocument } from './json-document.js';
import type { RecordImporter } from './record-importer.js';
import { ReferenceLogImporter } from './reference-log.js';
import { checkNesting } from '../session/import-limits.js';

export interface SessionImportOptions {
  readonly sink: ImportSink;
  /** Id generator for a session whose source id is unusable or taken. */
  readonly newId: () => string;
  /** Epoch-ms clock (only for `origin.importedAt` and a missing creation time). */
  readonly now: () => number;
  /** The file's name (its base name is recorded; never a path to act on). */
  readonly fileName?: string;
}

/** A session id we accept from a file as is. */
const USABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

interface Pending {
  readonly line: number;
  readonly value: JsonValue;
}

export class SessionImport {
  private mode: 'start' | 'lines' | 'array' | 'document' = 'start';
  /** Text seen while the first line is not complete (to tell a JSON document from JSONL). */
  private head = '';
  private document = new JsonDocumentCollector();
  private lines = new LineSplitter();
  private array = new JsonArraySplitter();
  private detecting: Pending[] = [];
  private importer: RecordImporter | undefined;
  private writer: ImportedLogWriter | undefined;
  private format: ImportFormatId | undefined;
  private recordsRead = 0;
  private readonly skipped: SkippedLine[] = [];
  private skippedCount = 0;
  private readonly warnings: string[] = [];
  /** First damaged line of an event log (see the module comment). */
  private damage: { readonly line: number; readonly reason: string } | undefined;
  private firstTime: number | undefined;
  private finished = false;
  private failed = false;
  private charsRead = 0;
  private readonly fallbackId: string;

  constructor(private readonly options: SessionImportOptions) {
    this.fallbackId = options.newId();
  }

  /** Characters consumed so far (for progress). */
  get chars(): number {
    return this.charsRead;
  }

  /** The detected format, once known. */
  get detectedFormat(): ImportFormatId | undefined {
    return this.format;
  }

  /**
   * Feeds the next chunk of text. @throws UnsupportedFormatError, SessionCorruptionError,
   * SessionFormatUnsupportedError; after a throw the import is dead and has left nothing behind.
   */
  write(chunk: string): void {
    this.guard();
    try {
      this.charsRead += chunk.length;
      if (this.mode === 'start') {
        const text = (this.head + chunk).replace(/^\uFEFF/, '');
        const first = /\S/.exec(text);
        if (!first) return;
        const document = startsJsonDocument(text);
        if (document === undefined) {
          this.head = text;
          return;
        }
        this.head = '';
        this.mode = document ? 'document' : first[0] === '[' ? 'array' : 'lines';
        chunk = text;
      }
      const onRecord = (r: RawRecord) => this.onRecord(r);
      if (this.mode === 'document') this.document.push(chunk);
      else if (this.mode === 'array') this.array.push(chunk, onRecord);
      else this.lines.push(chunk, onRecord);
    } catch (error) {
      this.fail();
      throw this.typed(error);
    }
  }

  /** Ends the input and returns the summary. @throws as {@link write}. */
  end(): ImportSummary {
    this.guard();
    try {
      const onRecord = (r: RawRecord) => this.onRecord(r);
      if (this.mode === 'start' && this.head !== '') {
        // A short first line with no newline after it: one JSONL record.
        this.mode = 'lines';
        this.lines.push(this.head, onRecord);
        this.head = '';
      }
      if (this.mode === 'document') {
        const text = this.document.take();
        checkNesting(text, 'the JSON document');
        let value: JsonValue;
        try {
          value = JSON.parse(text) as JsonValue;
        } catch (error) {
          // A whole document has no records before its end: one that does not parse is damaged or cut off.
          throw new SessionCorruptionError('(file)', undefined, `the JSON document does not parse (${error instanceof Error ? error.message : String(error)}): the file is damaged or cut off`, { cause: error, line: 1 });
        }
        this.recordsRead++;
        this.onValue(value, 1);
      } else if (this.mode === 'array') {
        this.array.end(onRecord);
        if (!this.array.complete) this.warnings.push('the JSON array is not closed: the file was cut off; everything before the cut was imported');
      } else if (this.mode === 'lines') {
        this.lines.end(onRecord);
      }
      if (!this.importer) this.detect(true);
      const importer = this.importer!;
      const writer = this.writer!;
      if (this.damage) {
        this.warnings.push(
          `line ${this.damage.line} is damaged (${this.damage.reason}) after the last completed turn: the log ends there (${this.skippedCount} line(s) from it on were skipped)`,
        );
      }
      importer.finish();
      const header = writer.finish();
      this.finished = true;
      return this.summary(header, importer, writer);
    } catch (error) {
      this.fail();
      throw this.typed(error);
    }
  }

  /** Gives up: removes whatever was written. Safe to call at any time. */
  abort(): void {
    if (this.finished || this.failed) return;
    this.fail();
  }

  private guard(): void {
    if (this.finished) throw new Error('this import has already ended');
    if (this.failed) throw new Error('this import failed; start a new one');
  }

  private fail(): void {
    this.failed = true;
    this.writer?.discard();
  }

  private typed(error: unknown): unknown {
    if (error instanceof Error && (error.name === 'RecordTooLongError' || error.name === 'ArrayShapeError')) {
      const line = (error as Error & { line: number }).line;
      return new SessionCorruptionError(this.writer?.sessionId ?? '(file)', undefined, `line ${line}: ${error.message}`, { cause: error, line });
    }
    return error;
  }

  private skip(line: number, reason: string): void {
    this.skippedCount++;
    if (this.skipped.length < MAX_SKIPPED_LISTED) this.skipped.push({ line, reason });
  }

  private onRecord(record: RawRecord): void {
    this.recordsRead++;
    if (record.text.trim() === '') {
      this.skip(record.line, 'empty line');
      return;
    }
    // Before parsing: a record cannot make a recursive walker (ours or a normalizer's) overflow its stack.
    checkNesting(record.text, `line ${record.line}`);
    let value: JsonValue;
    try {
      value = JSON.parse(record.text) as JsonValue;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (record.torn) {
        this.skip(record.line, `torn last line (the file ends mid-record: ${reason})`);
        this.warnings.push(`the last line (${record.line}) is torn — the file ends mid-record; it was skipped and everything before it imported`);
        return;
      }
      this.damaged(record.line, reason);
      return;
    }
    this.onValue(value, record.line);
  }

  /** A parsed record (a JSONL line, an array element, or a whole JSON document). */
  private onValue(value: JsonValue, line: number): void {
    if (this.damage) {
      // After damage in an event log: only a later completed turn matters (it makes the damage committed).
      if (this.importer?.closesTurn(value)) {
        throw new SessionCorruptionError(this.writer?.sessionId ?? '(file)', undefined, `line ${this.damage.line} is damaged (${this.damage.reason}) inside the committed region (a completed turn follows at line ${line})`, {
          line: this.damage.line,
        });
      }
      this.skip(line, `after the damaged line ${this.damage.line}`);
      return;
    }
    if (!this.importer) {
      this.detecting.push({ line: line, value });
      this.detect(false);
      return;
    }
    this.feed(value, line);
  }

  private damaged(line: number, reason: string): void {
    if (!this.importer) {
      // Still detecting: a damaged line before any decisive record means we cannot tell the format.
      this.detecting.push({ line, value: { __damaged: reason } });
      this.detect(false);
      return;
    }
    if (this.importer.tolerateDamagedTail) {
      if (!this.damage) this.damage = { line, reason };
      this.skip(line, `damaged (${reason})`);
      return;
    }
    throw new SessionCorruptionError(this.writer?.sessionId ?? '(file)', undefined, `line ${line} is damaged (${reason})`, { line });
  }

  private feed(value: JsonValue, line: number): void {
    if (this.firstTime === undefined) this.firstTime = timeOf(value);
    this.importer!.record(value, line);
  }

  private detect(atEnd: boolean): void {
    let format: ImportFormatId | undefined;
    for (const p of this.detecting) {
      format = formatOfRecord(p.value, this.mode === 'array');
      if (format) break;
    }
    if (!format) {
      if (atEnd || this.detecting.length >= DETECTION_RECORD_LIMIT) {
        const damaged = this.detecting.find((p) => isDamagedMarker(p.value));
        const what =
          this.detecting.length === 0
            ? 'the file is empty'
            : damaged && damaged.line === this.detecting[0]!.line
              ? `line ${damaged.line} is not JSON`
              : this.detecting.length === 1
                ? 'its first record matches no session-log format'
                : `none of its first ${this.detecting.length} records matches a session-log format`;
        throw new UnsupportedFormatError(`this is not a session log we can read (${what}). Formats we read: ${importFormatList()}`, IMPORT_FORMATS.map((f) => f.id));
      }
      return;
    }
    this.start(format);
    const pending = this.detecting;
    this.detecting = [];
    for (const p of pending) {
      if (isDamagedMarker(p.value)) this.damaged(p.line, String((p.value as { __damaged: string }).__damaged));
      else if (this.damage) this.onParsedAfterDamage(p);
      else this.feed(p.value, p.line);
    }
  }

  private onParsedAfterDamage(p: Pending): void {
    if (this.importer!.closesTurn(p.value)) {
      throw new SessionCorruptionError('(file)', undefined, `line ${this.damage!.line} is damaged (${this.damage!.reason}) inside the committed region`, { line: this.damage!.line });
    }
    this.skip(p.line, `after the damaged line ${this.damage!.line}`);
  }

  private start(format: ImportFormatId): void {
    this.format = format;
    const writer = new ImportedLogWriter(this.options.sink, () => this.header());
    this.writer = writer;
    switch (format) {
      case 'forkline':
      case 'deepseek-harness':
        this.importer = new ReferenceLogImporter(format, writer, this.fallbackId);
        break;
      case 'claude-code':
        this.importer = new ClaudeCodeImporter(writer);
        break;
      case 'codex':
        this.importer = new CodexImporter(writer);
        break;
      case 'openhands':
        this.importer = new OpenHandsImporter(writer);
        break;
      case 'gemini-cli':
        this.importer = new GeminiCliImporter(writer);
        break;
      case 'cline':
        this.importer = new ClineImporter(writer);
        break;
      case 'opencode':
        this.importer = new OpencodeImporter(writer);
        break;
    }
  }

  /** The session header from the importer's facts (called once, at the first batch). */
  private header(): SessionHeader {
    const facts = this.importer!.facts();
    let id = facts.id !== undefined && USABLE_ID.test(facts.id) ? facts.id : this.fallbackId;
    if (facts.id !== undefined && id !== facts.id && this.format !== 'forkline' && this.format !== 'deepseek-harness') {
      this.warnings.push(`the source's session id ${JSON.stringify(facts.id)} is not usable here; imported as ${id}`);
    }
    let title = facts.title;
    if (this.options.sink.exists(id)) {
      const fresh = this.options.newId();
      this.warnings.push(`a session with id ${id} already exists; imported as ${fresh}`);
      id = fresh;
      if (title !== undefined) title = `${title} (imported copy)`;
      this.copy = true;
    }
    const file = this.options.fileName?.split(/[\\/]/).pop();
    return {
      version: SESSION_FORMAT_VERSION,
      id,
      createdAt: facts.createdAt ?? this.firstTime ?? this.options.now(),
      ...(facts.cwd !== undefined ? { cwd: facts.cwd } : {}),
      ...(title !== undefined ? { title } : {}),
      ...(facts.parentSession !== undefined ? { parentSession: facts.parentSession } : {}),
      ...(facts.seedLength !== undefined ? { seedLength: facts.seedLength } : {}),
      origin: {
        kind: 'imported',
        format: this.format!,
        ...(facts.formatVersion !== undefined ? { formatVersion: facts.formatVersion } : {}),
        ...(file ? { file } : {}),
        importedAt: this.options.now(),
      },
    };
  }

  /** The session id collided: an untitled copy gets "(imported copy)" after its derived title. */
  private copy = false;

  private summary(header: SessionHeader, importer: RecordImporter, writer: ImportedLogWriter): ImportSummary {
    let title = header.title;
    if (this.copy && title !== undefined && !title.endsWith('(imported copy)')) {
      title = `${title} (imported copy)`;
      this.options.sink.setTitle(header.id, title);
    }
    const c = writer.counts;
    const origin = header.origin?.kind === 'imported' ? header.origin : undefined;
    return {
      sessionId: header.id,
      ...(title !== undefined ? { title } : {}),
      format: this.format!,
      ...(origin?.formatVersion !== undefined ? { formatVersion: origin.formatVersion } : {}),
      ...(origin?.file !== undefined ? { file: origin.file } : {}),
      events: c.events,
      turns: c.turns,
      steps: c.steps,
      userMessages: c.userMessages,
      assistantMessages: c.assistantMessages,
      toolCalls: c.toolCalls,
      toolResults: c.toolResults,
      unansweredCalls: c.unansweredCalls,
      ...(c.tokens ? { tokens: { ...c.tokens } } : {}),
      rawRecords: c.rawRecords,
      linesRead: this.recordsRead,
      skipped: this.skipped.slice(),
      skippedCount: this.skippedCount,
      warnings: [...this.warnings, ...importer.warnings],
      modelViewNotes: [...importer.modelViewNotes],
    };
  }
}

function isDamagedMarker(value: JsonValue): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { __damaged?: unknown }).__damaged === 'string' && Object.keys(value).length === 1;
}

/** A record's own time, for a header with no creation time (best effort). */
function timeOf(value: JsonValue): number | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const o = value as { [key: string]: JsonValue };
  const t = o['time'] ?? o['timestamp'];
  if (typeof t === 'number' && t > 0) return t;
  if (typeof t === 'string') {
    const ms = Date.parse(/(?:Z|[+-]\d\d:?\d\d)$/i.test(t) || !t.includes('T') ? t : `${t}Z`);
    return Number.isFinite(ms) ? ms : undefined;
  }
  return undefined;
}
