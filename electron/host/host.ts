/**
 * Size: over 500 lines because it owns the live agents and subscriptions and their lifecycles;
 * the per-request logic lives in electron/host/services/ and host-connection.ts.
 *
 * Host: implements HostApi over the session repository and live agents (one agent per open
 * session) — docs/architecture.md §9. Transports (Electron IPC, browser-mode WebSocket) call `connect(push)` once
 * per client; subscriptions and terminals belong to that connection and end with it. A renderer
 * reload or a second window only subscribes and reads: nothing it does alone changes any log
 * (opening a cold session with an open last turn applies crash recovery, which is idempotent).
 */
import type { LiveSessionView } from '../telemetry/live-exporter.js';
import { homedir } from 'node:os';
import { parse } from 'node:path';
import type { AgentStatus, ApprovalRequest, ConnectionTestResult, HostPush, ModelListing, ProviderChoice, InboxSnapshot, SessionSummary, SettingsView, SubscribeResult } from '../../shared/api.js';
import { ForklineError } from '../../shared/errors.js';
import { isImportedSession, type CancelCause, type SessionEvent } from '../../shared/events.js';
import { firstUnreplayableSeq } from '../../shared/import-summary.js';
import type { IDisposable } from '../../shared/lifecycle.js';
import { DisposableStore } from '../../shared/lifecycle.js';
import { Agent, type AgentModelConfig } from '../agent/agent.js';
import { testConnection } from '../llm/connection-test.js';
import { fetchModelCatalog } from '../llm/model-catalog.js';
import { resolveModelLimits } from '../llm/model-limits.js';
import { recordFileReadsFromLog } from '../agent/file-reads.js';
import { ProjectInstructions } from '../agent/project-instructions.js';
import type { McpHub, McpLease } from '../mcp/mcp-hub.js';
import type { ApprovalAnswerer, PendingApproval } from '../agent/approval-gate.js';
import type { ModelClient, ModelRequest } from '../llm/model-client.js';
import type { RetryPolicy } from '../llm/retry-policy.js';
import { detectOllama, modelPreset, providerPreset, type OllamaDetection, type ProviderSettings } from '../llm/providers.js';
import { leftoverNotice, tailStart, type LiveSession, type SessionRepository } from '../store/session-repository.js';
import { describeOwner } from '../store/session-ownership.js';
import type { SessionRecord } from '../store/session-store.js';
import { InMemoryFileReadTracker } from '../tools/file-read-tracker.js';
import type { ProcessSupervisor } from '../tools/process-supervisor.js';
import { ToolRegistry } from '../tools/registry.js';
import type { ToolDefinition } from '../tools/tool.js';
import type { WorkspaceCheckpoints } from '../workspace/checkpoints.js';
import type { ClientConnection, HostClient } from './host-client.js';
import { recordedHereFrom } from '../store/session-provenance.js';
import { sessionWorkspace } from './workspace-folder.js';
import type { SettingsStore } from './settings-store.js';
import { limitInForce, ModelLimitStore } from './model-limit-store.js';
import { PublishedLimits } from './published-limits.js';
import type { Budget, SpendGuard } from '../agent/spend-guard.js';
import { TerminalManager } from './terminal-manager.js';
import { SessionCostCache } from './services/session-costs.js';
import type { TeamService } from './services/team-service.js';

/**
 * What one agent runs with instead of the shared settings (a fan-out branch): its own
 * route (provider, endpoint, model, effort), a system-prompt addendum (logged in its
 * `request/header`), and variables for its tool processes (`FORKLINE_BRANCH`, a port offset).
 */
export interface AgentRunOverrides {
  readonly route?: Partial<ProviderChoice>;
  readonly systemAddendum?: string;
  readonly toolEnv?: Readonly<Record<string, string>>;
}

