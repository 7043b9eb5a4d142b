/**
 * Browsing and continuing the team's sessions (issue 27, "Browse and continue"), for the app's Team
 * section and `forkline team fork`: a team session is brought into the local store through the
 * import pipeline (every event validated; an imported, read-only copy whose provenance names the
 * team store and its owner: `team:OWNER:ID.jsonl`), which the usual timeline and debugger views
 * open; continuing it forks that copy into a native session working in a local folder, with the
 * rules of any imported session (its recorded folder is never used).
 */
import type { ImportSummary } from '../../../shared/import-summary.js';
import type { SessionRepository } from '../../store/session-repository.js';
import type { SessionRecord } from '../../store/session-store.js';
import { teamCopyFileName } from '../../team/team-copy.js';
import type { TeamDb } from '../../team/team-db.js';
import { teamSessionJsonl, type TeamSessionRow } from '../../team/team-sessions.js';
import { beginImport } from './session-imports.js';

export { teamCopyFileName };

/**
 * Imports the team session's log into the local store as a read-only copy.
 * @throws TeamStoreError (reading the server); the import pipeline's errors for a log it refuses.
 *   A failed import leaves nothing behind.
 */
export async function importTeamSession(repository: SessionRepository, db: TeamDb, session: TeamSessionRow): Promise<ImportSummary> {
  repository.removeAbandonedImports();
  const job = beginImport(repository, teamCopyFileName(session));
  try {
    for await (const chunk of teamSessionJsonl(db, session)) job.write(chunk);
    return job.end();
  } catch (error) {
    job.abort();
    throw error;
  }
}

/**
 * A local copy of the team session holding exactly what the team store holds now (same provenance
 * name and event count), if one was imported before.
 */
export function existingTeamCopy(repository: SessionRepository, session: TeamSessionRow): SessionRecord | undefined {
  const name = teamCopyFileName(session);
  return repository.list().find((r) => r.header.origin?.kind === 'imported' && r.header.origin.file === name && r.eventCount === session.eventCount);
}

/**
 * The local copy of the team session to open read-only: the existing one when it is current, else
 * a new import.
 * @throws as {@link importTeamSession}.
 */
export async function teamCopy(repository: SessionRepository, db: TeamDb, session: TeamSessionRow): Promise<SessionRecord> {
  const existing = existingTeamCopy(repository, session);
  if (existing) return existing;
  const summary = await importTeamSession(repository, db, session);
  return repository.get(summary.sessionId)!;
}
