/**
 * Host: implements HostApi over the session repository and live agents (one agent per open
 * session) — DESIGN §9. Transports (Electron IPC, browser-mode WebSocket) call `connect(push)` once
 * per client; subscriptions and terminals belong to that connection and end with it. A renderer
 * reload or a second window only subscribes and reads: nothing it does alone changes any log
 * (opening a cold session with an open last turn applies crash recovery, which is idempotent).
 */
import { homedir } from 'node:os';
import { parse } from 'node:path';
import type {
  AgentStatus,
  ApprovalRequest,
  HostPush,
  InboxSnapshot,
  SessionSummary,
  SettingsView,
  SubscribeResult,
} from '../../shared/api.js';
import { ForklineError } from '../../shared/errors.js';
import type { SessionEvent } from '../../shared/events.js';
import type { IDisposable } from '../../shared/lifecycle.js';
import { DisposableStore } from '../../shared/lifecycle.js';
import { Agent } from '../agent/agent.js';
import { recordFileReadsFromLog } from '../agent/file-reads.js';
import type { ApprovalAnswerer, PendingApproval } from '../agent/approval-gate.js';
import type { ModelClient, ModelRequest } from '../llm/model-client.js';
import type { RetryPolicy } from '../llm/retry-policy.js';
import { detectOllama, providerPreset, type OllamaDetection, type ProviderSettings } from '../llm/providers.js';
import type { LiveSession, SessionRepository } from '../store/session-repository.js';
import type { SessionRecord } from '../store/session-store.js';
import { InMemoryFileReadTracker } from '../tools/file-read-tracker.js';
import { ToolRegistry } from '../tools/registry.js';
import type { ToolDefinition } from '../tools/tool.js';
import type { WorkspaceCheckpoints } from '../workspace/checkpoints.js';
import { HostConnection } from './host-connection.js';
import type { ProviderProbeDeps } from './provider-probe.js';
import { realWorkspace } from './workspace-folder.js';
import type { SettingsStore } from './settings-store.js';
import { TerminalManager } from './terminal-manager.js';

export interface HostOptions {
  readonly repository: SessionRepository;
  readonly settings: SettingsStore;
  /** Builds a model client for the current provider settings (the real one: OpenAiCompatibleClient). */
  readonly createModelClient: (settings: ProviderSettings) => ModelClient;
  /** The tools every agent gets (the built-ins). */
  readonly createTools: () => ToolDefinition[];
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
}

interface AgentHandle {
  readonly agent: Agent;
  readonly live: LiveSession;
  readonly disposables: DisposableStore;
}

interface Subscription {
  readonly id: string;
  readonly sessionId: string;
  lastSentSeq: number;
  readonly connection: HostConnection;
}

export class Host implements IDisposable {
  private readonly agents = new Map<string, AgentHandle>();
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly connections = new Set<HostConnection>();
  readonly terminals: TerminalManager;
  private readonly terminalOwners = new Map<string, HostConnection>();
  private readonly pendingEvents = new Map<string, SessionEvent[]>();
  private flushScheduled = false;
  private closed = false;

  constructor(readonly options: HostOptions) {
    this.terminals = new TerminalManager(options.newId);
    this.terminals.onData(({ terminalId, data }) => this.terminalOwners.get(terminalId)?.push({ kind: 'terminal/data', terminalId, data }));
    this.terminals.onExit(({ terminalId, exitCode }) => {
      this.terminalOwners.get(terminalId)?.push({ kind: 'terminal/exit', terminalId, exitCode });
      this.terminalOwners.delete(terminalId);
    });
  }

  get repository(): SessionRepository {
    return this.options.repository;
  }

  /** Opens a client connection; `push` receives that client's live feed. */
  connect(push: (message: HostPush) => void): HostConnection {
    if (this.closed) throw new ForklineError('HOST_CLOSED', 'the host is shutting down');
    const connection = new HostConnection(this, push);
    this.connections.add(connection);
    return connection;
  }

