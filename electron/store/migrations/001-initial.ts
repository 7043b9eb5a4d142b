/** Schema 1: sessions and their events (docs/architecture.md §7). */
import type { Migration } from './migration.js';

export const migration001: Migration = {
  version: 1,
  name: 'initial',
  sql: `
    CREATE TABLE sessions (
      id TEXT PRIMARY KEY,
      version INTEGER NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      cwd TEXT,
      title TEXT,
      parent_session TEXT,
      seed_length INTEGER,
      prefix_from TEXT REFERENCES sessions(id),
      event_count INTEGER NOT NULL,
      owner_pid INTEGER
    ) STRICT;
    CREATE TABLE events (
      session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
      seq INTEGER NOT NULL,
      last_seq INTEGER NOT NULL,
      type TEXT NOT NULL,
      time ANY NOT NULL,
      data TEXT NOT NULL,
      surface_op TEXT,
      source_event_seqs TEXT,
      ignorable INTEGER,
      PRIMARY KEY (session_id, seq)
    ) STRICT;
    CREATE INDEX sessions_by_prefix ON sessions(prefix_from) WHERE prefix_from IS NOT NULL;
  `,
};
