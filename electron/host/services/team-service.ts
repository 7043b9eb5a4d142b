/**
 * The host's team store service (issue 27): the Team section's reads (the team's sessions,
 * PostgreSQL full-text search, a session brought in read-only), its settings (connection string,
 * shared workspaces) and the {@link BackgroundPublisher}. Reads open one connection per call and
 * close it, so a server that went away and came back needs nothing special; every failure is a
 * {@link TeamStoreError} with a code the renderer words (TEAM_STORE_NOT_CONFIGURED,
 * TEAM_STORE_UNREACHABLE, …).
 */
import type { TeamSearchHitView, TeamSessionView, TeamStatus } from '../../../shared/team.js';
import type { SessionRepository } from '../../store/session-repository.js';
import type { SessionRecord } from '../../store/session-store.js';
import { TeamDb } from '../../team/team-db.js';
import { redactUrl } from '../../team/team-errors.js';
import { installationId } from '../../team/installation-id.js';
import { checkTeamSchema } from '../../team/team-schema.js';
import { findTeamSession, listTeamSessions, searchTeam } from '../../team/team-sessions.js';
import { BackgroundPublisher } from './team-background-publisher.js';
import { teamCopy } from './team-browse.js';
import { TeamSettings } from './team-settings.js';

export interface TeamServiceOptions {
  readonly repository: SessionRepository;
  readonly dataDir: string;
  readonly env: { readonly [name: string]: string | undefined };
  /** Called when the status changed (the host pushes `team/changed`). */
  readonly onChange: () => void;
  readonly now?: () => number;
  /** Publisher timings (ms), see BackgroundPublisherOptions. */
  readonly pollMs?: number;
  readonly retryMs?: number;
  readonly maxRetryMs?: number;
}

/** The team store as the app uses it; `close()` stops the publisher. */
export class TeamService {
  readonly settings: TeamSettings;
  readonly publisher: BackgroundPublisher;
  private installation: string | undefined;

  constructor(private readonly options: TeamServiceOptions) {
    this.settings = new TeamSettings(options.dataDir, options.env);
    this.publisher = new BackgroundPublisher({
      repository: options.repository,
      settings: this.settings,
      installation: () => (this.installation ??= installationId(options.dataDir)),
      onChange: options.onChange,
      ...(options.now ? { now: options.now } : {}),
      ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
      ...(options.retryMs !== undefined ? { retryMs: options.retryMs } : {}),
      ...(options.maxRetryMs !== undefined ? { maxRetryMs: options.maxRetryMs } : {}),
    });
  }

  status(): TeamStatus {
    const resolved = this.settings.resolve();
    return {
      configured: resolved.ok,
      ...(resolved.ok ? { source: resolved.url.source, where: redactUrl(resolved.url.url) } : resolved.error.code === 'TEAM_STORE_URL_INVALID' ? { configError: resolved.error.message } : {}),
      shared: this.settings.shared(),
      publisher: this.publisher.status(),
    };
  }

  /**
   * Changes the settings: `storeUrl` ('' clears the app's one), `share` turns a workspace's sharing
   * on or off. @throws TeamStoreError TEAM_STORE_URL_INVALID; ForklineError INVALID_WORKSPACE.
   */
  update(params: { storeUrl?: string; share?: { workspace: string; on: boolean } }): TeamStatus {
    if (params.storeUrl !== undefined) this.settings.setStoreUrl(params.storeUrl);
    if (params.share) this.settings.setShared(params.share.workspace, params.share.on, (this.options.now ?? Date.now)());
    this.publisher.kick();
    this.options.onChange();
    return this.status();
  }

  /** The team's sessions, most recently published first. @throws TeamStoreError */
  list(): Promise<TeamSessionView[]> {
    return this.withDb(async (db) => (await listTeamSessions(db, { limit: 500 })).map((r) => ({ ...r, mine: r.owner === db.role })));
  }

  /** PostgreSQL full-text search over the team's sessions. @throws TeamStoreError */
  search(query: string): Promise<TeamSearchHitView[]> {
    return this.withDb((db) => searchTeam(db, query, 50));
  }

  /**
   * The local read-only copy of a team session (imported now, or the current one from before).
   * @throws TeamStoreError; the import pipeline's errors for a log it refuses.
   */
  open(teamSessionId: string): Promise<SessionRecord> {
    return this.withDb(async (db) => teamCopy(this.options.repository, db, await findTeamSession(db, teamSessionId)));
  }

  /** Stops the publisher and closes its connection. */
  close(): Promise<void> {
    return this.publisher.close();
  }

  private async withDb<T>(fn: (db: TeamDb) => Promise<T>): Promise<T> {
    const resolved = this.settings.resolve();
    if (!resolved.ok) throw resolved.error;
    const db = await TeamDb.connect(resolved.url.url, { applicationName: 'forkline-app' });
    try {
      await checkTeamSchema(db);
      return await fn(db);
    } finally {
      await db.close();
    }
  }
}
