/**
 * `forkline team …` (issue 27): the team store from the command line.
 *
 * - `team init` — create or migrate the schema (as the database's owner; creates the
 *   `forkline_team` role when missing). Refuses a schema newer than this build.
 * - `team ls [--json]` — the team's sessions: id, who, when, events, status, tokens, cost,
 *   workspace name, title (from the sessions table only).
 * - `team show ID [--json]` — a team session's timeline, read-only (its events go through the
 *   JSONL reader, which checks every payload's shape: they are someone else's data).
 * - `team fork ID --cwd DIR [--at SEQ]` — continue a team session here: its log is imported into
 *   the local store through the import pipeline (an imported, read-only copy whose provenance
 *   names the team store and its owner), then forked into a native local session working in DIR.
 * - `team search QUERY… [--json]` — PostgreSQL full-text search over the team's sessions.
 *
 * Everything the server sends is shown with control characters made visible.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { formatUsd } from '../../../shared/pricing.js';
import { visibleInline, visibleText } from '../../../shared/visible-text.js';
import { importTeamSession } from '../../host/services/team-browse.js';
import { importJsonl } from '../../session/jsonl.js';
import { TeamDb } from '../../team/team-db.js';
import { checkTeamSchema, initTeamSchema, TEAM_ROLE } from '../../team/team-schema.js';
import { findTeamSession, listTeamSessions, searchTeam, teamSessionJsonl, type TeamSessionRow } from '../../team/team-sessions.js';
import { defineCommand } from '../command.js';
import { DATA_OPTIONS, dataDirOf } from '../engine-options.js';
import { UsageError } from '../error-line.js';
import { jsonLine } from '../json-output.js';
import { openStoredSessions } from '../stored-sessions.js';
import { TimelineText } from '../timeline-text.js';
import { teamStoreUrl, type TeamCommandInput } from '../team-command-input.js';

const SUBCOMMANDS = ['init', 'ls', 'show', 'fork', 'search'] as const;

/** Runs `team SUBCOMMAND …`; returns the exit code. @throws UsageError, TeamStoreError, import and fork errors. */
export async function teamCommand(input: TeamCommandInput, color: boolean): Promise<number> {
  const [sub, ...args] = input.positionals;
  if (sub === undefined || !(SUBCOMMANDS as readonly string[]).includes(sub)) {
    throw new UsageError(`team needs one of: ${SUBCOMMANDS.join(', ')}${sub !== undefined ? ` (got ${sub})` : ''}`);
  }
  if ((sub === 'show' || sub === 'fork') && args[0] === undefined) throw new UsageError(`team ${sub} needs a team session id (forkline team ls lists them)`);
  if (sub === 'search' && args.join(' ').trim() === '') throw new UsageError('team search needs words to search for');
  const dir = input.values['cwd'] as string | undefined;
  if (sub === 'fork') {
    if (dir === undefined) throw new UsageError('team fork needs --cwd DIR: the folder the new local session works in');
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--cwd ${dir} is not a folder`);
  }
  const at = input.values['at'] !== undefined ? Number(input.values['at']) : undefined;
  if (at !== undefined && (!Number.isInteger(at) || at < 0)) throw new UsageError('--at must be a seq (a non-negative integer)');
  const url = teamStoreUrl(input);
  const db = await TeamDb.connect(url.url);
  try {
    if (sub === 'init') return await init(input, db);
    await checkTeamSchema(db);
    const json = input.values['json'] === true;
    if (sub === 'ls') return await list(input, db, json);
    if (sub === 'search') return await search(input, db, args.join(' '), json);
    const session = await findTeamSession(db, args[0]!);
    if (sub === 'show') return await show(input, db, session, json, color);
    return await fork(input, db, session, realpathSync(resolve(dir!)), at);
  } finally {
    await db.close();
  }
}

async function init(input: TeamCommandInput, db: TeamDb): Promise<number> {
  const result = await initTeamSchema(db);
  if (result.applied.length === 0) input.out(`team store ${db.where}: schema version ${result.to}, up to date\n`);
  else input.out(`team store ${db.where}: schema version ${result.from} → ${result.to} (applied ${result.applied.join(', ')})\n`);
  if (result.createdRole) input.out(`created role ${TEAM_ROLE}\n`);
  input.out(`each member connects as their own role; give one the right to publish and read with: GRANT ${TEAM_ROLE} TO their_role;\n`);
  return 0;
}

function rowJson(r: TeamSessionRow): Record<string, unknown> {
  return { ...r, createdAt: new Date(r.createdAt).toISOString(), updatedAt: new Date(r.updatedAt).toISOString() };
}

function figures(r: TeamSessionRow): string {
  return `${r.inputTokens + r.outputTokens} tokens  ${r.inputTokens + r.outputTokens === 0 ? 'no steps' : r.costUsd !== undefined ? formatUsd(r.costUsd) : 'price unknown'}`;
}

async function list(input: TeamCommandInput, db: TeamDb, json: boolean): Promise<number> {
  const rows = await listTeamSessions(db);
  if (json) {
    input.out(jsonLine(rows.map(rowJson)));
    return 0;
  }
  if (rows.length === 0) input.out('no team sessions yet (forkline publish ID shares one)\n');
  for (const r of rows) {
    const lineage = r.parentId !== undefined ? `  ⑂ ${r.parentId.slice(0, 8)}` : '';
    const imported = r.provenance.kind === 'imported' ? `  (imported${r.provenance.format ? `: ${r.provenance.format}` : ''})` : '';
    input.out(
      visibleInline(
        `${r.id}  ${r.owner}  ${new Date(r.updatedAt).toISOString()}  ${String(r.eventCount).padStart(6)} events  ${r.status ?? '-'}  ${figures(r)}  ${r.workspace ?? '(no folder)'}  ${r.title ?? '(untitled)'}${lineage}${imported}`,
      ) + '\n',
    );
  }
  return 0;
}

/** The team session's log, read through the JSONL reader (shapes checked, gaps and damage reported). */
async function readChecked(db: TeamDb, session: TeamSessionRow): Promise<ReturnType<typeof importJsonl>> {
  let text = '';
  for await (const chunk of teamSessionJsonl(db, session)) text += chunk;
  return importJsonl(text, session.id);
}

async function show(input: TeamCommandInput, db: TeamDb, session: TeamSessionRow, json: boolean, color: boolean): Promise<number> {
  const log = await readChecked(db, session);
  if (json) {
    input.out(jsonLine({ session: rowJson(session), events: log.events, warnings: log.warnings }));
    return 0;
  }
  const fork = session.parentId !== undefined && session.forkSeq !== undefined ? `\nforked from ${session.parentId} after seq ${session.forkSeq - 1}` : '';
  input.out(
    visibleText(
      `team session ${session.id}${session.title ? ` — ${session.title}` : ''}\npublished by ${session.owner}, workspace ${session.workspace ?? '(none)'}, ${session.eventCount} events, ${session.status ?? 'no turns'}, ${figures(session)}${fork}\nread-only: forkline team fork ${session.id.slice(0, 8)} --cwd DIR continues it here\n`,
    ),
  );
  for (const warning of log.warnings) input.out(`! ${visibleInline(warning)}\n`);
  const printer = new TimelineText({ live: false, color, seqs: true, ...(session.forkSeq !== undefined ? { forkSeq: session.forkSeq } : {}) });
  for (const event of log.events) input.out(printer.render(event));
  return 0;
}

async function fork(input: TeamCommandInput, db: TeamDb, session: TeamSessionRow, cwd: string, at: number | undefined): Promise<number> {
  const local = openStoredSessions(input.dataDir, input.env);
  try {
    const repository = local.repository;
    // Named after the team store and who published it: the copy's provenance says where it came from.
    const summary = await importTeamSession(repository, db, session);
    const child = await repository.fork(summary.sessionId, at, undefined, { cwd });
    input.out(`${child.header.id}\n`);
    input.err(`imported team session ${visibleInline(session.id)} (published by ${visibleInline(session.owner)}) as ${summary.sessionId}: ${summary.events} events, read-only\n`);
    input.err(
      `forked it after seq ${(child.header.seedLength ?? 1) - 1} into ${child.header.id}, working in ${visibleInline(cwd)}\ncontinue it: forkline resume ${child.header.id.slice(0, 8)} "your next message"\n`,
    );
    return 0;
  } finally {
    await local.close();
  }
}

async function search(input: TeamCommandInput, db: TeamDb, query: string, json: boolean): Promise<number> {
  const hits = await searchTeam(db, query);
  if (json) {
    input.out(jsonLine(hits));
    return 0;
  }
  if (hits.length === 0) input.out(`nothing in the team's sessions matches ${visibleInline(query)}\n`);
  for (const h of hits) input.out(`${visibleInline(`${h.sessionId.slice(0, 8)}  seq ${h.seq}  ${h.owner}  ${h.title ?? '(untitled)'}: ${h.snippet}`)}\n`);
  return hits.length > 0 ? 0 : 1;
}

/** The command-table entry: `forkline team init|ls|show|fork|search …`. */
export const command = defineCommand({
  options: { ...DATA_OPTIONS, 'team-store': { type: 'string' }, json: { type: 'boolean' }, cwd: { type: 'string' }, at: { type: 'string' } },
  async run(ctx, { positionals, options }) {
    return teamCommand({ positionals, values: options, dataDir: dataDirOf(options), env: process.env, out: (s) => ctx.stdout.write(s), err: (s) => ctx.stderr.write(s) }, ctx.color);
  },
});
