/**
 * Size: over 500 lines because HostApi is one method table with its param and result types, kept
 * in one file so both transports and the renderer read one list.
 *
 * HostApi: the one typed method table between the renderer and the main process (docs/architecture.md §9),
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
import type { BranchDiff, RankedReport } from './branch-ranking.js';
import type { ApprovalPreview } from './approval.js';
import type { ErrorRecord } from './errors.js';
import type { ApprovalPolicyName, RequestHeader, SessionEvent, SessionHeader, SessionOrigin } from './events.js';
import type { ImportSummary } from './import-summary.js';
import type { BranchStats } from './branch-stats.js';
import type { JsonValue } from './json.js';
import type { Message, UserMessage } from './messages.js';
import type { PlaygroundEdit, PlaygroundRoute, PlaygroundRun } from './playground.js';
import type { ReplayReport } from './replay.js';
import type { RequestDiff } from './request-diff.js';
import type { RequestRecord } from './request-log.js';
import type { CostTotals } from './session-cost.js';
import type { SnippetPart } from './search-query.js';
import type { TeamSearchHitView, TeamSessionView, TeamStatus } from './team.js';

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
  /** Where the log came from (absent: recorded here). An imported session is read-only; it is continued by a fork. */
  readonly origin?: SessionOrigin;
  /**
   * The session's last turn, from the session table: `open` (started, not ended — a crash when no
   * agent runs it), or its turn-end reason kind (`completed`, `error`, `interrupted`, `aborted`, …).
   */
  readonly lastTurn?: string;
  /** This host's agent waits for the person to decide an approval. */
  readonly waitingApproval?: boolean;
  /**
   * What the session cost so far (docs/providers.md "Prices, overrides and budgets"), from the prices logged in it; kept by the host
   * incrementally (no full log is read per list). Absent when the log could not be read.
   */
  readonly cost?: CostTotals;
  /** Epoch ms the open turn of this host's agent started (the sidebar's live meter). */
  readonly turnStartedAt?: number;
  /** The budget set for this session in the app, if any. */
  readonly budget?: SessionBudget;
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
  /** The change the call would make: a unified diff, or the command and its folder. */
  readonly preview?: ApprovalPreview;
}

/** How a person answers an approval. */
export type ApprovalDecisionName = 'allow-once' | 'allow-session' | 'reject';

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
  /** True when another running Forkline owns the session, or it was imported: it is shown read-only. */
  readonly readOnly: boolean;
  /**
   * For an imported session: why it is read-only and how far it can be continued. `continuableUntilSeq`
   * is the last seq a fork may cut at (before the first record that changed what the source's model
   * saw and cannot be replayed); absent when every closed turn can be continued.
   */
  readonly imported?: { readonly format: string; readonly continuableUntilSeq?: number };
  /** Seq of the first event in `events` (> `fromSeq` when only the tail was asked for). */
  readonly startSeq: number;
  /** Number of events in the session (the next seq). */
  readonly eventCount: number;
}

/** What a model request contained, rebuilt from the log prefix (the request inspector). */
export interface RequestSnapshot {
  /** The step the request belongs to (0 for a compaction between turns). */
  readonly turn: number;
  readonly step: number;
  /** The request was built from the events before this seq (its first chunk, or its `compaction/start`). */
  readonly atSeq: number;
  readonly header: RequestHeader | undefined;
  readonly messages: readonly Message[];
}

/** One model request of a session (see shared/request-log.ts): where it is and how its response went. */
export type RequestSummary = RequestRecord;

/** One request header as shown; `redacted` values never carry the real secret. */
export interface WireHeaderView {
  readonly name: string;
  readonly value: string;
  readonly redacted?: true;
}

/** The HTTP request as it went out, rebuilt from the log. */
export interface WireRequestView {
  readonly method: 'POST';
  /** Absent when the log does not name the endpoint (older logs). */
  readonly url?: string;
  readonly headers: readonly WireHeaderView[];
  /** The exact JSON body. */
  readonly body: string;
  readonly bodyBytes: number;
  /** The same request as a curl command; the key comes from an environment variable, never from the log. */
  readonly curl: string;
}

