/**
 * The timeline's row vocabulary: what the session timeline shows, one closed union discriminated
 * by `kind`. Rows are produced only by `shared/timeline.ts` from session events; they are
 * immutable values (a changed row is a new object with the same `key`).
 *
 * Pure types: no Node, no DOM.
 */
import type { LlmFailure, TokenUsage } from './chunks.js';
import type { TodoItem } from './events.js';
import type { TurnEndFacts } from './event-read.js';
import type { OverlapSlot } from './tool-overlap.js';
import type { PriceQuote } from './pricing.js';

export type TimelineRowKind =
  'turn' | 'turn-end' | 'step' | 'user' | 'text' | 'reasoning' | 'tool' | 'retry' | 'warning' | 'approval' | 'compaction' | 'end-seed' | 'elided' | 'instructions' | 'event';

interface RowBase<K extends TimelineRowKind> {
  readonly kind: K;
  /** Stable identity across updates (use as React key). */
  readonly key: string;
  /** Seq of the event that created the row. */
  readonly seq: number;
  /** Epoch ms of that event. */
  readonly time: number;
  /** The few events this row shows besides a chunk range (for the raw inspector), ascending. */
  readonly refSeqs: readonly number[];
  /** Seq of a surface replacement (compaction, pruning) that hid this row's event from the model. */
  readonly shadowedBy?: number;
}

/** A turn rule, opened by `turn/start`, completed when its `turn/end` arrives. */
export interface TurnRow extends RowBase<'turn'> {
  readonly turn: number;
  readonly steps: number;
  readonly ended: boolean;
  readonly end?: TurnEndFacts;
  readonly endLabel?: string;
  /** `turn/end.time − turn/start.time`. */
  readonly durationMs?: number;
}

export type CrashBadge = 'not-started' | 'outcome-unknown' | 'interrupted';

/** Where a turn ended and why. */
export interface TurnEndRow extends RowBase<'turn-end'> {
  readonly turn: number;
  readonly end: TurnEndFacts;
  readonly label: string;
  readonly durationMs?: number;
  /** Sum of the turn's step usages. */
  readonly usage?: TokenUsage;
  /**
   * What the turn's steps (and its compactions' summary requests) cost at the prices logged for
   * their requests: `usd` when every price is known, else `knownUsd` over those priced and how many
   * are not. Absent when nothing was billed.
   */
  readonly cost?: { readonly usd?: number; readonly knownUsd: number; readonly unknownCount: number };
  /** `interrupted` when crash recovery closed the turn. */
  readonly crash?: CrashBadge;
}

/** A step marker (one model request plus its tool calls). */
export interface StepRow extends RowBase<'step'> {
  readonly turn: number;
  readonly step: number;
  readonly open: boolean;
  /** The log has no `step/start` for this step; the marker sits at the first event naming it. */
  readonly implicit?: boolean;
  readonly endTime?: number;
  /** `step/end.time − step/start.time`. */
  readonly durationMs?: number;
  /** Time of the step's first chunk minus its start (time to first token). */
  readonly ttftMs?: number;
  /** From the step's `usage` chunk, then from its `assistant/message` usage. */
  readonly usage?: TokenUsage;
  /** Time the step's tool calls waited for approval decisions, included in `durationMs` (shown apart). */
  readonly approvalWaitMs?: number;
  /** The price logged for the step's request (`request/price`): cost = usage × this. */
  readonly price?: PriceQuote;
  /** The step's response came with no usage from the provider ("usage not reported"; counted at its worst case). */
  readonly usageUnreported?: true;
  /** Number of model attempts (1 + retries). */
  readonly attempts: number;
  /** Finish reason of the last attempt: `stop`, `tool-calls`, `max-tokens`, `error CODE`, … */
  readonly finish?: string;
  /** `provider/model` from the request header / message in effect. */
  readonly model?: string;
  /** Context window in tokens from the `request/context` in effect (for the context meter). */
  readonly contextWindow?: number;
  readonly chunkCount: number;
}

