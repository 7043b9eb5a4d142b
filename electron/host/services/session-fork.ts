/**
 * Forking a session at a closed turn (docs/architecture.md, fork), for the HostApi's `forkSession`
 * (and through it `forkline fork`, `resume` of an imported session, rewind). The connection calls
 * it and tells its clients; this file holds the rules:
 * - the boundary is a closed turn (`forkBoundaryAt`), read after the one recovery path;
 * - an imported session continues only in a folder the caller names, and never past the first
 *   event that changed what its model saw (`firstUnreplayableSeq`);
 * - `worktree`: the child gets its own folder under the data folder's worktrees, restored to the
 *   checkpoint this installation recorded at the boundary, and the checkpoint is pinned for it.
 */
import { join } from 'node:path';
import { ForklineError } from '../../../shared/errors.js';
import { isImportedSession, type SessionEvent } from '../../../shared/events.js';
import { firstUnreplayableSeq } from '../../../shared/import-summary.js';
import { forkBoundaryAt } from '../../session/fork-boundary.js';
import { recordedHereFrom } from '../../store/session-provenance.js';
import type { SessionRepository } from '../../store/session-repository.js';
import type { SessionRecord } from '../../store/session-store.js';
import type { WorkspaceCheckpoints } from '../../workspace/checkpoints.js';
import { realWorkspace } from '../workspace-folder.js';
import type { SessionReader } from './session-reader.js';
import { checkpointOfTurn } from './workspace-checkpoints.js';

/** What a fork uses of the host. */
export interface ForkDeps {
  readonly repository: SessionRepository;
  /** The host's "live log or stored log" read. */
  readonly reader: SessionReader;
  /** A new session id. */
  readonly newId: () => string;
  /** Off (undefined): a fork cannot get its own folder. */
  readonly checkpoints?: WorkspaceCheckpoints;
  /** Where fork folders go (`<data dir>/worktrees`). */
  readonly worktreesDir?: string;
}

/** A fork request, as the HostApi takes it. */
export interface ForkParams {
  readonly sessionId: string;
  /** A seq at or after a turn end (before the next turn start); default the last closed turn. */
  readonly atSeq?: number;
  /** The child gets its own folder restored to the boundary's checkpoint. */
  readonly worktree?: boolean;
  /** The child works in this existing folder (how an imported session is continued). */
  readonly cwd?: string;
}

/**
 * Makes the fork and returns the child's record (untitled: the fork is titled by its own first
 * prompt, so fork titles say what the branch does differently).
 * @throws ForklineError INVALID_ARGUMENTS (worktree and cwd both), MODEL_VIEW_INCOMPLETE /
 *   WORKSPACE_REQUIRED (imported sessions), WORKTREE_UNAVAILABLE (no checkpoints or none recorded
 *   here), and the fork-boundary and store errors.
 */
export async function forkSession(deps: ForkDeps, params: ForkParams): Promise<SessionRecord> {
  const repo = deps.repository;
  if (params.worktree && params.cwd !== undefined) throw new ForklineError('INVALID_ARGUMENTS', 'a fork gets either its own restored folder (worktree) or a folder you name (cwd), not both');
  const chosenCwd = params.cwd !== undefined ? realWorkspace(params.cwd) : undefined;
  // The one recovery path: a crashed source is closed before its boundaries are read.
  const events = deps.reader.events(params.sessionId);
  const boundary = forkBoundaryAt(events.length, (seq) => events[seq], params.atSeq);
  if (isImportedSession(repo.get(params.sessionId)!.header)) {
    // Continuing an imported session: its history must be what the source's model saw.
    const limit = firstUnreplayableSeq(events);
    if (limit !== undefined && boundary > limit) {
      const before = lastTurnEndBefore(events, limit);
      throw new ForklineError(
        'MODEL_VIEW_INCOMPLETE',
        `seq ${limit} of this imported log changed what its model saw and cannot be replayed here, so a continuation after it would send a different history; ${before === undefined ? 'no turn ends before it' : `fork at a turn that ends at or before seq ${before}`}`,
      );
    }
    if (params.cwd === undefined) throw new ForklineError('WORKSPACE_REQUIRED', 'continuing an imported session needs a workspace folder of yours (cwd); the folder named in the log is never used');
  }
  const turn = (events[boundary] as SessionEvent<'turn/end'>).data.turn;
  const checkpoint = checkpointOfTurn(events, boundary, turn, recordedHereFrom(repo, params.sessionId));
  const childId = deps.newId();
  let cwd: string | undefined = params.cwd !== undefined ? realWorkspace(params.cwd) : undefined;
  if (params.worktree) {
    const { checkpoints, worktreesDir } = deps;
    if (!checkpoints || !worktreesDir) throw new ForklineError('WORKTREE_UNAVAILABLE', 'workspace checkpoints are off, so a fork cannot get its own folder');
    if (checkpoint === undefined)
      throw new ForklineError(
        'WORKTREE_UNAVAILABLE',
        'there is no workspace checkpoint recorded by this installation at or before this turn to restore (checkpoints in an imported log are never used)',
      );
    cwd = join(worktreesDir, childId);
    await checkpoints.restore(checkpoint.commit, cwd);
    await checkpoints.pin(`refs/forkline/${childId}`, checkpoint.commit);
  }
  cwd ??= chosenCwd;
  const child = await repo.fork(params.sessionId, boundary, childId, { ...(cwd !== undefined ? { cwd } : {}), ...(checkpoint !== undefined ? { checkpoint } : {}) });
  // No inherited title: the fork is titled by its own first prompt (followup); until then the UI
  // labels it "fork N of <parent title>".
  repo.rename(child.header.id, undefined);
  return repo.get(child.header.id)!;
}

/** The seq of the last `turn/end` before `seq`, if any. */
function lastTurnEndBefore(events: readonly SessionEvent[], seq: number): number | undefined {
  for (let i = Math.min(seq, events.length) - 1; i >= 0; i--) if (events[i]!.type === 'turn/end') return i;
  return undefined;
}
