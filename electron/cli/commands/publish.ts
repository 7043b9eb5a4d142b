/**
 * `forkline publish ID… [--team-store URL]` (issue 27): appends local sessions to the team store
 * (electron/team/team-publisher.ts): what the server lacks, in batches, idempotently; a fork's
 * parent first, its own events after it by reference. Run it again after any failure (a dropped
 * connection, a killed process): it resumes from the server's high-water mark, with no gap and no
 * duplicate. The local store is only read.
 *
 * Output: one line per session on stdout (`ID  +N events (M in all)`); a session refused (owner
 * mismatch, diverged) is one line on stderr and the others still publish (exit 1). A store that
 * cannot be reached stops the command (exit 1). `FORKLINE_TEAM_BATCH` sets the events per batch.
 */
import { visibleInline } from '../../../shared/visible-text.js';
import { TeamDb } from '../../team/team-db.js';
import { TeamStoreError } from '../../team/team-errors.js';
import { installationId } from '../../team/installation-id.js';
import { publishSession } from '../../team/team-publisher.js';
import { checkTeamSchema } from '../../team/team-schema.js';
import { defineCommand } from '../command.js';
import { DATA_OPTIONS, dataDirOf } from '../engine-options.js';
import { UsageError } from '../error-line.js';
import { resolveSessionPrefix } from '../id-prefix.js';
import { openStoredSessions } from '../stored-sessions.js';
import { teamStoreUrl, type TeamCommandInput } from '../team-command-input.js';

/** Codes that refuse one session but let the others publish. */
const PER_SESSION = new Set(['TEAM_OWNER_MISMATCH', 'TEAM_DIVERGED', 'TEAM_SESSION_NOT_FOUND', 'TEAM_SEQ_CONFLICT']);

/** Runs the command; returns its exit code. @throws UsageError, TeamStoreError (one line each, cli/error-line.ts). */
export async function publishCommand(input: TeamCommandInput): Promise<number> {
  if (input.positionals.length === 0) throw new UsageError('publish needs one or more session ids (forkline ls lists them)');
  const batch = input.env['FORKLINE_TEAM_BATCH'] !== undefined ? Number(input.env['FORKLINE_TEAM_BATCH']) : undefined;
  if (batch !== undefined && (!Number.isSafeInteger(batch) || batch < 1)) throw new UsageError(`FORKLINE_TEAM_BATCH must be a positive whole number (got ${input.env['FORKLINE_TEAM_BATCH']})`);
  const url = teamStoreUrl(input);
  const local = openStoredSessions(input.dataDir, input.env);
  try {
    const repository = local.repository;
    const ids = input.positionals.map((given) =>
      resolveSessionPrefix(
        given,
        (id) => repository.get(id) !== undefined,
        () => repository.list().map((r) => ({ id: r.header.id, ...(r.header.title !== undefined ? { title: r.header.title } : {}), updatedAt: r.updatedAt })),
      ),
    );
    const db = await TeamDb.connect(url.url);
    try {
      await checkTeamSchema(db);
      const installation = installationId(input.dataDir);
      let refused = 0;
      for (const id of ids) {
        try {
          const results = await publishSession(db, repository.store, id, { installation, ...(batch !== undefined ? { batchEvents: batch } : {}) });
          for (const r of results) {
            const first = r.ownFrom > 0 ? ` (its own from seq ${r.ownFrom}; earlier ones by reference)` : '';
            input.out(`${r.sessionId}  +${r.appended} events (${r.total} in all)${r.sessionId !== id ? '  [parent]' : ''}${first}\n`);
          }
        } catch (error) {
          if (!(error instanceof TeamStoreError) || !PER_SESSION.has(error.code)) throw error;
          refused++;
          input.err(`forkline: ${visibleInline(error.message)} [${error.code}]\n`);
        }
      }
      return refused === 0 ? 0 : 1;
    } finally {
      await db.close();
    }
  } finally {
    await local.close();
  }
}

/** The command-table entry: `forkline publish ID… [--team-store URL]`. */
export const command = defineCommand({
  options: { ...DATA_OPTIONS, 'team-store': { type: 'string' } },
  async run(ctx, { positionals, options }) {
    return publishCommand({ positionals, values: options, dataDir: dataDirOf(options), env: process.env, out: (s) => ctx.stdout.write(s), err: (s) => ctx.stderr.write(s) });
  },
});