export interface HostOptions<C extends ClientConnection = ClientConnection> {
  readonly repository: SessionRepository;
  /**
   * Live OTLP export (issue 26, electron/telemetry/live-trace-switch.ts): follows every session an
   * agent runs here; `reconfigure` re-reads the Settings field after it changed, `whenReady`
   * resolves once the exporter for the configuration in force is loaded.
   */
  readonly liveTraces?: { watch(session: LiveSessionView): IDisposable; reconfigure?(): void; whenReady?(): Promise<void> };
  /** The team store (issue 27): the Team section's reads and the background publisher; absent = none. */
  readonly team?: TeamService;
  readonly settings: SettingsStore;
  /** Builds a model client for the given provider settings (the real one: OpenAiCompatibleClient). */
  readonly createModelClient: (settings: ProviderSettings) => ModelClient;
  /** The tools every agent gets (the built-ins); `env`: variables added to tool processes' environment (e.g. a fan-out branch's). */
  readonly createTools: (env?: Readonly<Record<string, string>>) => ToolDefinition[];
  readonly newId: () => string;
  readonly now?: () => number;
  /** Native folder dialog (desktop app). Absent in browser mode. */
  readonly chooseWorkspace?: () => Promise<string | null>;
  /** Decides approvals without the UI (e.g. the CLI's terminal prompt). */
  readonly approvalAnswerer?: ApprovalAnswerer;
  /** Saves oversized tool output; returns its path. */
  readonly spill?: (sessionId: string, callId: string, text: string) => string | undefined;
  readonly maxParallelToolCalls?: number;
  /** Overrides the model retry policy (defaults: 5 retries, 0.5 s → 10 s backoff). */
  readonly retryPolicy?: Partial<RetryPolicy>;
  /** Workspace snapshots (shadow git in the data folder); absent = no checkpoints, no worktree forks. */
  readonly checkpoints?: WorkspaceCheckpoints;
  /** Where worktree forks get their folders (default: none → worktree forks refused). */
  readonly worktreesDir?: string;
  /** Probes for a local Ollama server (default: `detectOllama` on 127.0.0.1:11434). */
  readonly detectOllama?: () => Promise<OllamaDetection>;
  /** Supervises the processes tools start, so none outlives this process (process-supervisor.ts). */
  readonly supervisor?: ProcessSupervisor;
  /** Makes each live agent's price logger and budget check (electron/agent/spend-guard.ts). */
  readonly spendGuard?: (sessionBudget: () => Budget | undefined) => SpendGuard;
  /** Secret values (API keys) that tool results must never show (default: the keys in settings). */
  readonly toolSecrets?: () => readonly string[];
  /** Limits learned from providers, per endpoint + model (default: in memory only). */
  readonly limitStore?: ModelLimitStore;
  /** Reads what endpoints publish about their models (default: `fetchModelCatalog`, cached). */
  readonly publishedLimits?: PublishedLimits;
  /** The user-level project instructions file (`<data folder>/AGENTS.md`); absent = none. */
  readonly userInstructionsFile?: string;
  /** Where the request playground keeps its scratch runs (`<data folder>/playground`); absent = no playground. */
  readonly playgroundDir?: string;
  /** MCP servers per workspace; absent = no MCP tools. The host closes it. */
  readonly mcp?: McpHub;
  /**
   * How often the host looks for sessions written by another process (the CLI, another window's
   * host, an import's writer thread) to tell windows to refresh their session list (ms; default
   * {@link STORE_WATCH_MS}; 0 = never).
   */
  readonly storeWatchMs?: number;
  /**
   * Makes the connection of one client (the composition root passes `new HostConnection(host, push)`;
   * host.ts does not import host-connection.ts, which depends on it).
   */
  readonly newConnection: (host: Host<C>, push: (message: HostPush) => void) => C;
}

/** Default of {@link HostOptions.storeWatchMs}: a cheap `PRAGMA data_version` every 2 s. */
export const STORE_WATCH_MS = 2_000;

interface AgentHandle {
  readonly agent: Agent;
  readonly live: LiveSession;
  readonly disposables: DisposableStore;
  /** The workspace's MCP servers this agent holds. */
  readonly mcp?: McpLease;
}

interface Subscription {
  readonly id: string;
  readonly sessionId: string;
  lastSentSeq: number;
  readonly connection: HostClient;
}

