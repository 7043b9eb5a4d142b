/**
 * The import service: runs the import pipeline (`electron/import/`) into a
 * {@link SessionRepository}. It builds the pipeline's {@link ImportSink} from the repository's
 * import primitives, so the store does not depend on the importers (docs/architecture.md §2):
 * `forkline ls` and every other path that only reads the store never loads importer code.
 *
 * Moved here from `SessionRepository.beginImport` / `importText` / `importJsonl` unchanged in
 * behaviour; the end of an import (clear the owner record, index for search) is now a wrapper's
 * `end()` instead of a patched `job.end`.
 */
import { UnsupportedFormatError } from '../../../shared/errors.js';
import { IMPORT_FORMATS, type ImportFormatId, type ImportSummary } from '../../../shared/import-summary.js';
import { BUNDLE_MAGIC } from '../../bundle/bundle-format.js';
import type { ImportSink } from '../../import/log-writer.js';
import { SessionImport } from '../../import/session-import.js';
import type { SessionRepository } from '../../store/session-repository.js';
import type { BackgroundAppender } from '../../store/session-store.js';

/** A flat import result: id, event count, warnings and skipped lines as text. */
export interface ImportResult {
  readonly id: string;
  readonly eventCount: number;
  readonly warnings: readonly string[];
  readonly summary: ImportSummary;
}

/**
 * One streaming import into a repository: feed it with {@link write}, finish with {@link end}
 * (which returns the summary), or {@link abort}. A failed or aborted import leaves no session behind.
 */
export class ImportJob {
  /** The file's first characters, until there are enough to tell a portable bundle. */
  private head = '';
  constructor(
    private readonly job: SessionImport,
    private readonly repository: SessionRepository,
  ) {}

  /** Characters written so far. */
  get chars(): number {
    return this.job.chars;
  }

  /** The format detected so far (undefined until enough content was seen). */
  get detectedFormat(): ImportFormatId | undefined {
    return this.job.detectedFormat;
  }

  /**
   * Feeds the next chunk of the file's text.
   * @throws UnsupportedFormatError for a portable bundle (`forkline import FILE` reads those; this pipeline reads one session's log).
   */
  write(chunk: string): void {
    if (this.head.length < BUNDLE_MAGIC.length) {
      this.head += chunk.slice(0, BUNDLE_MAGIC.length);
      if (this.head.startsWith(BUNDLE_MAGIC)) {
        throw new UnsupportedFormatError(
          "this file is a Forkline bundle (a session with its forks, from Export bundle…), not one session log: the bundle import reads it (the app's Import button, importBundleBegin, or forkline import FILE)",
          IMPORT_FORMATS.map((f) => f.id),
        );
      }
    }
    this.job.write(chunk);
  }

  /**
   * Finishes the import: the session becomes listed and is indexed for search in the background.
   * @throws UnsupportedFormatError, SessionCorruptionError, SessionFormatUnsupportedError.
   */
  end(): ImportSummary {
    const summary = this.job.end();
    this.repository.finishImport(summary.sessionId);
    return summary;
  }

  /** Stops the import and removes what it stored. */
  abort(): void {
    this.job.abort();
  }
}

/**
 * Starts a streaming import of another agent's session log (any format we read, detected by
 * content; see `electron/import/session-import.ts`). Sessions being imported are hidden from
 * listings until they end ({@link SessionRepository.importing}).
 */
export function beginImport(repository: SessionRepository, fileName?: string): ImportJob {
  // Batches after the first are written on a worker thread (when the store can), so parsing and
  // mapping the next records overlaps with storing the last ones. Any other access drains it first.
  let appender: BackgroundAppender | undefined;
  const settled = (): void => appender?.drain();
  const store = repository.store;
  const sink: ImportSink = {
    exists: (id) => repository.exists(id),
    create: (header, events) => repository.createImporting(header, events),
    append: (id, events) => {
      appender ??= repository.backgroundAppender(id);
      if (appender) appender.append(events);
      else store.append(id, events);
    },
    finish: () => {
      settled();
      appender?.close();
      appender = undefined;
    },
    readRange: (id, from, to) => {
      settled();
      return store.readRange(id, from, to);
    },
    setTitle: (id, title) => {
      settled();
      store.setTitle(id, title);
    },
    remove: (id) => {
      appender?.close();
      appender = undefined;
      repository.removeImport(id);
    },
  };
  const { newId, now } = repository.ids;
  const job = new SessionImport({ sink, newId, now, ...(fileName !== undefined ? { fileName } : {}) });
  return new ImportJob(job, repository);
}

/**
 * Imports a whole session log held in memory (small files, tests). Same pipeline as
 * {@link beginImport}.
 * @throws UnsupportedFormatError, SessionCorruptionError, SessionFormatUnsupportedError.
 */
export function importText(repository: SessionRepository, text: string, file?: string): ImportSummary {
  const job = beginImport(repository, file);
  job.write(text);
  return job.end();
}

/** {@link importText} with a flat result (id, event count, warnings and skipped lines as text). */
export function importJsonl(repository: SessionRepository, text: string, file?: string): ImportResult {
  const summary = importText(repository, text, file);
  return { id: summary.sessionId, eventCount: summary.events, warnings: [...summary.warnings, ...summary.skipped.map((s) => `skipped line ${s.line}: ${s.reason}`)], summary };
}
