/**
 * `forkline fanout` (N branches from a turn end, run at once and ranked by a check; `--cleanup`
 * removes their folders) and the ranked `forkline compare A B C … --json` it shares its printing
 * with (docs/architecture.md, fan-out). `command` reads the options and opens the runtime; the
 * functions below do the rest and return the exit code; the work itself is in
 * host/services/branch-actions.ts and fanout-run.ts. Errors are ForklineErrors with codes the CLI
 * maps to exit 2 (bad input, refused before anything starts) or 1.
 */
import { readFileSync } from 'node:fs';
import { ForklineError } from '../../../shared/errors.js';
import { durationFigure, tokensFigure } from '../../../shared/figure-text.js';
import { visibleInline } from '../../../shared/visible-text.js';
import { comparedForkPoints, rankedReport, storedBranchReport, type BranchReport, type RankedReport } from '../../fanout/branch-report.js';
import { parseVariant } from '../../host/services/fanout-run.js';
import { discardBranch, prepareFanout } from '../../host/services/branch-actions.js';
import { defineCommand } from '../command.js';
import { checkModelReady, ENGINE_OPTIONS, commandContext, intFlag, openRuntime, type CommandContext } from '../engine-options.js';
import { UsageError } from '../error-line.js';
import { jsonLine } from '../json-output.js';
import { terminalAnswerer } from '../terminal-answerer.js';
import { TimelineText } from '../timeline-text.js';
import { listenForStopSignals, SIGNAL_EXIT_CODES } from '../stop-signals.js';

export type { CommandContext };

/** Figures of one stored session for the ranked document. */
function reportOf(ctx: CommandContext, id: string, label?: string, from?: number): Promise<BranchReport> {
  return storedBranchReport(ctx.runtime.repository, ctx.runtime.host.options.checkpoints, id, label, from);
}

/**
 * A branch's name in the ranked text: its fan-out variant, else the route its own part ran on
 * (provider/model, branch-report.ts), else what it is — the root, or a fork with no request of its
 * own. Never `?/?`.
 */
export function branchLabel(b: Pick<BranchReport, 'variant' | 'parent'>): string {
  if (b.variant.label !== undefined) return b.variant.label;
  if (b.variant.model !== undefined) return b.variant.provider !== undefined ? `${b.variant.provider}/${b.variant.model}` : b.variant.model;
  return b.parent === undefined ? '(the session forked from)' : '(no request since its fork point)';
}

/** Prints the ranked document as text (one block per branch). */
function printRanked(ctx: CommandContext, report: RankedReport): void {
  for (const b of report.branches) {
    const check = b.check
      ? `${b.check.timedOut ? 'timed out' : b.check.passed ? 'passed' : 'failed'}${b.check.counts ? ` (${b.check.counts.passed} passed, ${b.check.counts.failed} failed)` : ''}`
      : 'not run';
    ctx.out(
      `#${b.rank} ${b.session}  ${visibleInline(branchLabel(b))}\n   turn: ${b.turnEnd ?? '(none)'}${b.turnEndDetail ? ` — ${visibleInline(b.turnEndDetail)}` : ''}; check: ${check}; ${b.diffLines} changed lines; ${tokensFigure(b.tokens)} tokens; ${durationFigure(b.durationMs)}\n`,
    );
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

/** `forkline compare A B C … --json` (or with more than two branches): the ranked figures of any branches. */
export async function compareRankedCommand(ctx: CommandContext, ids: readonly string[], json: boolean): Promise<number> {
  const resolved = ids.map((id) => ctx.resolveId(id));
  // Each counted from the history the branches share (a parent compared with its fork: from the fork's seed).
  const from = comparedForkPoints(ctx.runtime.repository, resolved);
  const reports = await Promise.all(resolved.map((id) => reportOf(ctx, id, undefined, from.get(id))));
  const ranked = rankedReport(reports);
  if (json) ctx.out(jsonLine({ branches: ranked.branches }));
  else printRanked(ctx, ranked);
  return 0;
}

/**
 * `forkline fanout ID [--at SEQ] --variant K=V[,K=V…] … [--check CMD] [--json] "prompt"`, or
 * `forkline fanout ID --cleanup [--keep BRANCH…]`.
 */
export const command = defineCommand({
  options: {
    ...ENGINE_OPTIONS,
    at: { type: 'string' },
    variant: { type: 'string', multiple: true },
    check: { type: 'string' },
    'check-timeout': { type: 'string' },
    concurrency: { type: 'string' },
    cleanup: { type: 'boolean' },
    keep: { type: 'string', multiple: true },
    json: { type: 'boolean' },
  },
  async run(cli, { positionals, options }) {
    const [id, ...rest] = positionals;
    if (!id) throw new UsageError('fanout needs a session id');
    if (options.cleanup) {
      const runtime = await openRuntime(options);
      try {
        return await cleanupCommand(commandContext(runtime), id, options.keep ?? []);
      } finally {
        await runtime.close();
      }
    }
    const prompt = rest.join(' ').trim();
    const variants = options.variant ?? [];
    if (!prompt && variants.some((v) => !/(^|,)prompt=/.test(v)))
      throw new UsageError('fanout needs a prompt (or prompt=… in every --variant), e.g. forkline fanout ID --variant model=A --variant model=B "fix the failing test"');
    const at = intFlag('at', options.at, 0);
    const timeout = intFlag('check-timeout', options['check-timeout'], 1);
    const concurrency = intFlag('concurrency', options.concurrency, 1);
    const printer = new TimelineText({ live: false, color: cli.color });
    // A terminal that hangs up during an approval is a SIGHUP for every branch (fanoutCommand listens for it).
    const onHangup = (): void => void process.emit('SIGHUP', 'SIGHUP');
    const runtime = await openRuntime(options, { approvalAnswerer: terminalAnswerer({ printer, color: cli.color, stdout: cli.stdout, onHangup }) });
    try {
      checkModelReady(runtime);
      return await fanoutCommand(commandContext(runtime), {
        id,
        prompt,
        variants: [...variants],
        json: options.json === true,
        ...(at !== undefined ? { atSeq: at } : {}),
        ...(options.check !== undefined ? { check: options.check } : {}),
        ...(timeout !== undefined ? { checkTimeoutMs: timeout * 1000 } : {}),
        ...(concurrency !== undefined ? { concurrency } : {}),
      });
    } finally {
      await runtime.close();
    }
  },
});
