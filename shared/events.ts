/**
 * The session event vocabulary: one map from event type to payload, the envelope, the session
 * header, turn-end reasons, cancel causes and tool error codes (DESIGN §3, §4, §6, §8).
 *
 * Names and payloads follow the reference runtime (DeepSeek Harness `packages/core/session/src/types.ts`)
 * so its uncompressed session files import; where DESIGN.md differs (turn-end payload field names)
 * DESIGN.md wins and the importer converts.
 *
 * Pure types plus a few constant tables; no Node, no DOM.
 */
import type { LlmFailure, StreamChunk, TokenUsage } from './chunks.js';
import type { JsonValue } from './json.js';
import type {
  AssistantMessage,
  CallId,
  MessageId,
  SessionId,
  TextBlock,
  ToolResultMessage,
  ToolSchema,
  UserMessage,
} from './messages.js';

/** The on-disk log format version. Bump only when an old reader would misread a new log. */
export const SESSION_FORMAT_VERSION = 0;

/** Why a cancellation happened; the first cause wins for a turn. */
export type CancelCause =
  | { readonly kind: 'user' }
  | { readonly kind: 'hook'; readonly reason: string }
  | { readonly kind: 'disposed' }
  | { readonly kind: 'legacy' };

/** How a turn ended. `interrupted` is written only by crash recovery, never by the loop. */
export type TurnEndReason =
  | { readonly kind: 'completed' }
  | { readonly kind: 'max-tokens' }
  | { readonly kind: 'blocked' }
  | { readonly kind: 'aborted'; readonly cause: CancelCause }
  | { readonly kind: 'error'; readonly failure: LlmFailure }
  | { readonly kind: 'interrupted' };

/** Codes written into `tool/result.error.code` (DESIGN §6, §8). */
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
  | 'TOOL_OUTCOME_UNKNOWN';

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

/** The request envelope (everything but the messages), logged as `request/header`. */
export interface RequestHeader {
  readonly config: LlmCallConfig;
  readonly system?: string;
  readonly tools?: readonly ToolSchema[];
}

export type InboxTarget = 'next-turn' | 'next-step';

export type ApprovalOutcome = 'allowed-once' | 'rejected' | 'cancelled' | 'unavailable';

export interface TodoItem {
  readonly content: string;
  readonly status: 'pending' | 'in_progress' | 'completed';
}

/** Every durable event type and its payload. */
export interface SessionEventMap {
  'turn/start': { readonly turn: number; readonly trigger?: JsonValue };
  'turn/end': { readonly turn: number; readonly reason: TurnEndReason };
  'step/start': { readonly turn: number; readonly step: number };
  'step/end': { readonly turn: number; readonly step: number };
  'user/message': UserMessage;
  'assistant/chunk': { readonly turn: number; readonly step: number; readonly chunk: StreamChunk };
  'assistant/message': {
    readonly turn: number;
    readonly step: number;
    readonly message: AssistantMessage;
    readonly usage?: TokenUsage;
    readonly interrupted?: true;
  };
  'tool/call': {
    readonly turn: number;
    readonly step: number;
    readonly callId: CallId;
    readonly name: string;
    /** The raw argument string exactly as the model produced it. */
    readonly arguments: string;
  };
  'tool/result': {
    readonly turn: number;
    readonly step: number;
    readonly message: ToolResultMessage;
    readonly error?: { readonly name: string; readonly code: string };
    /** Presentation facts for the UI (exit code, duration, diff, truncation). Not model-visible. */
    readonly meta?: JsonValue;
  };
  'request/header': { readonly reason: 'initial' | 'resume' | 'change'; readonly header: RequestHeader };
  /** The route of the following requests (not model-visible); `baseUrl` lets a resume reach the same endpoint. */
  'request/context': { readonly provider: string; readonly model: string; readonly contextWindow?: number; readonly baseUrl?: string };
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
  };
  'approval/decided': { readonly id: string; readonly outcome: ApprovalOutcome };
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
  };
  'compaction/prune': {
    readonly shadowedRange: { readonly start: number; readonly end: number };
    readonly shadowedSeqs: readonly number[];
    readonly shadowedTokenCount: number;
  };
  'workspace/checkpoint': { readonly turn: number; readonly commit: string };
  'session/end-seed': Record<string, never>;
  'session/title': { readonly title: string; readonly messageSeqs?: readonly number[]; readonly source?: JsonValue };
  'todo/write': { readonly todos: readonly TodoItem[] };
  /** Placeholder for seqs that an imported file omitted (its recording elided them). */
  'import/elided': Record<string, never>;
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
export const SURFACE_EVENT_TYPES: ReadonlySet<SessionEventType> = new Set<SessionEventType>([
  'user/message',
  'assistant/message',
  'tool/result',
]);

/** Every event type this build understands (the reader refuses others unless `ignorable`). */
export const KNOWN_EVENT_TYPES: ReadonlySet<string> = new Set<SessionEventType>([
  'turn/start',
  'turn/end',
  'step/start',
  'step/end',
  'user/message',
  'assistant/chunk',
  'assistant/message',
  'tool/call',
  'tool/result',
  'request/header',
  'request/context',
  'llm/retry',
  'approval/asked',
  'approval/decided',
  'approval/policy',
  'agent/inbox/spliced',
  'compaction/start',
  'compaction/summary',
  'compaction/end',
  'compaction/prune',
  'workspace/checkpoint',
  'session/end-seed',
  'session/title',
  'todo/write',
  'import/elided',
]);

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
 * Provenance of a session's log (DESIGN §8b, issue 8). An `imported` log is untrusted input: nothing
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
