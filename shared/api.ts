/**
 * HostApi: the one typed method table between the renderer and the main process (DESIGN §9),
 * carried unchanged by both transports (Electron IPC and the browser-mode WebSocket). The method
 * list {@link HOST_METHODS} is the whitelist both transports enforce; every argument is validated
 * again on the host side (electron/host/api-schemas.ts).
 *
 * Live feed: `subscribeSession({sessionId, fromSeq})` answers with every committed event from
 * `fromSeq` and then pushes later events as `session/events`; each event carries its seq, so a
 * client applies `seq === lastSeq + 1` only, drops duplicates, and resubscribes from
 * `lastSeq + 1` on a hole. Agent status, inbox snapshots, approval requests and live tool output
 * are pushed per session.
 */
import type { ErrorRecord } from './errors.js';
import type { ApprovalPolicyName, RequestHeader, SessionEvent, SessionHeader } from './events.js';
import type { BranchStats } from './branch-stats.js';
import type { Message, UserMessage } from './messages.js';

export type AgentStatus = 'idle' | 'running';

/** One sidebar row. Built from the session table only (no event reads). */
export interface SessionSummary {
  readonly id: string;
  readonly title?: string;
  readonly cwd?: string;
  /** Epoch ms. */
  readonly createdAt: number;
  /** Epoch ms of the last append. */
  readonly updatedAt: number;
  readonly eventCount: number;
  readonly parentSession?: string;
  readonly seedLength?: number;
  /** `running` while this host's agent works on it; `idle` otherwise. */
  readonly status: AgentStatus;
  /** Another running Forkline holds this session (read-only here). */
  readonly ownedElsewhere?: boolean;
}

export interface InboxSnapshot {
  readonly nextTurn: readonly UserMessage[];
  readonly nextStep: readonly UserMessage[];
}

/** A tool call waiting for the user's decision. */
export interface ApprovalRequest {
  readonly id: string;
  readonly sessionId: string;
  readonly callId: string;
  readonly toolName: string;
  /** Raw argument string of the call, for display. */
  readonly arguments: string;
  readonly reason?: string;
}

export interface SubscribeResult {
  readonly subscriptionId: string;
  readonly header: SessionHeader;
  /** Committed events with seq ≥ fromSeq, in order. */
  readonly events: readonly SessionEvent[];
  readonly status: AgentStatus;
  readonly inbox: InboxSnapshot;
  readonly approvals: readonly ApprovalRequest[];
  /** Things the host repaired or noticed when opening (crash recovery, import warnings). */
  readonly notices: readonly string[];
  /** True when another running Forkline owns the session: it is shown read-only. */
  readonly readOnly: boolean;
}

/** What a model request contained, rebuilt from the log prefix (the request inspector). */
export interface RequestSnapshot {
  readonly turn: number;
  readonly step: number;
  /** Seq of the step's first `assistant/chunk` (or of the step end when the request failed early). */
  readonly atSeq: number;
  readonly header: RequestHeader | undefined;
  readonly messages: readonly Message[];
}

/** One side of a comparison. */
export interface CompareBranch {
  readonly sessionId: string;
  readonly title?: string;
  readonly cwd?: string;
  readonly stats: BranchStats;
}

/** Two sessions compared from their common boundary (DESIGN §10 compare view). */
export interface CompareResult {
  /** Number of leading events both sessions share (0 when unrelated). */
  readonly commonLength: number;
  readonly a: CompareBranch;
  readonly b: CompareBranch;
  /** Files that differ between the two branches' latest workspace checkpoints. */
  readonly files: readonly { readonly status: string; readonly path: string }[];
  /** Unified diff between the latest checkpoints (may be cut at ~1 MB). */
  readonly diff: string;
  /** Why there is no file diff, when there is none (e.g. a branch has no checkpoint yet). */
  readonly diffNote?: string;
}

export interface ModelChoice {
  readonly id: string;
  readonly contextWindow?: number;
  readonly maxOutputTokens?: number;
}

