/**
 * Publishing local sessions to the team store (issue 27, "Publish"): a session's events are
 * appended to `forkline.events` by (session, seq), in batches, idempotently and resumably.
 *
 * How it stays exact whatever happens (a dropped connection, a SIGKILL at any moment):
 * - The server keeps the high-water mark (`sessions.next_seq`), moved only by the contiguity
 *   trigger in the same transaction as the rows (migrations/001-sessions-events.ts). Each batch is
 *   one plain `INSERT` statement in its own transaction (its rows copied in first, see
 *   {@link BatchTransport}): it is stored whole or not at all; one that would leave a gap, or
 *   repeats a stored seq (another publisher of the session moved first), is refused as
 *   TEAM_SEQ_CONFLICT and the publisher continues from the server's `next_seq`. (A plain
 *   insert, not `ON CONFLICT DO NOTHING`: the speculative insertion cost ~15% of the server's time
 *   per batch, and the refusal already says what happened.)
 * - A publisher starts from the server's `next_seq`, never from a local note, so a run that died
 *   after a commit it never heard about resumes exactly after it.
 * - Before appending, the last published event is compared with the local one at that seq: a log
 *   that diverged (another copy of the data folder) is refused (TEAM_DIVERGED) instead of mixed.
 * - The local store is only read: nothing local changes, whatever the server says.
 *
 * Forks go by reference, as locally: a session whose prefix is read from another session's rows
 * publishes that session first and stores only its own events (from `seedLength`). A fork of a
 * team session (its lineage reaches a local read-only copy, team-copy.ts) names that team session
 * as its parent on the server and publishes none of the copy's events: they are the teammate's
 * rows, already there (the server is checked to hold the forked prefix). A copy itself is refused.
 * A session id already published by another role or another installation is refused
 * (TEAM_OWNER_MISMATCH).
 */
import { SessionCostFold } from '../../shared/session-cost.js';
import type { SessionEvent } from '../../shared/events.js';
import { serializeEvent } from '../session/chunk-rows.js';
import { searchableText } from '../store/search-text.js';
import type { SessionRecord } from '../store/session-store.js';
import { copyTextRow } from './copy-text.js';
import { teamCopySource, type TeamCopySource } from './team-copy.js';
import type { TeamDb } from './team-db.js';
import { TeamStoreError } from './team-errors.js';

/** What the publisher reads from the local store (a SessionStore provides it). */
export interface PublishSource {
  get(sessionId: string): SessionRecord | undefined;
  /** Events with `from <= seq < to`, in seq order. */
  readRange(sessionId: string, from: number, to: number): SessionEvent[];
}

export interface PublishOptions {
  /** This data folder's id ({@link installationId}). */
  readonly installation: string;
  /** Most events in one batch (default 2000). */
  readonly batchEvents?: number;
  /** Most characters of event bodies in one batch (default 4 MB). */
  readonly batchChars?: number;
  /** Called after each stored batch. */
  readonly onBatch?: (progress: PublishProgress) => void;
}

export interface PublishProgress {
  readonly sessionId: string;
  /** The server's next seq after the batch. */
  readonly published: number;
  /** The local log's length. */
  readonly total: number;
}

/** What publishing one session did. */
export interface PublishResult {
  readonly sessionId: string;
  /** Events appended now. */
  readonly appended: number;
  /** The server's next seq afterwards (= the local length). */
  readonly total: number;
  /** The first seq stored under this id on the server (its fork point; 0 for a root). */
  readonly ownFrom: number;
}

/** The base name of a workspace path (the team sees the folder's name, never the path). */
export function workspaceName(cwd: string | undefined): string | undefined {
  if (cwd === undefined) return undefined;
  const parts = cwd.split(/[\\/]+/).filter((p) => p !== '');
  return parts[parts.length - 1];
}

/** The text stored for full-text search (PostgreSQL text cannot hold NUL). */
function searchText(event: SessionEvent): string | null {
  const doc = searchableText(event);
  return doc === undefined ? null : doc.text.replaceAll('\u0000', ' ');
}

interface ServerRow {
  readonly owner_role: string;
  readonly installation: string;
  readonly next_seq: number;
  readonly own_from: number;
}

