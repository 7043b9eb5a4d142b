/**
 * Limits for reading session files, which are untrusted input (docs/security.md): every size, seq range and
 * nesting depth a file can claim is checked against a cap **before** anything is allocated for it,
 * and refused with an {@link ImportLimitError} (code `IMPORT_LIMIT_EXCEEDED`) that says which limit
 * and by how much. Ids a file names are checked before they are used as ids (never as paths, git
 * ref names or option-like strings).
 *
 * Every importer (Forkline/reference-runtime JSONL, Claude Code, Codex, OpenHands) calls these
 * functions; they are pure (no Node, no I/O) so the session layer can use them.
 */
import { ForklineError } from '../../shared/errors.js';

/** Caps on what one imported file may make us hold. */
export interface ImportLimits {
  /** Largest file accepted, in bytes (for text already in memory: UTF-16 code units). */
  readonly maxFileBytes: number;
  /** Most events one imported session may have, placeholders included (so also the highest seq + 1). */
  readonly maxEvents: number;
  /** Most `import/elided` placeholders one file may need for seqs it omits. */
  readonly maxElided: number;
  /** Deepest nesting of arrays/objects in one line (real events nest about 8 levels). */
  readonly maxNestingDepth: number;
}

/**
 * The defaults. 256 MiB of JSONL and 2,000,000 events are far above any session we record (the
 * benchmarks use 100,000 events) while keeping a whole-file import inside a 1 GB heap; 100,000
 * placeholders cost about 15 MB; 64 levels of nesting are 8× what a real event uses and far below
 * what recursive JSON walkers can take.
 */
export const DEFAULT_IMPORT_LIMITS: ImportLimits = Object.freeze({
  maxFileBytes: 256 * 1024 * 1024,
  maxEvents: 2_000_000,
  maxElided: 100_000,
  maxNestingDepth: 64,
});

/** A session file exceeds a limit; nothing was allocated for the excess and nothing was stored. */
export class ImportLimitError extends ForklineError {
  constructor(
    /** Which limit: a key of {@link ImportLimits}. */
    readonly limit: keyof ImportLimits,
    message: string,
  ) {
    super('IMPORT_LIMIT_EXCEEDED', message);
    this.name = 'ImportLimitError';
  }
}

/** @throws ImportLimitError `maxFileBytes` when `bytes` is over the cap. */
export function checkFileSize(bytes: number, limits: ImportLimits = DEFAULT_IMPORT_LIMITS): void {
  if (bytes > limits.maxFileBytes) {
    throw new ImportLimitError('maxFileBytes', `the session file is ${formatBytes(bytes)}; the import limit is ${formatBytes(limits.maxFileBytes)}`);
  }
}

/**
 * Checks the seq of the next event a file gives before the reader fills a gap up to it.
 * @param nextSeq the seq the reader expects next (events held so far).
 * @param seq the seq the file gives.
 * @param elidedSoFar placeholders already added for earlier gaps.
 * @returns how many placeholders the gap needs (0 when there is none).
 * @throws ImportLimitError `maxEvents` when `seq` is past the event cap; `maxElided` when the gap
 *   would take the placeholders over their cap.
 */
export function checkSeq(nextSeq: number, seq: number, elidedSoFar: number, limits: ImportLimits = DEFAULT_IMPORT_LIMITS): number {
  if (seq >= limits.maxEvents) {
    throw new ImportLimitError('maxEvents', `an event has seq ${seq}; an imported session may hold at most ${limits.maxEvents} events`);
  }
  const gap = seq - nextSeq;
  if (gap <= 0) return 0;
  if (elidedSoFar + gap > limits.maxElided) {
    throw new ImportLimitError(
      'maxElided',
      `the file omits seqs ${nextSeq}–${seq - 1} (${gap} events${elidedSoFar > 0 ? `, ${elidedSoFar + gap} in all` : ''}); at most ${limits.maxElided} missing seqs are filled with placeholders`,
    );
  }
  return gap;
}

/** @throws ImportLimitError `maxEvents` when a session would hold more than the cap. */
export function checkEventCount(count: number, limits: ImportLimits = DEFAULT_IMPORT_LIMITS): void {
  if (count > limits.maxEvents) {
    throw new ImportLimitError('maxEvents', `the file holds more than ${limits.maxEvents} events, the most an imported session may hold`);
  }
}

/**
 * Checks the nesting depth of one JSON text before it is parsed (a linear scan that skips strings),
 * so no recursive walker later meets a structure deep enough to overflow its stack.
 * @throws ImportLimitError `maxNestingDepth`.
 */
export function checkNesting(json: string, where: string, limits: ImportLimits = DEFAULT_IMPORT_LIMITS): void {
  let depth = 0;
  const n = json.length;
  for (let i = 0; i < n; i++) {
    const c = json.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // Jump to the closing quote: one not preceded by an odd run of backslashes. Most of a
      // record's characters are inside strings, so this is what keeps the scan cheap (a third of
      // a char-by-char walk; it ran longer than JSON.parse itself).
      let end = i;
      for (;;) {
        end = json.indexOf('"', end + 1);
        if (end < 0) return; // unterminated string: JSON.parse refuses the record
        let slashes = 0;
        while (json.charCodeAt(end - 1 - slashes) === 0x5c /* \ */) slashes++;
        if (slashes % 2 === 0) break;
      }
      i = end;
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > limits.maxNestingDepth) {
        throw new ImportLimitError('maxNestingDepth', `${where} nests more than ${limits.maxNestingDepth} levels deep`);
      }
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
}

/**
 * Session ids that may come from a file: 1–128 ASCII letters, digits, `_` and `-`, starting with a
 * letter or digit. This excludes `.`/`..`, path separators, `:` and other characters git refuses in
 * ref names, control characters, and option-like strings (a leading `-`). UUIDs (ours, Claude
 * Code's, Codex's) pass.
 */
export function isSafeSessionId(id: unknown): id is string {
  return typeof id === 'string' && /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(id);
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${bytes} bytes`;
}
