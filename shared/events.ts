/**
 * The session event vocabulary: one map from event type to payload, the envelope, the session
 * header, turn-end reasons, cancel causes and tool error codes (docs/architecture.md §3, §4, §6, §8).
 *
 * Names and payloads follow the reference runtime (DeepSeek Harness `packages/core/session/src/types.ts`)
 * so its uncompressed session files import; where docs/architecture.md differs (turn-end payload field names)
 * docs/architecture.md wins and the importer converts.
 *
 * Pure types plus a few constant tables; no Node, no DOM.
 *
 * Size: over 500 lines because the event map is the one source of truth for every payload; each
 * table keyed by the type union (EVENT_TYPES here, the zod shapes, the timeline reducers) points
 * back at it, so splitting it would split what a new event type must touch.
 */
import type { ApprovalPreview } from './approval.js';
import type { LlmFailure, StreamChunk, TokenUsage } from './chunks.js';
import type { JsonValue } from './json.js';
import type { PriceQuote } from './pricing.js';
import type { AssistantMessage, CallId, MessageId, SessionId, TextBlock, ToolResultMessage, ToolSchema, UserMessage } from './messages.js';

/** The on-disk log format version. Bump only when an old reader would misread a new log. */
export const SESSION_FORMAT_VERSION = 0;

/** Why a cancellation happened; the first cause wins for a turn. */
export type CancelCause =
  | { readonly kind: 'user' }
  | { readonly kind: 'hook'; readonly reason: string }
  | { readonly kind: 'disposed' }
  /** The process was asked to stop by a signal (a closed terminal, a logout, `kill`): docs/architecture.md §8, docs/reliability.md. */
  | { readonly kind: 'signal'; readonly signal: 'SIGTERM' | 'SIGHUP' | 'SIGINT' }
  | { readonly kind: 'legacy' };

/**
 * How a turn ended. `interrupted` is written only by crash recovery, never by the loop.
 * `source-ended` is written only by an import: the other agent's log simply ends inside the turn
 * (it was still running when the file was copied, or the file stops there) — no crash of ours.
 */
export type TurnEndReason =
  | { readonly kind: 'completed' }
  | { readonly kind: 'max-tokens' }
  | { readonly kind: 'blocked' }
  | { readonly kind: 'aborted'; readonly cause: CancelCause }
  | { readonly kind: 'error'; readonly failure: LlmFailure }
  | { readonly kind: 'interrupted' }
  | { readonly kind: 'source-ended' }
  /** The next request could have crossed a budget, so it was not sent (docs/providers.md "Prices, overrides and budgets"); resumable with a higher one. */
  | ({ readonly kind: 'budget' } & BudgetStopFacts);

/**
 * Why a request was not sent: which limit (`usd` or `tokens`, per `session` or `turn`), the limit,
 * what was spent in that scope before it, and the request's worst case (its estimated input plus
 * its output cap; USD at the price in force, or tokens). `message` says it in words.
 */
export interface BudgetStopFacts {
  readonly limit: 'usd' | 'tokens';
  readonly scope: 'session' | 'turn';
  readonly budget: number;
  readonly spent: number;
  /** Absent when it cannot be bounded (no output cap, or no price for a USD limit). */
  readonly worstCase?: number;
  readonly message: string;
}

/** Codes written into `tool/result.error.code` (docs/architecture.md §6, §8). */
export type ToolErrorCode =
  | 'UNKNOWN_TOOL'
  | 'INVALID_ARGS'
  | 'TOOL_ERROR'
  | 'TOOL_TIMEOUT'
  | 'ABORTED'
  | 'ABORTED_BEFORE_DISPATCH'
  | 'DENIED'
  | 'PATH_OUTSIDE_WORKSPACE'
  | 'FILE_NOT_READ'
  | 'FILE_CHANGED'
  | 'NOT_FOUND'
  | 'TOOL_NOT_STARTED'
  | 'TOOL_OUTCOME_UNKNOWN'
  /** A FIFO, socket or device where a file tool needs a regular file (refused before any open). */
  | 'NOT_REGULAR_FILE'
  /** An edit that cannot keep the file's bytes (undecodable bytes in the way), naming their offset. */
  | 'UNDECODABLE_BYTES'
  /** A command blocked reading its (never written) standard input, so it was stopped. */
  | 'TOOL_WAITING_FOR_INPUT';