/** A user-role message: typed prompt, steering, injected context, plugin snapshot, replacement. */
export interface UserRow extends RowBase<'user'> {
  readonly messageId?: string;
  readonly text: string;
  /** `user`, `steer`, `inject`, `plugin`, `compaction`, … */
  readonly sourceKind: string;
  /** Extra label for machine-made messages (plugin name and form). */
  readonly sourceLabel?: string;
  readonly turn?: number;
  readonly step?: number;
  /** Set for a `surfaceOp: replace` message that is not part of a compaction row. */
  readonly replaces?: readonly number[];
}

/** Streaming/committed assistant text or reasoning of one block of one attempt. */
export interface BlockRowBase<K extends 'text' | 'reasoning'> extends RowBase<K> {
  readonly turn: number;
  readonly step: number;
  readonly attempt: number;
  readonly index: number;
  readonly text: string;
  /** The last characters of `text` (what a folded row shows while streaming). */
  readonly tail: string;
  /** Chunks still arriving for this block (no message yet). */
  readonly streaming: boolean;
  /**
   * A later block of the same attempt began (the answer or a tool call after the reasoning): no
   * more deltas come for this one, though its message is not committed yet. A reasoning row then
   * reads "Thought", not "Thinking…".
   */
  readonly superseded?: boolean;
  /** Seq of the `assistant/message` that committed this block. */
  readonly messageSeq?: number;
  /** The committed message was cut by a cancellation (`interrupted: true`). */
  readonly interrupted: boolean;
  /** The attempt failed (retry or error); the text never reached a message. */
  readonly failed?: LlmFailure;
  /** Chunks ended (step or turn closed) without a message: an interrupted partial. */
  readonly partial: boolean;
  readonly chunkCount: number;
  /** First and last seq of the chunks that built this block. */
  readonly chunkRange?: { readonly first: number; readonly last: number };
}
export type TextRow = BlockRowBase<'text'>;
export type ReasoningRow = BlockRowBase<'reasoning'>;

export type ToolState = 'streaming' | 'pending' | 'running' | 'done' | 'error' | 'dropped';

/** One tool call: its block, `tool/call` (start) and `tool/result` (end). */
export interface ToolRow extends RowBase<'tool'> {
  readonly turn: number;
  readonly step: number;
  readonly attempt: number;
  readonly index?: number;
  readonly callId: string;
  readonly name: string;
  /** Raw argument string as the model produced it. */
  readonly arguments: string;
  readonly state: ToolState;
  readonly messageSeq?: number;
  readonly callSeq?: number;
  readonly resultSeq?: number;
  readonly startTime?: number;
  readonly endTime?: number;
  readonly durationMs?: number;
  readonly isError: boolean;
  readonly errorCode?: string;
  readonly errorName?: string;
  readonly resultText?: string;
  readonly meta?: unknown;
  readonly crash?: CrashBadge;
  /** Set when this call overlapped other calls of its step. */
  readonly parallel?: OverlapSlot;
  readonly approval?: { readonly id: string; readonly outcome?: string };
  /**
   * The standing session rule (described, e.g. "bash commands starting with `ls`") that let this
   * call run without asking: set on a finished call that asked no one while a logged rule covers it.
   */
  readonly allowedByRule?: string;
  /** Time spent waiting for the person's approval decision, included in `durationMs` (shown apart). */
  readonly approvalWaitMs?: number;
  /** Seq of a pruning replacement of this call's result. */
  readonly prunedBy?: number;
  readonly chunkCount: number;
  readonly chunkRange?: { readonly first: number; readonly last: number };
}

/**
 * A failed model attempt that will be retried (`llm/retry`). Back-to-back retries of one step that
 * failed the same way (same failure code, nothing streamed between them) fold into one row:
 * `firstAttempt`..`attempt`, the newest failure and delay, every event in `refSeqs`.
 */
export interface RetryRow extends RowBase<'retry'> {
  readonly turn: number;
  readonly step: number;
  /** The newest retry this row stands for (1-based). */
  readonly attempt: number;
  /** The first retry this row stands for (equal to `attempt` for one retry). */
  readonly firstAttempt: number;
  readonly delayMs: number;
  readonly failure: LlmFailure;
}

