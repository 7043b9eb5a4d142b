/** One versioned step of the team store's PostgreSQL schema (see index.ts). */
export interface TeamMigration {
  /** The schema version this step produces (1, 2, …; consecutive). */
  readonly version: number;
  /** Short name, recorded in `forkline.schema_version`. */
  readonly name: string;
  /** The statements, run in one transaction. */
  readonly sql: string;
}