/** Everything the request inspector shows for one request. */
export interface RequestInspection extends RequestSnapshot {
  readonly request: RequestSummary;
  /** How many requests the session made (for previous / next). */
  readonly requestCount: number;
  /** Absent when the body cannot be rebuilt (see `wireError`). */
  readonly wire?: WireRequestView;
  readonly wireError?: { readonly code: string; readonly message: string };
  /**
   * Against the previous model request of the conversation — the previous attempt or step, never a
   * compaction's summary request (a side request with other messages) — when both bodies rebuild.
   * `basis` says which it is, in words ("the previous step of this turn").
   */
  readonly diff?: RequestDiff & { readonly previous: RequestSummary; readonly basis?: string };
  /** What the model answered to this request, from the log (absent when nothing was logged yet). */
  readonly answer?: RequestAnswer;
  /** Caveats about this rebuild (older log shapes, imported logs). */
  readonly notes: readonly string[];
}

/** A request's answer as the log holds it: the message, else the streamed text so far (a failed attempt). */
export interface RequestAnswer {
  readonly text: string;
  readonly reasoning?: string;
  readonly toolCalls: readonly { readonly name: string; readonly arguments: string }[];
  /** `message`: the step's `assistant/message`; `stream`: joined from the logged chunks; `summary`: a compaction's summary. */
  readonly from: 'message' | 'stream' | 'summary';
}

/** A hit of the full-text search. */
export interface SearchHit {
  readonly sessionId: string;
  /** Seq of the matching event (a message or tool result). */
  readonly seq: number;
  /** `user`, `assistant`, `tool` or `summary`. */
  readonly kind: string;
  readonly snippet: readonly SnippetPart[];
}

export interface SearchResult {
  /** The terms searched (each matched as a case-insensitive substring). */
  readonly terms: readonly string[];
  /** Terms too short to search (fewer than 3 characters). */
  readonly ignored: readonly string[];
  /** Newest first. */
  readonly hits: readonly SearchHit[];
  /** More hits exist than were returned. */
  readonly more: boolean;
}

/** One side of a comparison. */
export interface CompareBranch {
  readonly sessionId: string;
  readonly title?: string;
  readonly cwd?: string;
  readonly stats: BranchStats;
}

/** Two sessions compared from their common boundary (docs/architecture.md §10 compare view). */
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

/**
 * A person's limits for one endpoint + model (tokens). They win over what the endpoint publishes and
 * what was learned from its errors (docs/architecture.md §5).
 */
export interface ModelLimitSetting {
  readonly baseUrl: string;
  readonly model: string;
  readonly contextWindow?: number;
  readonly maxOutputTokens?: number;
}

/**
 * A context window Forkline learned from an endpoint + model (docs/architecture.md §5): stated by
 * an overflow error (in force at once), or inferred from a prompt the server cut silently (in force
 * from the second such request; before that it is listed so a person sees it coming).
 */
export interface LearnedLimitView {
  readonly baseUrl: string;
  readonly model: string;
  /** Tokens. */
  readonly contextWindow: number;
  readonly how: 'overflow-error' | 'truncated-prompt';
  /** When it was last seen (epoch ms). */
  readonly at: number;
  /** Whether new sessions use it as the window (false: a truncated prompt seen once so far). */
  readonly inForce: boolean;
}

/**
 * A person's price for an endpoint and model, in USD per million tokens (Settings' form of the
 * cli.json `prices` entries, docs/providers.md "Prices, overrides and budgets"). `model` `*` prices every model of the endpoint; without
 * `baseUrl` it applies to the model on any endpoint. Overrides win over the bundled list.
 */
export interface PriceOverrideSetting {
  readonly baseUrl?: string;
  readonly provider?: string;
  readonly model: string;
  readonly inputMtok: number;
  readonly outputMtok: number;
  readonly cacheReadMtok?: number;
  readonly cacheWriteMtok?: number;
  readonly reasoningMtok?: number;
}

/**
 * A per-session budget set in the app (docs/providers.md "Prices, overrides and budgets"): USD for the whole session, or billed tokens
 * (total input + output) where prices are unknown. A request that could cross it is not sent.
 */
