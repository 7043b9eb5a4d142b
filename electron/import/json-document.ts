/**
 * A whole JSON document (one pretty-printed object, such as a Gemini CLI `session-*.json`) fed to
 * the import pipeline by chunks. Unlike JSONL or a JSON array, a document has no record boundary
 * before its end, so it is held whole — bounded by {@link MAX_JSON_DOCUMENT_CHARS}, with a clear
 * error above it — and handed on as one record.
 *
 * Recognition ({@link startsJsonDocument}): the first line of the text is a lone `{`. That is how
 * `JSON.stringify(value, null, n)` (and every pretty-printer we know) begins an object, and a JSONL
 * file can never start so (a lone `{` is not a JSON value). A one-line object stays JSONL.
 */

/** The largest JSON document read whole, in UTF-16 code units (the record cap of record-source.ts). */
export const MAX_JSON_DOCUMENT_CHARS = 64 * 1024 * 1024;

/** Thrown when a JSON document exceeds {@link MAX_JSON_DOCUMENT_CHARS}. */
export class DocumentTooLongError extends Error {
  override readonly name = 'RecordTooLongError';
  readonly line = 1;
  constructor() {
    super(`the JSON document is longer than ${MAX_JSON_DOCUMENT_CHARS} characters, the most a whole-document import reads`);
  }
}

/**
 * Whether `head` (the text's beginning, BOM removed) starts a JSON document. Returns undefined while
 * the first line is not complete yet and still short (the caller waits for more text).
 */
export function startsJsonDocument(head: string, probeChars = 4096): boolean | undefined {
  const first = /\S/.exec(head);
  if (!first || first[0] !== '{') return first ? false : undefined;
  const nl = head.indexOf('\n', first.index);
  if (nl < 0) return head.length - first.index >= probeChars ? false : undefined;
  return head.slice(first.index, nl).trim() === '{';
}

/** Collects a document's text (chunks are kept as they come; joined once at the end). */
export class JsonDocumentCollector {
  private readonly parts: string[] = [];
  private chars = 0;

  /** @throws DocumentTooLongError above {@link MAX_JSON_DOCUMENT_CHARS}. */
  push(chunk: string): void {
    this.chars += chunk.length;
    if (this.chars > MAX_JSON_DOCUMENT_CHARS) throw new DocumentTooLongError();
    this.parts.push(chunk);
  }

  /** The whole text (empties the collector). */
  take(): string {
    const text = this.parts.join('');
    this.parts.length = 0;
    return text;
  }
}