/** Call configuration sent to a provider; part of the logged request header. */
export interface LlmCallConfig {
  /** Provider route id, e.g. `deepseek`, `openai`, `openrouter`, `ollama`, `custom`. */
  readonly provider: string;
  readonly model: string;
  /** DeepSeek thinking effort (`low|high|max`) or `off` to disable thinking explicitly. */
  readonly reasoningEffort?: string;
  readonly temperature?: number;
  /** Max output tokens per response. */
  readonly maxTokens?: number;
}

/**
 * Where the context window in force came from, in order of precedence: `setting` (the person's
 * `--context-window` or Settings field), `learned` (a limit stated by an overflow error or a
 * silently truncated prompt, remembered per endpoint + model; it only ever lowers the window),
 * `published` (the endpoint's model list / model info), `preset` (our built-in table).
 */
export type ContextWindowSource = 'setting' | 'learned' | 'published' | 'preset';

/** Codes of `llm/warning`. */
export type LlmWarningCode = 'PROMPT_TRUNCATED' | 'MAX_OUTPUT_LOWERED' | 'CONTEXT_OVERFLOW_COMPACTED' | 'HISTORY_CORRECTED' | (string & { readonly __warningCode?: never });

/**
 * What the endpoint of a request is known to want back in the history (docs/architecture.md §5 "the wire teaches
 * the dialect"), derived from the log by `electron/session/wire-hints.ts` and logged in the
 * `request/header` it applies to, so the request can be rebuilt from the log:
 * - `reasoningContent: 'tool-calls'` — every assistant message with tool calls carries
 *   `reasoning_content` (`""` when none is known), as DeepSeek's thinking mode requires; taught by a
 *   streamed `reasoning_content` field (even an empty one) or by the endpoint's own 400
 *   ("Missing `reasoning_content` field …", an `llm/warning{HISTORY_CORRECTED}`).
 *   It is also the default for a non-strict endpoint the log knows nothing about (custom and local
 *   servers, `assumeReasoningContent` in providers.ts), so a thinking endpoint accepts the first
 *   request of a continued import.
 * - `reasoningContent: 'omit'` — `reasoning_content` is never sent: the endpoint refused it as an
 *   unknown field (Cerebras, Mistral and other strict schemas; an `llm/warning{HISTORY_CORRECTED}`).
 * - `reasoningField` — the field this endpoint streams reasoning in; reasoning of unknown origin
 *   (imported logs) goes back in it.
 * Never applied under a strict dialect (OpenAI refuses unknown fields).
 */
export interface WireHints {
  readonly reasoningContent?: 'tool-calls' | 'omit';
  readonly reasoningField?: 'reasoning_content' | 'reasoning';
}

/** The request envelope (everything but the messages), logged as `request/header`. */
export interface RequestHeader {
  readonly config: LlmCallConfig;
  readonly system?: string;
  readonly tools?: readonly ToolSchema[];
  /** What the endpoint wants back in the history, as far as the log knows (absent: nothing known). */
  readonly dialect?: WireHints;
}

export type InboxTarget = 'next-turn' | 'next-step';

/**
 * How an approval ended. `allowed-session` also granted a standing rule, logged next as
 * `approval/rule`.
 */
export type ApprovalOutcome = 'allowed-once' | 'allowed-session' | 'rejected' | 'cancelled' | 'unavailable';

/**
 * One project-instruction file the agent loaded (AGENTS.md, CLAUDE.md where a folder has none, or
 * the user-level file in the data folder). `sha256` is the hex digest of the file's bytes as read.
 */
