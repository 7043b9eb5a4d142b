/**
 * SessionImport: one streaming import of a session log of any format we read (docs/importing.md).
 *
 * Size: over 500 lines because the three file shapes (JSONL, JSON array, one JSON document),
 * detection and the damage rules share one record stream and its line numbers; the formats
 * themselves live in detect-format.ts and the importers.
 *
 * Text goes in by chunks (`write`), records come out one at a time (`record-source.ts`), the
 * format is decided by content from the first decisive record (`detect-format.ts`), and that
 * format's importer writes our events through an {@link ImportedLogWriter} in batches. Memory
 * stays bounded by one record, one batch and the importer's small state, whatever the file size.
 *
 * Three shapes of file: JSONL (one record per line), a top-level JSON array (one record per
 * element), and one JSON document (a file that starts with `{` whose first line is not a whole
 * record — a pretty-printed object — is read whole, up to MAX_IMPORT_RECORD_CHARS, and detected as
 * a document). A document is never partly imported. When its first line is a lone `{` it is
 * certainly a document (no JSONL line is a lone `{`): one that does not parse is SESSION_CORRUPT
 * ("the JSON document does not parse …: the file is damaged or cut off"), one above the bound is
 * SESSION_CORRUPT naming the bound. Otherwise (`{"a": 1,` on line 1: maybe a JSONL file with a
 * damaged first line) a file that does not parse as one document has its lines read as JSONL.
 * Sessions kept as folders (Cline / Roo Code, opencode) arrive as JSONL too: one
 * `forkline/folder-entry` line per file (folder-entry.ts).
 *
 * Detection says what it saw: a file that matches no format is "a JSON document / a JSON array /
 * a JSONL file that matches no format we read"; one that looks like a known agent's log we do not
 * read names that agent; after detection every record is checked again, and a record of another
 * format (two logs concatenated) refuses the import naming its line.
 *
 * Damage rules (docs/architecture.md §7, docs/importing.md):
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
import { IMPORT_FORMATS, MAX_SKIPPED_LISTED, importFormatList, type ImportFormatId, type ImportSummary, type SkippedLine } from '../../shared/import-summary.js';
import { ClaudeCodeImporter } from './claude-code.js';
import { CodexImporter } from './codex.js';
import { DETECTION_RECORD_LIMIT, formatOfDocument, formatOfRecord, sameFamily, verdictName, type FormatVerdict, type RecordShape } from './detect-format.js';
import { ImportedLogWriter, type ImportSink } from './log-writer.js';
import { OpenHandsImporter } from './openhands.js';
import { GeminiCliImporter } from './gemini-cli.js';
import { ClineImporter } from './cline.js';
import { OpencodeImporter } from './opencode.js';
import { JsonArraySplitter, LineSplitter, MAX_IMPORT_RECORD_CHARS, type RawRecord } from './record-source.js';
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

/** What an importer is made from (one entry per format in {@link IMPORTERS}). */
export interface ImporterContext {
  readonly writer: ImportedLogWriter;
  /** Id for a session whose source id is unusable. */
  readonly fallbackId: string;
  /** The file's name as given (a fact, e.g. a sub-agent file's folder names its parent; never a path to act on). */
  readonly fileName: string | undefined;
}

/** One importer factory per format we read (the other half of `detect-format.ts`'s table). */
export const IMPORTERS: { readonly [K in ImportFormatId]: (ctx: ImporterContext) => RecordImporter } = {
  forkline: (ctx) => new ReferenceLogImporter('forkline', ctx.writer, ctx.fallbackId),
  'deepseek-harness': (ctx) => new ReferenceLogImporter('deepseek-harness', ctx.writer, ctx.fallbackId),
  'claude-code': (ctx) => new ClaudeCodeImporter(ctx.writer, ctx.fileName),
  codex: (ctx) => new CodexImporter(ctx.writer),
  openhands: (ctx) => new OpenHandsImporter(ctx.writer),
  'gemini-cli': (ctx) => new GeminiCliImporter(ctx.writer),
  cline: (ctx) => new ClineImporter(ctx.writer),
  opencode: (ctx) => new OpencodeImporter(ctx.writer),
};

/** `the formats we read` tail of every refusal. */
function formatsWeRead(): string {
  return `Formats we read: ${importFormatList()}`;
}

/** `a Claude Code transcript`, `an OpenHands trajectory or event stream`. */
function labelOf(id: ImportFormatId): string {
  const label = IMPORT_FORMATS.find((f) => f.id === id)?.label ?? id;
  return `${/^[AEIOU]/i.test(label) ? 'an' : 'a'} ${label}`;
}

