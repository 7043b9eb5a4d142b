/**
 * One connection to the team store (a PostgreSQL database, issue 27) through the `pg` client:
 * where the connection string comes from, connecting with clear errors, and queries whose
 * failures become {@link TeamStoreError}s.
 *
 * Connection string, in order: the `--team-store` flag, `FORKLINE_TEAM_STORE`, `teamStore` in
 * `<data dir>/cli.json`. It must be a `postgres://` or `postgresql://` URL; each user connects as
 * their own role (row-level security decides what that role may write).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { redactUrl, teamError, TeamStoreError } from './team-errors.js';

/** Where a connection string was found, in words (for messages). */
export interface TeamStoreUrl {
  readonly url: string;
  readonly source: string;
}

/**
 * The team store's connection string.
 * @param flag the `--team-store` value, if given.
 * @throws TeamStoreError TEAM_STORE_NOT_CONFIGURED when none is set; TEAM_STORE_URL_INVALID when
 *   the one found is not a PostgreSQL URL (the message names where it came from, not the password).
 */
export function resolveTeamStoreUrl(flag: string | undefined, dataDir: string, env: { readonly [name: string]: string | undefined } = process.env): TeamStoreUrl {
  const found =
    flag !== undefined ? { url: flag, source: 'the --team-store flag' } : env['FORKLINE_TEAM_STORE'] ? { url: env['FORKLINE_TEAM_STORE'], source: 'FORKLINE_TEAM_STORE' } : fromConfig(dataDir);
  if (!found) {
    throw new TeamStoreError('TEAM_STORE_NOT_CONFIGURED', `no team store: pass --team-store postgres://ROLE@HOST/DB, set FORKLINE_TEAM_STORE, or put "teamStore" in ${join(dataDir, 'cli.json')}`);
  }
  checkUrl(found.url, found.source);
  return found;
}

function fromConfig(dataDir: string): TeamStoreUrl | undefined {
  const file = join(dataDir, 'cli.json');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const value = (JSON.parse(text) as { teamStore?: unknown } | null)?.teamStore;
    return typeof value === 'string' && value !== '' ? { url: value, source: `teamStore in ${file}` } : undefined;
  } catch {
    return undefined;
  }
}

/** @throws TeamStoreError TEAM_STORE_URL_INVALID */
export function checkUrl(url: string, source: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TeamStoreError('TEAM_STORE_URL_INVALID', `the team store from ${source} is not a URL; expected postgres://ROLE:PASSWORD@HOST:PORT/DATABASE`);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new TeamStoreError('TEAM_STORE_URL_INVALID', `the team store from ${source} is a ${parsed.protocol.replace(/:$/, '')}: URL; expected postgres://ROLE:PASSWORD@HOST:PORT/DATABASE`);
  }
  if (parsed.pathname === '' || parsed.pathname === '/') {
    throw new TeamStoreError('TEAM_STORE_URL_INVALID', `the team store from ${source} names no database; expected postgres://ROLE:PASSWORD@HOST:PORT/DATABASE`);
  }
}

/** Parameters of one query (what `pg` accepts). */
export type QueryValues = readonly unknown[];

/**
 * An open connection. Every method throws {@link TeamStoreError} (never a raw `pg` error). The
 * connection's later failure (the server went away between queries) is kept and thrown by the next
 * query instead of crashing the process.
 */
export class TeamDb {
  private broken: unknown;

  private constructor(
    private readonly client: pg.Client,
    /** The server, as a redacted URL (for messages). */
    readonly where: string,
    /** The role this connection acts as (`current_user`). */
    readonly role: string,
  ) {
    client.on('error', (error) => (this.broken = error));
  }

  /**
   * Connects (10 s timeout) and reads the role.
   * @throws TeamStoreError TEAM_STORE_URL_INVALID, TEAM_STORE_UNREACHABLE, TEAM_STORE_AUTH.
   */
  static async connect(url: string, options: { readonly applicationName?: string } = {}): Promise<TeamDb> {
    checkUrl(url, 'the connection string');
    const where = redactUrl(url);
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000, application_name: options.applicationName ?? 'forkline' });
    client.on('error', () => undefined);
    try {
      await client.connect();
      const role = (await client.query<{ role: string }>('SELECT current_user AS role')).rows[0]!.role;
      return new TeamDb(client, where, role);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw teamError(error, where);
    }
  }

  /** Runs one statement. @throws TeamStoreError */
  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values: QueryValues = []): Promise<pg.QueryResult<R>> {
    if (this.broken !== undefined) throw teamError(this.broken, this.where);
    try {
      return await this.client.query<R>(text, values as unknown[]);
    } catch (error) {
      throw teamError(this.broken ?? error, this.where);
    }
  }

  /**
   * Streams `rows` (COPY text format, copy-text.ts) into `statement`, a `COPY … FROM STDIN`; inside
   * a transaction when one is open. Resolves once the server has stored every row.
   * @throws TeamStoreError (a row the server refuses, a connection that went away)
   */
  async copyIn(statement: string, rows: string): Promise<void> {
    if (this.broken !== undefined) throw teamError(this.broken, this.where);
    try {
      await pipeline(Readable.from([rows]), this.client.query(copyFrom(statement)));
    } catch (error) {
      throw teamError(this.broken ?? error, this.where);
    }
  }

  /**
   * Runs `fn` in one transaction (rolled back when it throws).
   * @throws TeamStoreError, or what `fn` throws.
   */
  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    await this.query('BEGIN');
    try {
      const result = await fn();
      await this.query('COMMIT');
      return result;
    } catch (error) {
      await this.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  /** Closes the connection. Never throws. */
  async close(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }
}
