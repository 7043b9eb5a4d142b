/**
 * The figures by which fan-out branches are ranked and reported (README "Fan-out, apply, rewind"): what
 * `forkline fanout --json`, `forkline compare A B C … --json` and HostApi `rankBranches` return.
 */
import type { CheckResultData } from './events.js';

/** The figures a branch is ranked by. */
export interface RankFigures {
  readonly session: string;
  /** undefined = no check ran (ranks below a failed check). */
  readonly checkPassed: boolean | undefined;
  /** Failures the runner counted; a failed check without counts counts 1; no check: undefined. */
  readonly failures: number | undefined;
  /** Lines added + removed since the fork point. */
  readonly diffLines: number;
  readonly tokens: number;
  /** USD since the fork point at the prices logged with its requests; absent when a response had no known price. */
  readonly costUsd?: number;
  /** Responses billed since the fork point (0: no cost to show, shared/session-cost.ts branchCostLabel). */
  readonly billedResponses?: number;
  readonly durationMs: number;
}

/**
 * What a branch ran with, as its own log says (first request after the fork, first prompt). A part
 * with steps but no request header of its own (a root continued in the same process: a header is
 * logged only when it changes), and a root, take the route in force before it; a fork with no steps
 * has none.
 */
export interface BranchVariant {
  /** The `--variant` text given to fanout, when known. */
  readonly label?: string;
  readonly provider?: string;
  readonly model?: string;
  readonly reasoningEffort?: string;
  readonly prompt?: string;
}

export interface BranchReport extends RankFigures {
  readonly parent?: string;
  readonly cwd?: string;
  readonly variant: BranchVariant;
  /** How the branch's last turn ended (`completed`, `error`, `aborted`, …) and why, when not completed. */
  readonly turnEnd?: string;
  readonly turnEndDetail?: string;
  readonly check?: {
    readonly passed: boolean;
    readonly exitCode: number | null;
    readonly timedOut: boolean;
    readonly command: string;
    readonly durationMs: number;
    readonly counts?: CheckResultData['counts'];
  };
  /** Checkpoints: the fork point's (merge base) and the branch's last. */
  readonly forkCheckpoint?: string;
  readonly lastCheckpoint?: string;
  /** The branch's turn is still running: its figures are so far, its rank provisional (no check yet, no diff until its turn's checkpoint). */
  readonly provisional?: boolean;
}

/** A branch's files since its fork point (HostApi `branchDiff`): the unified diff between the fork point's checkpoint and its last one. */
export interface BranchDiff {
  readonly session: string;
  /** Unified `git diff` text, cut at ~1 MB (`note` says so); empty when nothing changed. */
  readonly diff: string;
  /** Why there is no diff (checkpoints off, no checkpoint yet) or that it was cut. */
  readonly note?: string;
  readonly forkCheckpoint?: string;
  readonly lastCheckpoint?: string;
}

/** The ranked document: `branches` in rank order, each with `rank` and `reasons`. */
export interface RankedReport {
  readonly branches: readonly (BranchReport & { readonly rank: number; readonly reasons: readonly string[] })[];
}