/** The host; `C` is the connection class the composition root makes (HostConnection in the app). */
export class Host<C extends ClientConnection = ClientConnection> implements IDisposable {
  private readonly agents = new Map<string, AgentHandle>();
  /** Per-session cost totals for the session list, folded incrementally. */
  private readonly costs = new SessionCostCache();
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly connections = new Set<HostClient>();
  readonly terminals: TerminalManager;
  private readonly terminalOwners = new Map<string, HostClient>();
  private readonly pendingEvents = new Map<string, SessionEvent[]>();
  private flushScheduled = false;
  private closed = false;
  readonly limitStore: ModelLimitStore;
  private readonly published: PublishedLimits;

  private readonly claimLostSubscription: IDisposable;
  private readonly storeWatch: ReturnType<typeof setInterval> | undefined;

  constructor(readonly options: HostOptions<C>) {
    // Another Forkline took a session over: stop our agent on it (its events are no longer stored).
    this.claimLostSubscription = options.repository.onDidLoseClaim(({ sessionId, unsaved }) => {
      console.error(`session ${sessionId} was taken over by another Forkline; this window stopped working on it (${unsaved} event(s) not saved).`);
      const handle = this.agents.get(sessionId);
      handle?.agent.cancel({ kind: 'hook', reason: 'taken over by another Forkline' });
      void this.stopAgent(sessionId).finally(() => this.broadcast({ kind: 'sessions/changed' }));
    });
    this.limitStore = options.limitStore ?? new ModelLimitStore(undefined);
    this.published = options.publishedLimits ?? new PublishedLimits();
    options.mcp?.onDidChange(() => this.broadcast({ kind: 'mcp/changed' }));
    this.terminals = new TerminalManager(options.newId);
    this.terminals.onData(({ terminalId, data }) => this.terminalOwners.get(terminalId)?.push({ kind: 'terminal/data', terminalId, data }));
    this.terminals.onExit(({ terminalId, exitCode }) => {
      this.terminalOwners.get(terminalId)?.push({ kind: 'terminal/exit', terminalId, exitCode });
      this.terminalOwners.delete(terminalId);
    });
    // Sessions another process wrote (e.g. `forkline import` or `forkline run` beside an open window).
    const watchMs = options.storeWatchMs ?? STORE_WATCH_MS;
    if (watchMs > 0) {
      let seen: number | undefined;
      this.storeWatch = setInterval(() => {
        if (this.connections.size === 0) return;
        let version: number;
        try {
          version = options.repository.store.externalVersion();
        } catch {
          return; // a closed store: the host is closing
        }
        if (seen !== undefined && version !== seen) this.broadcast({ kind: 'sessions/changed' });
        seen = version;
      }, watchMs).unref();
    }
  }

  get repository(): SessionRepository {
    return this.options.repository;
  }

  /** Opens a client connection; `push` receives that client's live feed. */
  connect(push: (message: HostPush) => void): C {
    if (this.closed) throw new ForklineError('HOST_CLOSED', 'the host is shutting down');
    const connection = this.options.newConnection(this, push);
    this.connections.add(connection);
    return connection;
  }

  /** @internal called by a connection when it closes. */
  detach(connection: HostClient): void {
    this.connections.delete(connection);
    for (const [id, sub] of this.subscriptions) if (sub.connection === connection) this.subscriptions.delete(id);
    for (const [terminalId, owner] of this.terminalOwners) {
      if (owner === connection) {
        this.terminals.close(terminalId);
        this.terminalOwners.delete(terminalId);
      }
    }
  }

  broadcast(message: HostPush): void {
    for (const connection of this.connections) connection.push(message);
  }

  /** Pushes to every connection subscribed to `sessionId`. */
  pushToSubscribers(sessionId: string, message: HostPush): void {
    const seen = new Set<HostClient>();
    for (const sub of this.subscriptions.values()) {
      if (sub.sessionId === sessionId && !seen.has(sub.connection)) {
        seen.add(sub.connection);
        sub.connection.push(message);
      }
    }
  }

  agentFor(sessionId: string): Agent | undefined {
    return this.agents.get(sessionId)?.agent;
  }

  status(sessionId: string): AgentStatus {
    return this.agents.get(sessionId)?.agent.status ?? 'idle';
  }