export interface InstructionFileRef {
  /** Absolute path of the file. */
  readonly path: string;
  /** The path as shown to the model: relative to the workspace (`AGENTS.md`, `../AGENTS.md`, `pkg/AGENTS.md`), or absolute for the user file. */
  readonly shownPath: string;
  /** `user`: the data folder's file; `project`: a folder from the project root down to the workspace; `nested`: a folder below the workspace, loaded when a tool touched a path there. */
  readonly scope: 'user' | 'project' | 'nested';
  readonly sha256: string;
  /** Size of the file in bytes. */
  readonly bytes: number;
  /** The file was longer than the limit; only its head reached the model. */
  readonly truncated?: true;
}

export interface TodoItem {
  readonly content: string;
  readonly status: 'pending' | 'in_progress' | 'completed';
}

/**
 * Facts an importer kept from a foreign source record that have no field of their own (docs/importing.md):
 * `format` names the source format (`claude-code`, `codex`, `openhands`, …), the other keys are the
 * source's own fields, unchanged. Never model-visible; shown by the raw event inspector.
 */
export type ForeignFacts = { readonly format: string; readonly [key: string]: JsonValue };

/** Every durable event type and its payload. */
export interface SessionEventMap {
  'turn/start': { readonly turn: number; readonly trigger?: JsonValue; readonly foreign?: ForeignFacts };
  'turn/end': { readonly turn: number; readonly reason: TurnEndReason; readonly foreign?: ForeignFacts };
  'step/start': { readonly turn: number; readonly step: number; readonly foreign?: ForeignFacts };
  'step/end': { readonly turn: number; readonly step: number; readonly foreign?: ForeignFacts };
  'user/message': UserMessage;
  'assistant/chunk': { readonly turn: number; readonly step: number; readonly chunk: StreamChunk };
  'assistant/message': {
    readonly turn: number;
    readonly step: number;
    readonly message: AssistantMessage;
    readonly usage?: TokenUsage;
    readonly interrupted?: true;
    readonly foreign?: ForeignFacts;
  };
  'tool/call': {
    readonly turn: number;
    readonly step: number;
    readonly callId: CallId;
    readonly name: string;
    /** The raw argument string exactly as the model produced it. */
    readonly arguments: string;
    readonly foreign?: ForeignFacts;
  };
  'tool/result': {
    readonly turn: number;
    readonly step: number;
    readonly message: ToolResultMessage;
    readonly error?: { readonly name: string; readonly code: string };
    /** Presentation facts for the UI (exit code, duration, diff, truncation). Not model-visible. */
    readonly meta?: JsonValue;
    readonly foreign?: ForeignFacts;
  };
  /**
   * A process a running tool started (bash's shell, an MCP stdio server): logged when it spawns, so
   * crash recovery can report, and end when provably the same process (pid + start identity), anything a
   * crash left behind. Log-only.
   */
  'tool/process': {
    readonly turn: number;
    readonly step: number;
    readonly callId: CallId;
    readonly pid: number;
    /** Process group the tool runs in (bash: its own group, = pid). */
    readonly pgid?: number;
    /** Start identity of the process (electron/platform/process-identity.ts), when the platform tells. */
    readonly start?: string;
  };
  'request/header': { readonly reason: 'initial' | 'resume' | 'change'; readonly header: RequestHeader };
  /**
   * The route and limits of the following requests (not model-visible); `baseUrl` lets a resume
   * reach the same endpoint. `contextWindow` (tokens) is the window in force — compaction, resume
   * and the UI all read this one number — and `contextSource` says where it came from;
   * `maxOutputTokens` is the output cap known for the model (what is actually requested per call
   * is `request/header.config.maxTokens`).
   */
  'request/context': {
    readonly provider: string;
    readonly model: string;
    readonly contextWindow?: number;
    readonly baseUrl?: string;
    readonly contextSource?: ContextWindowSource;
    readonly maxOutputTokens?: number;
  };
  /**
   * Something about a model request the person should know, shown on its step (not
   * model-visible): e.g. `PROMPT_TRUNCATED` (the server counted far fewer prompt tokens than were
   * sent: it cut the prompt silently), `MAX_OUTPUT_LOWERED`, `CONTEXT_OVERFLOW_COMPACTED`,
   * `HISTORY_CORRECTED` (the endpoint rejected the history's shape and the request is sent once
   * more in the shape it asked for).
   */
  'llm/warning': {
    readonly turn: number;
    readonly step: number;
    readonly code: LlmWarningCode;
    readonly message: string;
    /** What to do about it, when there is something to do. */
    readonly hint?: string;
    /** Our estimate of the prompt sent, tokens. */
    readonly estimatedPromptTokens?: number;
    /** The prompt size the provider reported, tokens. */
    readonly reportedPromptTokens?: number;
    /** The context window in force after this warning, tokens. */
    readonly contextWindow?: number;
    /** The max output requested after this warning, tokens. */
    readonly maxOutputTokens?: number;
    /**
     * `HISTORY_CORRECTED`: what the endpoint's rejection taught about the history it wants (merged
     * into the `request/header.dialect` of the next requests on the same route).
     */
    readonly dialect?: WireHints;
    /** `HISTORY_CORRECTED`: the rejection that was corrected. */
    readonly failure?: LlmFailure;
  };
  /**
   * The price in force for the request about to be sent (docs/providers.md "Prices, overrides and budgets"), logged before every request:
   * the price list snapshot and the rates (or why none is known), and the request's worst case —
   * its estimated input (the context estimator's count) plus its output cap, and that at the
   * price. A step's cost is its `assistant/message` usage at this price; a step whose provider
   * reported no usage counts at this worst case. Not model-visible.
   *
   * A compaction's summary request names its `compactionId`; one between turns (a manual
   * compaction) is logged inside its `compaction/start … compaction/end` bracket with turn and step 0.
   */
  'request/price': {
    readonly turn: number;
    readonly step: number;
    /** Set for a compaction's summary request: the compaction it belongs to. */
    readonly compactionId?: string;
    readonly provider: string;
    readonly model: string;
    readonly baseUrl?: string;
    readonly quote: PriceQuote;
    readonly estimatedInputTokens: number;
    /** Output cap of the request (max tokens requested, else the model's known cap), when one is known. */
    readonly outputCap?: number;
    readonly worstCaseUsd?: number;
  };
  'llm/retry': {
    readonly turn: number;
    readonly step: number;
    /** 1-based number of the retry about to happen. */
    readonly attempt: number;
    readonly delayMs: number;
    readonly failure: LlmFailure;
  };
  'approval/asked': {
    readonly id: string;
    readonly callId: CallId;
    readonly toolName: string;
    readonly reason?: string;
    /** The change the person was shown (a diff, or the command and its folder). */
    readonly preview?: ApprovalPreview;
  };
  'approval/decided': { readonly id: string; readonly outcome: ApprovalOutcome };
  /**
   * "Allow for this session": from here on, calls of `toolName` (for bash: simple commands starting
   * with `commandPrefix`) run without asking. Read back on resume; a fork whose history holds it
   * keeps it (shared/approval.ts).
   */
  'approval/rule': {
    readonly toolName: string;
    readonly commandPrefix?: string;
    /** The approval whose answer granted it. */
    readonly approvalId?: string;
  };
  'approval/policy': { readonly policy: ApprovalPolicyName };
  'agent/inbox/spliced': {
    readonly target: InboxTarget;
    readonly start: number;
    readonly removedCount?: number;
    readonly inserted: readonly UserMessage[];
    readonly outcome?: 'canceled';
  };
  'compaction/start': {
    readonly compactionId: string;
    readonly turn: number | null;
    /**
     * The planned replacement, logged before the summary request so the request can be rebuilt
     * from the log even when the compaction fails (older logs lack these fields).
     */
    readonly shadowedRange?: { readonly start: number; readonly end: number };
    readonly shadowedSeqs?: readonly number[];
    readonly shadowedTokenCount?: number;
    /** Estimated size of the next request before compacting, tokens. */
    readonly tokensBefore?: number;
    /** Output cap of the summary request, tokens. */
    readonly maxTokens?: number;
    /** The instruction sent after the shadowed messages (the summary request's last user message). */
    readonly instruction?: string;
    /**
     * Input budget of the summary request (tokens, estimated): when the shadowed messages are
     * larger, they were sent as one transcript cut to fit (electron/agent/compaction.ts).
     */
    readonly maxInputTokens?: number;
  };
  'compaction/summary': {
    readonly compactionId: string;
    readonly summary: readonly TextBlock[];
    readonly shadowedRange: { readonly start: number; readonly end: number };
    readonly shadowedSeqs: readonly number[];
    readonly shadowedTokenCount: number;
    readonly provider: string;
    readonly model: string;
    readonly usage?: TokenUsage;
    readonly maxTokens?: number;
    /** The summariser's full output (text blocks only), kept for the debugger. */
    readonly rawOutput?: JsonValue;
    readonly llmStreamCall?: boolean;
    readonly sourceCommandId?: string;
    /** Estimated size of the next request with the summary in place, tokens. */
    readonly tokensAfter?: number;
  };
  'compaction/end': {
    readonly compactionId: string;
    readonly turn: number | null;
    readonly error?: string;
    /** The summary request's failure, when that is what failed. */
    readonly failure?: LlmFailure;
    /** A summary the model produced that was not used (e.g. not smaller than what it would replace). */
    readonly rejectedSummary?: readonly TextBlock[];
    /** What the provider billed for a summary that was not used (a failed compaction after a response). */
    readonly usage?: TokenUsage;
    /** The summary request was not sent: it could have crossed this budget (docs/providers.md "Prices, overrides and budgets"). */
    readonly budget?: BudgetStopFacts;
  };
  'compaction/prune': {
    readonly shadowedRange: { readonly start: number; readonly end: number };
    readonly shadowedSeqs: readonly number[];
    readonly shadowedTokenCount: number;
  };
  'workspace/checkpoint': { readonly turn: number; readonly commit: string };
  /**
   * A command run in the session's folder after a turn (a fan-out check, not model-visible): a fan-out's
   * check (`purpose: 'check'`, what ranks the branches) or the folder's `.forkline/setup` script.
   * `counts` are what the test runner printed, when it prints them.
   */
  'check/result': CheckResultData;
  /**
   * Another branch's file changes brought into this session's folder (`forkline apply`) as a
   * three-way merge against the fork point. `before` is the folder's checkpoint taken first (undo).
   * With `conflicts`, nothing was written. Not model-visible; the model is told by an injected message.
   */
  'workspace/apply': WorkspaceApplyData;
  /**
   * This session's folder was restored to `restored` (the checkpoint of the turn it was forked at)
   * by `forkline rewind`; the abandoned line `from` keeps its final files as checkpoint `abandoned`.
   */
  'workspace/rewind': { readonly from: SessionId; readonly atSeq: number; readonly restored: string; readonly abandoned: string };
  'session/end-seed': Record<string, never>;
  /**
   * This process took the session over from a previous owner (docs/architecture.md §7): one whose process is gone
   * (`exited`), whose pid now names an unrelated process (`pid-reused`), or a live one the user
   * chose to replace (`forced`; its later appends are refused with STALE_APPEND). Log-only.
   */
  'session/takeover': {
    readonly previous: { readonly pid: number; readonly host?: string; readonly start?: string; readonly since: number };
    readonly reason: 'exited' | 'pid-reused' | 'forced';
  };
  'session/title': { readonly title: string; readonly messageSeqs?: readonly number[]; readonly source?: JsonValue };
  'todo/write': { readonly todos: readonly TodoItem[] };
  /**
   * Project instructions in force (not model-visible itself; the text is): `placement: 'system'` —
   * the files rendered into the system prompt of the following requests (logged when the set or a
   * hash changes; an empty list means none any more); `placement: 'tool-result'` — nested files whose
   * text is appended to the result of call `callId`, which touched a path under their folders.
   */
  'instructions/loaded': { readonly placement: 'system' | 'tool-result'; readonly files: readonly InstructionFileRef[]; readonly callId?: CallId };
  /** Placeholder for seqs that an imported file omitted (its recording elided them). */
  'import/elided': Record<string, never>;
  /**
   * A record of an imported log that has no event of ours: a reference-runtime event type this
   * build does not know, or a foreign record (Claude Code `file-history-snapshot`, Codex
   * `event_msg`, OpenHands `agent_state_changed`, …). Kept whole and shown as a raw row; never
   * model-visible. `modelVisible` marks a record that changed what the source's model saw, so a
   * continuation from after it would not send the same history (the session says so, docs/importing.md).
   */
  'import/foreign': ImportForeignData;
}

