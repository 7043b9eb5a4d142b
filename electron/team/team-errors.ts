/**
 * Errors of the team store (issue 27): every way talking to the shared PostgreSQL database can go
 * wrong, as one {@link TeamStoreError} with a stable code and a one-line message that says what
 * to do. Nothing local is touched by any of them: publishing only reads the local store.
 *
 * PostgreSQL errors are recognised by their SQLSTATE (`code`) and system errors by their errno
 * code; only `pg`'s own connection errors, which carry no code, by their text. Connection strings are never repeated with their password.
 */
import { ForklineError } from '../../shared/errors.js';

/**
 * - `TEAM_STORE_NOT_CONFIGURED`: no connection string (flag, environment, cli.json).
 * - `TEAM_STORE_URL_INVALID`: the string is not a `postgres://` URL.
 * - `TEAM_STORE_UNREACHABLE`: the server refused, is down, or went away mid-way.
 * - `TEAM_STORE_AUTH`: the server rejected the role or its password.
 * - `TEAM_SCHEMA_MISSING`: the database has no team schema (`forkline team init`).
 * - `TEAM_SCHEMA_NEWER`: the schema was created by a newer Forkline.
 * - `TEAM_PERMISSION_DENIED`: the role lacks a right (not in `forkline_team`, or another's row).
 * - `TEAM_OWNER_MISMATCH`: the session id is already published by another role or machine.
 * - `TEAM_DIVERGED`: the published log and the local one disagree (the server has events the
 *   local log lacks, or a different event at the same seq).
 * - `TEAM_SESSION_NOT_FOUND`: no team session with that id (or prefix).
 * - `TEAM_STORE_FAILED`: any other server error (its SQLSTATE is in the message).
 * - `TEAM_SEQ_CONFLICT`: the server refused a batch that would leave a gap or repeats seqs it
 *   holds, or rolled it back on a deadlock or serialisation failure with a concurrent writer
 *   (another publisher of the same session moved first; publishing again resumes).
 */
export type TeamErrorCode =
  | 'TEAM_STORE_NOT_CONFIGURED'
  | 'TEAM_STORE_URL_INVALID'
  | 'TEAM_STORE_UNREACHABLE'
  | 'TEAM_STORE_AUTH'
  | 'TEAM_SCHEMA_MISSING'
  | 'TEAM_SCHEMA_NEWER'
  | 'TEAM_PERMISSION_DENIED'
  | 'TEAM_OWNER_MISMATCH'
  | 'TEAM_DIVERGED'
  | 'TEAM_SESSION_NOT_FOUND'
  | 'TEAM_STORE_FAILED'
  | 'TEAM_SEQ_CONFLICT';

/** A refusal or failure of the team store; `code` says which (see {@link TeamErrorCode}). */
export class TeamStoreError extends ForklineError {
  constructor(
    override readonly code: TeamErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.name = 'TeamStoreError';
  }
}

/** The SQLSTATE our contiguity trigger raises (class `FL`, ours). */
export const SEQ_CONFLICT_SQLSTATE = 'FL001';

/** A connection string with its password replaced by `***`, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable connection string)';
  }
}

/**
 * The {@link TeamStoreError} for an error from `pg` or the socket under it; a TeamStoreError is
 * returned as it is. `where` names the server (a redacted URL) for messages.
 */
export function teamError(error: unknown, where: string): TeamStoreError {
  if (error instanceof TeamStoreError) return error;
  const code = String((error as { code?: unknown } | null)?.code ?? '');
  const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
  const cause = { cause: error };
  if (code === SEQ_CONFLICT_SQLSTATE) return new TeamStoreError('TEAM_SEQ_CONFLICT', message, cause);
  // A batch repeating seqs already stored (the events' primary key): another publisher moved first.
  if (code === '23505' && (error as { constraint?: unknown }).constraint === 'events_pkey') {
    return new TeamStoreError('TEAM_SEQ_CONFLICT', `events already stored: ${message}`, cause);
  }
  // Two publishers of one session whose batches overlap can deadlock on the events' key (or fail
  // serialisation): the server rolled the whole transaction back, so it is the same case as above —
  // re-read the server's next_seq and go on (PostgreSQL's advice for both: retry the transaction,
  // https://www.postgresql.org/docs/15/mvcc-serialization-failure-handling.html).
  if (code === '40P01' || code === '40001') {
    return new TeamStoreError('TEAM_SEQ_CONFLICT', `a concurrent writer of the same rows: ${message} (SQLSTATE ${code}); publishing again resumes`, cause);
  }
  if (code === '28P01' || code === '28000') return new TeamStoreError('TEAM_STORE_AUTH', `the team store at ${where} refused the login: ${message}`, cause);
  if (code === '3D000') return new TeamStoreError('TEAM_STORE_UNREACHABLE', `the team store at ${where}: ${message}`, cause);
  if (code === '42501')
    return new TeamStoreError('TEAM_PERMISSION_DENIED', `the team store refused: ${message} (is your role a member of forkline_team? an administrator runs GRANT forkline_team TO your_role)`, cause);
  if (code === '3F000' || code === '42P01')
    return new TeamStoreError('TEAM_SCHEMA_MISSING', `the team store at ${where} has no Forkline schema; run forkline team init (as the database's owner)`, cause);
  if (
    /^E[A-Z]+$/.test(code) ||
    code.startsWith('08') ||
    code === '57P01' ||
    code === '57P02' ||
    code === '57P03' ||
    /Connection terminated|timeout expired|connection is not open|Client has encountered a connection error/i.test(message)
  ) {
    return new TeamStoreError(
      'TEAM_STORE_UNREACHABLE',
      `cannot reach the team store at ${where}: ${code && /^E/.test(code) ? `${code} ` : ''}${message}; nothing local was changed, publish again when it is back`,
      cause,
    );
  }
  return new TeamStoreError('TEAM_STORE_FAILED', `the team store at ${where} failed: ${message}${code ? ` (SQLSTATE ${code})` : ''}`, cause);
}