  summary(record: SessionRecord): SessionSummary {
    const h = record.header;
    const ownedElsewhere = !this.agents.has(h.id) && this.repository.isOwnedElsewhere(record);
    return {
      id: h.id,
      ...(h.title !== undefined ? { title: h.title } : {}),
      ...(h.cwd !== undefined ? { cwd: h.cwd } : {}),
      createdAt: h.createdAt,
      updatedAt: record.updatedAt,
      eventCount: this.agents.get(h.id)?.live.session.length ?? record.eventCount,
      ...(h.parentSession !== undefined ? { parentSession: h.parentSession } : {}),
      ...(h.seedLength !== undefined ? { seedLength: h.seedLength } : {}),
      status: this.status(h.id),
      ...(ownedElsewhere ? { ownedElsewhere: true } : {}),
      ...(h.origin !== undefined ? { origin: h.origin } : {}),
      ...(record.lastTurn !== undefined ? { lastTurn: this.agents.get(h.id)?.live.session.state.openTurn !== undefined ? 'open' : record.lastTurn } : {}),
      ...((this.agents.get(h.id)?.agent.approvals.list.length ?? 0) > 0 ? { waitingApproval: true } : {}),
      ...this.costFacts(record),
      ...(this.options.settings.sessionBudget(h.id) ? { budget: this.options.settings.sessionBudget(h.id)! } : {}),
    };
  }

  /**
   * The list's cost facts of a session: its totals (folded incrementally, see SessionCostCache)
   * and, while a turn of this host's agent is open, when that turn started (the sidebar's meter).
   */
  private costFacts(record: SessionRecord): Pick<SessionSummary, 'cost' | 'turnStartedAt'> {
    const id = record.header.id;
    const live = this.agents.get(id)?.live.session;
    const events = live?.events;
    const length = events?.length ?? record.eventCount;
    const cost = this.costs.totals(id, length, (from, to) => (events ? events.slice(from, to) : this.repository.store.readRange(id, from, to)));
    let turnStartedAt: number | undefined;
    if (events && live.state.openTurn !== undefined) {
      for (let i = events.length - 1; i >= 0; i--) {
        const e = events[i]!;
        if (e.type === 'turn/start') {
          turnStartedAt = e.time;
          break;
        }
      }
    }
    return { ...(cost ? { cost } : {}), ...(turnStartedAt !== undefined ? { turnStartedAt } : {}) };
  }