export interface SessionBudget {
  readonly sessionUsd?: number;
  readonly sessionTokens?: number;
  /** USD per turn (each turn starts from 0; a compaction inside a turn counts in it). */
  readonly turnUsd?: number;
}

/** An endpoint's models with the limits known for them (tokens), and where the numbers came from. */
export interface ModelListing {
  readonly models: readonly { readonly id: string; readonly contextWindow?: number; readonly maxOutput?: number }[];
  /** Plain words: which requests / tables gave the numbers (and what failed). */
  readonly source: string;
  /** The endpoint itself listed models (`GET /models` answered); false: only preset tables, or nothing. */
  readonly listedByEndpoint: boolean;
}

/** What one tiny test request found (`latencyMs`: until the reply ended). */
export type ConnectionTestResult = { readonly ok: true; readonly model: string; readonly latencyMs: number } | { readonly ok: false; readonly code: string; readonly message: string };

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
  /** Per endpoint + model limits the person set (absent in older hosts). */
  readonly modelLimits?: readonly ModelLimitSetting[];
  /** Windows learned from endpoints, in force or suspected (absent in older hosts). */
  readonly learnedLimits?: readonly LearnedLimitView[];
  /** The user-level MCP servers as configured in Settings: the `mcpServers` object of the usual JSON shape. */
  readonly mcpServers: Readonly<Record<string, JsonValue>>;
  /** The person's price overrides (absent in older hosts). */
  readonly prices?: readonly PriceOverrideSetting[];
  /**
   * Whether a key saved in Settings survives a restart (the desktop app's OS keychain); false in
   * browser mode, where keys are kept in the server's memory only. Absent in older hosts.
   */
  readonly keysPersist?: boolean;
  /**
   * Providers whose key was saved in Settings before the server restarted and is gone now
   * (browser mode), so the UI can say so instead of "No key set".
   */
  readonly lostKeys?: readonly string[];
  /** The UI theme the person picked (every window and browser); absent or `system` = follow the system. */
  readonly theme?: ThemeSetting;
  /** Live OTLP export of running sessions (issue 26), as set in Settings (absent in older hosts). */
  readonly otlp?: OtlpSetting;
}

/**
 * Live OTLP/HTTP export (issue 26): where running sessions' spans go (`endpoint`, e.g.
 * `http://127.0.0.1:4318`; absent or `''` = off, checked by shared/otlp-endpoint.ts) and whether
 * message content goes with them (opt-in).
 */
export interface OtlpSetting {
  readonly endpoint?: string;
  readonly includeContent?: boolean;
}

/**
 * A portable bundle written for the app to download (`exportBundle`; electron/bundle/): what went
 * in, and the download its text (UTF-8 JSON lines) is read from, chunk by chunk (`readDownload`).
 */
export interface BundleDownload {
  /** Read the file with `readDownload({ downloadId })` until `done`; `closeDownload` gives it up. */
  readonly downloadId: string;
  /** A suggested file name, `forkline-<title>-<id8>.bundle.jsonl`. */
  readonly fileName: string;
  /** Bytes of the file (UTF-8). */
  readonly bytes: number;
  /** The sessions in it (the session and the forks under it). */
  readonly sessions: number;
  readonly events: number;
  /** Workspace checkpoints whose files are in it (with `withFiles`). */
  readonly checkpoints: number;
  /** Checkpoints referenced but not included. */
  readonly missingCheckpoints: number;
  /** Secrets replaced before writing. */
  readonly redacted: number;
}

/** The first bytes of every portable bundle file (how the app tells a bundle from a session log). */
export const BUNDLE_FILE_MAGIC = '{"forklineBundle":';

/** What importing a portable bundle did (`importBundleEnd`; as `forkline import BUNDLE`). */
export interface BundleImportView {
  /** The id here of the session the bundle was exported for. */
  readonly rootId: string;
  /** Every session was already here with the same content: nothing was written. */
  readonly alreadyImported: boolean;
  /** Parents first. `outcome`: `new`; `renamed` (the bundle's id was taken here by other content); `present` (already here, not stored again). */
  readonly sessions: readonly {
    readonly id: string;
    readonly bundleId: string;
    readonly eventCount: number;
    readonly parentSession?: string;
    readonly outcome: 'new' | 'renamed' | 'present';
  }[];
  /** Workspace checkpoints restored. */
  readonly checkpoints: number;
  /** Secrets the exporter redacted. */
  readonly redacted: number;
  readonly warnings: readonly string[];
}

