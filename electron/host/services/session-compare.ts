/**
 * Comparing branches (docs/architecture.md, compare): two sessions' figures since their common
 * history with the file diff between their last checkpoints (HostApi `compareSessions`, `forkline
 * compare A B`), any number of branches ranked as a fan-out ranks them (`rankBranches`,
 * electron/fanout/branch-report.ts), and one branch's files from the same point (`branchDiff`).
 */
import type { CompareBranch, CompareResult } from '../../../shared/api.js';
import { branchStats } from '../../../shared/branch-stats.js';
import type { BranchDiff, RankedReport } from '../../../shared/branch-ranking.js';
import { ForklineError } from '../../../shared/errors.js';
import type { SessionEvent } from '../../../shared/events.js';
import { cutHead } from '../../../shared/text-cut.js';
import { branchDiffOf, commonLength, comparedForkPoints, currentBranchReport, rankedReport } from '../../fanout/branch-report.js';
import type { Session } from '../../session/session.js';
import { recordedHereFrom } from '../../store/session-provenance.js';
import type { SessionRepository } from '../../store/session-repository.js';
import type { SessionRecord } from '../../store/session-store.js';
import type { WorkspaceCheckpoints } from '../../workspace/checkpoints.js';
import type { SessionReader } from './session-reader.js';
import { recordedCheckpoint } from './workspace-checkpoints.js';

/** The diff a compare returns is cut here (characters), with a note saying so. */
export const MAX_COMPARE_DIFF_CHARS = 1_000_000;

/** What a compare uses of the host. */
export interface CompareDeps {
  readonly repository: SessionRepository;
  /** The host's "live log or stored log" read. */
  readonly reader: SessionReader;
  /** Off (undefined): no file diff, a note says why. */
  readonly checkpoints?: WorkspaceCheckpoints;
}

/**
 * Sessions `a` and `b` side by side: the common history length (along the fork lineage), each
 * branch's figures after it, and — unless `files` is false — the files that differ between their
 * last checkpoints recorded here and the diff (cut at {@link MAX_COMPARE_DIFF_CHARS}).
 * @throws ForklineError SESSION_NOT_FOUND; store errors of the reads.
 */
export async function compareSessions(deps: CompareDeps, params: { readonly a: string; readonly b: string; readonly files?: boolean }): Promise<CompareResult> {
  const repo = deps.repository;
  const a = repo.get(params.a);
  const b = repo.get(params.b);
  if (!a || !b) throw new ForklineError('SESSION_NOT_FOUND', `session ${!a ? params.a : params.b} does not exist`);
  // Read (and so recover) both first: the common length counts the closers too.
  const eventsA = deps.reader.events(params.a);
  const eventsB = deps.reader.events(params.b);
  const common = commonLength(repo, params.a, params.b);
  // Only checkpoints this installation recorded are diffed (an imported log's ids are never given to git).
  const branch = (record: SessionRecord, events: readonly SessionEvent[]): CompareBranch => {
    const { lastCheckpoint: _logged, ...stats } = branchStats(events, common);
    void _logged;
    const checkpoint = recordedCheckpoint(events, recordedHereFrom(repo, record.header.id), events.length - 1);
    return {
      sessionId: record.header.id,
      ...(record.header.title !== undefined ? { title: record.header.title } : {}),
      ...(record.header.cwd !== undefined ? { cwd: record.header.cwd } : {}),
      stats: { ...stats, ...(checkpoint !== undefined ? { lastCheckpoint: checkpoint } : {}) },
    };
  };
  const left = branch(a, eventsA);
  const right = branch(b, eventsB);
  const { checkpoints } = deps;
  let files: { status: string; path: string }[] = [];
  let diff = '';
  let diffNote: string | undefined;
  if (params.files === false) diffNote = 'files were not compared';
  else if (!checkpoints) diffNote = 'workspace checkpoints are off';
  else if (!left.stats.lastCheckpoint || !right.stats.lastCheckpoint) diffNote = 'a branch has no workspace checkpoint yet (one is taken after every turn)';
  else {
    files = await checkpoints.changedFiles(left.stats.lastCheckpoint, right.stats.lastCheckpoint);
    diff = await checkpoints.diff(left.stats.lastCheckpoint, right.stats.lastCheckpoint);
    if (diff.length > MAX_COMPARE_DIFF_CHARS) {
      diff = cutHead(diff, MAX_COMPARE_DIFF_CHARS);
      diffNote = 'the diff was cut at 1 MB';
    }
  }
  return { commonLength: common, a: left, b: right, files, diff, ...(diffNote !== undefined ? { diffNote } : {}) };
}

/**
 * Branches ranked with their figures (electron/fanout/branch-report.ts), in rank order.
 * @throws ForklineError SESSION_NOT_FOUND for an id with no session, before anything is read.
 */
export async function rankBranches(
  deps: Pick<CompareDeps, 'repository' | 'checkpoints'> & { readonly liveSession?: (id: string) => Session | undefined },
  sessionIds: readonly string[],
): Promise<RankedReport> {
  for (const id of sessionIds) if (!deps.repository.get(id)) throw new ForklineError('SESSION_NOT_FOUND', `session ${id} does not exist`);
  // A running branch is read from its live log and ranked provisionally (branch-report.ts).
  // Each counted from the history the branches share (a parent compared with its fork: from the fork's seed).
  const from = comparedForkPoints(deps.repository, sessionIds);
  const reports = await Promise.all(sessionIds.map((id) => currentBranchReport(deps.repository, deps.checkpoints, id, deps.liveSession?.(id), undefined, from.get(id))));
  return rankedReport(reports);
}

/**
 * A branch's files (the board's "Files:" fold): the diff from its fork point's checkpoint to its
 * last one. Beside `comparedWith` (the board's branches), from where the history they share ends —
 * the point {@link rankBranches} counts the branch's figures from — so a root shown beside its fork
 * does not list its pre-fork turns' changes as its own while its "diff" figure says 0.
 * @throws ForklineError SESSION_NOT_FOUND for an id with no session.
 */
export async function branchDiff(
  deps: Pick<CompareDeps, 'repository' | 'checkpoints'> & { readonly liveSession?: (id: string) => Session | undefined },
  params: { readonly sessionId: string; readonly comparedWith?: readonly string[] },
): Promise<BranchDiff> {
  const ids = [params.sessionId, ...(params.comparedWith ?? [])];
  for (const id of ids) if (!deps.repository.get(id)) throw new ForklineError('SESSION_NOT_FOUND', `session ${id} does not exist`);
  const from = comparedForkPoints(deps.repository, ids).get(params.sessionId);
  const report = await currentBranchReport(deps.repository, deps.checkpoints, params.sessionId, deps.liveSession?.(params.sessionId), undefined, from);
  return branchDiffOf(report, deps.checkpoints);
}
