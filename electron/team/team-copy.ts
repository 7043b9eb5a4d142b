/**
 * The local, read-only copy of a team session (issue 27, "Browse and continue"): opening or
 * continuing a teammate's session imports its log into the local store under the provenance name
 * `team:OWNER:ID.jsonl` (`origin.file` of an imported session). The name is how the publisher knows
 * that a local fork's parent is a team session — referenced on the server by its team id, never
 * published again under the user's role (team-publisher.ts).
 */
import type { SessionHeader } from '../../shared/events.js';

/** Where a local copy came from: the team session's id and the role that published it. */
export interface TeamCopySource {
  readonly owner: string;
  readonly id: string;
}

/** The file name an imported copy of a team session carries in its provenance. */
export function teamCopyFileName(session: TeamCopySource): string {
  return `team:${session.owner}:${session.id}.jsonl`;
}

/**
 * The team session a local session is a copy of, or undefined for any other session. Reads the
 * provenance name {@link teamCopyFileName} wrote (the id is after the last `:`; a role name may hold one).
 */
export function teamCopySource(header: SessionHeader): TeamCopySource | undefined {
  const origin = header.origin;
  if (origin?.kind !== 'imported' || origin.file === undefined) return undefined;
  const match = /^team:(.+):([^:]+)\.jsonl$/s.exec(origin.file);
  if (match === null) return undefined;
  return { owner: match[1]!, id: match[2]! };
}