/** Payload of `import/foreign`. */
export interface ImportForeignData {
  /** Source format id (`deepseek-harness`, `claude-code`, `codex`, `openhands`). */
  readonly format: string;
  /** The source's own record type (`command/run`, `file-history-snapshot`, `event_msg/token_count`, …). */
  readonly type: string;
  /** The source record, unchanged (for the reference runtime: its whole event envelope). */
  readonly record: JsonValue;
  /** True when the record could change what the model saw (see above). */
  readonly modelVisible?: true;
  /** Why the record was kept raw, in plain words, when that is not obvious from `type`. */
  readonly note?: string;
}

export type ApprovalPolicyName = 'ask' | 'allow' | 'deny';

export type SessionEventType = keyof SessionEventMap;

/** `append` adds to the surface tail; `replace` swaps an inclusive positional range of surface nodes. */
export type SurfaceOp = 'append' | { readonly op: 'replace'; readonly start: number; readonly end: number };

/** The envelope of one durable event, discriminated by `type`. */
export type SessionEvent<T extends SessionEventType = SessionEventType> = {
  [K in T]: {
    readonly seq: number;
    readonly type: K;
    /** Epoch ms at append. Not guaranteed monotonic. */
    readonly time: number;
    readonly data: SessionEventMap[K];
    readonly surfaceOp?: SurfaceOp;
    readonly sourceEventSeqs?: readonly number[];
    /** A reader that does not know `type` may skip the event. */
    readonly ignorable?: true;
  };
}[T];

