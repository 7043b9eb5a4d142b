/**
 * Every error a user of the CLI can meet, as one line on stderr with its code, and the exit code it
 * gives (README "Exit codes"; docs/reliability.md "Signals and exit codes"). Never a stack trace: a full disk (SQLITE_FULL,
 * ENOSPC), a read-only or unreadable store (SQLITE_READONLY, SQLITE_CANTOPEN, EACCES, EROFS), a
 * claim lost to `resume --take-over` elsewhere (STALE_APPEND) are the user's world, not our bug.
 * An error we did not expect is one line too, naming its kind; `FORKLINE_DEBUG=1` adds the stack.
 *
 * Errors are recognised by their `code` (and better-sqlite3's `SqliteError` name), never by text.
 */
import { ForklineError } from '../../shared/errors.js';
import { visibleInline, visibleText } from '../../shared/visible-text.js';
import { EXIT_FAILED, EXIT_USAGE, isInputError } from './exit-codes.js';
import { SessionIdError } from './id-prefix.js';
import { OutputPathError } from './output-file.js';

/** Bad usage (exit 2, with a pointer to `forkline help`). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** An error the CLI reports in words of its own, with the exit code it gives (no `[code]` suffix). */
export class PlainCliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'PlainCliError';
  }
}

/** What to print and how to exit. */
export interface ErrorReport {
  /** The whole text for stderr (one line, plus the stack with FORKLINE_DEBUG=1), ending in a newline. */
  readonly text: string;
  readonly exitCode: number;
}

/** SQLite result codes (extended ones included) in words, with what the user can do. */
function sqliteWords(code: string): string | undefined {
  if (code === 'SQLITE_FULL') return 'the disk is full; free some space and run the command again (nothing that was saved is lost)';
  if (code.startsWith('SQLITE_READONLY')) return 'the session store is read-only here (check the permissions of the data folder and its sessions.db, or pass --data-dir)';
  if (code.startsWith('SQLITE_CANTOPEN')) return 'the session store cannot be opened (check that the data folder exists and is readable and writable, or pass --data-dir)';
  if (code.startsWith('SQLITE_IOERR')) return 'reading or writing the session store failed (a disk or file system error)';
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'the session store stayed locked by another process; try again';
  if (code === 'SQLITE_PERM' || code.startsWith('SQLITE_AUTH')) return 'access to the session store was refused';
  return undefined;
}

/** System error codes a user can meet, in words. */
const ERRNO_WORDS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in the system',
  ENOENT: 'no such file or folder',
  ENOTDIR: 'not a folder',
  EISDIR: 'is a folder',
  EIO: 'input/output error',
};

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code !== '' ? code : undefined;
}

/** The innermost SqliteError or system error along an error's `cause` chain (a wrapped SQLITE_FULL). */
function rootCause(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 8; depth++) {
    if (isSqliteError(current) || isSystemError(current)) return current;
    const cause = (current as { cause?: unknown } | null)?.cause;
    if (cause === undefined || cause === null) break;
    current = cause;
  }
  return error;
}

function isSqliteError(error: unknown): error is Error & { code: string } {
  return error instanceof Error && error.name === 'SqliteError' && codeOf(error) !== undefined;
}

function isSystemError(error: unknown): error is NodeJS.ErrnoException & { code: string } {
  const code = codeOf(error);
  return error instanceof Error && code !== undefined && /^E[A-Z0-9]+$/.test(code) && (error as NodeJS.ErrnoException).syscall !== undefined;
}

/**
 * The one line (and exit code) for an error that ended a command.
 * @param debug append the stack trace (FORKLINE_DEBUG=1).
 */
export function reportError(error: unknown, debug = false): ErrorReport {
  const stack = debug && error instanceof Error && error.stack ? `${error.stack}\n` : '';
  const line = (text: string, exitCode: number): ErrorReport => ({ text: `forkline: ${visibleInline(text)}\n${stack}`, exitCode });
  if (error instanceof UsageError) return { text: `forkline: ${visibleText(error.message)}\n(forkline help for usage)\n${stack}`, exitCode: EXIT_USAGE };
  if (error instanceof PlainCliError) return line(error.message, error.exitCode);
  if (error instanceof SessionIdError) return { text: `forkline: ${visibleText(error.message)}\n${stack}`, exitCode: EXIT_USAGE };
  if (error instanceof OutputPathError) return { text: `forkline: ${visibleText(error.message)}\n${stack}`, exitCode: error.exitCode };
  if (error instanceof TypeError && String(codeOf(error) ?? '').startsWith('ERR_PARSE_ARGS')) {
    return { text: `forkline: ${visibleText(error.message)}\n(forkline help for usage)\n${stack}`, exitCode: EXIT_USAGE };
  }
  if (ForklineError.isInstance(error)) {
    const cause = rootCause(error.cause);
    if (cause !== error.cause || isSqliteError(cause) || isSystemError(cause)) {
      // Only a cause we can say in words of its own (a full disk, a read-only store) replaces the
      // error's code; otherwise the error's own message already says it (STORE_UNREADABLE for a
      // damaged file names the file and what to do).
      const report = systemReport(cause);
      if (report?.known) return line(`${error.message}: ${report.words} [${report.code}]`, EXIT_FAILED);
    }
    if (error.code === 'STALE_APPEND') return line(`${error.message} [STALE_APPEND]`, EXIT_FAILED);
    return line(`${error.message} [${error.code}]`, isInputError(error) ? EXIT_USAGE : EXIT_FAILED);
  }
  const report = systemReport(rootCause(error));
  if (report !== undefined) return line(`${report.what}${report.words} [${report.code}]`, EXIT_FAILED);
  const name = error instanceof Error ? error.name : typeof error;
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  return line(`unexpected error: ${message} [${name}]${debug ? '' : ' (FORKLINE_DEBUG=1 shows the stack)'}`, EXIT_FAILED);
}

/** The words for a SQLite or system error, or undefined for anything else. */
function systemReport(error: unknown): { readonly what: string; readonly words: string; readonly code: string; readonly known: boolean } | undefined {
  if (isSqliteError(error)) {
    const words = sqliteWords(error.code);
    return { what: 'the session store failed: ', words: words ?? `${error.message.split('\n')[0]}; the file was left as it is`, code: error.code, known: words !== undefined };
  }
  if (isSystemError(error)) {
    const path = error.path !== undefined ? ` ${error.path}` : '';
    const words = ERRNO_WORDS[error.code];
    return { what: `cannot ${error.syscall ?? 'access'}${path}: `, words: words ?? error.message.split('\n')[0]!, code: error.code, known: words !== undefined };
  }
  return undefined;
}
