/**
 * Schema 5: search documents written after the events (docs/importing.md). `search_pending_from`
 * is the first seq of the session whose search documents are not written yet (NULL: none pending,
 * the write path writes them with the events). Imports set it, so a large log is stored at the
 * speed of its events; `SqliteSessionStore.indexPendingSearch` extracts the rest in bounded passes
 * and a search extracts all of it before it answers. It only ever moves forward.
 */
import type { Migration } from './migration.js';

export const migration005: Migration = {
  version: 5,
  name: 'deferred-search',
  sql: `ALTER TABLE sessions ADD COLUMN search_pending_from INTEGER;`,
};