  /**
   * Starts (or returns) the live agent of a session. Only what this installation recorded is used
   * to act: the workspace must be the session's own (never an imported file's), and read-before-edit
   * records and the checkpoint baseline come from the recorded tail of the log only. With `takeOver`,
   * a session that another running Forkline holds is taken over (the user confirmed it).
   * @throws ForklineError SESSION_READ_ONLY (imported session), WORKSPACE_UNTRUSTED, WORKSPACE_MISSING; StoreError SESSION_LIVE.
   */
  ensureAgent(sessionId: string, options: { readonly takeOver?: boolean; readonly run?: AgentRunOverrides } = {}): Agent {
    const existing = this.agents.get(sessionId);
    if (existing) return existing.agent;
    if (this.closed) throw new ForklineError('HOST_CLOSED', 'the host is shutting down');
    const record = this.repository.get(sessionId);
    if (!record) throw new ForklineError('SESSION_NOT_FOUND', `session ${sessionId} does not exist`);
    if (isImportedSession(record.header) || this.repository.importing(sessionId)) {
      const format = record.header.origin?.kind === 'imported' ? record.header.origin.format : 'another agent';
      throw new ForklineError(
        'SESSION_READ_ONLY',
        `this session was imported from ${format}: it can be inspected, searched, compared and exported, but not sent to or compacted in place. Continue it in Forkline instead — fork it at a closed turn into a live session with a folder of yours (forkline fork ID --cwd DIR, or "Continue in Forkline")`,
      );
    }
    const cwd = sessionWorkspace(record.header);
    const { settings } = this.options;
    const live = this.repository.resume(sessionId, options.takeOver ? { takeOver: true } : {});
    const run = options.run ?? {};
    const route = (): ProviderChoice => ({ ...settings.active, ...run.route });
    const files = new InMemoryFileReadTracker();
    const recordedFrom = Math.min(recordedHereFrom(this.repository, sessionId), live.session.length);
    recordFileReadsFromLog(live.session.eventsFrom(recordedFrom), cwd, files);
    const model: ModelClient = {
      stream: (request: ModelRequest, signal: AbortSignal) => this.options.createModelClient(settings.providerSettings(route())).stream(request, signal),
    };
    const tools = new ToolRegistry(this.options.createTools(run.toolEnv));
    const mcp = this.options.mcp?.acquire(cwd);
    const agent = new Agent({
      session: live.session,
      flush: () => live.flush(),
      model,
      tools,
      files,
      cwd,
      recordedFromSeq: recordedFrom,
      config: () => this.modelConfig(run.route ? route() : undefined),
      ...(run.systemAddendum !== undefined ? { systemAddendum: run.systemAddendum } : {}),
      onLimitsLearned: (learned) => {
        if (learned.baseUrl !== undefined) this.limitStore.learn(learned.baseUrl, learned.model, learned.contextWindow, learned.how);
      },
      approvalPolicy: () => settings.approvalPolicy,
      approvalRulesTrustedFrom: recordedFrom,
      toolSecrets: this.options.toolSecrets ?? (() => settings.secretValues()),
      newId: this.options.newId,
      ...(this.options.now ? { now: this.options.now } : {}),
      ...(this.options.approvalAnswerer ? { approvalAnswerer: this.options.approvalAnswerer } : {}),
      ...(this.options.maxParallelToolCalls !== undefined ? { maxParallelToolCalls: this.options.maxParallelToolCalls } : {}),
      ...(this.options.retryPolicy ? { retryPolicy: this.options.retryPolicy } : {}),
      ...(this.options.checkpoints && checkpointable(cwd) ? { checkpoint: (label: string) => this.options.checkpoints!.snapshot(cwd, `refs/forkline/${sessionId}`, label) } : {}),
      onToolOutput: ({ turn, step, callId, text }) => this.pushToSubscribers(sessionId, { kind: 'tool/output', sessionId, turn, step, callId, text }),
      ...(this.options.spill ? { spill: (callId: string, text: string) => this.options.spill!(sessionId, callId, text) } : {}),
      ...(this.options.supervisor ? { supervisor: this.options.supervisor } : {}),
      ...(this.options.spendGuard ? { spendGuard: this.options.spendGuard(() => this.options.settings.sessionBudget(sessionId)) } : {}),
      instructions: new ProjectInstructions({ cwd, ...(this.options.userInstructionsFile !== undefined ? { userFile: this.options.userInstructionsFile } : {}) }),
      ...(mcp
        ? {
            beforeRequest: async (signal: AbortSignal) => {
              await mcp.servers.ready(signal);
              mcp.servers.noteProblems(tools.setForeign(mcp.servers.toolDefinitions()));
            },
          }
        : {}),
    });
    const disposables = new DisposableStore();
    if (this.options.liveTraces) disposables.add(this.options.liveTraces.watch(live.session));
    disposables.add(
      live.session.onDidAppend((event) => {
        this.queueEvent(sessionId, event);
        // The session list's cost and meter move with each billed response and turn.
        if (event.type === 'assistant/message' || event.type === 'compaction/summary' || event.type === 'turn/start' || event.type === 'turn/end') this.broadcast({ kind: 'sessions/changed' });
      }),
    );
    disposables.add(
      agent.onDidChangeStatus((status) => {
        this.broadcast({ kind: 'session/status', sessionId, status });
        this.broadcast({ kind: 'sessions/changed' });
      }),
    );
    disposables.add(agent.onDidChangeInbox((inbox) => this.pushToSubscribers(sessionId, { kind: 'session/inbox', sessionId, inbox })));
    disposables.add(
      agent.onDidChangeApprovals((list) => {
        this.pushToSubscribers(sessionId, { kind: 'session/approvals', sessionId, approvals: list.map((q) => toApprovalRequest(sessionId, q)) });
        // The session list shows which sessions wait for a decision.
        this.broadcast({ kind: 'sessions/changed' });
      }),
    );
    disposables.add(live.onDidFailWrite(({ error, pending }) => console.error(`session ${sessionId}: a background write failed (${pending} events kept for retry):`, error)));
    this.agents.set(sessionId, { agent, live, disposables, ...(mcp ? { mcp } : {}) });
    // Events the resume appended (session/end-seed) before anyone listened.
    for (const sub of this.subscriptions.values()) {
      if (sub.sessionId === sessionId) for (const event of live.session.eventsFrom(sub.lastSentSeq + 1)) this.queueEvent(sessionId, event);
    }
    return agent;
  }

