/**
 * Reading the team store (issue 27, "Browse and continue"): the list of the team's sessions (from
 * the sessions table alone: it holds who, when, workspace name, status, tokens and cost, so a
 * listing never reads events), one session's log (following its fork lineage by reference, as
 * the local store does), a session as JSONL for the import pipeline, and full-text search.
 *
 * What comes from the server is other people's data: it is shown, or imported through the import
 * pipeline (which validates every event and marks the copy imported), never used to act.
 */
import { SESSION_FORMAT_VERSION, type SessionEvent } from '../../shared/events.js';
import type { TeamSessionView } from '../../shared/team.js';
import type { TeamDb } from './team-db.js';
import { TeamStoreError } from './team-errors.js';

/**
 * One row of the team's session list: the renderer's {@link TeamSessionView} (shared/team.ts) less
 * `mine` (the host adds it for the connected role), plus the seq a fork's own events start at.
 */
export type TeamSessionRow = Omit<TeamSessionView, 'mine'> & {
  /** The seq its own events start at (a fork of `parentId`). */
  readonly forkSeq?: number;
};

interface DbSessionRow {
  id: string;
  owner_role: string;
  workspace: string | null;
  title: string | null;
  status: string | null;
  input_tokens: string;
  output_tokens: string;
  cost_usd: number | null;
  next_seq: number;
  created_at: string;
  updated_ms: string;
  parent_id: string | null;
  fork_seq: number | null;
  own_from: number;
  provenance: { kind?: unknown; format?: unknown } | null;
}

const SESSION_COLUMNS = `id, owner_role, workspace, title, status, input_tokens, output_tokens, cost_usd, next_seq, created_at,
  (extract(epoch FROM updated_at) * 1000)::bigint AS updated_ms, parent_id, fork_seq, own_from, provenance`;

function toRow(r: DbSessionRow): TeamSessionRow {
  const kind = typeof r.provenance?.kind === 'string' ? r.provenance.kind : 'native';
  return {
    id: r.id,
    owner: r.owner_role,
    ...(r.workspace !== null ? { workspace: r.workspace } : {}),
    ...(r.title !== null ? { title: r.title } : {}),
    ...(r.status !== null ? { status: r.status } : {}),
    inputTokens: Number(r.input_tokens),
    outputTokens: Number(r.output_tokens),
    ...(r.cost_usd !== null ? { costUsd: r.cost_usd } : {}),
    eventCount: r.next_seq,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_ms),
    ...(r.parent_id !== null ? { parentId: r.parent_id } : {}),
    ...(r.fork_seq !== null ? { forkSeq: r.fork_seq } : {}),
    provenance: { kind, ...(typeof r.provenance?.format === 'string' ? { format: r.provenance.format } : {}) },
  };
}

/**
 * The team's sessions, most recently published first (one index scan of the sessions table).
 * @param options.owner only this role's; `limit` default 10,000.
 * @throws TeamStoreError
 */
export async function listTeamSessions(db: TeamDb, options: { readonly limit?: number; readonly owner?: string } = {}): Promise<TeamSessionRow[]> {
  const limit = options.limit ?? 10_000;
  const result =
    options.owner !== undefined
      ? await db.query<DbSessionRow>(`SELECT ${SESSION_COLUMNS} FROM forkline.sessions WHERE owner_role = $2 ORDER BY updated_at DESC, id LIMIT $1`, [limit, options.owner])
      : await db.query<DbSessionRow>(`SELECT ${SESSION_COLUMNS} FROM forkline.sessions ORDER BY updated_at DESC, id LIMIT $1`, [limit]);
  return result.rows.map(toRow);
}

/**
 * The team session named by a full id or a unique prefix.
 * @throws TeamStoreError TEAM_SESSION_NOT_FOUND (none, or several: their ids are listed).
 */