  /** @internal called by a connection when it closes. */
  detach(connection: HostConnection): void {
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
    const seen = new Set<HostConnection>();
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
    const ownedElsewhere = record.ownerPid !== undefined && record.ownerPid !== process.pid && isAlive(record.ownerPid);
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
    };
  }

  /** Starts (or returns) the live agent of a session. @throws ForklineError WORKSPACE_MISSING, StoreError SESSION_LIVE. */
  ensureAgent(sessionId: string): Agent {
    const existing = this.agents.get(sessionId);
    if (existing) return existing.agent;
    if (this.closed) throw new ForklineError('HOST_CLOSED', 'the host is shutting down');
    const record = this.repository.get(sessionId);
    if (!record) throw new ForklineError('SESSION_NOT_FOUND', `session ${sessionId} does not exist`);
    const cwd = realWorkspace(record.header.cwd);
    const live = this.repository.resume(sessionId);
    const files = new InMemoryFileReadTracker();
    recordFileReadsFromLog(live.session.events, cwd, files);
    const { settings } = this.options;
    const model: ModelClient = {
      stream: (request: ModelRequest, signal: AbortSignal) => this.options.createModelClient(settings.providerSettings()).stream(request, signal),
    };
    const agent = new Agent({
      session: live.session,
      flush: () => live.flush(),
      model,
      tools: new ToolRegistry(this.options.createTools()),
      files,
      cwd,
      config: () => settings.modelConfig(),
      approvalPolicy: () => settings.approvalPolicy,
      newId: this.options.newId,
      ...(this.options.now ? { now: this.options.now } : {}),
      ...(this.options.approvalAnswerer ? { approvalAnswerer: this.options.approvalAnswerer } : {}),
      ...(this.options.maxParallelToolCalls !== undefined ? { maxParallelToolCalls: this.options.maxParallelToolCalls } : {}),
      ...(this.options.retryPolicy ? { retryPolicy: this.options.retryPolicy } : {}),
      ...(this.options.checkpoints && checkpointable(cwd)
        ? { checkpoint: (label: string) => this.options.checkpoints!.snapshot(cwd, `refs/forkline/${sessionId}`, label) }
        : {}),
      onToolOutput: ({ turn, step, callId, text }) => this.pushToSubscribers(sessionId, { kind: 'tool/output', sessionId, turn, step, callId, text }),
      ...(this.options.spill ? { spill: (callId: string, text: string) => this.options.spill!(sessionId, callId, text) } : {}),
    });
    const disposables = new DisposableStore();
    disposables.add(live.session.onDidAppend((event) => this.queueEvent(sessionId, event)));
    disposables.add(
      agent.onDidChangeStatus((status) => {
        this.broadcast({ kind: 'session/status', sessionId, status });
        this.broadcast({ kind: 'sessions/changed' });
      }),
    );
    disposables.add(agent.onDidChangeInbox((inbox) => this.pushToSubscribers(sessionId, { kind: 'session/inbox', sessionId, inbox })));
    disposables.add(agent.onDidChangeApprovals((list) => this.pushToSubscribers(sessionId, { kind: 'session/approvals', sessionId, approvals: list.map((q) => toApprovalRequest(sessionId, q)) })));
    disposables.add(live.onDidFailWrite(({ error, pending }) => console.error(`session ${sessionId}: a background write failed (${pending} events kept for retry):`, error)));
    this.agents.set(sessionId, { agent, live, disposables });
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

  /** @internal */
  subscribe(connection: HostConnection, sessionId: string, fromSeq: number): SubscribeResult {
    const handle = this.agents.get(sessionId);
    const notices: string[] = [];
    let events: readonly SessionEvent[];
    let header;
    let readOnly = false;
    if (handle) {
      events = handle.live.session.eventsFrom(fromSeq);
      header = { ...handle.live.session.header, ...titleOf(this.repository.get(sessionId)) };
    } else {
      const loaded = this.repository.load(sessionId);
      header = loaded.record.header;
      events = loaded.events.slice(fromSeq);
      readOnly = loaded.ownedElsewhere;
      if (loaded.repaired > 0) notices.push(`This session was interrupted (the app closed or crashed during a turn). ${loaded.repaired} closing event(s) were added so the log is balanced; nothing was deleted.`);
      if (readOnly) notices.push('Another running Forkline holds this session: it is shown read-only here.');
    }
    const subscriptionId = this.options.newId();
    const lastSentSeq = fromSeq + events.length - 1;
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
    };
  }

  private ollama: { at: number; models: readonly string[] } | undefined;

  /** Adds the models of a local Ollama server, when one answers on 127.0.0.1:11434 (cached 30 s). */
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

  /** What provider probing (listModels / testConnection) needs from this host. */
  probeDeps(): ProviderProbeDeps {
    const { settings } = this.options;
    return { apiKey: (provider) => settings.apiKey(provider), active: () => settings.active, createModelClient: this.options.createModelClient };
  }

  /** @internal */
  unsubscribe(subscriptionId: string): void {
    this.subscriptions.delete(subscriptionId);
  }

  /** @internal */
  ownTerminal(terminalId: string, connection: HostConnection): void {
    this.terminalOwners.set(terminalId, connection);
  }

  /** Stops an agent (cancel with cause `disposed`) and releases its session. */
  async stopAgent(sessionId: string): Promise<void> {
    const handle = this.agents.get(sessionId);
    if (!handle) return;
    this.agents.delete(sessionId);
    await handle.agent.dispose();
    handle.disposables.dispose();
    await handle.live.release();
  }

  /** Stops every agent and persists every live session. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const connection of [...this.connections]) connection.dispose();
    await Promise.all([...this.agents.keys()].map((id) => this.stopAgent(id)));
    this.terminals.dispose();
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
  return { id: q.id, sessionId, callId: q.callId, toolName: q.toolName, arguments: q.arguments, reason: q.reason };
}


function titleOf(record: SessionRecord | undefined): { title?: string } {
  return record?.header.title !== undefined ? { title: record.header.title } : {};
}



function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
