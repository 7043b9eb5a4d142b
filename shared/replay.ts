/**
 * What `forkline replay` reports (issue 23): a session's logged model outputs fed to the current
 * build, and the first point where the build acts differently, at each level separately — the
 * request bytes, the tool calls, and (with live tools) the files. The model's prose never counts.
 *
 * Pure types: no Node, no DOM.
 */

/** The replay's overall answer; the CLI exits 0 / 1 / 2 for them. */
export type ReplayOutcome = 'identical' | 'diverged' | 'cannot-replay';

/**
 * Why a request differs, in words a person can act on, e.g. `project instructions changed:
 * AGENTS.md (sha256 1a2b… → 3c4d…)`, `the system prompt changed (the build renders it
 * differently; its instructions are unchanged)`, `the tool list changed: + grep2`.
 */
export type DivergenceCause = string;

/** The first request whose bytes differ from the logged one. */
export interface RequestDivergence {
  /** 0-based position among the session's logged requests. */
  readonly index: number;
  /** `step 1.1`, `compaction summary (turn 2)`, as the request inspector labels it. */
  readonly label: string;
  readonly turn: number;
  readonly step: number;
  /**
   * `body`: both sent, bytes differ; `extra-request`: the build sends a request the log does not
   * have (the log cannot answer it: the replay ends there); `missing-request`: the log has requests
   * the build no longer sends; `kind`: a step request where the log has a compaction request, or the reverse.
   */
  readonly kind: 'body' | 'extra-request' | 'missing-request' | 'kind';
  /** JSON path of the first differing field of the body, e.g. `messages[0].content`, `tools[2].function.description`. */
  readonly path?: string;
  /** The logged value at `path` (JSON text; absent when the field is new). */
  readonly before?: string;
  /** The replayed value at `path` (JSON text; absent when the field is gone). */
  readonly after?: string;
  /** A unified diff of the two values (pretty JSON; strings as their text). */
  readonly diff?: string;
  /** What changed to cause it (build, configuration, project instructions, tool results, …). */
  readonly causes: readonly DivergenceCause[];
  /** The two whole bodies (UTF-8 JSON text) for a side-by-side view. */
  readonly loggedBody?: string;
  readonly replayedBody?: string;
}

/** One tool call as compared: its name and arguments as the harness parsed them. */
export interface ComparedToolCall {
  readonly turn: number;
  readonly step: number;
  readonly callId: string;
  readonly name: string;
  /** Canonical JSON of the parsed arguments (keys sorted), or `invalid JSON: …` when they do not parse. */
  readonly args: string;
  /** `ran`, or `refused:CODE` when the pipeline refused it before running (INVALID_ARGS, UNKNOWN_TOOL, DENIED). */
  readonly outcome: string;
}

/** The first tool call that differs. */
export interface ToolDivergence {
  /** 0-based position among the session's tool calls (model order). */
  readonly index: number;
  readonly logged?: ComparedToolCall;
  readonly replayed?: ComparedToolCall;
  /** `name`, `args`, `outcome`, `missing` (the build makes fewer calls), `extra` (more). */
  readonly field: 'name' | 'args' | 'outcome' | 'missing' | 'extra';
}

/** The workspace tree (git tree hash) the replay left after a step, with live tools. */
export interface StepTree {
  readonly turn: number;
  readonly step: number;
  readonly tree: string;
}

/** The first turn whose files differ from the logged checkpoint, with live tools. */
export interface FileDivergence {
  readonly turn: number;
  /** Tree hash of the logged `workspace/checkpoint` after that turn. */
  readonly loggedTree: string;
  readonly replayedTree: string;
  /** Paths that differ (at most 50). */
  readonly paths: readonly string[];
}

export interface ReplayReport {
  readonly sessionId: string;
  readonly outcome: ReplayOutcome;
  readonly imported: boolean;
  readonly liveTools: boolean;
  readonly requests: {
    /** `not-comparable` for an imported foreign log (it has no wire bodies). */
    readonly level: 'compared' | 'not-comparable';
    readonly logged: number;
    readonly replayed: number;
    /** Requests whose bytes were compared and equal. */
    readonly identical: number;
    readonly divergence?: RequestDivergence;
  };
  readonly tools: {
    readonly logged: number;
    readonly replayed: number;
    readonly divergence?: ToolDivergence;
  };
  /** Present with live tools only. */
  readonly files?: {
    readonly comparedTurns: number;
    readonly steps: readonly StepTree[];
    readonly divergence?: FileDivergence;
  };
  /** Why the replay stopped before the end of the log (it then compared what it had). */
  readonly stopped?: { readonly code: string; readonly reason: string };
  /** Why the session could not be replayed at all (outcome `cannot-replay`). */
  readonly error?: { readonly code: string; readonly message: string };
  readonly notes: readonly string[];
  /** Wall time of the replay, ms. */
  readonly durationMs: number;
}