/** One chunk of a download (`readDownload`): at most 1 MiB of the file as text; `offset` counts bytes read so far. */
export interface DownloadChunk {
  readonly text: string;
  readonly offset: number;
  /** The last chunk: the download is closed and its file removed. */
  readonly done: boolean;
}

/** The theme setting: a pick, or `system` (follow prefers-color-scheme). */
export type ThemeSetting = 'light' | 'dark' | 'system';

/** One MCP tool as offered to the model. */
export interface McpToolView {
  /** The server's own name for it. */
  readonly name: string;
  /** The namespaced name the model calls (`mcp__server__tool`). */
  readonly modelName: string;
  readonly description?: string;
  /** The configured policy; absent = the session's approval policy. */
  readonly approval?: ApprovalPolicyName;
}

/**
 * One configured MCP server and what it is doing. `idle`: configured in Settings, no open session
 * uses it yet; `untrusted`: from a workspace's `.forkline/mcp.json` that the user has not trusted (in
 * this exact content), so it was not started.
 */
export interface McpServerStatus {
  readonly name: string;
  readonly source: 'settings' | 'workspace' | 'cli';
  /** The configuration file (absent for Settings). */
  readonly file?: string;
  /** The workspace the server runs for (absent for `idle`). */
  readonly workspace?: string;
  readonly transport: 'stdio' | 'http';
  /** The command line or URL (env and header values are not shown). */
  readonly target: string;
  readonly state: 'idle' | 'untrusted' | 'starting' | 'ready' | 'failed' | 'closed' | 'disabled';
  readonly error?: string;
  readonly tools: readonly McpToolView[];
  /** For `untrusted`: the sha256 of the file's bytes, to pass to `trustMcpConfig`. */
  readonly sha256?: string;
}

export interface FolderListing {
  readonly path: string;
  readonly parent?: string;
  readonly folders: readonly string[];
}

/** One fan-out branch's variant as the UI gives it (README "Fan-out, apply, rewind"): what it does differently. */
export interface FanoutVariantInput {
  /** A model of the endpoint (else the active one). */
  readonly model?: string;
  /** A reasoning effort (else the active one). */
  readonly effort?: string;
  /** This branch's prompt instead of the fan-out's. */
  readonly prompt?: string;
  /** Added to the system prompt for this branch. */
  readonly system?: string;
}

/** A started fan-out: its id (for `cancelFanout`), the check it runs and its branches in order. */
export interface FanoutStarted {
  readonly fanoutId: string;
  readonly parent: string;
  readonly check: string;
  readonly branches: readonly { readonly sessionId: string; readonly label: string; readonly model: string }[];
}

/** What `applyBranch` did: `applied: false` with conflicts means nothing was written. */
export interface ApplyBranchResult {
  readonly branch: string;
  readonly parent: string;
  readonly folder: string;
  /** The folder's checkpoint before the apply (its undo); absent when there was nothing to apply. */
  readonly before?: string;
  readonly applied: boolean;
  readonly files: readonly { readonly path: string; readonly status: 'A' | 'M' | 'D'; readonly how: 'theirs' | 'merged' | 'same' }[];
  readonly conflicts: readonly { readonly path: string; readonly hunks: readonly string[] }[];
}

/** What `rewindSession` did: the new session continuing from the turn, in the same folder. */
export interface RewindResult {
  readonly sessionId: string;
  readonly from: string;
  readonly atSeq: number;
  readonly turn: number;
  readonly folder: string;
  readonly restored: string;
  readonly abandoned: string;
}

/** What `discardBranch` did: its folder removed (final files kept as `checkpoint`), or why not. */
export interface DiscardResult {
  readonly sessionId: string;
  readonly folder: string;
  readonly removed: boolean;
  readonly checkpoint?: string;
  readonly reason?: string;
}