export async function findTeamSession(db: TeamDb, idOrPrefix: string): Promise<TeamSessionRow> {
  const exact = await db.query<DbSessionRow>(`SELECT ${SESSION_COLUMNS} FROM forkline.sessions WHERE id = $1`, [idOrPrefix]);
  if (exact.rows[0]) return toRow(exact.rows[0]);
  const pattern = `${idOrPrefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const matches = await db.query<DbSessionRow>(`SELECT ${SESSION_COLUMNS} FROM forkline.sessions WHERE id LIKE $1 ORDER BY id LIMIT 6`, [pattern]);
  if (matches.rows.length === 1) return toRow(matches.rows[0]!);
  if (matches.rows.length === 0) throw new TeamStoreError('TEAM_SESSION_NOT_FOUND', `no team session ${idOrPrefix} (forkline team ls lists them)`);
  throw new TeamStoreError('TEAM_SESSION_NOT_FOUND', `${idOrPrefix} names several team sessions: ${matches.rows.map((r) => r.id).join(', ')}${matches.rows.length > 5 ? ', …' : ''}`);
}

/** One stored event as the server holds it: its seq and its canonical JSON text. */
export interface TeamEventRow {
  readonly seq: number;
  readonly body: string;
}

/**
 * A session's events with `from <= seq < to` as stored (canonical JSON text), in seq order, in
 * pages of `page`; seqs before the session's own first seq are read from the session it was
 * forked from (by reference, recursively).
 * @throws TeamStoreError
 */
export async function* teamEventBodies(db: TeamDb, sessionId: string, from = 0, to = Number.MAX_SAFE_INTEGER, page = 5000): AsyncGenerator<TeamEventRow[]> {
  const row = (await db.query<{ parent_id: string | null; own_from: number; next_seq: number }>('SELECT parent_id, own_from, next_seq FROM forkline.sessions WHERE id = $1', [sessionId])).rows[0];
  if (!row) throw new TeamStoreError('TEAM_SESSION_NOT_FOUND', `no team session ${sessionId}`);
  const end = Math.min(to, row.next_seq);
  if (from < row.own_from && row.parent_id !== null) {
    yield* teamEventBodies(db, row.parent_id, from, Math.min(end, row.own_from), page);
  }
  for (let start = Math.max(from, row.own_from); start < end; start += page) {
    const rows = await db.query<TeamEventRow>('SELECT seq, body FROM forkline.events WHERE session_id = $1 AND seq >= $2 AND seq < $3 ORDER BY seq', [sessionId, start, Math.min(start + page, end)]);
    if (rows.rows.length > 0) yield rows.rows;
  }
}

/**
 * The session as JSONL chunks (a header line, then one event per line) for the import pipeline:
 * the header names the team session and carries no workspace (an imported log's folder is never
 * used). The events are the stored text, unchanged; the importer validates them.
 * @throws TeamStoreError
 */
export async function* teamSessionJsonl(db: TeamDb, session: TeamSessionRow): AsyncGenerator<string> {
  const stored = (await db.query<{ header: string }>('SELECT header FROM forkline.sessions WHERE id = $1', [session.id])).rows[0];
  let version: unknown = SESSION_FORMAT_VERSION;
  try {
    version = (JSON.parse(stored?.header ?? '{}') as { version?: unknown }).version ?? SESSION_FORMAT_VERSION;
  } catch {
    // a damaged header: the current version (the importer checks every event anyway)
  }
  const header = { type: 'session', version, id: session.id, createdAt: session.createdAt, ...(session.title !== undefined ? { title: session.title } : {}), origin: { kind: 'native' } };
  yield `${JSON.stringify(header)}\n`;
  for await (const rows of teamEventBodies(db, session.id)) yield `${rows.map((r) => r.body).join('\n')}\n`;
}

/**
 * A session's events parsed from their stored text (for showing; not validated — use the import
 * pipeline for anything that keeps them).
 * @throws TeamStoreError; SyntaxError for a body that is not JSON.
 */
export async function readTeamEvents(db: TeamDb, sessionId: string): Promise<SessionEvent[]> {
  const events: SessionEvent[] = [];
  for await (const rows of teamEventBodies(db, sessionId)) for (const r of rows) events.push(JSON.parse(r.body) as SessionEvent);
  return events;
}

/** One full-text hit. */
export interface TeamSearchHit {
  readonly sessionId: string;
  readonly seq: number;
  readonly type: string;
  readonly owner: string;
  readonly title?: string;
  /** The matching text around the terms, with the terms in `[[`…`]]`. */
  readonly snippet: string;
}

/**
 * PostgreSQL full-text search (`websearch_to_tsquery`, English) over the team's messages and tool
 * output, best matches first.
 * @throws TeamStoreError
 */
export async function searchTeam(db: TeamDb, query: string, limit = 50): Promise<TeamSearchHit[]> {
  const rows = await db.query<{ session_id: string; seq: number; type: string; owner_role: string; title: string | null; snippet: string }>(
    `WITH q AS (SELECT websearch_to_tsquery('english', $1) AS q),
     hits AS (SELECT e.session_id, e.seq, e.type, e.search_text, ts_rank(e.search, q.q) AS rank FROM forkline.events e, q WHERE e.search @@ q.q ORDER BY rank DESC, e.session_id, e.seq LIMIT $2)
     SELECT h.session_id, h.seq, h.type, s.owner_role, s.title,
       ts_headline('english', left(h.search_text, 20000), q.q, 'StartSel=[[, StopSel=]], MaxWords=24, MinWords=8') AS snippet
     FROM hits h JOIN forkline.sessions s ON s.id = h.session_id, q ORDER BY h.rank DESC, h.session_id, h.seq`,
    [query, limit],
  );
  return rows.rows.map((r) => ({ sessionId: r.session_id, seq: r.seq, type: r.type, owner: r.owner_role, ...(r.title !== null ? { title: r.title } : {}), snippet: r.snippet }));
}
