/**
 * The background publisher (issue 27, "Publish"): with a team store configured and a workspace
 * shared, the sessions created in that workspace since sharing was turned on are appended to the
 * team store beside the agent, with the same code as `forkline publish`
 * (electron/team/team-publisher.ts: batches, idempotent, resumes from the server's high-water mark).
 *
 * It never blocks a step: it runs on timers, reads only committed rows of the local store (a
 * session's own batch of SQLite reads at a time), and talks to the server asynchronously. Nothing
 * local is ever changed, so a server that is down loses nothing: the attempt is retried with
 * backoff (1 s doubling to 15 s by default) and the error is reported in {@link status}; the
 * connection is opened again after it dropped. A session the server refuses (published by another
 * role or machine, a diverged copy) is reported and not retried until its local log grows.
 */
import type { TeamPendingSession, TeamPublisherView, TeamRefusedSession } from '../../../shared/team.js';
import type { IDisposable } from '../../../shared/lifecycle.js';
import type { SessionRepository } from '../../store/session-repository.js';
import type { SessionRecord } from '../../store/session-store.js';
import { TeamDb } from '../../team/team-db.js';
import { TeamStoreError } from '../../team/team-errors.js';
import { publishSession } from '../../team/team-publisher.js';
import { checkTeamSchema } from '../../team/team-schema.js';
import type { TeamSettings } from './team-settings.js';

/** Codes that refuse one session but let the others publish (as `forkline publish` treats them). */
const PER_SESSION = new Set(['TEAM_OWNER_MISMATCH', 'TEAM_DIVERGED', 'TEAM_SESSION_NOT_FOUND']);

export interface BackgroundPublisherOptions {
  readonly repository: SessionRepository;
  readonly settings: TeamSettings;
  /** This data folder's installation id (electron/team/installation-id.ts), read when first needed. */
  readonly installation: () => string;
  /** Called when {@link BackgroundPublisher.status} changed. */
  readonly onChange: () => void;
  readonly now?: () => number;
  /** How often the local store is looked at for new events (ms; default 2000). */
  readonly pollMs?: number;
  /** First retry delay after a failure (ms; default 1000), doubled per failure up to {@link maxRetryMs}. */
  readonly retryMs?: number;
  /** Longest retry delay (ms; default 15000). */
  readonly maxRetryMs?: number;
}

/** Publishes the shared workspaces' sessions in the background; dispose to stop it. */
export class BackgroundPublisher implements IDisposable {
  /** Server's next seq per session, as last learned (absent: not known yet). */
  private readonly known = new Map<string, number>();
  /** Refused sessions, with the local length they were refused at. */
  private readonly refused = new Map<string, TeamRefusedSession & { readonly at: number }>();
  private db: TeamDb | undefined;
  private dbUrl: string | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private failures = 0;
  private lastError: { code: string; message: string } | undefined;
  private nextRetryAt: number | undefined;
  private publishing = false;
  private publishedEvents = 0;
  private disposed = false;
  private lastView = '';
  private readonly now: () => number;

  constructor(private readonly options: BackgroundPublisherOptions) {
    this.now = options.now ?? Date.now;
    this.schedule(0);
  }

  /** Looks again now (after a settings change or a new session), unless a retry is waiting. */
  kick(): void {
    if (this.disposed) return;
    if (this.nextRetryAt !== undefined && this.nextRetryAt > this.now()) {
      this.changed();
      return;
    }
    this.schedule(0);
  }

  /** What is waiting to publish and how the last attempt went. */
  status(): TeamPublisherView {
    // Nothing shared: nothing to read (not even cli.json).
    const store = this.options.settings.shared().length === 0 ? { ok: false } : this.options.settings.resolve();
    const candidates = store.ok ? this.candidates() : [];
    const pending: TeamPendingSession[] = [];
    for (const record of candidates) {
      const waiting = record.eventCount - (this.known.get(record.header.id) ?? 0);
      if (waiting > 0 && !this.isRefused(record)) pending.push({ sessionId: record.header.id, ...(record.header.title !== undefined ? { title: record.header.title } : {}), waitingEvents: waiting });
    }
    const state = !store.ok ? 'off' : this.nextRetryAt !== undefined ? 'retrying' : this.publishing || pending.length > 0 ? 'publishing' : 'idle';
    return {
      state,
      pending,
      refused: [...this.refused.values()].map(({ at: _at, ...r }) => r),
      ...(this.lastError ? { lastError: this.lastError } : {}),
      ...(this.nextRetryAt !== undefined ? { nextRetryAt: this.nextRetryAt } : {}),
      publishedEvents: this.publishedEvents,
    };
  }