/** What a caller hands to `Session.append`: the envelope minus seq and time. */
export type EventInput<T extends SessionEventType = SessionEventType> = {
  [K in T]: {
    readonly type: K;
    readonly data: SessionEventMap[K];
    readonly surfaceOp?: SurfaceOp;
    readonly sourceEventSeqs?: readonly number[];
  };
}[T];

/** Event types that may carry a surface op (model-visible). */
export const SURFACE_EVENT_TYPES: ReadonlySet<SessionEventType> = new Set<SessionEventType>(['user/message', 'assistant/message', 'tool/result']);

/**
 * Every event type this build understands, keyed by the union: a type added to
 * {@link SessionEventMap} fails to compile until it is listed here (and in the other tables keyed
 * by {@link SessionEventType}: the payload shapes and the timeline reducers).
 */
export const EVENT_TYPES = {
  'turn/start': true,
  'turn/end': true,
  'step/start': true,
  'step/end': true,
  'user/message': true,
  'assistant/chunk': true,
  'assistant/message': true,
  'tool/call': true,
  'tool/result': true,
  'tool/process': true,
  'request/header': true,
  'request/context': true,
  'request/price': true,
  'llm/retry': true,
  'llm/warning': true,
  'approval/asked': true,
  'approval/decided': true,
  'approval/rule': true,
  'approval/policy': true,
  'agent/inbox/spliced': true,
  'compaction/start': true,
  'compaction/summary': true,
  'compaction/end': true,
  'compaction/prune': true,
  'workspace/checkpoint': true,
  'check/result': true,
  'workspace/apply': true,
  'workspace/rewind': true,
  'session/end-seed': true,
  'session/takeover': true,
  'session/title': true,
  'todo/write': true,
  'instructions/loaded': true,
  'import/elided': true,
  'import/foreign': true,
} as const satisfies Record<SessionEventType, true>;