export class SessionImport {
  private mode: 'start' | 'lines' | 'array' | 'document' = 'start';
  /** The first character of the text is `{`: a first line that is not JSON may be a pretty-printed document. */
  private startsWithBrace = false;
  /** The lines of a file read as one JSON document (see the module comment). */
  private doc: { readonly records: RawRecord[]; chars: number; readonly certain: boolean } | undefined;
  /** Why the file did not parse as one JSON document (after which it was read as JSONL). */
  private docError: string | undefined;
  /** Records handed to the importer so far (a header rule matters only at the first). */
  private fed = 0;
  /** The line of the first decisive record (named in a format-change error). */
  private decisiveLine = 0;
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
        const text = chunk.replace(/^\uFEFF/, '');
        const first = /\S/.exec(text);
        if (!first) return;
        this.mode = first[0] === '[' ? 'array' : 'lines';
        this.startsWithBrace = first[0] === '{';
        chunk = text;
      }
      const onRecord = (r: RawRecord) => this.onRecord(r);
      if (this.mode === 'array') this.array.push(chunk, onRecord);
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
      if (this.mode === 'array') {
        this.array.end(onRecord);
        if (!this.array.complete) this.warnings.push('the JSON array is not closed: the file was cut off; everything before the cut was imported');
      } else if (this.mode === 'lines' || this.mode === 'document') {
        this.lines.end(onRecord);
        if (this.mode === 'document') this.endDocument();
      }
      if (!this.importer) this.detect(true);
      const importer = this.importer!;
      const writer = this.writer!;
      if (this.damage) {
        this.warnings.push(`line ${this.damage.line} is damaged (${this.damage.reason}) after the last completed turn: the log ends there (${this.skippedCount} line(s) from it on were skipped)`);
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
    if (error instanceof Error && error.name === 'RecordTooLongError' && this.doc?.certain) {
      // One line of a document above the record cap: the document is too long (its lines are no records).
      return this.documentTooLong(error);
    }
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
    if (this.mode === 'document') {
      this.documentLine(record);
      return;
    }
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
      if (this.mode === 'lines' && this.startsWithBrace && this.docError === undefined && !this.importer && this.detecting.length === 0) {
        // A first line that is not a whole record in a file that starts with `{`: maybe one pretty-printed JSON document.
        this.recordsRead--;
        this.mode = 'document';
        // A first line that is a lone `{` (how pretty-printers open an object) can start no JSONL file: certainly a document.
        this.doc = { records: [record], chars: record.text.length, certain: record.text.trim() === '{' };
        return;
      }
      if (record.torn) {
        this.skip(record.line, `torn last line (the file ends mid-record: ${reason})`);
        this.warnings.push(`the last line (${record.line}) is torn — the file ends mid-record; it was skipped and everything before it imported`);
        return;
      }
      this.damaged(record.line, reason);
      return;
    }
    if (this.damage) {
      // After damage in an event log: only a later completed turn matters (it makes the damage committed).
      if (this.importer?.closesTurn(value)) {
        throw new SessionCorruptionError(
          this.writer?.sessionId ?? '(file)',
          undefined,
          `line ${this.damage.line} is damaged (${this.damage.reason}) inside the committed region (a completed turn follows at line ${record.line})`,
          {
            line: this.damage.line,
          },
        );
      }
      this.skip(record.line, `after the damaged line ${this.damage.line}`);
      return;
    }
    if (!this.importer) {
      this.detecting.push({ line: record.line, value });
      this.detect(false);
      return;
    }
    this.feed(value, record.line);
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
    this.checkSameFormat(value, line);
    if (this.firstTime === undefined) this.firstTime = timeOf(value);
    this.fed++;
    this.importer!.record(value, line);
  }

  /** The shape records have in this file (for the detection table). */
  private get shape(): RecordShape {
    return this.mode === 'array' ? 'element' : this.mode === 'document' ? 'element' : 'line';
  }

  /** A record that proves another format than the file's: two logs in one file. */
  private checkSameFormat(value: JsonValue, line: number): void {
    const verdict = formatOfRecord(value, this.shape, false);
    if (!verdict) return;
    const format = this.format!;
    const other = verdict.kind === 'unread' || !sameFamily(verdict.id, format);
    const secondHeader = !other && verdict.rule.role === 'header' && this.fed > 0;
    if (!other && !secondHeader) return;
    const what = secondHeader ? `starts a second ${labelOf(format).replace(/^an? /, '')} (another session header)` : `is ${verdictName(verdict, labelOf)} record`;
    throw new SessionCorruptionError(
      this.writer?.sessionId ?? '(file)',
      undefined,
      `line ${line} ${what}, but the file began as ${labelOf(format)} (line ${this.decisiveLine}): the format changes inside the file (two logs joined into one?); import each log from its own file`,
      { line },
    );
  }

  private refuse(what: string): never {
    throw new UnsupportedFormatError(
      `this is not a session log we can read (${what}). ${formatsWeRead()}`,
      IMPORT_FORMATS.map((f) => f.id),
    );
  }

  private refuseUnread(verdict: Extract<FormatVerdict, { kind: 'unread' }>, line: number | undefined): never {
    const where = line === undefined ? '' : ` (line ${line})`;
    this.refuse(`it looks like ${verdict.rule.name}${where}: ${verdict.rule.evidence}; Forkline does not read that format`);
  }

  private detect(atEnd: boolean): void {
    let verdict: FormatVerdict | undefined;
    let decisive: Pending | undefined;
    for (const p of this.detecting) {
      verdict = formatOfRecord(p.value, this.shape, true);
      if (verdict) {
        decisive = p;
        break;
      }
    }
    if (verdict?.kind === 'unread') this.refuseUnread(verdict, decisive!.line);
    if (!verdict) {
      if (atEnd || this.detecting.length >= DETECTION_RECORD_LIMIT) {
        const damaged = this.detecting.find((p) => isDamagedMarker(p.value));
        const n = this.detecting.length;
        const file = this.mode === 'array' ? 'a JSON array' : 'a JSONL file';
        const records = this.mode === 'array' ? 'elements' : 'records';
        const what =
          n === 0
            ? this.mode === 'array'
              ? 'the JSON array is empty'
              : 'the file is empty'
            : damaged && damaged.line === this.detecting[0]!.line
              ? this.docError !== undefined
                ? `line ${damaged.line} is not JSON, and the file is not one JSON document either: ${this.docError}`
                : `line ${damaged.line} is not JSON`
              : n === 1
                ? `${file} whose only record matches no format we read`
                : `${file} that matches no format we read: none of its first ${n} ${records} carries the fields of one`;
        this.refuse(what);
      }
      return;
    }
    this.decisiveLine = decisive!.line;
    this.start(verdict.id);
    const pending = this.detecting;
    this.detecting = [];
    for (const p of pending) {
      if (isDamagedMarker(p.value)) this.damaged(p.line, String((p.value as { __damaged: string }).__damaged));
      else if (this.damage) this.onParsedAfterDamage(p);
      else this.feed(p.value, p.line);
    }
  }

  /** One more line of a file read as one JSON document; past the record limit it is read as JSONL after all. */
  private documentLine(record: RawRecord): void {
    const doc = this.doc!;
    doc.records.push(record);
    doc.chars += record.text.length + 1;
    if (doc.chars <= MAX_IMPORT_RECORD_CHARS) return;
    if (doc.certain) throw this.documentTooLong(undefined);
    this.documentAsLines(`it is longer than ${MAX_IMPORT_RECORD_CHARS} characters`);
  }

  /** Gives up reading the file as one document: its lines go through as JSONL records. */
  private documentAsLines(why: string): void {
    const records = this.doc!.records;
    this.doc = undefined;
    this.docError = why;
    this.mode = 'lines';
    for (const r of records) this.onRecord(r);
  }

  private documentTooLong(cause: unknown): SessionCorruptionError {
    return new SessionCorruptionError('(file)', undefined, `the JSON document is longer than ${MAX_IMPORT_RECORD_CHARS} characters, the most a whole-document import reads`, { cause, line: 1 });
  }

  /** The whole file was read as one JSON document: detect it and feed its records. */
  private endDocument(): void {
    const text = this.doc!.records.map((r) => r.text).join('\n');
    checkNesting(text, 'the JSON document');
    let value: JsonValue;
    try {
      value = JSON.parse(text) as JsonValue;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (this.doc!.certain) {
        // A whole document has no records before its end: one that does not parse is damaged or cut off, never partly imported.
        throw new SessionCorruptionError('(file)', undefined, `the JSON document does not parse (${reason}): the file is damaged or cut off`, { cause: error, line: 1 });
      }
      this.documentAsLines(reason);
      return;
    }
    this.doc = undefined;
    // Blank lines before the document were counted and noted as skipped lines; they are no records of it.
    this.recordsRead = 0;
    this.skipped.length = 0;
    this.skippedCount = 0;
    const found = formatOfDocument(value);
    if (!found) this.refuse('a JSON document that matches no format we read');
    if (found.verdict.kind === 'unread') this.refuseUnread(found.verdict, undefined);
    this.decisiveLine = 1;
    this.start(found.verdict.id);
    found.records.forEach((record, i) => {
      this.recordsRead++;
      this.feed(record, i + 1);
    });
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
    this.importer = IMPORTERS[format]({ writer, fallbackId: this.fallbackId, fileName: this.options.fileName });
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
        ...(facts.spawnedBy !== undefined ? { spawnedBy: facts.spawnedBy } : {}),
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
    if (origin?.spawnedBy !== undefined) {
      const parent = origin.spawnedBy.sessionId;
      this.warnings.push(
        this.options.sink.exists(parent)
          ? `a sub-agent's own log: linked to its parent session ${parent}, imported already`
          : `a sub-agent's own log: linked to its parent session ${parent}, not imported yet (import the parent's log to see both)`,
      );
    }
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
