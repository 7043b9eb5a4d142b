/**
 * What the host tells the renderer about the team store (issue 27): the team's sessions as the
 * sidebar's Team section lists them, full-text hits, and the background publisher's state (what is
 * waiting to publish, and why). Shapes only; the host builds them (electron/host/services/team-*.ts).
 */

/** One team session as listed (from the team store's sessions table; no events are read). */
export interface TeamSessionView {
  readonly id: string;
  /** The database role that published it (who). */
  readonly owner: string;
  /** The base name of its workspace folder (the team never sees the path). */
  readonly workspace?: string;
  readonly title?: string;
  /** Its last turn's state (`open`, `completed`, `error`, …). */
  readonly status?: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** USD, when its prices were known. */
  readonly costUsd?: number;
  readonly eventCount: number;
  /** Epoch ms it was created (on its owner's machine). */
  readonly createdAt: number;
  /** Epoch ms of its last publish. */
  readonly updatedAt: number;
  readonly parentId?: string;
  /** `native`, or `imported` (with its format). */
  readonly provenance: { readonly kind: string; readonly format?: string };
  /** This user's role published it. */
  readonly mine: boolean;
}

/** One full-text hit (PostgreSQL `websearch_to_tsquery`, English stemming). */
export interface TeamSearchHitView {
  readonly sessionId: string;
  readonly seq: number;
  readonly type: string;
  readonly owner: string;
  readonly title?: string;
  /** The matching text with the terms marked `[[`…`]]`. */
  readonly snippet: string;
}

/** A workspace whose new sessions are shared: sessions created in it (or below it) from `since` on. */
export interface TeamSharedWorkspace {
  /** Absolute, real path of the folder. */
  readonly workspace: string;
  /** Epoch ms sharing was turned on; sessions created earlier are not published by it. */
  readonly since: number;
}

/** A local session the background publisher has not (fully) published. */
export interface TeamPendingSession {
  readonly sessionId: string;
  readonly title?: string;
  /** Local events the team store does not hold yet (as far as the publisher knows). */
  readonly waitingEvents: number;
}

/** A local session the team store refused (another owner, a diverged copy): not retried until it changes. */
export interface TeamRefusedSession {
  readonly sessionId: string;
  readonly code: string;
  readonly message: string;
}

/**
 * The background publisher: `off` (no store or nothing shared), `idle` (all published),
 * `publishing`, or `retrying` (the last attempt failed; `lastError` says why, `nextRetryAt` when).
 */
export interface TeamPublisherView {
  readonly state: 'off' | 'idle' | 'publishing' | 'retrying';
  readonly pending: readonly TeamPendingSession[];
  readonly refused: readonly TeamRefusedSession[];
  readonly lastError?: { readonly code: string; readonly message: string };
  /** Epoch ms of the next attempt while `retrying`. */
  readonly nextRetryAt?: number;
  /** Events appended by this run so far. */
  readonly publishedEvents: number;
}

/** The team store as configured here, and the publisher's state. */
export interface TeamStatus {
  /** A connection string is set (Settings, `FORKLINE_TEAM_STORE` or cli.json `teamStore`). */
  readonly configured: boolean;
  /** Where it came from, in words. */
  readonly source?: string;
  /** The server, as a URL with its password replaced by `***`. */
  readonly where?: string;
  /** Why the configured string cannot be used (not a PostgreSQL URL), if so. */
  readonly configError?: string;
  readonly shared: readonly TeamSharedWorkspace[];
  readonly publisher: TeamPublisherView;
}
