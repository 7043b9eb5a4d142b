/** Schema 2: provenance (SessionHeader.origin) as JSON; NULL = native. */
import type { Migration } from './migration.js';

export const migration002: Migration = {
  version: 2,
  name: 'origin',
  sql: `ALTER TABLE sessions ADD COLUMN origin TEXT;`,
};
