/**
 * The seam between the import pipeline (`session-import.ts`) and one format's importer: the
 * pipeline reads records (lines or array elements) and hands each parsed one to the importer,
 * which writes our events through an {@link ImportedLogWriter}.
 */
import type { JsonValue } from '../../shared/json.js';
import type { ImportFormatId } from '../../shared/import-summary.js';

/** What the source says about the session itself (for the header; all optional). */
export interface HeaderFacts {
  /** The source's own session id (used when it is a valid id and not taken). */
  readonly id?: string;
  /** Epoch ms. */
  readonly createdAt?: number;
  /** The folder the source agent worked in — a fact for display, never a folder to act in. */
  readonly cwd?: string;
  readonly title?: string;
  /** The source's own format or program version. */
  readonly formatVersion?: string;
  readonly parentSession?: string;
  readonly seedLength?: number;
  /** The session whose agent started this one (see `SessionOrigin.spawnedBy`). */
  readonly spawnedBy?: { readonly sessionId: string; readonly agentId?: string };
}

export interface RecordImporter {
  readonly format: ImportFormatId;
  /**
   * True when damage after the last completed turn only ends the log (the tail is dropped with a
   * warning) instead of refusing it — the rule for event logs with explicit turn ends (docs/architecture.md §7).
   */
  readonly tolerateDamagedTail: boolean;
  /** For `tolerateDamagedTail`: whether a parsed record closes a turn (ends the committed region). */
  closesTurn(value: JsonValue): boolean;
  /** Facts for the session header, as far as read. */
  facts(): HeaderFacts;
  /**
   * One parsed record. @throws SessionCorruptionError (naming `line`) for a record the format
   * cannot have; SessionFormatUnsupportedError for a format version we cannot read.
   */
  record(value: JsonValue, line: number): void;
  /** End of input: close whatever the source left open. */
  finish(): void;
  /** Things worth telling the user, in plain words. */
  readonly warnings: readonly string[];
  /** Why the imported model view differs from what the source's model saw (empty when it does not). */
  readonly modelViewNotes: readonly string[];
}

/** Epoch ms from an ISO 8601 text; a date-time without an offset is read as UTC. Undefined when unreadable. */
export function isoTime(value: JsonValue | undefined): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value > 1e12 ? value : value * 1000;
  if (typeof value !== 'string' || value === '') return undefined;
  const hasOffset = /(?:Z|[+-]\d\d:?\d\d)$/i.test(value);
  const t = Date.parse(hasOffset || !value.includes('T') ? value : `${value}Z`);
  return Number.isFinite(t) ? t : undefined;
}

/**
 * Counts records kept whole as raw rows, by their source type, for the import summary's warning
 * (`kept as raw rows: file-history-snapshot ×3, event_msg/token_count ×12`).
 */
export class RawRowCounter {
  private readonly counts = new Map<string, number>();

  note(type: string): void {
    this.counts.set(type, (this.counts.get(type) ?? 0) + 1);
  }

  /** The warning line, or undefined when nothing was kept raw. */
  warning(): string | undefined {
    return this.counts.size > 0 ? `kept as raw rows: ${[...this.counts].map(([t, n]) => `${t} ×${n}`).join(', ')}` : undefined;
  }
}
