/**
 * Creating, migrating and checking the team store's schema (issue 27: "the schema is created and
 * migrated by Forkline (`forkline team init`), with versioned migrations").
 *
 * Everything lives in the `forkline` schema of the database. `forkline.schema_version` lists the
 * migrations applied. `initTeamSchema` takes a transaction-scoped advisory lock (two `team init`
 * at once run one after the other), creates the `forkline_team` group role when it does not exist,
 * and applies the missing migrations in the same transaction: a failure leaves the database as it
 * was. Team members are granted rights through `forkline_team` (`GRANT forkline_team TO alice`).
 */
import { TEAM_MIGRATIONS, TEAM_SCHEMA_VERSION } from './migrations/index.js';
import type { TeamDb } from './team-db.js';
import { TeamStoreError } from './team-errors.js';

/** The group role whose members may publish and read. */
export const TEAM_ROLE = 'forkline_team';

/** What `team init` did. */
export interface TeamInitResult {
  /** The version before (0: no schema). */
  readonly from: number;
  readonly to: number;
  /** Names of the migrations applied now. */
  readonly applied: readonly string[];
  readonly createdRole: boolean;
}

/** An arbitrary fixed key for the migration lock. */
const MIGRATION_LOCK = 0x466b6c6e;

/**
 * Creates or migrates the schema to {@link TEAM_SCHEMA_VERSION}.
 * @throws TeamStoreError TEAM_SCHEMA_NEWER (nothing is changed), TEAM_PERMISSION_DENIED (the role
 *   may not create the schema or the group role), TEAM_STORE_UNREACHABLE.
 */
export async function initTeamSchema(db: TeamDb): Promise<TeamInitResult> {
  return db.transaction(async () => {
    await db.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    const from = await storedVersion(db);
    if (from > TEAM_SCHEMA_VERSION) throw newerError(db, from);
    let createdRole = false;
    if ((await db.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [TEAM_ROLE])).rowCount === 0) {
      // Roles are shared by every database of the server: another database's init may create it meanwhile.
      await db.query(`DO $$ BEGIN CREATE ROLE ${TEAM_ROLE} NOLOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`);
      createdRole = true;
    }
    await db.query('CREATE SCHEMA IF NOT EXISTS forkline');
    await db.query('CREATE TABLE IF NOT EXISTS forkline.schema_version (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
    const applied: string[] = [];
    for (const migration of TEAM_MIGRATIONS) {
      if (migration.version <= from) continue;
      await db.query(migration.sql);
      await db.query('INSERT INTO forkline.schema_version (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
      applied.push(`${String(migration.version).padStart(3, '0')}-${migration.name}`);
    }
    return { from, to: TEAM_SCHEMA_VERSION, applied, createdRole };
  });
}

/**
 * The schema version in the database (0 when there is none).
 * @throws TeamStoreError TEAM_STORE_UNREACHABLE, TEAM_PERMISSION_DENIED.
 */
export async function storedVersion(db: TeamDb): Promise<number> {
  const exists = await db.query<{ present: boolean }>("SELECT to_regclass('forkline.schema_version') IS NOT NULL AS present");
  if (!exists.rows[0]?.present) return 0;
  const row = await db.query<{ version: number | null }>('SELECT max(version) AS version FROM forkline.schema_version');
  return row.rows[0]?.version ?? 0;
}

/**
 * Refuses a database this build cannot use: no schema or an older one (TEAM_SCHEMA_MISSING: run
 * `forkline team init`), a newer one (TEAM_SCHEMA_NEWER: update Forkline).
 * @throws TeamStoreError
 */
export async function checkTeamSchema(db: TeamDb): Promise<void> {
  const version = await storedVersion(db);
  if (version > TEAM_SCHEMA_VERSION) throw newerError(db, version);
  if (version === 0) throw new TeamStoreError('TEAM_SCHEMA_MISSING', `the team store at ${db.where} has no Forkline schema; run forkline team init (as the database's owner)`);
  if (version < TEAM_SCHEMA_VERSION) {
    throw new TeamStoreError(
      'TEAM_SCHEMA_MISSING',
      `the team store at ${db.where} has schema version ${version}, this Forkline needs ${TEAM_SCHEMA_VERSION}; run forkline team init (as the database's owner) to migrate it`,
    );
  }
}

function newerError(db: TeamDb, version: number): TeamStoreError {
  return new TeamStoreError(
    'TEAM_SCHEMA_NEWER',
    `the team store at ${db.where} has schema version ${version}, newer than this Forkline understands (${TEAM_SCHEMA_VERSION}); update Forkline — nothing was changed`,
  );
}