/** Every host method: params → result. */
export interface HostMethods {
  listSessions(params: Record<string, never>): SessionSummary[];
  createSession(params: { cwd: string; title?: string }): SessionSummary;
  /**
   * Sends the events from `fromSeq` and then live pushes. With `tail`, a long session sends only
   * about its last `tail` events (from a turn start where one is near), so opening it costs the
   * same whatever its length; `readEvents` fetches earlier ones on demand.
   */
  subscribeSession(params: { sessionId: string; fromSeq: number; tail?: number }): SubscribeResult;
  /**
   * The request envelope in effect before `beforeSeq`: the latest `request/header` and
   * `request/context` events before it (ascending), for a session opened at its tail.
   */
  readEnvelope(params: { sessionId: string; beforeSeq: number }): { events: readonly SessionEvent[] };
  /** Committed events with `fromSeq <= seq < toSeq` (at most 200,000 at a time). */
  readEvents(params: { sessionId: string; fromSeq: number; toSeq: number }): { events: readonly SessionEvent[] };
  unsubscribeSession(params: { subscriptionId: string }): null;
  renameSession(params: { sessionId: string; title: string }): null;
  deleteSession(params: { sessionId: string }): null;
  /**
   * Forks after a turn: `atSeq` is the seq of a `turn/end` (what the timeline and `forkline show`
   * show), or a seq between turns (cut at the turn end before it); default: the last closed turn.
   * The child holds nothing after that `turn/end`. With `worktree`, the child works in its own
   * folder restored to the workspace checkpoint of that turn (only checkpoints this installation
   * recorded count); with `cwd`, in that existing folder. Without either it inherits the parent's
   * folder, except from an imported session (its folder came from a file and is never used: such a
   * child needs `cwd` before it can run).
   * Forking an imported session is how it is continued ("Continue in Forkline"): the child is a
   * live session whose history is the imported conversation.
   * Errors: OPEN_TURN (`atSeq` is inside a turn), NO_SUCH_SEQ (beyond the log), FORK_UNAVAILABLE
   * (no turn ended yet); their messages list the nearest turn ends. WORKSPACE_REQUIRED (an imported
   * source without `cwd`), MODEL_VIEW_INCOMPLETE (an imported source cut after a record that
   * changed what its model saw).
   */
  forkSession(params: { sessionId: string; atSeq?: number; worktree?: boolean; cwd?: string }): SessionSummary;
  /**
   * Compares two sessions from their common boundary: figures per branch and (unless `files` is
   * false, which makes it cheap) the file diff between their latest workspace checkpoints.
   */
  compareSessions(params: { a: string; b: string; files?: boolean }): CompareResult;
  /**
   * Branches ranked as a fan-out ranks them (README "Fan-out, apply, rewind": check passed > fewer failures > smaller
   * diff > fewer tokens > shorter time), each with its figures and the reasons; for a board view.
   */
  rankBranches(params: { sessionIds: readonly string[] }): RankedReport;
  /**
   * A branch's file diff against its fork point's checkpoint (issue 21's board), or a note why there
   * is none. `comparedWith`: the branches it is shown beside (the board's); the diff then starts where
   * the history they share ends, as `rankBranches` counts their figures (a root beside its fork: from
   * the fork point, not from its own start).
   */
  branchDiff(params: { sessionId: string; comparedWith?: readonly string[] }): BranchDiff;
  /** The check command a fan-out of this session would run (proposed from its project), to show and edit. */
  proposeFanoutCheck(params: { sessionId: string }): { check?: string };
  /**
   * Fan-out from a turn end (README "Fan-out, apply, rewind"): 2–8 forks by reference, each in its own worktree, run at
   * once with their variants; each branch's check runs after its turn. Returns once the forks exist.
   */
  startFanout(params: { sessionId: string; atSeq?: number; prompt: string; variants: readonly FanoutVariantInput[]; check?: string; concurrency?: number }): FanoutStarted;
  /** Cancels every branch of a running fan-out. */
  cancelFanout(params: { fanoutId: string }): { cancelled: boolean };
  /** A branch's changes merged three-way into its parent's folder; on conflicts nothing is written. */
  applyBranch(params: { sessionId: string }): ApplyBranchResult;
  /** The folder restored to the turn ending at `toSeq`; the conversation continues in a new fork. */
  rewindSession(params: { sessionId: string; toSeq: number }): RewindResult;
  /** Removes a branch's own folder (only a Forkline worktree, never the user's); the session stays. */
  discardBranch(params: { sessionId: string }): DiscardResult;
  exportSession(params: { sessionId: string }): { fileName: string; jsonl: string };
  /**
   * Writes the portable bundle of a session and the forks under it (issue 26, as `forkline export ID
   * --bundle FILE [--with-files]`), secrets redacted, and returns it for download.
   * @throws ForklineError SESSION_NOT_FOUND; BundleError for a session that cannot be bundled.
   */
  exportBundle(params: { sessionId: string; withFiles?: boolean }): Promise<BundleDownload>;
  /**
   * The next chunk of a download (`exportBundle`): at most 1 MiB of the file, in order; the last
   * has `done` and closes it. The file is never sent as one message.
   * @throws ForklineError DOWNLOAD_NOT_FOUND (ended, closed, or another window's).
   */
  readDownload(params: { downloadId: string }): DownloadChunk;
  /** Gives up a download before its end (its file is removed). */
  closeDownload(params: { downloadId: string }): null;
  /**
   * Streaming import of a portable bundle (a file starting with {@link BUNDLE_FILE_MAGIC}): the
   * text in chunks, each acknowledged before the next, spooled to disk on the host; `importBundleEnd`
   * verifies and imports it all or nothing, like `forkline import BUNDLE`; `importBundleAbort` gives it up.
   * @throws BundleError codes (IMPORT_BUNDLE_DAMAGED, …) at the end; IMPORT_NOT_FOUND for an unknown id.
   */
  importBundleBegin(params: { fileName: string; size?: number }): { importId: string };
  importBundleChunk(params: { importId: string; text: string }): { bytes: number };
  importBundleEnd(params: { importId: string }): Promise<BundleImportView>;
  importBundleAbort(params: { importId: string }): null;
  /** Imports a whole small log in one call (any format we read); big files use `importBegin`. */
  importSession(params: { jsonl: string; fileName?: string }): { sessionId: string; warnings: readonly string[]; summary: ImportSummary };
  /**
   * Streaming import (docs/importing.md): the client sends the file in chunks of text, each acknowledged after
   * the host has written its records, so memory stays constant on both sides and the client can show
   * progress. The format is detected by content. `importEnd` returns the summary; `importAbort` (or
   * closing the connection) discards a partial import.
   */
  importBegin(params: { fileName: string; size?: number }): { importId: string };
  importChunk(params: { importId: string; text: string }): { chars: number };
  importEnd(params: { importId: string }): ImportSummary;
  importAbort(params: { importId: string }): null;
  /** Every model request of the session, in the order sent (attempts and compaction summary requests included). */
  listRequests(params: { sessionId: string }): RequestSummary[];
  /**
   * One request rebuilt from the log: by `index` (see `listRequests`), or by step (`attempt`
   * absent: the step's last attempt). @throws STEP_NOT_FOUND / REQUEST_NOT_FOUND.
   */
  inspectRequest(params: { sessionId: string; turn?: number; step?: number; attempt?: number; index?: number }): RequestInspection;
  /** The logged chunks of one request's response (the raw stream), at most `limit` (default 2,000). */
  readRequestStream(params: { sessionId: string; index: number; limit?: number }): { events: readonly SessionEvent[]; total: number };
  /** Full-text search over every session's messages and tool output (or one session's own events). */
  /**
   * "Replay on this build" (issue 23): the session's logged model answers fed to this build's
   * harness (electron/replay); nothing is sent to a provider and nothing is written to the log.
   */
  replaySession(params: { sessionId: string }): ReplayReport;
  /** The request playground's scratch runs of a session (newest last), or of one request (`index`). */
  listPlaygroundRuns(params: { sessionId: string; index?: number }): PlaygroundRun[];
  /**
   * Sends an edited copy of logged request `index` to `route`; the response streams as
   * `playground/run` pushes to this client, and the finished run is stored as a scratch record
   * (never in the session's log).
   * @throws INVALID_PLAYGROUND_EDIT naming the field, PLAYGROUND_UNAVAILABLE.
   */
  startPlaygroundRun(params: { sessionId: string; index: number; route: PlaygroundRoute; edit: PlaygroundEdit }): PlaygroundRun;
  /** Stops a running playground run of this client. */
  cancelPlaygroundRun(params: { runId: string }): { cancelled: boolean };
  /**
   * "Fork with this prompt": a fork before the turn of the typed prompt `messageId`, which is then
   * sent as `text` in the fork (the new branch's first own turn).
   * @throws PROMPT_NOT_FOUND, NO_TURN_BEFORE (the session's first prompt), and the fork's errors.
   */
  forkWithPrompt(params: { sessionId: string; messageId: string; text: string }): SessionSummary;
  searchSessions(params: { query: string; limit?: number; sessionId?: string }): SearchResult;
  /**
   * Takes over a session that another running Forkline holds (the user confirmed it in the UI):
   * this host holds it from now on; the other one's later appends are refused (STALE_APPEND) and
   * its unfinished turn is closed as interrupted. Resubscribe afterwards to leave read-only mode.
   */
  takeOverSession(params: { sessionId: string }): null;

