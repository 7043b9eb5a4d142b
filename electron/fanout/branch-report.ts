/**
 * The figures of a branch as `forkline fanout --json` and `forkline compare A B C … --json` print
 * them (README "Fan-out, apply, rewind"): its variant (route and prompt, as its log says), its last check, its diff since
 * the fork point, its tokens and time; and the ranked document over several branches.
 *
 * "Since the fork point" means since the history the compared branches share: for a fan-out's
 * children their own seed, for a session compared with a fork of it the fork's seed (the parent's
 * turns before the fork are common history, not its own work: {@link comparedForkPoints}).
 */
import { commonHistoryLength } from '../../shared/branch-compare.js';
import { branchStats } from '../../shared/branch-stats.js';
import type { BranchDiff, BranchReport, RankedReport } from '../../shared/branch-ranking.js';
import type { SessionEvent } from '../../shared/events.js';
import { isCheckpointId, type WorkspaceCheckpoints } from '../workspace/checkpoints.js';
import type { SessionRepository } from '../store/session-repository.js';
import { recordedHereFrom } from '../store/session-provenance.js';
import { rankBranches } from './ranking.js';

export type { BranchDiff, BranchReport, BranchVariant, RankedReport } from '../../shared/branch-ranking.js';

/**
 * A branch's figures from its log. `recordedFrom`: the first seq this installation recorded
 * (checkpoint ids before it are never given to git).
 */
export async function branchReport(
  params: {
    readonly id: string;
    readonly events: readonly SessionEvent[];
    readonly parent?: string;
    readonly seedLength?: number;
    readonly cwd?: string;
    readonly recordedFrom: number;
    readonly label?: string;
    /** Where the branch's own part starts (a seq count) when it is compared with others ({@link comparedForkPoints}); default: its own fork point. */
    readonly from?: number;
  },
  checkpoints: WorkspaceCheckpoints | undefined,
): Promise<BranchReport> {
  const { events } = params;
  const from = params.from ?? (params.parent !== undefined ? (params.seedLength ?? 0) : 0);
  const stats = branchStats(events, from);
  // The fork point's checkpoint: the last one logged at or before the child's own seeded copy of it.
  let forkCheckpoint: string | undefined;
  let lastCheckpoint: string | undefined;
  for (const e of events) {
    if (e.type !== 'workspace/checkpoint' || e.seq < params.recordedFrom || !isCheckpointId(e.data.commit)) continue;
    if (e.seq <= from + 1) forkCheckpoint = e.data.commit;
    lastCheckpoint = e.data.commit;
  }
  const own = events.slice(from);
  const check = own.findLast((e): e is SessionEvent<'check/result'> => e.type === 'check/result' && e.data.purpose === 'check')?.data;
  const header = routeOf(events, from, stats.billedResponses > 0 || params.parent === undefined);
  const end = own.findLast((e): e is SessionEvent<'turn/end'> => e.type === 'turn/end')?.data.reason;
  let diffLines = 0;
  if (checkpoints && forkCheckpoint && lastCheckpoint && forkCheckpoint !== lastCheckpoint) diffLines = await checkpoints.changedLines(forkCheckpoint, lastCheckpoint);
  const detail = end === undefined ? undefined : end.kind === 'error' ? `${end.failure.code}: ${end.failure.message}` : end.kind === 'aborted' ? `cancelled (${end.cause.kind})` : undefined;
  return {
    session: params.id,
    ...(params.parent !== undefined ? { parent: params.parent } : {}),
    ...(params.cwd !== undefined ? { cwd: params.cwd } : {}),
    variant: {
      ...(params.label !== undefined ? { label: params.label } : {}),
      ...(header ? { provider: header.config.provider, model: header.config.model } : {}),
      ...(header?.config.reasoningEffort !== undefined ? { reasoningEffort: header.config.reasoningEffort } : {}),
      ...(stats.firstPrompt !== undefined ? { prompt: stats.firstPrompt } : {}),
    },
    ...(end ? { turnEnd: end.kind } : {}),
    ...(detail !== undefined ? { turnEndDetail: detail } : {}),
    ...(check
      ? { check: { passed: check.passed, exitCode: check.exitCode, timedOut: check.timedOut, command: check.command, durationMs: check.durationMs, ...(check.counts ? { counts: check.counts } : {}) } }
      : {}),
    checkPassed: check?.passed,
    failures: check === undefined ? undefined : (check.counts?.failed ?? (check.passed ? 0 : 1)),
    diffLines,
    tokens: stats.inputTokens + stats.cacheReadTokens + stats.outputTokens,
    ...(stats.costUsd !== undefined && stats.unpricedResponses === 0 ? { costUsd: stats.costUsd } : {}),
    billedResponses: stats.billedResponses,
    durationMs: stats.durationMs,
    ...(forkCheckpoint ? { forkCheckpoint } : {}),
    ...(lastCheckpoint ? { lastCheckpoint } : {}),
  };
}

/**
 * The request header a branch's own part ran with: the first one logged in it, else — when
 * `inherited` (the part has steps, or the session is a root) — the last one logged before it. A
 * header is logged only when a process first sends or the envelope changes, so a root continued in
 * the same app after the fork logs none for its later turns; its route is the one still in force
 * (`forkline compare` printed it as "?/?"). A fork with no steps of its own has no route.
 */
function routeOf(events: readonly SessionEvent[], from: number, inherited: boolean): SessionEvent<'request/header'>['data']['header'] | undefined {
  const isHeader = (e: SessionEvent): e is SessionEvent<'request/header'> => e.type === 'request/header';
  const own = events.slice(from).find(isHeader);
  if (own || !inherited) return own?.data.header;
  return events.slice(0, from).findLast(isHeader)?.data.header;
}

