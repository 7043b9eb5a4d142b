/**
 * The CLI's exit codes (README "The CLI"): 0 success; 1 the turn did not complete (error, cancel,
 * max-tokens) or a command failed; 2 bad usage, configuration or input — an unknown option, a
 * missing or malformed argument, a session id that names no session (or several), a file that is
 * not a session, a `--cwd` that is not a folder, an output path whose folder does not exist, an
 * invalid MCP configuration, a fork point inside an open turn.
 */
import { ForklineError, SessionCorruptionError } from '../../shared/errors.js';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** Error codes that mean the user's input was wrong (exit 2), whichever command raised them. */
const INPUT_ERROR_CODES: ReadonlySet<string> = new Set([
  'SESSION_NOT_FOUND',
  'INVALID_BOUNDARY',
  'OPEN_TURN',
  'NO_SUCH_SEQ',
  'UNSUPPORTED_FORMAT',
  'WORKSPACE_REQUIRED',
  'MCP_CONFIG_INVALID',
  'SESSION_FORMAT_UNSUPPORTED',
  'INVALID_SETTINGS',
  'WORKSPACE_MISSING',
  'UNSUPPORTED_REASONING_EFFORT',
  'MISSING_CREDENTIAL',
  // fanout / apply / rewind refusing before anything starts (README "Fan-out, apply, rewind")
  'FANOUT_INVALID',
  'CHECK_NOT_FOUND',
  'APPLY_UNAVAILABLE',
  'WORKTREE_UNAVAILABLE',
  'INVALID_BUDGET',
  'INVALID_PRICE_OVERRIDE',
  'UNKNOWN_MODEL_PRICE',
]);

/**
 * True when `error` is the user's input being wrong rather than something failing: the codes above,
 * any code starting with `IMPORT_` (importers), and a damaged file being read (a corruption error for
 * a file, not for a stored session).
 */
export function isInputError(error: unknown): boolean {
  if (!ForklineError.isInstance(error)) return false;
  if (INPUT_ERROR_CODES.has(error.code) || error.code.startsWith('IMPORT_')) return true;
  return error instanceof SessionCorruptionError && error.sessionId === '(file)';
}
