/**
 * `forkline fanout`, `forkline apply`, `forkline rewind` and `forkline compare A B C … --json`
 * (issue 21). cli.ts parses the options and opens the runtime; these functions do the rest and
 * return the exit code. Errors are ForklineErrors with codes the CLI maps to exit 2 (bad input,
 * refused before anything starts) or 1.
 */
import { readFileSync } from 'node:fs';
import { ForklineError } from '../../../shared/errors.js';
import { visibleInline, visibleText } from '../../../shared/visible-text.js';
import { rankedReport, storedBranchReport, type BranchReport, type RankedReport } from '../../fanout/branch-report.js';
import { parseVariant } from '../../host/services/fanout-run.js';
import { applyBranch, discardBranch, prepareFanout, rewindSession } from '../../host/services/branch-actions.js';
import type { Runtime } from '../../host/runtime.js';
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
  const sessionId = ctx.resolveId(args.id);
  const variants = args.variants.map((v) => parseVariant(v, (file) => readFileSync(file, 'utf8')));
  const { fanout, check } = await prepareFanout(ctx.runtime, {
    sessionId,
    ...(args.atSeq !== undefined ? { atSeq: args.atSeq } : {}),
    prompt: args.prompt,
    variants,
    ...(args.check !== undefined ? { check: args.check } : {}),
    ...(args.checkTimeoutMs !== undefined ? { checkTimeoutMs: args.checkTimeoutMs } : {}),
    ...(args.concurrency !== undefined ? { concurrency: args.concurrency } : {}),
    onLine: (line) => ctx.err(`${visibleInline(line)}\n`),
  });
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
  if (!runtime.host.options.worktreesDir || !runtime.host.options.checkpoints) throw new ForklineError('FANOUT_INVALID', 'workspace checkpoints are off, so there are no branch folders to clean up');
  const kept = new Set(keep.map((k) => ctx.resolveId(k)));
  let removed = 0;
  for (const row of runtime.repository.list()) {
    const h = row.header;
    if (h.parentSession !== parent || h.cwd === undefined || kept.has(h.id)) continue;
    const result = await discardBranch(runtime, h.id);
    if (!result.removed) continue;
    removed++;
    ctx.out(`removed ${visibleInline(result.folder)} (final files kept as checkpoint ${result.checkpoint!.slice(0, 10)})\n`);
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
  const branchId = ctx.resolveId(branchArg);
  const outcome = await applyBranch(ctx.runtime, branchId);
  const { parent: parentId, folder, before } = outcome;
  const written = outcome.files.filter((f) => f.how !== 'same');
  if (before === undefined) {
    ctx.out(json ? jsonLine({ branch: branchId, parent: parentId, applied: true, files: [], conflicts: [] }) : 'the branch changed no files since its fork point: nothing to apply\n');
    return 0;
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
  const sessionId = ctx.resolveId(id);
  const r = await rewindSession(ctx.runtime, sessionId, toSeq);
  ctx.out(`${r.sessionId}\n`);
  ctx.err(`rewound ${visibleInline(r.folder)} to turn ${r.turn} (seq ${r.atSeq}); continue: forkline resume ${r.sessionId.slice(0, 8)} "…"\nthe abandoned line stays as session ${sessionId.slice(0, 8)}; its final files are checkpoint ${r.abandoned} (forkline fork ${sessionId.slice(0, 8)} --worktree restores them)\n`);
  return 0;
}

/** `forkline compare A B C … --json` (or with more than two branches): the ranked figures of any branches. */
export async function compareRankedCommand(ctx: CommandContext, ids: readonly string[], json: boolean): Promise<number> {
  const reports = await Promise.all(ids.map((id) => reportOf(ctx, ctx.resolveId(id))));
  const ranked = rankedReport(reports);
  if (json) ctx.out(jsonLine({ branches: ranked.branches }));
  else printRanked(ctx, ranked);
  return 0;
}