/**
 * Number of leading events two sessions share: along each one's fork lineage to their lowest
 * common ancestor, the smallest seed length taken on the way (a session is its own ancestor).
 */
export function commonLength(repository: SessionRepository, a: string, b: string): number {
  return commonHistoryLength(
    (id) => {
      const record = repository.get(id);
      if (!record) return undefined;
      const { parentSession, seedLength } = record.header;
      return { eventCount: record.eventCount, ...(parentSession !== undefined ? { parentSession } : {}), ...(seedLength !== undefined ? { seedLength } : {}) };
    },
    [a, b],
  );
}

/**
 * Where each of `ids` starts its own part when they are compared with one another: the events it
 * shares with the branch it shares the fewest with ({@link commonLength}). Empty for fewer than two
 * branches (each then counts from its own fork point). Reads headers only.
 */
export function comparedForkPoints(repository: SessionRepository, ids: readonly string[]): ReadonlyMap<string, number> {
  const points = new Map<string, number>();
  const unique = [...new Set(ids)];
  if (unique.length < 2) return points;
  for (const id of unique) points.set(id, Math.min(...unique.filter((other) => other !== id).map((other) => commonLength(repository, id, other))));
  return points;
}

/** A stored session's figures (loaded, so recovered, through the repository); `from` as in {@link branchReport}. */
export async function storedBranchReport(repository: SessionRepository, checkpoints: WorkspaceCheckpoints | undefined, id: string, label?: string, from?: number): Promise<BranchReport> {
  const loaded = repository.load(id);
  const h = loaded.record.header;
  return branchReport(
    {
      id,
      events: loaded.events,
      recordedFrom: recordedHereFrom(repository, id),
      ...(h.parentSession !== undefined ? { parent: h.parentSession } : {}),
      ...(h.seedLength !== undefined ? { seedLength: h.seedLength } : {}),
      ...(h.cwd !== undefined ? { cwd: h.cwd } : {}),
      ...(label !== undefined ? { label } : {}),
      ...(from !== undefined ? { from } : {}),
    },
    checkpoints,
  );
}

/**
 * A branch's figures now: from its live log, marked `provisional`, while this process runs its turn
 * (the store refuses to load a session with an open turn it owns); else as stored.
 * @param live the session this process runs for `id`, if any.
 * @param from as in {@link branchReport}.
 * @throws StoreError SESSION_NOT_FOUND.
 */
export async function currentBranchReport(
  repository: SessionRepository,
  checkpoints: WorkspaceCheckpoints | undefined,
  id: string,
  live: { readonly events: readonly SessionEvent[]; readonly state: { readonly openTurn?: unknown } } | undefined,
  label?: string,
  from?: number,
): Promise<BranchReport> {
  if (live === undefined || live.state.openTurn === undefined) return storedBranchReport(repository, checkpoints, id, label, from);
  const h = repository.get(id)?.header;
  const report = await branchReport(
    {
      id,
      events: live.events,
      recordedFrom: recordedHereFrom(repository, id),
      ...(h?.parentSession !== undefined ? { parent: h.parentSession } : {}),
      ...(h?.seedLength !== undefined ? { seedLength: h.seedLength } : {}),
      ...(h?.cwd !== undefined ? { cwd: h.cwd } : {}),
      ...(label !== undefined ? { label } : {}),
      ...(from !== undefined ? { from } : {}),
    },
    checkpoints,
  );
  return { ...report, provisional: true };
}

/** The ranked document of several branch reports; a provisional branch says so in its reasons. Pure. */
export function rankedReport(reports: readonly BranchReport[]): RankedReport {
  return {
    branches: rankBranches(reports).map((r) => ({
      ...r.branch,
      rank: r.rank,
      reasons: r.branch.provisional ? [...r.reasons, 'still running: ranked on its figures so far (no check yet)'] : r.reasons,
    })),
  };
}

/** Most of a branch diff sent at once. */
export const BRANCH_DIFF_MAX_CHARS = 1_000_000;

/**
 * A branch's files since its fork point: the diff between the fork point's checkpoint and its last
 * one (a running branch's last is taken when its turn ends), or a note why there is none.
 */
export async function branchDiffOf(report: BranchReport, checkpoints: WorkspaceCheckpoints | undefined): Promise<BranchDiff> {
  const ids = { ...(report.forkCheckpoint ? { forkCheckpoint: report.forkCheckpoint } : {}), ...(report.lastCheckpoint ? { lastCheckpoint: report.lastCheckpoint } : {}) };
  if (!checkpoints) return { session: report.session, diff: '', note: 'workspace checkpoints are off', ...ids };
  if (!report.forkCheckpoint || !report.lastCheckpoint)
    return { session: report.session, diff: '', note: 'no workspace checkpoint at the fork point or since (one is taken after every turn)', ...ids };
  if (report.forkCheckpoint === report.lastCheckpoint)
    return { session: report.session, diff: '', ...(report.provisional ? { note: 'still running: its files are compared when its turn ends' } : {}), ...ids };
  const diff = await checkpoints.diff(report.forkCheckpoint, report.lastCheckpoint);
  if (diff.length <= BRANCH_DIFF_MAX_CHARS) return { session: report.session, diff, ...ids };
  return { session: report.session, diff: diff.slice(0, BRANCH_DIFF_MAX_CHARS), note: `the diff was cut at 1 MB (of ${Math.round(diff.length / 1000).toLocaleString('en-US')} KB)`, ...ids };
}