/**
 * Something about a model request the person should know (`llm/warning`): the server truncated
 * the prompt silently, max output was lowered, an overflow was recovered by compacting.
 */
export interface WarningRow extends RowBase<'warning'> {
  readonly turn: number;
  readonly step: number;
  readonly code: string;
  readonly message: string;
  readonly hint?: string;
}

export interface ApprovalRow extends RowBase<'approval'> {
  readonly id: string;
  readonly callId?: string;
  readonly toolName: string;
  readonly reason?: string;
  /** What the person was shown, in one line (`$ command · in folder`, or `path +a −r`). */
  readonly shown?: string;
  readonly outcome?: string;
  /** How long the decision took (from the question to the decision). */
  readonly waitMs?: number;
}

/** A compaction transaction and its replacement message. */
export interface CompactionRow extends RowBase<'compaction'> {
  readonly compactionId: string;
  readonly turn: number | null;
  readonly state: 'running' | 'done' | 'failed' | 'stale';
  readonly summary?: string;
  readonly shadowedSeqs: readonly number[];
  readonly shadowedRange?: { readonly start: number; readonly end: number };
  readonly shadowedTokenCount?: number;
  readonly model?: string;
  /** Estimated request size (tokens) when the compaction started. */
  readonly tokensBefore?: number;
  /** Estimated request size (tokens) with the summary in place of the shadowed range. */
  readonly tokensAfter?: number;
  /** Context window (tokens) in effect when the compaction started. */
  readonly contextWindow?: number;
  /** Output cap of the summary request, tokens. */
  readonly maxTokens?: number;
  /** Usage of the summary request, when the provider reported it (also for a summary that was not used). */
  readonly usage?: TokenUsage;
  /** The price logged for the summary request (`request/price` naming this compaction): cost = usage × this. */
  readonly price?: PriceQuote;
  readonly replacementSeq?: number;
  /** Text of the replacement message (what the model sees instead). */
  readonly replacementText?: string;
  /** Why the compaction failed (`compaction/end.error`). */
  readonly error?: string;
  /** The structured failure of the summary request, when that is what failed. */
  readonly failure?: LlmFailure;
  /** A summary that was produced but not used (e.g. not smaller than what it would replace). */
  readonly rejectedSummary?: string;
  /** Time of `compaction/end`. */
  readonly endTime?: number;
}

/** `session/end-seed`: inherited or resumed history ends here. */
export type EndSeedRow = RowBase<'end-seed'>;

/** A run of `import/elided` placeholders (seqs the imported file did not contain). */
export interface ElidedRow extends RowBase<'elided'> {
  readonly fromSeq: number;
  readonly toSeq: number;
}

/** One project-instruction file named by an `instructions/loaded` event. */
export interface InstructionFileFacts {
  readonly path: string;
  /** Workspace-relative (or absolute for the user file), as the model saw it. */
  readonly shownPath: string;
  /** `user`, `project`, `nested`, or what an unknown log says. */
  readonly scope: string;
  readonly sha256: string;
  readonly bytes?: number;
  readonly truncated?: boolean;
}

/** Project instructions in force from here on (`instructions/loaded`). */
export interface InstructionsRow extends RowBase<'instructions'> {
  /** `system`: in the system prompt of the following requests; `tool-result`: appended to call `callId`'s result. */
  readonly placement: string;
  readonly files: readonly InstructionFileFacts[];
  readonly callId?: string;
  readonly turn?: number;
  readonly step?: number;
}

/** Any other log-only event, shown as one muted line. */
export interface EventRow extends RowBase<'event'> {
  readonly type: string;
  readonly label: string;
  readonly turn?: number;
  readonly step?: number;
  /** `todo/write`: the list as written. */
  readonly todos?: readonly TodoItem[];
  /** Event types this build does not know: compact JSON of the payload (cut, never mid code point). */
  readonly preview?: string;
}

export type TimelineRow =
  TurnRow | TurnEndRow | StepRow | UserRow | TextRow | ReasoningRow | ToolRow | RetryRow | WarningRow | ApprovalRow | CompactionRow | EndSeedRow | ElidedRow | InstructionsRow | EventRow;