export interface ProviderPresetView {
  readonly id: string;
  readonly label: string;
  readonly baseUrl: string;
  readonly models: readonly ModelChoice[];
  /** Environment variable read for the key in CLI/browser mode, if any. */
  readonly apiKeyEnv?: string;
  readonly needsKey: boolean;
  /** Reasoning effort values this provider accepts (empty: not configurable). */
  readonly reasoningEfforts: readonly string[];
}

export interface ProviderChoice {
  readonly provider: string;
  readonly baseUrl: string;
  readonly model: string;
  readonly reasoningEffort?: string;
}

export interface SettingsView {
  readonly presets: readonly ProviderPresetView[];
  readonly active: ProviderChoice;
  readonly approvalPolicy: ApprovalPolicyName;
  /** Which providers have a key available (never the key itself). */
  readonly keys: Readonly<Record<string, boolean>>;
  /** Where sessions are stored. */
  readonly dataDir: string;
}

export interface FolderListing {
  readonly path: string;
  readonly parent?: string;
  readonly folders: readonly string[];
}

/** Every host method: params → result. */
export interface HostMethods {
  listSessions(params: Record<string, never>): SessionSummary[];
  createSession(params: { cwd: string; title?: string }): SessionSummary;
  subscribeSession(params: { sessionId: string; fromSeq: number }): SubscribeResult;
  unsubscribeSession(params: { subscriptionId: string }): null;
  renameSession(params: { sessionId: string; title: string }): null;
  deleteSession(params: { sessionId: string }): null;
  /**
   * Forks at the first closed turn at or after `atSeq` (default: the last closed turn). With
   * `worktree`, the child works in its own folder restored to the workspace checkpoint at the boundary.
   */
  forkSession(params: { sessionId: string; atSeq?: number; worktree?: boolean }): SessionSummary;
  /**
   * Compares two sessions from their common boundary: figures per branch and (unless `files` is
   * false, which makes it cheap) the file diff between their latest workspace checkpoints.
   */
  compareSessions(params: { a: string; b: string; files?: boolean }): CompareResult;
  exportSession(params: { sessionId: string }): { fileName: string; jsonl: string };
  importSession(params: { jsonl: string }): { sessionId: string; warnings: readonly string[] };
  inspectRequest(params: { sessionId: string; turn: number; step: number }): RequestSnapshot;

  followup(params: { sessionId: string; text: string }): null;
  steer(params: { sessionId: string; text: string }): null;
  cancel(params: { sessionId: string }): null;
  /** Manual compaction from idle: replaces the oldest part of what the model sees with a summary (nothing is deleted). */
  compactSession(params: { sessionId: string }): { compacted: boolean; shadowedCount: number };
  decideApproval(params: { sessionId: string; approvalId: string; decision: 'allow-once' | 'reject' }): null;

  getSettings(params: Record<string, never>): SettingsView;
  updateSettings(params: { active?: ProviderChoice; approvalPolicy?: ApprovalPolicyName }): SettingsView;
  setApiKey(params: { provider: string; apiKey: string }): SettingsView;
  /**
   * The models a provider's endpoint offers (`GET {baseUrl}/models` with the stored key; `baseUrl`
   * defaults to the active one for the active provider, else the preset's). Limits in tokens.
   * `source`: `endpoint` (the server's list) or `preset` (the built-in list, when the endpoint
   * cannot list). Errors: NO_BASE_URL, AUTH, TRANSPORT, TIMEOUT, HTTP_<status>, MALFORMED_RESPONSE.
   */
  listModels(params: { provider: string; baseUrl?: string }): { models: { id: string; contextWindow?: number; maxOutput?: number }[]; source: string };
  /**
   * One minimal real request (one "ping", at most one output token) to `model`; `apiKey` defaults
   * to the stored one. Never fails the call: a refusal is `{ok: false, code, message}` with the
   * model client's failure code (AUTH, TRANSPORT, MISSING_CREDENTIAL, …). `latencyMs` = time to the
   * first answer chunk.
   */
  testConnection(params: { provider: string; baseUrl?: string; model: string; apiKey?: string }): { ok: true; model: string; latencyMs: number } | { ok: false; code: string; message: string };