/** Every event type this build understands (the reader refuses others unless `ignorable`). */
export const KNOWN_EVENT_TYPES: ReadonlySet<string> = new Set<SessionEventType>(Object.keys(EVENT_TYPES) as SessionEventType[]);

/** Pass/fail figures a test runner printed (vitest, jest, node:test, pytest, go test, cargo). */
export interface TestCounts {
  readonly runner: string;
  readonly passed: number;
  readonly failed: number;
  readonly skipped?: number;
}

/** Data of `check/result`. `exitCode` null: killed by a signal (e.g. at the time limit). */
export interface CheckResultData {
  readonly purpose: 'check' | 'setup';
  readonly turn: number;
  readonly command: string;
  readonly exitCode: number | null;
  readonly signal?: string;
  readonly timedOut: boolean;
  readonly durationMs: number;
  readonly passed: boolean;
  /** The last lines of stdout+stderr (a few KB). */
  readonly outputTail: string;
  readonly counts?: TestCounts;
}

/** Data of `workspace/apply`. */
export interface WorkspaceApplyData {
  readonly branch: SessionId;
  /** The fork point's checkpoint (the merge base) and the branch's final one. */
  readonly base: string;
  readonly theirs: string;
  /** The folder before the apply (restorable: the undo). */
  readonly before: string;
  readonly applied: boolean;
  readonly files: readonly { readonly path: string; readonly status: string }[];
  readonly conflicts?: readonly { readonly path: string; readonly hunks: readonly string[] }[];
}

