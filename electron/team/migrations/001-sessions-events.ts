/**
 * Team schema 1: the sessions and events tables, row-level security and the contiguity trigger
 * (issue 27, "who may do what").
 *
 * - `forkline.sessions`: one row per published session — who owns it (`owner_role`, always the
 *   inserting role: the column cannot be written by team members), the installation that
 *   publishes it, its workspace name (the folder's base name, never the path), title, status,
 *   tokens, cost, lineage (`parent_id`, `fork_seq`), provenance, its header, and `next_seq`: the
 *   server-side high-water mark, moved only by the trigger below.
 * - `forkline.events`: `(session_id, seq)` primary key; `body` is the event's exact canonical JSON
 *   as text (jsonb would reorder keys and refuses `\u0000`). A fork's rows start at `own_from`
 *   (its `fork_seq`); earlier seqs are read from the parent, by reference, as locally.
 * - Rights: members of the `forkline_team` role read every row and insert only rows of their own
 *   sessions (policies `*_insert`); they may update only a few descriptive columns of their own
 *   session rows, and nobody but the schema's owner may delete or rewrite an event.
 * - Contiguity: an `AFTER INSERT … FOR EACH STATEMENT` trigger checks that each session's new rows
 *   are contiguous and start exactly at its `next_seq`, then moves it; otherwise the statement
 *   fails with SQLSTATE FL001 and nothing is stored. A replayed batch is refused by the primary key
 *   (or, with `ON CONFLICT DO NOTHING`, inserts nothing and passes), so a publisher may resend
 *   anything after a dropped connection.
 */
import type { TeamMigration } from './team-migration.js';

export const migration001: TeamMigration = {
  version: 1,
  name: 'sessions-events',
  sql: `
CREATE TABLE forkline.sessions (
  id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 200),
  owner_role name NOT NULL DEFAULT current_user,
  installation text NOT NULL,
  workspace text,
  title text,
  status text,
  input_tokens bigint NOT NULL DEFAULT 0,
  output_tokens bigint NOT NULL DEFAULT 0,
  cost_usd double precision,
  parent_id text REFERENCES forkline.sessions (id),
  fork_seq integer CHECK (fork_seq >= 0),
  own_from integer NOT NULL DEFAULT 0 CHECK (own_from >= 0),
  next_seq integer NOT NULL DEFAULT 0,
  provenance jsonb NOT NULL DEFAULT '{"kind":"native"}',
  header text NOT NULL,
  created_at bigint NOT NULL,
  published_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (next_seq >= own_from),
  CHECK (own_from = 0 OR parent_id IS NOT NULL)
);
CREATE INDEX sessions_by_update ON forkline.sessions (updated_at DESC, id);
CREATE INDEX sessions_by_parent ON forkline.sessions (parent_id) WHERE parent_id IS NOT NULL;

CREATE TABLE forkline.events (
  session_id text NOT NULL REFERENCES forkline.sessions (id),
  seq integer NOT NULL CHECK (seq >= 0),
  type text NOT NULL,
  time bigint NOT NULL,
  body text NOT NULL,
  PRIMARY KEY (session_id, seq)
);

-- A new session row starts at its own first seq, owned by whoever inserts it.
-- (Runs as the inserting role: current_user is who publishes.)
CREATE FUNCTION forkline.session_insert() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, forkline AS $fn$
DECLARE parent_next integer;
BEGIN
  NEW.owner_role := current_user;
  NEW.next_seq := NEW.own_from;
  NEW.published_at := now();
  NEW.updated_at := now();
  IF NEW.own_from > 0 THEN
    SELECT next_seq INTO parent_next FROM forkline.sessions WHERE id = NEW.parent_id;
    IF parent_next IS NULL OR parent_next < NEW.own_from THEN
      RAISE EXCEPTION USING ERRCODE = 'FL001',
        MESSAGE = format('session %s forks %s after seq %s, but the store holds only %s events of it; publish the parent first', NEW.id, NEW.parent_id, NEW.own_from - 1, coalesce(parent_next, 0));
    END IF;
  END IF;
  RETURN NEW;
END $fn$;
CREATE TRIGGER sessions_insert BEFORE INSERT ON forkline.sessions FOR EACH ROW EXECUTE FUNCTION forkline.session_insert();

-- Each session's new rows must continue its log exactly: contiguous, from next_seq on. Runs as the
-- schema's owner, the only one who may move next_seq.
CREATE FUNCTION forkline.events_advance() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, forkline AS $fn$
DECLARE r record; moved integer; stored integer;
BEGIN
  FOR r IN SELECT session_id, min(seq) AS lo, max(seq) AS hi, count(*) AS n FROM new_rows GROUP BY session_id LOOP
    IF r.hi - r.lo + 1 <> r.n THEN
      RAISE EXCEPTION USING ERRCODE = 'FL001', MESSAGE = format('session %s: the batch from seq %s to %s has a gap', r.session_id, r.lo, r.hi);
    END IF;
    UPDATE forkline.sessions SET next_seq = r.hi + 1, updated_at = now() WHERE id = r.session_id AND next_seq = r.lo;
    GET DIAGNOSTICS moved = ROW_COUNT;
    IF moved = 0 THEN
      SELECT next_seq INTO stored FROM forkline.sessions WHERE id = r.session_id;
      RAISE EXCEPTION USING ERRCODE = 'FL001', MESSAGE = format('session %s: events from seq %s do not continue the stored log (it holds seqs up to %s)', r.session_id, r.lo, coalesce(stored, 0) - 1);
    END IF;
  END LOOP;
  RETURN NULL;
END $fn$;
CREATE TRIGGER events_contiguous AFTER INSERT ON forkline.events REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION forkline.events_advance();

ALTER TABLE forkline.sessions ENABLE ROW LEVEL SECURITY;
ALTER TABLE forkline.events ENABLE ROW LEVEL SECURITY;
CREATE POLICY sessions_read ON forkline.sessions FOR SELECT USING (true);
CREATE POLICY sessions_insert ON forkline.sessions FOR INSERT WITH CHECK (owner_role = current_user);
CREATE POLICY sessions_update ON forkline.sessions FOR UPDATE USING (owner_role = current_user) WITH CHECK (owner_role = current_user);
CREATE POLICY events_read ON forkline.events FOR SELECT USING (true);
CREATE POLICY events_insert ON forkline.events FOR INSERT
  WITH CHECK (EXISTS (SELECT 1 FROM forkline.sessions s WHERE s.id = session_id AND s.owner_role = current_user));

REVOKE ALL ON forkline.sessions, forkline.events FROM PUBLIC;
GRANT USAGE ON SCHEMA forkline TO forkline_team;
GRANT SELECT ON forkline.sessions, forkline.events, forkline.schema_version TO forkline_team;
GRANT INSERT (id, installation, workspace, title, status, input_tokens, output_tokens, cost_usd, parent_id, fork_seq, own_from, provenance, header, created_at)
  ON forkline.sessions TO forkline_team;
GRANT UPDATE (workspace, title, status, input_tokens, output_tokens, cost_usd) ON forkline.sessions TO forkline_team;
GRANT INSERT (session_id, seq, type, time, body) ON forkline.events TO forkline_team;
`,
};
