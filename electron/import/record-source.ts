/**
 * Streaming record sources for imports: text arrives in chunks of any size (a file stream, a
 * WebSocket upload) and leaves as whole records with their 1-based line numbers, in constant
 * memory (one record and one chunk at a time).
 *
 * - {@link LineSplitter}: JSONL — one record per line; `\r\n` endings tolerated; a final line
 *   without a newline is reported as possibly torn (a writer died mid-line).
 * - {@link JsonArraySplitter}: a top-level JSON array (`[ {…}, {…} ]`, pretty-printed or not) —
 *   one record per element, found by scanning brackets outside strings, so a trajectory of any
 *   size is never held whole.
 *
 * Pure: strings in, callbacks out.
 */

/** Longest record we accept (UTF-16 code units); a longer one is refused, not buffered without end. */
export const MAX_IMPORT_RECORD_CHARS = 64 * 1024 * 1024;

/** Thrown when one record exceeds {@link MAX_IMPORT_RECORD_CHARS}. */
export class RecordTooLongError extends Error {
  override readonly name = 'RecordTooLongError';
  constructor(readonly line: number) {
    super(`the record starting at line ${line} is longer than ${MAX_IMPORT_RECORD_CHARS} characters`);
  }
}

/** One raw record: its text and the line it starts on. `torn` marks a last line with no newline. */
export interface RawRecord {
  readonly text: string;
  readonly line: number;
  readonly torn: boolean;
}

/** Splits JSONL text into lines, across chunk boundaries. */
export class LineSplitter {
  private carry = '';
  private lineNo = 0;

  /** Lines completed by `chunk`, in order (blank lines included, as empty text). */
  push(chunk: string, onRecord: (record: RawRecord) => void): void {
    let text = this.carry === '' ? chunk : this.carry + chunk;
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl < 0) break;
      this.lineNo++;
      const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      onRecord({ text: text.slice(start, end), line: this.lineNo, torn: false });
      start = nl + 1;
    }
    // A copy, not a slice: a slice would keep this whole chunk alive until the next one (V8 sliced
    // strings). The JSON round trip gives a fresh string with every code unit, lone surrogates included.
    text = start === 0 ? text : start === text.length ? '' : (JSON.parse(JSON.stringify(text.slice(start))) as string);
    if (text.length > MAX_IMPORT_RECORD_CHARS) throw new RecordTooLongError(this.lineNo + 1);
    this.carry = text;
  }

  /** The last line when the text did not end with a newline (possibly torn). */
  end(onRecord: (record: RawRecord) => void): void {
    if (this.carry.length === 0) return;
    this.lineNo++;
    const text = this.carry.endsWith('\r') ? this.carry.slice(0, -1) : this.carry;
    this.carry = '';
    onRecord({ text, line: this.lineNo, torn: true });
  }

  /** Lines seen so far. */
  get lines(): number {
    return this.lineNo;
  }
}

/** Thrown when the text is not a JSON array at the top level (or has text after its end). */
export class ArrayShapeError extends Error {
  override readonly name = 'ArrayShapeError';
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

/**
 * Splits a top-level JSON array into its elements' texts. Each element is validated later by
 * `JSON.parse`; this scanner only tracks strings (with escapes) and bracket depth.
 */
export class JsonArraySplitter {
  private buf = '';
  /** Scan position in `buf`. */
  private pos = 0;
  /** Start of the current element in `buf` (−1: between elements). */
  private elemStart = -1;
  private elemLine = 0;
  private line = 1;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** The open element is a scalar (string, number, literal), not an object or array. */
  private scalar = false;
  private opened = false;
  private closed = false;
  private count = 0;

  push(chunk: string, onRecord: (record: RawRecord) => void): void {
    this.buf += chunk;
    const buf = this.buf;
    let i = this.pos;
    const n = buf.length;
    while (i < n) {
      const c = buf.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 92)
          this.escaped = true; // backslash
        else if (c === 34)
          this.inString = false; // closing quote
        else if (c === 10) this.line++;
        i++;
        continue;
      }
      if (this.elemStart >= 0 && this.scalar) {
        // A scalar element (not an object or array) ends before , ] or whitespace.
        if (c === 44 || c === 93 || c === 32 || c === 9 || c === 10 || c === 13) {
          this.emit(buf.slice(this.elemStart, i), onRecord);
          continue; // re-read c between elements
        }
        if (c === 34) this.inString = true;
        i++;
        continue;
      }
      if (c === 10) this.line++;
      if (this.elemStart < 0) {
        if (c === 10 || c === 32 || c === 9 || c === 13 || (c === 0xfeff && !this.opened)) {
          i++;
          continue;
        }
        if (this.closed) throw new ArrayShapeError('there is text after the end of the JSON array', this.line);
        if (!this.opened) {
          if (c !== 91) throw new ArrayShapeError('the file does not start with a JSON array', this.line);
          this.opened = true;
          i++;
          continue;
        }
        if (c === 44) {
          i++;
          continue;
        }
        if (c === 93) {
          this.closed = true;
          i++;
          continue;
        }
        this.elemStart = i;
        this.elemLine = this.line;
        this.scalar = c !== 123 && c !== 91;
        if (this.scalar) continue;
      }
      if (c === 34) this.inString = true;
      else if (c === 123 || c === 91) this.depth++;
      else if (c === 125 || c === 93) {
        this.depth--;
        if (this.depth === 0) {
          this.emit(buf.slice(this.elemStart, i + 1), onRecord);
        }
      }
      i++;
    }
    // Drop what was consumed; keep the open element.
    const keepFrom = this.elemStart >= 0 ? this.elemStart : i;
    this.buf = buf.slice(keepFrom);
    this.pos = i - keepFrom;
    if (this.elemStart >= 0) this.elemStart = 0;
    if (this.buf.length > MAX_IMPORT_RECORD_CHARS) throw new RecordTooLongError(this.elemLine);
  }

  private emit(text: string, onRecord: (record: RawRecord) => void): void {
    onRecord({ text, line: this.elemLine, torn: false });
    this.count++;
    this.elemStart = -1;
    this.scalar = false;
  }

  /** An element cut off by the end of the text comes out as torn; a missing `]` is noted by `complete`. */
  end(onRecord: (record: RawRecord) => void): void {
    if (this.elemStart >= 0) {
      onRecord({ text: this.buf.slice(this.elemStart), line: this.elemLine, torn: true });
      this.elemStart = -1;
    }
    if (!this.opened) throw new ArrayShapeError('the file is empty', this.line);
  }

  /** Whether the closing `]` was seen. */
  get complete(): boolean {
    return this.closed;
  }

  /** Elements seen so far. */
  get elements(): number {
    return this.count;
  }
}
