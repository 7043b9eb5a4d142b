/**
 * The team store's migrations, in order. A new one is a file `NNN-name.ts` (NNN = the version it
 * produces) appended here; {@link TEAM_SCHEMA_VERSION} follows. A database at a higher version
 * than this build's is refused (TEAM_SCHEMA_NEWER), never touched.
 */
import { migration001 } from './001-sessions-events.js';
import { migration002 } from './002-event-search.js';
import type { TeamMigration } from './team-migration.js';

export type { TeamMigration } from './team-migration.js';

/** Every migration, version 1 first. */
export const TEAM_MIGRATIONS: readonly TeamMigration[] = [migration001, migration002];

/** The schema version this build creates and reads. */
export const TEAM_SCHEMA_VERSION = TEAM_MIGRATIONS[TEAM_MIGRATIONS.length - 1]!.version;
