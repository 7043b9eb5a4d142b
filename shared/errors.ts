/**
 * The error base used across Forkline: a stable `code`, a constant `name`, a marker-based
 * `isInstance` that survives duplicate module copies (Vercel AI SDK pattern) and a plain record
 * for events and IPC.
 */

const MARKER = Symbol.for('forkline.error');

/** The plain, serialisable shape of any Forkline error (what crosses IPC and lands in events). */
export interface ErrorRecord {
  readonly name: string;
  readonly code: string;
  readonly message: string;
}

/** Base class: every thrown error in our code derives from it and carries a stable `code`. */
export class ForklineError extends Error {
  readonly [MARKER] = true;
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ForklineError';
  }

  /** True for any ForklineError, also one created by another copy of this module. */
  static isInstance(value: unknown): value is ForklineError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }

  toRecord(): ErrorRecord {
    return { name: this.name, code: this.code, message: this.message };
  }
}

/** Session log errors: append validation, invariants, surface operations. */
export class SessionError extends ForklineError {
  constructor(code: SessionErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'SessionError';
  }
}
export type SessionErrorCode =
  'NON_JSON_DATA' | 'ILL_FORMED_TEXT' | 'SEQ_GAP' | 'INVALID_EVENT' | 'INVARIANT_VIOLATION' | 'INVALID_SURFACE_OP' | 'INVALID_PROVENANCE' | 'REENTRANT_APPEND' | 'SESSION_DISPOSED';

/** Fork refusals (docs/architecture.md §8; reference `SessionForkError`). No child exists after any of these. */
export class SessionForkError extends ForklineError {
  /**
   * @param turnEnds for OPEN_TURN / NO_SUCH_SEQ / FORK_UNAVAILABLE: the turn ends nearest the
   *   refused seq (where a fork may cut), also listed in the message.
   */
  constructor(
    code: ForkErrorCode,
    message: string,
    readonly turnEnds: readonly { readonly turn: number; readonly seq: number }[] = [],
  ) {
    super(code, message);
    this.name = 'SessionForkError';
  }
}
/**
 * `OPEN_TURN`: the boundary is inside a turn; `NO_SUCH_SEQ`: beyond the log; `FORK_UNAVAILABLE`:
 * no turn has ended at or before it; `INVALID_BOUNDARY`: not a seq at all.
 */
export type ForkErrorCode = 'SESSION_NOT_FOUND' | 'SESSION_ALREADY_EXISTS' | 'INVALID_BOUNDARY' | 'OPEN_TURN' | 'NO_SUCH_SEQ' | 'FORK_UNAVAILABLE';

/**
 * Damaged committed data in the store or in an imported file; names the session and seq, and for
 * a file the 1-based line (`line`) where the damage is.
 */
export class SessionCorruptionError extends ForklineError {
  readonly line: number | undefined;
  constructor(
    readonly sessionId: string,
    readonly seq: number | undefined,
    message: string,
    options?: { cause?: unknown; line?: number },
  ) {
    super('SESSION_CORRUPT', `session ${sessionId}${seq === undefined ? '' : ` seq ${seq}`}: ${message}`, options);
    this.name = 'SessionCorruptionError';
    this.line = options?.line;
  }
}

/**
 * A file whose content matches none of the session-log formats we read (detection is by content,
 * never by file name). `formats` lists what we do read, so the message can say it.
 */
export class UnsupportedFormatError extends ForklineError {
  constructor(
    message: string,
    readonly formats: readonly string[],
  ) {
    super('UNSUPPORTED_FORMAT', message);
    this.name = 'UnsupportedFormatError';
  }
}

/** A log this build cannot read: a foreign format version or an unknown required event type. */
export class SessionFormatUnsupportedError extends ForklineError {
  constructor(message: string) {
    super('SESSION_FORMAT_UNSUPPORTED', message);
    this.name = 'SessionFormatUnsupportedError';
  }
}

/** Store-level refusals that are not corruption. */
export class StoreError extends ForklineError {
  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'StoreError';
  }
}
export type StoreErrorCode =
  | 'SESSION_NOT_FOUND'
  | 'SESSION_ALREADY_EXISTS'
  | 'STALE_APPEND'
  | 'SESSION_LIVE'
  | 'WRITE_FAILED'
  | 'STORE_CLOSED'
  | 'SCHEMA_UNSUPPORTED'
  /** The database file is not SQLite or is damaged; it is never written. */
  | 'STORE_UNREADABLE';

/** Formats any thrown value with its cause chain, for logs and `UNKNOWN` failures. */
export function errorChain(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    if (current instanceof Error) {
      parts.push(`${current.name}: ${current.message}`);
      current = current.cause;
    } else {
      parts.push(String(current));
      break;
    }
  }
  return parts.join(' <- ');
}