/**
 * Publishes `sessionId` (after the sessions its prefix is read from), appending what the server
 * lacks. Returns one result per session published, parents first.
 * @throws TeamStoreError TEAM_SESSION_NOT_FOUND (not in the local store), TEAM_OWNER_MISMATCH,
 *   TEAM_DIVERGED, TEAM_PERMISSION_DENIED, TEAM_STORE_UNREACHABLE (publishing again resumes).
 */
export async function publishSession(db: TeamDb, source: PublishSource, sessionId: string, options: PublishOptions): Promise<PublishResult[]> {
  const chain: SessionRecord[] = [];
  const seen = new Set<string>();
  /** The local copy of a team session the lineage reaches, with the team session it stands for. */
  let base: { readonly localId: string; readonly team: TeamCopySource } | undefined;
  for (let id: string | undefined = sessionId; id !== undefined;) {
    if (seen.has(id)) break;
    seen.add(id);
    const record = source.get(id);
    if (!record) throw new TeamStoreError('TEAM_SESSION_NOT_FOUND', id === sessionId ? `no local session ${id}` : `session ${sessionId} reads its history from ${id}, which is not in the local store`);
    const team = teamCopySource(record.header);
    if (team !== undefined) {
      if (id === sessionId) {
        throw new TeamStoreError(
          'TEAM_OWNER_MISMATCH',
          `session ${id} is a read-only copy of team session ${team.id} published by ${team.owner}; it is theirs, nothing of it is published again (fork it to continue)`,
        );
      }
      base = { localId: id, team };
      break;
    }
    chain.unshift(record);
    id = record.prefixFrom;
  }
  if (base !== undefined) await checkTeamParent(db, base.team, chain[0]!);
  const results: PublishResult[] = [];
  for (const record of chain) results.push(await publishOne(db, source, record, options, record.prefixFrom !== undefined && record.prefixFrom === base?.localId ? base.team.id : record.prefixFrom));
  return results;
}

/**
 * Checks that the team store holds the team session a local fork reads its prefix from, at least
 * as far as the fork point (a published log only grows).
 * @throws TeamStoreError TEAM_SESSION_NOT_FOUND (not on this server), TEAM_DIVERGED (it holds less).
 */
async function checkTeamParent(db: TeamDb, team: TeamCopySource, fork: SessionRecord): Promise<void> {
  const seedLength = fork.header.seedLength ?? 0;
  const row = (await db.query<{ next_seq: number }>('SELECT next_seq FROM forkline.sessions WHERE id = $1', [team.id])).rows[0];
  if (row === undefined) {
    throw new TeamStoreError(
      'TEAM_SESSION_NOT_FOUND',
      `session ${fork.header.id} continues team session ${team.id} (published by ${team.owner}), which this team store does not hold; nothing was published`,
    );
  }
  if (row.next_seq < seedLength) {
    throw new TeamStoreError(
      'TEAM_DIVERGED',
      `session ${fork.header.id} forks team session ${team.id} after seq ${seedLength - 1}, but the team store holds only ${row.next_seq} events of it; nothing was published`,
    );
  }
}