  private queueEvent(sessionId: string, event: SessionEvent): void {
    let list = this.pendingEvents.get(sessionId);
    if (!list) {
      list = [];
      this.pendingEvents.set(sessionId, list);
    }
    list.push(event);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flushEvents());
    }
  }

  /** Sends queued events to subscribers, each subscription only past its last sent seq. */
  private flushEvents(): void {
    this.flushScheduled = false;
    const batches = [...this.pendingEvents];
    this.pendingEvents.clear();
    for (const [sessionId, events] of batches) {
      for (const sub of this.subscriptions.values()) {
        if (sub.sessionId !== sessionId) continue;
        const fresh = events.filter((e) => e.seq > sub.lastSentSeq);
        if (fresh.length === 0) continue;
        sub.lastSentSeq = fresh[fresh.length - 1]!.seq;
        sub.connection.push({ kind: 'session/events', subscriptionId: sub.id, sessionId, events: fresh });
      }
    }
  }

  /**
   * @internal `tail` (only with `fromSeq` 0): send about the last `tail` events of a long session
   * instead of all of them (the client reads earlier ones on demand).
   */
  subscribe(connection: HostClient, sessionId: string, fromSeq: number, tail?: number): SubscribeResult {
    const handle = this.agents.get(sessionId);
    const notices: string[] = [];
    let events: readonly SessionEvent[];
    let header;
    let readOnly = false;
    let imported: SubscribeResult['imported'];
    let startSeq = fromSeq;
    let eventCount: number;
    if (handle) {
      const session = handle.live.session;
      if (tail !== undefined && fromSeq === 0) startSeq = tailStart(session.events, 0, session.length, tail);
      events = session.eventsFrom(startSeq);
      eventCount = session.length;
      header = { ...session.header, ...titleOf(this.repository.get(sessionId)) };
    } else {
      if (this.repository.importing(sessionId)) throw new ForklineError('SESSION_NOT_FOUND', `session ${sessionId} is still being imported`);
      // An imported log is read whole: how far it can be continued depends on every record in it.
      const importedLog = this.repository.get(sessionId)?.header.origin?.kind === 'imported';
      const loaded = tail !== undefined && fromSeq === 0 && !importedLog ? this.repository.loadTail(sessionId, tail) : { ...this.repository.load(sessionId), startSeq: 0 };
      header = loaded.record.header;
      startSeq = Math.max(fromSeq, loaded.startSeq);
      if (importedLog && tail !== undefined && fromSeq === 0) startSeq = tailStart(loaded.events, 0, loaded.events.length, tail);
      events = loaded.events.slice(startSeq - loaded.startSeq);
      eventCount = loaded.startSeq + loaded.events.length;
      readOnly = loaded.ownedElsewhere;
      if (loaded.repaired > 0)
        notices.push(`This session was interrupted (the app closed or crashed during a turn). ${loaded.repaired} closing event(s) were added so the log is balanced; nothing was deleted.`);
      for (const left of loaded.leftovers) notices.push(leftoverNotice(left));
      if (readOnly) {
        const owner = loaded.record.owner;
        notices.push(`Another running Forkline holds this session${owner ? ` (${describeOwner(owner)})` : ''}: it is shown read-only here.`);
      }
      if (header.origin?.kind === 'imported') {
        readOnly = true;
        const limit = firstUnreplayableSeq(loaded.events);
        let until: number | undefined;
        if (limit !== undefined) for (let i = limit - 1; i >= 0 && until === undefined; i--) if (loaded.events[i]!.type === 'turn/end') until = i;
        imported = { format: header.origin.format, ...(limit !== undefined ? { continuableUntilSeq: until ?? -1 } : {}) };
        notices.push(
          `Imported from ${header.origin.format}${header.origin.file ? ` (${header.origin.file})` : ''}: read-only. Continue in Forkline forks it at a closed turn into a live session in a folder you choose.` +
            (limit !== undefined ? ` Seq ${limit} changed what its model saw and cannot be replayed, so it can be continued only from a turn that ends before it.` : ''),
        );
      }
    }
    const subscriptionId = this.options.newId();
    const lastSentSeq = startSeq + events.length - 1;
    this.subscriptions.set(subscriptionId, { id: subscriptionId, sessionId, lastSentSeq, connection });
    const agent = handle?.agent;
    return {
      subscriptionId,
      header,
      events,
      status: agent?.status ?? 'idle',
      inbox: agent ? (agent.inbox.state as InboxSnapshot) : { nextTurn: [], nextStep: [] },
      approvals: agent ? agent.approvals.list.map((q) => toApprovalRequest(sessionId, q)) : [],
      notices,
      readOnly,
      ...(imported ? { imported } : {}),
      startSeq,
      eventCount,
    };
  }

  /**
   * The model configuration for the next request: the settings' route and the limits in force, in
   * docs/architecture.md §5 order (setting → published / preset, lowered by what was learned; see
   * `resolveModelLimits`). The endpoint's published limits are looked up only when neither the
   * person nor our preset table knows the window.
   */
  async modelConfig(choice?: ProviderChoice): Promise<AgentModelConfig> {
    const { settings } = this.options;
    const base = settings.modelConfig(choice);
    const route = settings.providerSettings(choice);
    const setting = settings.limitSetting(route.baseUrl, route.model);
    const preset = modelPreset(route.provider, route.model);
    const learned = this.limitStore.get(route.baseUrl, route.model);
    const published = setting.contextWindow === undefined && preset === undefined ? await this.published.limitsFor(route.provider, route.baseUrl, route.apiKey, route.model) : undefined;
    const resolved = resolveModelLimits({
      setting,
      ...(learned ? { learned: { contextWindow: learned.contextWindow } } : {}),
      ...(published ? { published } : {}),
      ...(preset ? { preset: { contextWindow: preset.contextWindow, maxOutputTokens: preset.maxOutputTokens } } : {}),
    });
    const { contextWindow: _w, contextSource: _s, maxOutputTokens: _m, ...rest } = base;
    return { ...rest, ...resolved };
  }

  /** The endpoint's models and their known windows (HostApi `listModels`). */
  async listModels(params: { provider: string; baseUrl?: string }): Promise<ModelListing> {
    const baseUrl = params.baseUrl ?? providerPreset(params.provider).baseUrl;
    if (baseUrl.trim() === '') throw new ForklineError('INVALID_SETTINGS', 'no base URL: give one for a custom endpoint');
    const catalog = await fetchModelCatalog({ provider: params.provider, baseUrl, ...(this.apiKeyFor(params.provider) ? { apiKey: this.apiKeyFor(params.provider)! } : {}) });
    return {
      models: catalog.models.map((m) => ({ id: m.id, ...(m.contextWindow !== undefined ? { contextWindow: m.contextWindow } : {}), ...(m.maxOutput !== undefined ? { maxOutput: m.maxOutput } : {}) })),
      source: catalog.source,
      listedByEndpoint: catalog.listedByEndpoint,
    };
  }

  /**
   * One tiny request through the same client sessions use (HostApi `testConnection`). The stored or
   * environment key of `provider` is used unless `apiKey` is given; a compromised renderer could
   * point it at another URL, but it could already do so through `updateSettings`.
   */
  async testConnection(params: { provider: string; baseUrl?: string; model: string; apiKey?: string }): Promise<ConnectionTestResult> {
    const baseUrl = params.baseUrl ?? providerPreset(params.provider).baseUrl;
    const apiKey = params.apiKey !== undefined && params.apiKey !== '' ? params.apiKey : this.apiKeyFor(params.provider);
    const client = this.options.createModelClient({ provider: params.provider, baseUrl, model: params.model, idleTimeoutMs: 20_000, ...(apiKey !== undefined ? { apiKey } : {}) });
    return testConnection(client, { provider: params.provider, model: params.model });
  }

  private apiKeyFor(provider: string): string | undefined {
    return this.options.settings.apiKey(provider);
  }

  private ollama: { at: number; models: readonly string[] } | undefined;

  /** Adds the models of a local Ollama server, when one answers on 127.0.0.1:11434 (cached 30 s). */
  /** The Settings view: the saved settings, the models a local server offers, and the learned windows. */
  async settingsView(): Promise<SettingsView> {
    const view = await this.withLocalModels(this.options.settings.view());
    const learnedLimits = Object.entries(this.limitStore.all()).map(([key, limit]) => {
      const bar = key.indexOf('|');
      return { baseUrl: key.slice(0, bar), model: key.slice(bar + 1), contextWindow: limit.contextWindow, how: limit.how, at: limit.at, inForce: limitInForce(limit) };
    });
    return { ...view, learnedLimits };
  }

  async withLocalModels(view: SettingsView): Promise<SettingsView> {
    const now = Date.now();
    if (!this.ollama || now - this.ollama.at > 30_000) {
      const found = await (this.options.detectOllama ?? detectOllama)();
      this.ollama = { at: now, models: found.available ? found.models : [] };
    }
    const models = this.ollama.models;
    if (models.length === 0) return view;
    return {
      ...view,
      presets: view.presets.map((p) => (p.id === 'ollama' ? { ...p, label: `${p.label} — detected`, models: models.map((id) => ({ id })) } : p)),
    };
  }

  /**
   * Refuses to start work that cannot reach the model: a provider that needs an API key and has
   * none. Checked before a turn starts, so no turn is logged for a request that was never sent.
   * @throws ForklineError MISSING_CREDENTIAL
   */
  requireCredential(): void {
    const settings = this.options.settings.providerSettings();
    const preset = providerPreset(settings.provider);
    if (preset.requiresApiKey && (settings.apiKey === undefined || settings.apiKey === '')) {
      throw new ForklineError('MISSING_CREDENTIAL', `no API key for ${preset.label}: add one in Settings${preset.apiKeyEnv ? ` or set ${preset.apiKeyEnv}` : ''}`);
    }
  }

  /** @internal */
  unsubscribe(subscriptionId: string): void {
    this.subscriptions.delete(subscriptionId);
  }

  /** @internal */
  ownTerminal(terminalId: string, connection: HostClient): void {
    this.terminalOwners.set(terminalId, connection);
  }

  /**
   * Stops an agent and releases its session: a running turn is cancelled with `cause` (default
   * `disposed`), which logs its closers (aborted calls, `step/end`, `turn/end{aborted}`), then the
   * log is flushed.
   */
  async stopAgent(sessionId: string, cause?: CancelCause): Promise<void> {
    const handle = this.agents.get(sessionId);
    if (!handle) return;
    this.agents.delete(sessionId);
    if (cause) handle.agent.cancel(cause, { keepInbox: true });
    await handle.agent.dispose();
    handle.disposables.dispose();
    await handle.mcp?.release();
    await handle.live.release();
  }

  /**
   * The shutdown path (app quit, `serve` stopped, a signal): refuses new clients, cancels every
   * running turn with `cause` (default `disposed`), persists every live session and closes terminals.
   */
  async close(cause?: CancelCause): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.storeWatch);
    for (const connection of [...this.connections]) connection.dispose();
    await Promise.all([...this.agents.keys()].map((id) => this.stopAgent(id, cause)));
    await this.options.mcp?.close();
    this.terminals.dispose();
    this.claimLostSubscription.dispose();
  }

  dispose(): void {
    void this.close();
  }
}

/** Whether a folder may be snapshotted (never a home folder or a filesystem root: far too big). */
function checkpointable(cwd: string): boolean {
  return cwd !== homedir() && cwd !== parse(cwd).root;
}

function toApprovalRequest(sessionId: string, q: PendingApproval): ApprovalRequest {
  return { id: q.id, sessionId, callId: q.callId, toolName: q.toolName, arguments: q.arguments, reason: q.reason, ...(q.preview !== undefined ? { preview: q.preview } : {}) };
}

function titleOf(record: SessionRecord | undefined): { title?: string } {
  return record?.header.title !== undefined ? { title: record.header.title } : {};
}
