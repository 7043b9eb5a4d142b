/**
 * Every schema migration, in order (one file each: `NNN-name.ts`). A new one is a new file here
 * and its entry at the end of {@link MIGRATION_LIST}; {@link SCHEMA_VERSION} follows.
 */
import { migration001 } from './001-initial.js';
import { migration002 } from './002-origin.js';
import { migration003 } from './003-ownership.js';
import { migration004 } from './004-search.js';
import { migration005 } from './005-deferred-search.js';
import type { Migration } from './migration.js';

export { applyMigration, type Migration } from './migration.js';

/** The migrations in version order; entry i has version i + 1. */
export const MIGRATION_LIST: readonly Migration[] = [migration001, migration002, migration003, migration004, migration005];

/** Migrations by target version (1 … SCHEMA_VERSION). */
export const MIGRATIONS: Readonly<Record<number, Migration>> = Object.fromEntries(MIGRATION_LIST.map((m) => [m.version, m]));

/** The schema version this build writes (`PRAGMA user_version`): the last migration's. */
export const SCHEMA_VERSION: number = MIGRATION_LIST.length;

for (const [i, m] of MIGRATION_LIST.entries()) {
  if (m.version !== i + 1) throw new Error(`migration ${m.name} has version ${m.version}, expected ${i + 1}`);
}