/** Publishes one session of the chain; `parentId` is its by-reference parent's id on the server. */
async function publishOne(db: TeamDb, source: PublishSource, record: SessionRecord, options: PublishOptions, parentId: string | undefined): Promise<PublishResult> {
  const { header } = record;
  const id = header.id;
  const ownFrom = record.prefixFrom !== undefined ? (header.seedLength ?? 0) : 0;
  const length = record.eventCount;
  await db.query(
    `INSERT INTO forkline.sessions (id, installation, workspace, title, status, parent_id, fork_seq, own_from, provenance, header, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id) DO NOTHING`,
    [
      id,
      options.installation,
      workspaceName(header.cwd) ?? null,
      header.title ?? null,
      record.lastTurn ?? null,
      parentId ?? null,
      header.seedLength ?? null,
      ownFrom,
      JSON.stringify(header.origin ?? { kind: 'native' }),
      JSON.stringify({ ...header, cwd: undefined, ...(parentId !== undefined && header.parentSession === record.prefixFrom ? { parentSession: parentId } : {}) }),
      header.createdAt,
    ],
  );
  let server = await serverRow(db, id);
  if (server.owner_role !== db.role) {
    throw new TeamStoreError('TEAM_OWNER_MISMATCH', `session ${id} is already published by role ${server.owner_role}, not ${db.role}; nothing was published and nothing local changed`);
  }
  if (server.installation !== options.installation) {
    throw new TeamStoreError(
      'TEAM_OWNER_MISMATCH',
      `session ${id} is already published from another machine (installation ${server.installation.slice(0, 8)}, this one is ${options.installation.slice(0, 8)}); nothing was published and nothing local changed`,
    );
  }
  if (server.own_from !== ownFrom) {
    throw new TeamStoreError('TEAM_DIVERGED', `session ${id} is published with its own events from seq ${server.own_from}, but the local one starts at ${ownFrom}`);
  }
  await checkSameHistory(db, source, id, server.next_seq, length);
  const fold = new SessionCostFold();
  // The figures cover the session's own events: those already published are read, not sent.
  for (let from = ownFrom; from < server.next_seq; from += 5000) for (const event of source.readRange(id, from, Math.min(from + 5000, server.next_seq))) fold.add(event);
  const batchEvents = options.batchEvents ?? 2000;
  const batchChars = options.batchChars ?? 4_000_000;
  let appended = 0;
  let next = server.next_seq;
  const transport = await chooseTransport(db);
  // The next batch is read and serialised while the server stores the current one.
  let batch = buildBatch(source, id, next, length, batchEvents, batchChars);
  while (batch !== undefined) {
    const sending = batch;
    let following: Batch | undefined;
    try {
      const sent = await sendBatch(db, transport, id, sending);
      sent.stored.catch(() => undefined);
      following = buildBatch(source, id, next + sending.events.length, length, batchEvents, batchChars);
      await sent.stored;
    } catch (error) {
      // Another publisher of this session (the same role and machine) moved first (a gap, or seqs
      // it already stored): continue from where it is.
      if (!(error instanceof TeamStoreError) || error.code !== 'TEAM_SEQ_CONFLICT') throw error;
      server = await serverRow(db, id);
      if (server.next_seq < next) throw error;
      for (const event of source.readRange(id, next, Math.min(server.next_seq, length))) fold.add(event);
      next = server.next_seq;
      batch = buildBatch(source, id, next, length, batchEvents, batchChars);
      continue;
    }
    for (const event of sending.events) fold.add(event);
    next += sending.events.length;
    appended += sending.events.length;
    options.onBatch?.({ sessionId: id, published: next, total: length });
    batch = following;
  }
  const total = fold.result().total;
  await db.query('UPDATE forkline.sessions SET title = $2, status = $3, input_tokens = $4, output_tokens = $5, cost_usd = $6 WHERE id = $1', [
    id,
    header.title ?? null,
    record.lastTurn ?? null,
    total.inputTokens,
    total.outputTokens,
    total.usd ?? (total.knownUsd > 0 ? total.knownUsd : null),
  ]);
  return { sessionId: id, appended, total: next, ownFrom };
}

/**
 * How batches reach the server. `copy`: the batch is streamed with `COPY … FROM STDIN` into a
 * temporary table of this connection, then moved by one `INSERT … SELECT` in the same transaction
 * (row-level security and the contiguity trigger apply to that insert as to any other; COPY
 * cannot write a table under row-level security itself). `arrays`: one `INSERT … SELECT FROM
 * unnest(…)` of array parameters, for a role that may not create temporary tables. The copy
 * way takes about half the client's encoding time (no array-literal quoting of every JSON body)
 * and less of the server's (COPY's parser instead of array input).
 */
type BatchTransport = 'copy' | 'arrays';

/** The temporary table a batch is copied into (emptied at each commit). */
const STAGING_TABLE = 'forkline_publish_batch';

async function chooseTransport(db: TeamDb): Promise<BatchTransport> {
  try {
    await db.query(`CREATE TEMP TABLE IF NOT EXISTS ${STAGING_TABLE} (seq integer, type text, time bigint, body text, search_text text) ON COMMIT DELETE ROWS`);
    return 'copy';
  } catch (error) {
    if (error instanceof TeamStoreError && error.code === 'TEAM_PERMISSION_DENIED') return 'arrays';
    throw error;
  }
}

/**
 * Starts storing one batch as one transaction. Resolves once the rows are on their way, to the
 * promise of their commit (the caller builds the next batch meanwhile).
 * @throws TeamStoreError (also from `stored`): TEAM_SEQ_CONFLICT when another publisher moved first.
 */