/**
 * Metadata that travels beside the log (not an event, never model-visible). `seedLength` is the
 * number of inherited leading events of a fork child and stays constant across resumes.
 */
export interface SessionHeader {
  readonly version: number;
  readonly id: SessionId;
  /** Epoch ms. */
  readonly createdAt: number;
  /** Absolute workspace path. */
  readonly cwd?: string;
  readonly title?: string;
  readonly parentSession?: SessionId;
  readonly seedLength?: number;
  /** Where the log came from; absent means created by this installation (`native`). */
  readonly origin?: SessionOrigin;
}

/**
 * Provenance of a session's log (docs/architecture.md §8b, docs/security.md). An `imported` log is untrusted input: nothing
 * in it (base URL, provider, workspace, headers, checkpoint ids, paths) is used to act. A fork of an
 * imported session is `native` (created here) and keeps its parent's lineage.
 */
export type SessionOrigin =
  | { readonly kind: 'native' }
  | {
      readonly kind: 'imported';
      /** Source format id, e.g. `forkline`, `deepseek-harness`, `claude-code`, `codex`, `openhands`. */
      readonly format: string;
      /** The source's own format or program version, when it states one. */
      readonly formatVersion?: string;
      /** Base name of the file it was read from (never a path to act on). */
      readonly file?: string;
      /** Epoch ms of the import. */
      readonly importedAt: number;
      /**
       * The session whose agent started this one (a Claude Code sub-agent's parent), by the id the
       * source gives it — the id its own import gets. A provenance link, not a fork: this log holds
       * none of the parent's events. The parent may be imported before or after the child.
       */
      readonly spawnedBy?: { readonly sessionId: string; readonly agentId?: string };
      /**
       * For a session read from a portable bundle (electron/bundle/): its id in the bundle (it differs
       * from this session's id when the id was taken here) and the SHA-256 of its own events as the
       * bundle held them, by which a later import of the same content is recognised (bundle-import.ts).
       */
      readonly bundle?: { readonly sessionId: string; readonly contentSha256: string };
    };

/** True when the session's log came from a file rather than being recorded here. */
export function isImportedSession(header: SessionHeader): boolean {
  return header.origin?.kind === 'imported';
}

/** Narrowing helper: `isEvent(e, 'tool/call')`. */
export function isEvent<K extends SessionEventType>(event: SessionEvent, type: K): event is Extract<SessionEvent, { type: K }> {
  return event.type === type;
}

/** The events of one type, in log order, typed (e.g. `eventsOfType(log, 'tool/call')`). */
export function eventsOfType<K extends SessionEventType>(events: readonly SessionEvent[], type: K): Extract<SessionEvent, { type: K }>[] {
  return events.filter((e): e is Extract<SessionEvent, { type: K }> => isEvent(e, type));
}

/** The message id type re-exported for event producers. */
export type { MessageId };
