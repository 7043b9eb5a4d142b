/**
 * Session ids on the command line: a full id, or any prefix of one — of any length — that names
 * exactly one stored session (as `forkline ls` prints them; Git does the same with commit ids).
 */

/** What a candidate needs for the ambiguity message. */
export interface IdCandidate {
  readonly id: string;
  readonly title?: string;
  /** Epoch ms of the last change. */
  readonly updatedAt?: number;
}

/** The argument names no session, or several. `candidates` lists the matches (ambiguous only). */
export class SessionIdError extends Error {
  constructor(
    message: string,
    readonly candidates: readonly IdCandidate[],
  ) {
    super(message);
    this.name = 'SessionIdError';
  }
}

/** How many candidates an ambiguity message lists. */
const MAX_LISTED = 10;

/**
 * Resolves `given` against the stored sessions.
 * @param exists fast exact lookup (a full id skips the listing).
 * @param list every stored session (only called for a prefix).
 * @throws SessionIdError when nothing or several sessions match (the message lists the candidates).
 */
export function resolveSessionPrefix(given: string, exists: (id: string) => boolean, list: () => readonly IdCandidate[]): string {
  const wanted = given.trim();
  if (wanted === '') throw new SessionIdError('a session id must not be empty (see forkline ls)', []);
  if (exists(wanted)) return wanted;
  const lower = wanted.toLowerCase();
  const matches = list().filter((c) => c.id.toLowerCase().startsWith(lower));
  if (matches.length === 1) return matches[0]!.id;
  if (matches.length === 0) throw new SessionIdError(`no session ${wanted} (see forkline ls)`, []);
  const sorted = [...matches].sort((a, b) => (b.updatedAt ?? 0) - (a.updatedAt ?? 0));
  const lines = sorted.slice(0, MAX_LISTED).map((c) => `  ${c.id}  ${c.title ?? '(untitled)'}`);
  const more = sorted.length > MAX_LISTED ? `\n  … and ${sorted.length - MAX_LISTED} more` : '';
  throw new SessionIdError(`${wanted} matches ${matches.length} sessions; give more characters:\n${lines.join('\n')}${more}`, sorted);
}