async function sendBatch(db: TeamDb, transport: BatchTransport, id: string, batch: Batch): Promise<{ readonly stored: Promise<void> }> {
  if (transport === 'arrays') {
    const stored = db.query(
      `INSERT INTO forkline.events (session_id, seq, type, time, body, search_text)
       SELECT $1, * FROM unnest($2::int[], $3::text[], $4::bigint[], $5::text[], $6::text[])`,
      [id, batch.seqs, batch.types, batch.times, batch.bodies, batch.texts],
    );
    return { stored: stored.then(() => undefined) };
  }
  await db.query('BEGIN');
  try {
    await db.copyIn(`COPY ${STAGING_TABLE} (seq, type, time, body, search_text) FROM STDIN`, copyRows(batch));
  } catch (error) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
  const stored = db.query(`INSERT INTO forkline.events (session_id, seq, type, time, body, search_text) SELECT $1, seq, type, time, body, search_text FROM ${STAGING_TABLE}`, [id]).then(
    async () => {
      await db.query('COMMIT');
    },
    async (error: unknown) => {
      await db.query('ROLLBACK').catch(() => undefined);
      throw error;
    },
  );
  return { stored };
}

/** A batch's rows in COPY's text format, in the staging table's column order. */
function copyRows(batch: Batch): string {
  const lines: string[] = [];
  for (let i = 0; i < batch.seqs.length; i++) lines.push(copyTextRow([batch.seqs[i]!, batch.types[i]!, batch.times[i]!, batch.bodies[i]!, batch.texts[i] ?? null]));
  return lines.join('');
}

/** One batch's columns. */
interface Batch {
  readonly events: readonly SessionEvent[];
  readonly seqs: number[];
  readonly types: string[];
  readonly times: number[];
  readonly bodies: string[];
  readonly texts: (string | null)[];
}

/** The events from `from` (at most `maxEvents`, and about `maxChars` of bodies), or undefined at the end. */
function buildBatch(source: PublishSource, id: string, from: number, length: number, maxEvents: number, maxChars: number): Batch | undefined {
  if (from >= length) return undefined;
  const read = source.readRange(id, from, Math.min(from + maxEvents, length));
  if (read.length === 0) return undefined;
  const batch: Batch = { events: [], seqs: [], types: [], times: [], bodies: [], texts: [] };
  let chars = 0;
  for (const event of read) {
    if (batch.seqs.length > 0 && chars >= maxChars) break;
    const body = serializeEvent(event);
    chars += body.length;
    (batch.events as SessionEvent[]).push(event);
    batch.seqs.push(event.seq);
    batch.types.push(event.type);
    batch.times.push(event.time);
    batch.bodies.push(body);
    batch.texts.push(searchText(event));
  }
  return batch;
}

async function serverRow(db: TeamDb, id: string): Promise<ServerRow> {
  const row = (await db.query<ServerRow>('SELECT owner_role, installation, next_seq, own_from FROM forkline.sessions WHERE id = $1', [id])).rows[0];
  if (!row) throw new TeamStoreError('TEAM_PERMISSION_DENIED', `session ${id} could not be registered in the team store`);
  return row;
}

/**
 * Refuses to append when the published log is not a prefix of the local one: it is longer, or
 * its last event differs from the local event at that seq.
 * @throws TeamStoreError TEAM_DIVERGED
 */
async function checkSameHistory(db: TeamDb, source: PublishSource, id: string, nextSeq: number, length: number): Promise<void> {
  if (nextSeq > length) {
    throw new TeamStoreError('TEAM_DIVERGED', `the team store holds ${nextSeq} events of session ${id}, the local log only ${length}; it was published from another copy of this data folder`);
  }
  if (nextSeq === 0) return;
  const last = (await db.query<{ body: string }>('SELECT body FROM forkline.events WHERE session_id = $1 AND seq = $2', [id, nextSeq - 1])).rows[0];
  const local = source.readRange(id, nextSeq - 1, nextSeq)[0];
  if (last !== undefined && local !== undefined && last.body !== serializeEvent(local)) {
    throw new TeamStoreError('TEAM_DIVERGED', `session ${id} differs from the published one at seq ${nextSeq - 1}; it was published from another copy of this data folder`);
  }
}
