/**
 * The shape of one schema migration (docs/architecture.md §7, CONTRIBUTING.md "Adding a schema
 * migration"). One file per migration in this folder, named `NNN-name.ts` after the version it
 * produces; `index.ts` lists them in order.
 */
import type Database from 'better-sqlite3';

/** One step of the schema, from `version - 1` to `version`. */
export interface Migration {
  /** The `PRAGMA user_version` the store has after this step (1, 2, …; contiguous). */
  readonly version: number;
  /** A short name, as in the file name (`search`, `ownership`). */
  readonly name: string;
  /** The DDL / DML run with `db.exec` (several statements allowed). */
  readonly sql: string;
  /**
   * Work the SQL alone cannot do (e.g. decoding stored JSON), run right after `sql`. Must not
   * throw on damaged rows: a migration that fails leaves the store unopenable.
   */
  readonly backfill?: (db: Database.Database) => void;
}

/**
 * Applies one migration to an open database: its SQL, then its backfill. The caller owns the
 * transaction and sets `user_version` (SqliteSessionStore.migrate does both).
 * @throws whatever better-sqlite3 throws for a statement that fails (the caller's transaction rolls back).
 */
export function applyMigration(db: Database.Database, migration: Migration): void {
  db.exec(migration.sql);
  migration.backfill?.(db);
}