  followup(params: { sessionId: string; text: string }): null;
  steer(params: { sessionId: string; text: string }): null;
  cancel(params: { sessionId: string }): null;
  /** Manual compaction from idle: replaces the oldest part of what the model sees with a summary (nothing is deleted). */
  compactSession(params: { sessionId: string }): { compacted: boolean; shadowedCount: number };
  /**
   * Answers a pending approval. `allow-session` also allows later calls of the same tool for the
   * rest of the session (logged as `approval/rule`, kept on resume and fork); for bash it needs
   * `commandPrefix` and covers only simple commands starting with it.
   */
  decideApproval(params: { sessionId: string; approvalId: string; decision: ApprovalDecisionName; commandPrefix?: string }): null;

  getSettings(params: Record<string, never>): SettingsView;
  /**
   * Applies and saves a partial update. `modelLimits` sets the person's limits for one endpoint + model
   * (an entry with neither number removes them). `mcpServers` replaces the user-level MCP servers (the
   * `mcpServers` object of the usual JSON shape); running servers whose configuration changed restart.
   * `prices` replaces the price overrides (validated: a negative price is refused naming its field).
   * `forgetLearnedLimit` drops the window learned for one endpoint + model.
   */
  updateSettings(params: {
    active?: ProviderChoice;
    approvalPolicy?: ApprovalPolicyName;
    modelLimits?: ModelLimitSetting;
    mcpServers?: Record<string, JsonValue>;
    prices?: PriceOverrideSetting[];
    theme?: ThemeSetting;
    otlp?: OtlpSetting;
    /** Forgets the window learned for this endpoint + model (in force or suspected). */
    forgetLearnedLimit?: { baseUrl: string; model: string };
  }): SettingsView;
  /**
   * Sets (or, with neither limit, clears) a session's budget; it applies from the next request,
   * also to a turn that is running. Kept in the settings file.
   */
  setSessionBudget(params: { sessionId: string; sessionUsd?: number; sessionTokens?: number; turnUsd?: number }): SessionSummary;
  setApiKey(params: { provider: string; apiKey: string }): SettingsView;
  /**
   * The endpoint's models with their known windows (`GET /models`, OpenRouter / vLLM / llama.cpp /
   * LM Studio / Ollama metadata, preset tables). `baseUrl` defaults to the provider's preset URL.
   * Network trouble is reported in `source`, not thrown.
   */
  listModels(params: { provider: string; baseUrl?: string }): ModelListing;
  /**
   * Makes one tiny request (16 tokens of output, no tools) and reports the exact provider error if
   * any. `apiKey` defaults to the stored / environment key of `provider`.
   */
  testConnection(params: { provider: string; baseUrl?: string; model: string; apiKey?: string }): ConnectionTestResult;

