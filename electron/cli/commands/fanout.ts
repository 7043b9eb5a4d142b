/**
 * `forkline fanout`, `forkline apply`, `forkline rewind` and `forkline compare A B C … --json`
 * (issue 21). cli.ts parses the options and opens the runtime; these functions do the rest and
 * return the exit code. Errors are ForklineErrors with codes the CLI maps to exit 2 (bad input,
 * refused before anything starts) or 1.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import type { ProviderChoice } from '../../../shared/api.js';
import { ForklineError } from '../../../shared/errors.js';
import type { SessionEvent } from '../../../shared/events.js';
import { visibleInline, visibleText } from '../../../shared/visible-text.js';
import { assertCheckRunnable, DEFAULT_CHECK_TIMEOUT_MS, proposeCheck } from '../../fanout/check-runner.js';
import { rankedReport, storedBranchReport, type BranchReport, type RankedReport } from '../../fanout/branch-report.js';
import { checkVariants, Fanout, parseVariant, variantRoute } from '../../host/services/fanout-run.js';
import type { Runtime } from '../../host/runtime.js';
import { checkForkBoundary, forkBoundaryAt } from '../../session/fork-boundary.js';
import { recordedHereFrom } from '../../store/session-provenance.js';
import { isCheckpointId } from '../../workspace/checkpoints.js';
import { threeWayApply } from '../../workspace/apply.js';
import { jsonLine } from '../json-output.js';
import { listenForStopSignals, SIGNAL_EXIT_CODES } from '../stop-signals.js';

/** What the commands need from cli.ts. */
export interface CommandContext {
  readonly runtime: Runtime;
  /** A full id from an id or unique prefix. */
  readonly resolveId: (idOrPrefix: string) => string;
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

/** Figures of one stored session for the ranked document. */
function reportOf(ctx: CommandContext, id: string, label?: string): Promise<BranchReport> {
  return storedBranchReport(ctx.runtime.repository, ctx.runtime.host.options.checkpoints, id, label);
}

/** Prints the ranked document as text (one block per branch). */
function printRanked(ctx: CommandContext, report: RankedReport): void {
  for (const b of report.branches) {
    const check = b.check ? `${b.check.timedOut ? 'timed out' : b.check.passed ? 'passed' : 'failed'}${b.check.counts ? ` (${b.check.counts.passed} passed, ${b.check.counts.failed} failed)` : ''}` : 'not run';
    ctx.out(`#${b.rank} ${b.session}  ${visibleInline(b.variant.label ?? `${b.variant.provider ?? '?'}/${b.variant.model ?? '?'}`)}\n   turn: ${b.turnEnd ?? '(none)'}${b.turnEndDetail ? ` — ${visibleInline(b.turnEndDetail)}` : ''}; check: ${check}; ${b.diffLines} changed lines; ${b.tokens} tokens; ${(b.durationMs / 1000).toFixed(1)} s\n`);
    for (const reason of b.reasons.slice(1)) ctx.out(`   ${visibleInline(reason)}\n`);
    if (b.cwd) ctx.out(`   folder: ${visibleInline(b.cwd)}\n`);
  }
}

export interface FanoutArgs {
  readonly id: string;
  readonly atSeq?: number;
  readonly prompt: string;
  readonly variants: readonly string[];
  readonly check?: string;
  readonly checkTimeoutMs?: number;
  readonly concurrency?: number;
  readonly json: boolean;
}

/**
 * `forkline fanout ID [--at SEQ] --variant … [--check CMD] [--json] "prompt"`. Everything is
 * checked first: variants (count, keys, provider, model the endpoint offers), the check command
 * (given, or proposed from the project), the fork point (a closed turn with a checkpoint).
 * @returns 0 when the best branch's check passed, 1 otherwise; 130/143/129 after a signal.
 */
export async function fanoutCommand(ctx: CommandContext, args: FanoutArgs): Promise<number> {
  const { runtime } = ctx;
  const sessionId = ctx.resolveId(args.id);
  const loaded = runtime.repository.load(sessionId);
  const folder = loaded.record.header.cwd;
  if (folder === undefined || !existsSync(folder)) throw new ForklineError('WORKSPACE_MISSING', `session ${sessionId} has no folder to fan out from${folder ? ` (${folder} no longer exists)` : ''}`);
  const variants = args.variants.map((v) => parseVariant(v, (file) => readFileSync(file, 'utf8')));
  const routes: ProviderChoice[] = variants.map((v) => variantRoute(runtime.settings.active, v));
  for (const [i, route] of routes.entries()) {
    const preset = (await import('../../llm/providers.js')).providerPreset(route.provider);
    if (preset.requiresApiKey && runtime.settings.apiKey(route.provider) === undefined) {
      throw new ForklineError('FANOUT_INVALID', `--variant ${variants[i]!.label}: no API key for ${preset.label}: set ${preset.apiKeyEnv ?? 'its API key'} in the environment`);
    }
  }
  await checkVariants(runtime, variants, routes);
  const check = args.check ?? proposeCheck(folder);
  if (check === undefined) throw new ForklineError('CHECK_NOT_FOUND', `no check command given and none found in ${folder} (no package.json test script, pytest, go.mod or Cargo.toml): pass --check "CMD"`);
  assertCheckRunnable(check, folder);
  // The fork point: a closed turn this installation checkpointed (each branch is restored to it).
  const boundary = forkBoundaryAt(loaded.events.length, (seq) => loaded.events[seq], args.atSeq);
  checkForkBoundary(loaded.events, boundary);
  if (!runtime.host.options.checkpoints) throw new ForklineError('FANOUT_INVALID', 'workspace checkpoints are off (FORKLINE_CHECKPOINTS=off), so branches cannot get their own folders: unset it');

  const fanout = new Fanout(runtime, {
    sessionId,
    ...(args.atSeq !== undefined ? { atSeq: args.atSeq } : {}),
    prompt: args.prompt,
    variants,
    routes,
    check,
    checkTimeoutMs: args.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS,
    ...(args.concurrency !== undefined ? { concurrency: args.concurrency } : {}),
    onLine: (line) => ctx.err(`${visibleInline(line)}\n`),
  });
  await fanout.prepare();
  ctx.err(`fan-out of ${sessionId.slice(0, 8)}: ${fanout.branches.length} branches, check: ${visibleInline(check)}\n`);
  const stops = listenForStopSignals({
    onStop: (signal) => {
      ctx.err(`! ${signal}: cancelling every branch\n`);
      fanout.cancel();
    },
  });
  try {
    await fanout.run();
  } finally {
    stops.dispose();
  }
  const reports = await Promise.all(fanout.branches.map((b) => reportOf(ctx, b.sessionId, b.variant.label)));
  const ranked = rankedReport(reports.map((r, i) => ({ ...r, ...(fanout.branches[i]!.error ? { turnEndDetail: fanout.branches[i]!.error } : {}) })));
  if (args.json) ctx.out(jsonLine({ parent: sessionId, check, branches: ranked.branches }));
  else {
    printRanked(ctx, ranked);
    const best = ranked.branches[0];
    if (best) ctx.out(`\napply the best: forkline apply ${best.session.slice(0, 8)}\n`);
  }
  if (stops.received !== undefined) return SIGNAL_EXIT_CODES[stops.received];
  return ranked.branches[0]?.check?.passed === true ? 0 : 1;
}

/**
 * `forkline fanout ID --cleanup`: removes the folders of ID's children that live in the data
 * folder's worktrees (never any other folder, so never the user's), after checkpointing each, so
 * their final files stay restorable (`forkline fork CHILD --worktree`).
 */
export async function cleanupCommand(ctx: CommandContext, id: string, keep: readonly string[] = []): Promise<number> {
  const { runtime } = ctx;
  const parent = ctx.resolveId(id);
  const { checkpoints, worktreesDir } = runtime.host.options;
  if (!worktreesDir || !checkpoints) throw new ForklineError('FANOUT_INVALID', 'workspace checkpoints are off, so there are no branch folders to clean up');
  const root = resolve(worktreesDir);
  const kept = new Set(keep.map((k) => ctx.resolveId(k)));
  let removed = 0;
  for (const row of runtime.repository.list()) {
    const h = row.header;
    if (h.parentSession !== parent || h.cwd === undefined || kept.has(h.id)) continue;
    const cwd = resolve(h.cwd);
    const inside = relative(root, cwd);
    if (inside === '' || inside.startsWith('..') || inside.includes(sep) || inside !== h.id) continue; // only <worktrees>/<child id>
    if (runtime.host.agentFor(h.id)?.status === 'running') continue;
    if (!existsSync(cwd)) continue;
    const commit = await checkpoints.snapshot(cwd, `refs/forkline/${h.id}`, 'before cleanup');
    rmSync(cwd, { recursive: true, force: true });
    removed++;
    ctx.out(`removed ${visibleInline(cwd)} (final files kept as checkpoint ${commit.slice(0, 10)})\n`);
  }
  if (removed === 0) ctx.out('no branch folders to remove\n');
  return 0;
}

/**
 * `forkline apply BRANCH [--json]`: the branch's changes since its fork point merged into its
 * parent's folder (three-way). The folder is checkpointed first; the apply is logged in the parent
 * (`workspace/apply`) and its model told which files changed (an injected message, logged when its
 * next request claims it). Conflicts: nothing is written, they are listed, exit 1.
 */
export async function applyCommand(ctx: CommandContext, branchArg: string, json: boolean): Promise<number> {
  const { runtime } = ctx;
  const branchId = ctx.resolveId(branchArg);
  const branch = runtime.repository.load(branchId);
  const parentId = branch.record.header.parentSession;
  if (parentId === undefined) throw new ForklineError('APPLY_UNAVAILABLE', `${branchId} is not a branch (it was not forked from a session): apply a fork, e.g. one that forkline fanout made`);
  const parent = runtime.repository.get(parentId);
  if (!parent) throw new ForklineError('APPLY_UNAVAILABLE', `the parent session ${parentId} of ${branchId} no longer exists`);
  const folder = parent.header.cwd;
  if (folder === undefined || !existsSync(folder)) {
    throw new ForklineError('APPLY_UNAVAILABLE', `the parent's folder ${folder ?? '(none)'} no longer exists: restore or recreate it first (the branch's files stay in its own folder: forkline fork ${branchId.slice(0, 8)} --worktree)`);
  }
  const { checkpoints } = runtime.host.options;
  if (!checkpoints) throw new ForklineError('APPLY_UNAVAILABLE', 'workspace checkpoints are off (FORKLINE_CHECKPOINTS=off): apply needs them');
  const report = await reportOf(ctx, branchId);
  if (!report.forkCheckpoint || !isCheckpointId(report.forkCheckpoint)) throw new ForklineError('APPLY_UNAVAILABLE', `${branchId} has no checkpoint of its fork point recorded here, so there is no merge base`);
  if (!report.lastCheckpoint || report.lastCheckpoint === report.forkCheckpoint) {
    ctx.out(json ? jsonLine({ branch: branchId, parent: parentId, applied: true, files: [], conflicts: [] }) : 'the branch changed no files since its fork point: nothing to apply\n');
    return 0;
  }
  const agent = runtime.host.ensureAgent(parentId);
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
  if (json) ctx.out(jsonLine({ branch: branchId, parent: parentId, folder, before, applied: outcome.applied, files: outcome.files, conflicts: outcome.conflicts }));
  else if (outcome.applied) {
    ctx.out(`applied ${written.length} file(s) from ${branchId.slice(0, 8)} into ${visibleInline(folder)}\n`);
    for (const f of outcome.files) ctx.out(`  ${f.status} ${visibleInline(f.path)}${f.how === 'merged' ? ' (merged with your changes)' : f.how === 'same' ? ' (already so)' : ''}\n`);
    ctx.out(`undo: the folder before the apply is checkpoint ${before}\n`);
  } else {
    ctx.out(`not applied: ${outcome.conflicts.length} file(s) changed on both sides in the same lines; nothing was written\n`);
    for (const c of outcome.conflicts) {
      ctx.out(`  ${visibleInline(c.path)}\n`);
      for (const hunk of c.hunks) ctx.out(visibleText(hunk.replace(/^/gm, '    ')));
    }
  }
  return outcome.applied ? 0 : 1;
}

/**
 * `forkline rewind ID --to SEQ`: the session's folder restored in place to the checkpoint of the
 * turn that ended at SEQ, after checkpointing it as it is (the abandoned line's final files, logged
 * in the old session); the conversation continues from SEQ in a new fork that works in the same
 * folder. Nothing is lost: the old session stays as a sibling branch.
 * @returns 0, printing the new session's id on stdout.
 */
export async function rewindCommand(ctx: CommandContext, id: string, toSeq: number): Promise<number> {
  const { runtime } = ctx;
  const sessionId = ctx.resolveId(id);
  const loaded = runtime.repository.load(sessionId);
  const folder = loaded.record.header.cwd;
  if (folder === undefined || !existsSync(folder)) throw new ForklineError('WORKSPACE_MISSING', `session ${sessionId}'s folder ${folder ?? '(none)'} no longer exists: nothing to rewind`);
  const { checkpoints } = runtime.host.options;
  if (!checkpoints) throw new ForklineError('WORKTREE_UNAVAILABLE', 'workspace checkpoints are off (FORKLINE_CHECKPOINTS=off): rewind needs them');
  const boundary = forkBoundaryAt(loaded.events.length, (seq) => loaded.events[seq], toSeq);
  checkForkBoundary(loaded.events, boundary);
  const recordedFrom = recordedHereFrom(runtime.repository, sessionId);
  const at = loaded.events[boundary];
  const turn = at?.type === 'turn/end' ? at.data.turn : 0;
  const restored = checkpointAt(loaded.events, boundary, turn, recordedFrom);
  if (restored === undefined) throw new ForklineError('WORKTREE_UNAVAILABLE', `there is no workspace checkpoint recorded here for the turn that ends at seq ${boundary}: rewind to a turn this installation checkpointed`);
  const agent = runtime.host.ensureAgent(sessionId);
  if (agent.status === 'running') throw new ForklineError('FANOUT_INVALID', `session ${sessionId} is running a turn: rewind when it is idle`);
  // 1. The abandoned line's final files, kept and logged in the old session.
  const abandoned = await checkpoints.snapshot(folder, `refs/forkline/${sessionId}`, `before rewind to seq ${boundary}`);
  const lastLogged = agent.session.events.findLast((e) => e.type === 'workspace/checkpoint');
  if (lastLogged?.type !== 'workspace/checkpoint' || lastLogged.data.commit !== abandoned) agent.session.append({ type: 'workspace/checkpoint', data: { turn: agent.session.lastTurn, commit: abandoned } });
  await runtime.host.stopAgent(sessionId);
  // 2. The continuation: a fork at the boundary that works in the same folder.
  const connection = runtime.host.connect(() => undefined);
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
  const childAgent = runtime.host.ensureAgent(childId);
  childAgent.session.append({ type: 'workspace/rewind', data: { from: sessionId, atSeq: boundary, restored: restored.commit, abandoned } });
  if (loaded.record.header.title !== undefined) runtime.repository.rename(childId, `${loaded.record.header.title} (rewound to turn ${turn})`);
  ctx.out(`${childId}\n`);
  ctx.err(`rewound ${visibleInline(folder)} to turn ${turn} (seq ${boundary}); continue: forkline resume ${childId.slice(0, 8)} "…"\nthe abandoned line stays as session ${sessionId.slice(0, 8)}; its final files are checkpoint ${abandoned} (forkline fork ${sessionId.slice(0, 8)} --worktree restores them)\n`);
  return 0;
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

/** `forkline compare A B C … --json` (or with more than two branches): the ranked figures of any branches. */
export async function compareRankedCommand(ctx: CommandContext, ids: readonly string[], json: boolean): Promise<number> {
  const reports = await Promise.all(ids.map((id) => reportOf(ctx, ctx.resolveId(id))));
  const ranked = rankedReport(reports);
  if (json) ctx.out(jsonLine({ branches: ranked.branches }));
  else printRanked(ctx, ranked);
  return 0;
}