  /** Native folder dialog in the desktop app; null when there is none (browser mode: use listFolders). */
  chooseWorkspace(params: Record<string, never>): { path: string } | null;
  listFolders(params: { path?: string }): FolderListing;

  openTerminal(params: { sessionId: string; cols: number; rows: number }): { terminalId: string };
  writeTerminal(params: { terminalId: string; data: string }): null;
  resizeTerminal(params: { terminalId: string; cols: number; rows: number }): null;
  closeTerminal(params: { terminalId: string }): null;
}

export type HostMethodName = keyof HostMethods;
export type HostParams<M extends HostMethodName> = Parameters<HostMethods[M]>[0];
export type HostResult<M extends HostMethodName> = ReturnType<HostMethods[M]>;

/** The whitelist shared by both transports (the preload exposes exactly these). */
export const HOST_METHODS = [
  'listSessions',
  'createSession',
  'subscribeSession',
  'unsubscribeSession',
  'renameSession',
  'deleteSession',
  'forkSession',
  'compareSessions',
  'exportSession',
  'importSession',
  'inspectRequest',
  'followup',
  'steer',
  'cancel',
  'compactSession',
  'decideApproval',
  'getSettings',
  'updateSettings',
  'setApiKey',
  'listModels',
  'testConnection',
  'chooseWorkspace',
  'listFolders',
  'openTerminal',
  'writeTerminal',
  'resizeTerminal',
  'closeTerminal',
] as const satisfies readonly HostMethodName[];

/** Compile-time check that the whitelist names every method exactly. */
type MissingMethods = Exclude<HostMethodName, (typeof HOST_METHODS)[number]>;
const _allMethodsListed: MissingMethods extends never ? true : MissingMethods = true;
void _allMethodsListed;

export function isHostMethod(name: unknown): name is HostMethodName {
  return typeof name === 'string' && (HOST_METHODS as readonly string[]).includes(name);
}

/** Live-feed messages pushed by the host. */
export type HostPush =
  | { readonly kind: 'session/events'; readonly subscriptionId: string; readonly sessionId: string; readonly events: readonly SessionEvent[] }
  | { readonly kind: 'session/status'; readonly sessionId: string; readonly status: AgentStatus }
  | { readonly kind: 'session/inbox'; readonly sessionId: string; readonly inbox: InboxSnapshot }
  | { readonly kind: 'session/approvals'; readonly sessionId: string; readonly approvals: readonly ApprovalRequest[] }
  /** Live output of a running call (not model-visible; the result event carries the final text). */
  | { readonly kind: 'tool/output'; readonly sessionId: string; readonly turn: number; readonly step: number; readonly callId: string; readonly text: string }
  | { readonly kind: 'sessions/changed' }
  | { readonly kind: 'terminal/data'; readonly terminalId: string; readonly data: string }
  | { readonly kind: 'terminal/exit'; readonly terminalId: string; readonly exitCode: number };

/** Transport-neutral wire messages (JSON). */
export interface RpcRequest {
  readonly id: number;
  readonly method: string;
  readonly params: unknown;
}
export type RpcResponse =
  | { readonly id: number; readonly ok: true; readonly result: unknown }
  | { readonly id: number; readonly ok: false; readonly error: ErrorRecord };
export interface RpcPushMessage {
  readonly push: HostPush;
}

/** The promise-returning client view of the host (what the renderer calls). */
export type HostClient = {
  [M in HostMethodName]: (params: HostParams<M>) => Promise<HostResult<M>>;
} & {
  /** Subscribe to every push; returns an unsubscribe function. */
  onPush(listener: (push: HostPush) => void): () => void;
};

/** What the preload exposes as `window.forkline` and the WebSocket bridge implements. */
export interface HostBridge {
  call(request: { method: string; params: unknown }): Promise<RpcResponse>;
  onPush(listener: (push: HostPush) => void): () => void;
}