  /** Native folder dialog in the desktop app; null when there is none (browser mode: use listFolders). */
  chooseWorkspace(params: Record<string, never>): { path: string } | null;
  listFolders(params: { path?: string }): FolderListing;

  /** Every configured MCP server (Settings, command line, the open workspaces' files) with its state and tools. */
  listMcpServers(params: Record<string, never>): McpServerStatus[];
  /** Trusts a workspace's `.forkline/mcp.json` with exactly these bytes (its sha256) and starts its servers. */
  trustMcpConfig(params: { file: string; sha256: string }): McpServerStatus[];

  openTerminal(params: { sessionId: string; cols: number; rows: number }): { terminalId: string };
  writeTerminal(params: { terminalId: string; data: string }): null;
  resizeTerminal(params: { terminalId: string; cols: number; rows: number }): null;
  closeTerminal(params: { terminalId: string }): null;

  /** The team store here (issue 27): whether one is configured, what is shared, what waits to publish. */
  teamStatus(params: Record<string, never>): TeamStatus;
  /**
   * Sets the team store's connection string (`storeUrl`; '' clears the one set in the app) and/or
   * turns sharing of a workspace's new sessions on or off (`share`).
   * Errors: TEAM_STORE_URL_INVALID, INVALID_WORKSPACE.
   */
  setTeamSettings(params: { storeUrl?: string; share?: { workspace: string; on: boolean } }): TeamStatus;
  /** The team's sessions (who, when, workspace name, status, tokens, cost). Errors: TEAM_STORE_NOT_CONFIGURED, TEAM_STORE_UNREACHABLE, TEAM_* . */
  listTeamSessions(params: Record<string, never>): TeamSessionView[];
  /** PostgreSQL full-text search over the team's sessions (as `forkline team search`). */
  searchTeamSessions(params: { query: string }): TeamSearchHitView[];
  /** Brings a team session in as a local imported, read-only copy (reused while it is current); open it like any session. */
  openTeamSession(params: { teamSessionId: string }): SessionSummary;
  /**
   * Continues a team session in a local folder: its read-only copy (see `openTeamSession`) forked
   * like any imported session into a native session working in `cwd`.
   */
  forkTeamSession(params: { teamSessionId: string; cwd: string; atSeq?: number }): SessionSummary;
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
  'rankBranches',
  'branchDiff',
  'proposeFanoutCheck',
  'startFanout',
  'cancelFanout',
  'applyBranch',
  'rewindSession',
  'discardBranch',
  'exportSession',
  'exportBundle',
  'readDownload',
  'closeDownload',
  'importBundleBegin',
  'importBundleChunk',
  'importBundleEnd',
  'importBundleAbort',
  'importSession',
  'importBegin',
  'importChunk',
  'importEnd',
  'importAbort',
  'readEvents',
  'readEnvelope',
  'listRequests',
  'inspectRequest',
  'readRequestStream',
  'searchSessions',
  'replaySession',
  'listPlaygroundRuns',
  'startPlaygroundRun',
  'cancelPlaygroundRun',
  'forkWithPrompt',
  'takeOverSession',
  'followup',
  'steer',
  'cancel',
  'compactSession',
  'decideApproval',
  'getSettings',
  'updateSettings',
  'setSessionBudget',
  'setApiKey',
  'listModels',
  'testConnection',
  'chooseWorkspace',
  'listFolders',
  'listMcpServers',
  'trustMcpConfig',
  'openTerminal',
  'writeTerminal',
  'resizeTerminal',
  'closeTerminal',
  'teamStatus',
  'setTeamSettings',
  'listTeamSessions',
  'searchTeamSessions',
  'openTeamSession',
  'forkTeamSession',
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
  /** A playground run of this client, as it streams and when it ends (the whole run each time). */
  | { readonly kind: 'playground/run'; readonly run: PlaygroundRun }
  /** An MCP server started, stopped, failed or changed its tools: fetch `listMcpServers` again. */
  | { readonly kind: 'mcp/changed' }
  /** The team store's settings or the background publisher's state changed: fetch `teamStatus` again. */
  | { readonly kind: 'team/changed' }
  | { readonly kind: 'terminal/data'; readonly terminalId: string; readonly data: string }
  | { readonly kind: 'terminal/exit'; readonly terminalId: string; readonly exitCode: number };

/** Transport-neutral wire messages (JSON). */
export interface RpcRequest {
  readonly id: number;
  readonly method: string;
  readonly params: unknown;
}
export type RpcResponse = { readonly id: number; readonly ok: true; readonly result: unknown } | { readonly id: number; readonly ok: false; readonly error: ErrorRecord };
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