  /** Stops the timers, waits for a running attempt, and closes the connection. */
  async close(): Promise<void> {
    this.dispose();
    await this.running?.catch(() => undefined);
    await this.db?.close();
    this.db = undefined;
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private isRefused(record: SessionRecord): boolean {
    const refusal = this.refused.get(record.header.id);
    return refusal !== undefined && refusal.at === record.eventCount;
  }

  /** The local sessions the shared workspaces publish (native ones created since sharing began). */
  private candidates(): SessionRecord[] {
    const { settings, repository } = this.options;
    if (settings.shared().length === 0) return [];
    return repository.list().filter((r) => r.header.origin?.kind !== 'imported' && settings.sharedFor(r.header.cwd, r.header.createdAt) !== undefined);
  }

  private schedule(delay: number): void {
    if (this.disposed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.running) {
        this.schedule(this.options.pollMs ?? 2000);
        return;
      }
      this.running = this.attempt().finally(() => (this.running = undefined));
    }, delay);
    this.timer.unref?.();
  }

  private changed(): void {
    const view = JSON.stringify(this.status());
    if (view === this.lastView) return;
    this.lastView = view;
    this.options.onChange();
  }

  /** One pass: publish every candidate with events the server lacks; on failure, back off. */
  private async attempt(): Promise<void> {
    this.nextRetryAt = undefined;
    const store = this.options.settings.shared().length === 0 ? { ok: false as const } : this.options.settings.resolve();
    const work = store.ok ? this.candidates().filter((r) => r.eventCount > (this.known.get(r.header.id) ?? -1) && !this.isRefused(r)) : [];
    if (!store.ok || work.length === 0) {
      if (!store.ok) await this.dropConnection();
      this.changed();
      this.schedule(this.options.pollMs ?? 2000);
      return;
    }
    this.publishing = true;
    this.changed();
    try {
      const db = await this.connection(store.url.url);
      for (const record of work) {
        if (this.disposed) return;
        try {
          const results = await publishSession(db, this.options.repository.store, record.header.id, {
            installation: this.options.installation(),
            onBatch: (p) => {
              this.known.set(p.sessionId, p.published);
              this.changed();
            },
          });
          for (const r of results) {
            this.known.set(r.sessionId, r.total);
            this.publishedEvents += r.appended;
          }
          this.refused.delete(record.header.id);
        } catch (error) {
          if (!(error instanceof TeamStoreError) || !PER_SESSION.has(error.code)) throw error;
          this.refused.set(record.header.id, { sessionId: record.header.id, code: error.code, message: error.message, at: record.eventCount });
        }
      }
      this.failures = 0;
      this.lastError = undefined;
      this.nextRetryAt = undefined;
      this.publishing = false;
      this.changed();
      this.schedule(this.options.pollMs ?? 2000);
    } catch (error) {
      await this.dropConnection();
      this.failures++;
      const delay = Math.min((this.options.retryMs ?? 1000) * 2 ** (this.failures - 1), this.options.maxRetryMs ?? 15_000);
      const code = error instanceof TeamStoreError ? error.code : 'TEAM_STORE_FAILED';
      this.lastError = { code, message: error instanceof Error ? error.message : String(error) };
      this.nextRetryAt = this.now() + delay;
      this.publishing = false;
      this.changed();
      this.schedule(delay);
    }
  }

  /** The open connection (checked against the schema once), opened again when the string changed or it dropped. */
  private async connection(url: string): Promise<TeamDb> {
    if (this.db && this.dbUrl === url) return this.db;
    await this.dropConnection();
    const db = await TeamDb.connect(url, { applicationName: 'forkline-publisher' });
    try {
      await checkTeamSchema(db);
    } catch (error) {
      await db.close();
      throw error;
    }
    this.db = db;
    this.dbUrl = url;
    return db;
  }

  private async dropConnection(): Promise<void> {
    const db = this.db;
    this.db = undefined;
    this.dbUrl = undefined;
    await db?.close();
  }
}
