/**
 * The team store's settings in the app (issue 27): the connection string set in Settings and the
 * workspaces whose new sessions are shared, kept in `<data dir>/team-settings.json` (mode 0600: the string
 * may hold a password; it is never sent to the renderer, only its redacted form).
 *
 * The connection string in effect, in order: the one set in the app, `FORKLINE_TEAM_STORE`, then
 * `teamStore` in `<data dir>/cli.json` (the CLI's config; electron/team/team-db.ts reads those two).
 * A file that cannot be read or parsed gives no settings (reported once on stderr); the file is
 * left as it is until the next change is saved.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { ForklineError } from '../../../shared/errors.js';
import type { TeamSharedWorkspace } from '../../../shared/team.js';
import { checkUrl, resolveTeamStoreUrl, type TeamStoreUrl } from '../../team/team-db.js';
import { TeamStoreError } from '../../team/team-errors.js';

interface TeamSettingsFile {
  readonly version: 1;
  /** The connection string set in the app (absent: environment or cli.json). */
  readonly storeUrl?: string;
  readonly shared: readonly TeamSharedWorkspace[];
}

/** The connection string in effect, or why there is none / why it cannot be used. */
export type ResolvedTeamStore = { readonly ok: true; readonly url: TeamStoreUrl } | { readonly ok: false; readonly error: TeamStoreError };

/** Reads and writes `team-settings.json`; every method is synchronous and cheap (the file is cached). */
export class TeamSettings {
  private value: TeamSettingsFile;
  readonly file: string;

  constructor(
    private readonly dataDir: string,
    private readonly env: { readonly [name: string]: string | undefined },
  ) {
    this.file = join(dataDir, 'team-settings.json');
    this.value = load(this.file);
  }

  /** The workspaces whose new sessions are published. */
  shared(): readonly TeamSharedWorkspace[] {
    return this.value.shared;
  }

  /** The string set in the app, if any. */
  storeUrlFromApp(): string | undefined {
    return this.value.storeUrl;
  }

  /** The connection string in effect (app, FORKLINE_TEAM_STORE, cli.json), checked. */
  resolve(): ResolvedTeamStore {
    try {
      if (this.value.storeUrl !== undefined) {
        checkUrl(this.value.storeUrl, 'Settings');
        return { ok: true, url: { url: this.value.storeUrl, source: 'Settings' } };
      }
      return { ok: true, url: resolveTeamStoreUrl(undefined, this.dataDir, this.env) };
    } catch (error) {
      if (error instanceof TeamStoreError) return { ok: false, error };
      throw error;
    }
  }

  /**
   * Sets (or with '', clears) the app's connection string.
   * @throws TeamStoreError TEAM_STORE_URL_INVALID (nothing is saved).
   */
  setStoreUrl(url: string): void {
    const trimmed = url.trim();
    if (trimmed !== '') checkUrl(trimmed, 'Settings');
    const { storeUrl: _old, ...rest } = this.value;
    void _old;
    this.save(trimmed === '' ? rest : { ...rest, storeUrl: trimmed });
  }

  /**
   * Turns sharing of a workspace's new sessions on (from `now`) or off.
   * @throws ForklineError INVALID_WORKSPACE for a path that is not absolute.
   */
  setShared(workspace: string, on: boolean, now: number): void {
    if (!workspace.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(workspace)) throw new ForklineError('INVALID_WORKSPACE', `${workspace} is not an absolute folder path`);
    const others = this.value.shared.filter((s) => s.workspace !== workspace);
    const existing = this.value.shared.find((s) => s.workspace === workspace);
    this.save({ ...this.value, shared: on ? [...others, existing ?? { workspace, since: now }] : others });
  }

  /** The shared workspace a session working in `cwd` and created at `createdAt` falls under, if any. */
  sharedFor(cwd: string | undefined, createdAt: number): TeamSharedWorkspace | undefined {
    if (cwd === undefined) return undefined;
    return this.value.shared.find((s) => (cwd === s.workspace || cwd.startsWith(s.workspace.endsWith(sep) ? s.workspace : s.workspace + sep)) && createdAt >= s.since);
  }

  private save(next: TeamSettingsFile): void {
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const temp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, this.file);
    this.value = next;
  }
}

function load(file: string): TeamSettingsFile {
  const empty: TeamSettingsFile = { version: 1, shared: [] };
  if (!existsSync(file)) return empty;
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { storeUrl?: unknown; shared?: unknown } | null;
    const shared = Array.isArray(parsed?.shared)
      ? parsed.shared.filter((s): s is TeamSharedWorkspace => typeof (s as TeamSharedWorkspace | null)?.workspace === 'string' && typeof (s as TeamSharedWorkspace).since === 'number')
      : [];
    return { version: 1, shared, ...(typeof parsed?.storeUrl === 'string' && parsed.storeUrl !== '' ? { storeUrl: parsed.storeUrl } : {}) };
  } catch (error) {
    console.error(`team settings ${file} are unreadable; no team store from the app and nothing shared (the file is left as it is):`, error);
    return empty;
  }
}
