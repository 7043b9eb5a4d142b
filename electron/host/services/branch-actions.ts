/**
 * What a person does with fan-out branches (README "Fan-out, apply, rewind"), shared by the CLI (`forkline fanout`,
 * `apply`, `rewind`, `fanout --cleanup`) and the HostApi (the board's buttons): start a fan-out
 * after checking everything, apply a branch into its parent's folder, rewind a session to a turn,
 * discard a branch's folder. The callers only print or return what these report.
 */
import { existsSync, rmSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import type { ApplyBranchResult, DiscardResult, FanoutStarted, FanoutVariantInput, ProviderChoice, RewindResult } from '../../../shared/api.js';
import { ForklineError } from '../../../shared/errors.js';
import type { SessionEvent } from '../../../shared/events.js';
import { assertCheckRunnable, DEFAULT_CHECK_TIMEOUT_MS, proposeCheck } from '../../fanout/check-runner.js';
import { storedBranchReport } from '../../fanout/branch-report.js';
import { providerPreset } from '../../llm/providers.js';
import { checkForkBoundary, forkBoundaryAt } from '../../session/fork-boundary.js';
import { recordedHereFrom } from '../../store/session-provenance.js';
import type { SessionRepository } from '../../store/session-repository.js';
import { isCheckpointId } from '../../workspace/checkpoints.js';
import { threeWayApply } from '../../workspace/apply.js';
import type { Host } from '../host.js';
import type { ClientConnection } from '../host-client.js';
import type { SettingsStore } from '../settings-store.js';
import { checkVariants, Fanout, variantRoute, type VariantSpec } from './fanout-run.js';

/** The parts of the runtime these actions use (a Runtime satisfies it; so does a host connection's view). */
export interface BranchDeps<C extends ClientConnection = ClientConnection> {
  readonly host: Host<C>;
  readonly repository: SessionRepository;
  readonly settings: SettingsStore;
}

/** What a fan-out start needs beyond the variants. */
export interface FanoutStartParams {
  readonly sessionId: string;
  readonly atSeq?: number;
  readonly prompt: string;
  readonly variants: readonly VariantSpec[];
  /** The check command; proposed from the project when absent. */
  readonly check?: string;
  readonly checkTimeoutMs?: number;
  readonly concurrency?: number;
  readonly onLine?: (line: string) => void;
}

/**
 * Checks a fan-out (variants, API keys, models the endpoint offers, the check command, the fork
 * point, checkpoints on) and makes its forks; the caller runs it (`fanout.run()`).
 * @throws ForklineError FANOUT_INVALID / CHECK_NOT_FOUND / WORKSPACE_MISSING before anything exists.
 */
export async function prepareFanout<C extends ClientConnection>(deps: BranchDeps<C>, params: FanoutStartParams): Promise<{ fanout: Fanout<C>; check: string }> {
  const loaded = deps.repository.load(params.sessionId);
  const folder = loaded.record.header.cwd;
  if (folder === undefined || !existsSync(folder))
    throw new ForklineError('WORKSPACE_MISSING', `session ${params.sessionId} has no folder to fan out from${folder ? ` (${folder} no longer exists)` : ''}`);
  const routes: ProviderChoice[] = params.variants.map((v) => variantRoute(deps.settings.active, v));
  for (const [i, route] of routes.entries()) {
    const preset = providerPreset(route.provider);
    if (preset.requiresApiKey && deps.settings.apiKey(route.provider) === undefined) {
      throw new ForklineError('FANOUT_INVALID', `--variant ${params.variants[i]!.label}: no API key for ${preset.label}: set ${preset.apiKeyEnv ?? 'its API key'} in the environment`);
    }
  }
  await checkVariants(deps, params.variants, routes);
  const check = params.check ?? proposeCheck(folder);
  if (check === undefined)
    throw new ForklineError('CHECK_NOT_FOUND', `no check command given and none found in ${folder} (no package.json test script, pytest, go.mod or Cargo.toml): pass --check "CMD"`);
  assertCheckRunnable(check, folder);
  const boundary = forkBoundaryAt(loaded.events.length, (seq) => loaded.events[seq], params.atSeq);
  checkForkBoundary(loaded.events, boundary);
  if (!deps.host.options.checkpoints) throw new ForklineError('FANOUT_INVALID', 'workspace checkpoints are off (FORKLINE_CHECKPOINTS=off), so branches cannot get their own folders: unset it');
  const fanout = new Fanout(deps, {
    sessionId: params.sessionId,
    ...(params.atSeq !== undefined ? { atSeq: params.atSeq } : {}),
    prompt: params.prompt,
    variants: params.variants,
    routes,
    check,
    checkTimeoutMs: params.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS,
    ...(params.concurrency !== undefined ? { concurrency: params.concurrency } : {}),
    ...(params.onLine ? { onLine: params.onLine } : {}),
  });
  await fanout.prepare();
  return { fanout, check };
}

/** The check a fan-out of `sessionId` would run when none is given (shown and editable in the UI). */
export function proposedCheckFor<C extends ClientConnection>(deps: BranchDeps<C>, sessionId: string): string | undefined {
  const folder = deps.repository.get(sessionId)?.header.cwd;
  return folder !== undefined && existsSync(folder) ? proposeCheck(folder) : undefined;
}

/**
 * A branch's changes since its fork point merged into its parent's folder (three-way). The folder
 * is checkpointed first; the apply is logged in the parent (`workspace/apply`) and its model told
 * which files changed. Conflicts: nothing is written and they are returned (`applied: false`).
 * @throws ForklineError APPLY_UNAVAILABLE naming why.
 */
export async function applyBranch<C extends ClientConnection>(deps: BranchDeps<C>, branchId: string): Promise<ApplyBranchResult> {
  const branch = deps.repository.load(branchId);
  const parentId = branch.record.header.parentSession;
  if (parentId === undefined) throw new ForklineError('APPLY_UNAVAILABLE', `${branchId} is not a branch (it was not forked from a session): apply a fork, e.g. one that forkline fanout made`);
  const parent = deps.repository.get(parentId);
  if (!parent) throw new ForklineError('APPLY_UNAVAILABLE', `the parent session ${parentId} of ${branchId} no longer exists`);
  const folder = parent.header.cwd;
  if (folder === undefined || !existsSync(folder)) {
    throw new ForklineError(
      'APPLY_UNAVAILABLE',
      `the parent's folder ${folder ?? '(none)'} no longer exists: restore or recreate it first (the branch's files stay in its own folder: forkline fork ${branchId.slice(0, 8)} --worktree)`,
    );
  }
  const { checkpoints } = deps.host.options;
  if (!checkpoints) throw new ForklineError('APPLY_UNAVAILABLE', 'workspace checkpoints are off (FORKLINE_CHECKPOINTS=off): apply needs them');
  const report = await storedBranchReport(deps.repository, checkpoints, branchId);
  if (!report.forkCheckpoint || !isCheckpointId(report.forkCheckpoint))
    throw new ForklineError('APPLY_UNAVAILABLE', `${branchId} has no checkpoint of its fork point recorded here, so there is no merge base`);
  if (!report.lastCheckpoint || report.lastCheckpoint === report.forkCheckpoint) return { branch: branchId, parent: parentId, folder, applied: true, files: [], conflicts: [] };
  const agent = deps.host.ensureAgent(parentId);
  if (agent.status === 'running') throw new ForklineError('APPLY_UNAVAILABLE', `the parent session ${parentId} is running a turn: apply when it is idle`);
  const before = await checkpoints.snapshot(folder, `refs/forkline/${parentId}`, `before applying ${branchId}`);
  const outcome = await threeWayApply(checkpoints, { base: report.forkCheckpoint, theirs: report.lastCheckpoint, folder });
  const written = outcome.files.filter((f) => f.how !== 'same');
  agent.session.append({
    type: 'workspace/apply',
    data: {
      branch: branchId,
      base: report.forkCheckpoint,
      theirs: report.lastCheckpoint,
      before,
      applied: outcome.applied,
      files: written.map((f) => ({ path: f.path, status: f.status })),
      ...(outcome.conflicts.length > 0 ? { conflicts: outcome.conflicts.map((c) => ({ path: c.path, hunks: [...c.hunks] })) } : {}),
    },
  });
  if (outcome.applied && written.length > 0) {
    agent.inject(
      `The workspace files changed outside this conversation: branch ${branchId.slice(0, 8)} was applied (three-way merge). Changed files: ${written.map((f) => `${f.status} ${f.path}`).join(', ')}. Read them again before editing them.`,
    );
  }
  return { branch: branchId, parent: parentId, folder, before, applied: outcome.applied, files: outcome.files, conflicts: outcome.conflicts };
}

/**
 * The session's folder restored in place to the checkpoint of the turn that ended at `toSeq`, after
 * checkpointing it as it is (logged in the old session); the conversation continues in a new fork
 * at `toSeq` that works in the same folder. The old session stays as a sibling branch.
 * @throws ForklineError WORKSPACE_MISSING / WORKTREE_UNAVAILABLE / FANOUT_INVALID (running).
 */
export async function rewindSession<C extends ClientConnection>(deps: BranchDeps<C>, sessionId: string, toSeq: number): Promise<RewindResult> {
  const loaded = deps.repository.load(sessionId);
  const folder = loaded.record.header.cwd;
  if (folder === undefined || !existsSync(folder)) throw new ForklineError('WORKSPACE_MISSING', `session ${sessionId}'s folder ${folder ?? '(none)'} no longer exists: nothing to rewind`);
  const { checkpoints } = deps.host.options;
  if (!checkpoints) throw new ForklineError('WORKTREE_UNAVAILABLE', 'workspace checkpoints are off (FORKLINE_CHECKPOINTS=off): rewind needs them');
  const boundary = forkBoundaryAt(loaded.events.length, (seq) => loaded.events[seq], toSeq);
  checkForkBoundary(loaded.events, boundary);
  const recordedFrom = recordedHereFrom(deps.repository, sessionId);
  const at = loaded.events[boundary];
  const turn = at?.type === 'turn/end' ? at.data.turn : 0;
  const restored = checkpointAt(loaded.events, boundary, turn, recordedFrom);
  if (restored === undefined)
    throw new ForklineError('WORKTREE_UNAVAILABLE', `there is no workspace checkpoint recorded here for the turn that ends at seq ${boundary}: rewind to a turn this installation checkpointed`);
  const agent = deps.host.ensureAgent(sessionId);
  if (agent.status === 'running') throw new ForklineError('FANOUT_INVALID', `session ${sessionId} is running a turn: rewind when it is idle`);
  // 1. The abandoned line's final files, kept and logged in the old session.
  const abandoned = await checkpoints.snapshot(folder, `refs/forkline/${sessionId}`, `before rewind to seq ${boundary}`);
  const lastLogged = agent.session.events.findLast((e) => e.type === 'workspace/checkpoint');
  if (lastLogged?.type !== 'workspace/checkpoint' || lastLogged.data.commit !== abandoned)
    agent.session.append({ type: 'workspace/checkpoint', data: { turn: agent.session.lastTurn, commit: abandoned } });
  await deps.host.stopAgent(sessionId);
  // 2. The continuation: a fork at the boundary that works in the same folder.
  const connection = deps.host.connect(() => undefined);
  let childId: string;
  try {
    const child = await connection.forkSession({ sessionId, atSeq: boundary, cwd: folder });
    childId = child.id;
  } finally {
    connection.dispose();
  }
  await checkpoints.pin(`refs/forkline/${childId}`, restored.commit);
  // 3. The folder, byte for byte as at the checkpoint.
  await checkpoints.restoreInPlace(restored.commit, folder);
  const childAgent = deps.host.ensureAgent(childId);
  childAgent.session.append({ type: 'workspace/rewind', data: { from: sessionId, atSeq: boundary, restored: restored.commit, abandoned } });
  if (loaded.record.header.title !== undefined) deps.repository.rename(childId, `${loaded.record.header.title} (rewound to turn ${turn})`);
  deps.host.broadcast({ kind: 'sessions/changed' });
  return { sessionId: childId, from: sessionId, atSeq: boundary, turn, folder, restored: restored.commit, abandoned };
}

/** The checkpoint of the turn that ended at `boundary` (else the last one before it), recorded here. */
function checkpointAt(events: readonly SessionEvent[], boundary: number, turn: number, recordedFrom: number): { turn: number; commit: string } | undefined {
  for (let seq = boundary + 1; seq < events.length; seq++) {
    const e = events[seq]!;
    if (e.type === 'turn/start') break;
    if (e.type === 'workspace/checkpoint' && e.data.turn === turn && seq >= recordedFrom) return isCheckpointId(e.data.commit) ? { turn, commit: e.data.commit } : undefined;
  }
  for (let seq = boundary; seq >= recordedFrom && seq >= 0; seq--) {
    const e = events[seq]!;
    if (e.type === 'workspace/checkpoint') return isCheckpointId(e.data.commit) ? { turn: e.data.turn, commit: e.data.commit } : undefined;
  }
  return undefined;
}

/**
 * Removes a branch's folder when it is one of the data folder's worktrees (`<worktrees>/<id>`,
 * never any other folder, so never the user's), after checkpointing it so its final files stay
 * restorable. The session itself stays.
 * @throws ForklineError SESSION_NOT_FOUND; FANOUT_INVALID when checkpoints are off.
 */
export async function discardBranch<C extends ClientConnection>(deps: BranchDeps<C>, sessionId: string): Promise<DiscardResult> {
  const record = deps.repository.get(sessionId);
  if (!record) throw new ForklineError('SESSION_NOT_FOUND', `session ${sessionId} does not exist`);
  const { checkpoints, worktreesDir } = deps.host.options;
  if (!worktreesDir || !checkpoints) throw new ForklineError('FANOUT_INVALID', 'workspace checkpoints are off, so there are no branch folders to discard');
  const h = record.header;
  const folder = h.cwd ?? '';
  if (h.cwd === undefined) return { sessionId, folder, removed: false, reason: 'the session has no folder' };
  const cwd = resolve(h.cwd);
  const inside = relative(resolve(worktreesDir), cwd);
  if (inside === '' || inside.startsWith('..') || inside.includes(sep) || inside !== h.id)
    return { sessionId, folder, removed: false, reason: 'its folder is not a branch folder made by Forkline (yours is never removed)' };
  if (deps.host.agentFor(h.id)?.status === 'running') return { sessionId, folder, removed: false, reason: 'it is running a turn: cancel it first' };
  if (!existsSync(cwd)) return { sessionId, folder, removed: false, reason: 'its folder is already gone' };
  const commit = await checkpoints.snapshot(cwd, `refs/forkline/${h.id}`, 'before cleanup');
  rmSync(cwd, { recursive: true, force: true });
  deps.host.broadcast({ kind: 'sessions/changed' });
  return { sessionId, folder, removed: true, checkpoint: commit };
}

/** The UI's variant as a fan-out variant (its label names what differs, e.g. `model=A,effort=high`). */
export function variantFromInput(input: FanoutVariantInput, index: number): VariantSpec {
  const parts: string[] = [];
  if (input.model !== undefined) parts.push(`model=${input.model}`);
  if (input.effort !== undefined) parts.push(`effort=${input.effort}`);
  if (input.prompt !== undefined) parts.push(`prompt=${input.prompt.length > 24 ? `${input.prompt.slice(0, 23)}…` : input.prompt}`);
  if (input.system !== undefined) parts.push(`system=${input.system.length > 24 ? `${input.system.slice(0, 23)}…` : input.system}`);
  const label = parts.length > 0 ? parts.join(',') : `as is #${index + 1}`;
  return {
    label: label.length > 120 ? `${label.slice(0, 117)}…` : label,
    route: { ...(input.model !== undefined ? { model: input.model } : {}), ...(input.effort !== undefined ? { reasoningEffort: input.effort } : {}) },
    ...(input.prompt !== undefined ? { prompt: input.prompt } : {}),
    ...(input.system !== undefined ? { systemAddendum: input.system } : {}),
  };
}

/** The fan-outs running in one host, by id (for `cancelFanout`); a finished one removes itself. */
const RUNNING = new WeakMap<object, Map<string, { cancel(): void }>>();

/**
 * Starts a fan-out for the HostApi: checks and forks (throwing before anything runs), then runs
 * the branches in the background and returns their ids. Session changes reach clients by the
 * usual live feed; the host is told when the run ends (`sessions/changed`).
 */
export async function startFanout<C extends ClientConnection>(
  deps: BranchDeps<C>,
  params: { sessionId: string; atSeq?: number; prompt: string; variants: readonly FanoutVariantInput[]; check?: string; concurrency?: number },
): Promise<FanoutStarted> {
  const variants = params.variants.map(variantFromInput);
  const { fanout, check } = await prepareFanout(deps, {
    sessionId: params.sessionId,
    ...(params.atSeq !== undefined ? { atSeq: params.atSeq } : {}),
    prompt: params.prompt,
    variants,
    ...(params.check !== undefined ? { check: params.check } : {}),
    ...(params.concurrency !== undefined ? { concurrency: params.concurrency } : {}),
  });
  const fanoutId = deps.host.options.newId();
  let running = RUNNING.get(deps.host);
  if (!running) RUNNING.set(deps.host, (running = new Map()));
  const table = running;
  table.set(fanoutId, fanout);
  deps.host.broadcast({ kind: 'sessions/changed' });
  void fanout
    .run()
    .catch(() => undefined)
    .finally(() => {
      table.delete(fanoutId);
      deps.host.broadcast({ kind: 'sessions/changed' });
    });
  return { fanoutId, parent: params.sessionId, check, branches: fanout.branches.map((b) => ({ sessionId: b.sessionId, label: b.variant.label, model: b.route.model })) };
}

/** Cancels every branch of a running fan-out; false when it is not running (finished or unknown). */
export function cancelFanout<C extends ClientConnection>(deps: Pick<BranchDeps<C>, 'host'>, fanoutId: string): boolean {
  const fanout = RUNNING.get(deps.host)?.get(fanoutId);
  if (!fanout) return false;
  fanout.cancel();
  return true;
}
