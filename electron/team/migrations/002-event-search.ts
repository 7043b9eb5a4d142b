/**
 * Team schema 2: full-text search over the team's events (issue 27, "searches them with PostgreSQL
 * full-text search"). The publisher stores each event's searchable text (the same text the local
 * index holds: electron/store/search-text.ts) in `search_text`; a stored generated `tsvector`
 * (English configuration) with a GIN index answers `websearch_to_tsquery` queries.
 */
import type { TeamMigration } from './team-migration.js';

export const migration002: TeamMigration = {
  version: 2,
  name: 'event-search',
  sql: `
ALTER TABLE forkline.events ADD COLUMN search_text text;
ALTER TABLE forkline.events ADD COLUMN search tsvector GENERATED ALWAYS AS (to_tsvector('english', coalesce(search_text, ''))) STORED;
CREATE INDEX events_search ON forkline.events USING gin (search);
GRANT INSERT (search_text) ON forkline.events TO forkline_team;
`,
};
