/**
 * Schema 3: session ownership a recycled pid cannot fake (docs/reliability.md): the owner's process start
 * identity, host, claim time and claim token. A schema-2 mark (owner_pid only) gets the session's
 * last append time as its claim time, the latest moment its owner can have claimed it.
 */
import type { Migration } from './migration.js';

export const migration003: Migration = {
  version: 3,
  name: 'ownership',
  sql: `
    ALTER TABLE sessions ADD COLUMN owner_start TEXT;
    ALTER TABLE sessions ADD COLUMN owner_host TEXT;
    ALTER TABLE sessions ADD COLUMN owner_since INTEGER;
    ALTER TABLE sessions ADD COLUMN owner_token TEXT;
    UPDATE sessions SET owner_since = updated_at WHERE owner_pid IS NOT NULL;
  `,
};
