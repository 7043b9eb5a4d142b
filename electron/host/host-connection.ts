/**
 * HostConnection: one client's view of the Host (a browser tab over the WebSocket, or the desktop
 * window over IPC). Every HostApi method is implemented here; subscriptions and terminals opened
 * through a connection belong to it and end with it.
 *
 * The handlers only route: per-client state (subscriptions, streaming imports, terminals) stays
 * here; the work is in electron/host/services/ (session-reader, session-fork, session-compare,
 * workspace-checkpoints, session-imports, branch-actions, session-title, bundle-transfer,
 * session-replay, request-playground, team-service) or the Host.
 *
 * Size: over 500 lines because it is the one table of HostApi handlers (one short routing method
 * per API method, checked against HostMethods by the compiler); each handler's work is a service.
 */
import type {
  ApplyBranchResult,
  BundleDownload,
  BundleImportView,
  DownloadChunk,
  DiscardResult,
  FanoutStarted,
  FanoutVariantInput,
  RewindResult,
  CompareResult,
  HostMethods,
  HostParams,
  HostPush,
  McpServerStatus,
  RequestInspection,
  RequestSummary,
  SearchResult,
  SessionSummary,
  SubscribeResult,
} from '../../shared/api.js';
import type { RankedReport } from '../../shared/branch-ranking.js';
import type { PlaygroundRun } from '../../shared/playground.js';
import type { ReplayReport } from '../../shared/replay.js';
import { ForklineError } from '../../shared/errors.js';
import { isImportedSession, type SessionEvent } from '../../shared/events.js';
import type { ImportSummary } from '../../shared/import-summary.js';
import type { IDisposable } from '../../shared/lifecycle.js';
import { parseSearchQuery, searchSnippet } from '../../shared/search-query.js';
import type { SessionRepository } from '../store/session-repository.js';
import type { SessionRecord } from '../store/session-store.js';
import type { HostHandlers } from './dispatch.js';
import { listFolders } from './folders.js';
import type { Host } from './host.js';
import { inspectSessionRequest, listRequests, requestStream } from './request-inspector.js';
import type { BranchDiff } from '../../shared/branch-ranking.js';
import { applyBranch, cancelFanout, discardBranch, proposedCheckFor, rewindSession, startFanout, type BranchDeps } from './services/branch-actions.js';
import { branchDiff, compareSessions, rankBranches } from './services/session-compare.js';
import { forkSession } from './services/session-fork.js';
import { BundleTransfers } from './services/bundle-transfer.js';
import { forkBeforePrompt } from './services/prompt-fork.js';
import { PlaygroundRunStore, startPlaygroundRun } from './services/request-playground.js';
import { replayHostSession } from './services/session-replay.js';
import { beginImport, importText, type ImportJob } from './services/session-imports.js';
import { SessionReader } from './services/session-reader.js';
import { titleFromPrompt } from './services/session-title.js';
import type { TeamService } from './services/team-service.js';
import type { TeamSearchHitView, TeamSessionView, TeamStatus } from '../../shared/team.js';
import { realWorkspace, sessionWorkspace } from './workspace-folder.js';

/** Streaming imports one connection may run at once. */
const MAX_OPEN_IMPORTS = 4;

/** One client's view of the host: every HostApi method, bound to this connection. */
export class HostConnection implements HostHandlers, IDisposable {
  private disposed = false;
  /** Streaming imports this connection started and has not ended. */
  private readonly imports = new Map<string, ImportJob>();
  /** Bundle downloads and uploads this connection opened and has not ended. */
  private readonly bundles: BundleTransfers;
  /** Playground runs this connection started that are still streaming, by run id. */
  private readonly playgroundRuns = new Map<string, () => void>();
  /** The one "live log or stored log" read. */
  private readonly reader: SessionReader;
  constructor(
    private readonly host: Host<HostConnection>,
    private readonly sink: (message: HostPush) => void,
  ) {
    this.reader = new SessionReader(host.repository, (id) => host.agentFor(id)?.session);
    this.bundles = new BundleTransfers({
      repository: () => host.repository,
      checkpointsGitDir: () => host.options.checkpoints?.gitDir,
      configuredKeys: () => host.options.settings.secretValues(),
      newId: () => host.options.newId(),
      sessionsChanged: () => host.broadcast({ kind: 'sessions/changed' }),
    });
  }

  push(message: HostPush): void {
    if (this.disposed) return;
    try {
      this.sink(message);
    } catch (error) {
      console.error('a client push failed:', error);
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const job of this.imports.values()) job.abort();
    this.imports.clear();
    this.bundles.dispose();
    for (const abort of this.playgroundRuns.values()) abort();
    this.playgroundRuns.clear();
    this.host.detach(this);
  }

  private get repo(): SessionRepository {
    return this.host.repository;
  }

  listSessions(): SessionSummary[] {
    // The repository's list leaves out imports that have not finished.
    return this.repo.list().map((r) => this.host.summary(r));
  }

  createSession(params: { cwd: string; title?: string }): SessionSummary {
    const cwd = realWorkspace(params.cwd);
    const record = this.repo.createStored({ cwd, ...(params.title ? { title: params.title } : {}) });
    this.host.broadcast({ kind: 'sessions/changed' });
    return this.host.summary(record);
  }

  subscribeSession(params: { sessionId: string; fromSeq: number; tail?: number }): SubscribeResult {
    return this.host.subscribe(this, params.sessionId, params.fromSeq, params.tail);
  }

  readEvents(params: { sessionId: string; fromSeq: number; toSeq: number }): { events: readonly SessionEvent[] } {
    return { events: this.reader.range(params.sessionId, params.fromSeq, params.toSeq) };
  }

  unsubscribeSession(params: { subscriptionId: string }): null {
    this.host.unsubscribe(params.subscriptionId);
    return null;
  }

  renameSession(params: { sessionId: string; title: string }): null {
    this.repo.rename(params.sessionId, params.title.trim() === '' ? undefined : params.title.trim());
    this.host.broadcast({ kind: 'sessions/changed' });
    return null;
  }

  async deleteSession(params: { sessionId: string }): Promise<null> {
    await this.host.stopAgent(params.sessionId);
    this.repo.delete(params.sessionId);
    this.host.broadcast({ kind: 'sessions/changed' });
    return null;
  }

  /** Forks at a closed turn (electron/host/services/session-fork.ts holds the rules). */
  async forkSession(params: { sessionId: string; atSeq?: number; worktree?: boolean; cwd?: string }): Promise<SessionSummary> {
    const { newId, checkpoints, worktreesDir } = this.host.options;
    const child = await forkSession({ repository: this.repo, reader: this.reader, newId, ...(checkpoints ? { checkpoints } : {}), ...(worktreesDir !== undefined ? { worktreesDir } : {}) }, params);
    this.host.broadcast({ kind: 'sessions/changed' });
    return this.host.summary(child);
  }

  /** Two branches side by side (electron/host/services/session-compare.ts). */
  compareSessions(params: { a: string; b: string; files?: boolean }): Promise<CompareResult> {
    const { checkpoints } = this.host.options;
    return compareSessions({ repository: this.repo, reader: this.reader, ...(checkpoints ? { checkpoints } : {}) }, params);
  }

  /** Branches ranked with their figures, as a fan-out ranks them; running branches from their live logs, marked provisional (services/session-compare.ts). */
  rankBranches(params: { sessionIds: readonly string[] }): Promise<RankedReport> {
    const { checkpoints } = this.host.options;
    return rankBranches({ repository: this.repo, ...(checkpoints ? { checkpoints } : {}), liveSession: (id) => this.host.agentFor(id)?.session }, params.sessionIds);
  }

  /**
   * A branch's file diff against its fork point (issue 21's board); beside `comparedWith`, against the
   * point where the history they share ends (the same point `rankBranches` counts its diff from).
   */
  branchDiff(params: { sessionId: string; comparedWith?: readonly string[] }): Promise<BranchDiff> {
    const { checkpoints } = this.host.options;
    return branchDiff({ repository: this.repo, ...(checkpoints ? { checkpoints } : {}), liveSession: (id) => this.host.agentFor(id)?.session }, params);
  }

  /** What the branch actions use of this host (electron/host/services/branch-actions.ts). */
  private get branchDeps(): BranchDeps<HostConnection> {
    return { host: this.host, repository: this.repo, settings: this.host.options.settings };
  }

  /** The check a fan-out would run, proposed from the session's project (README "Fan-out, apply, rewind"). */
  proposeFanoutCheck(params: { sessionId: string }): { check?: string } {
    if (!this.repo.get(params.sessionId)) throw new ForklineError('SESSION_NOT_FOUND', `session ${params.sessionId} does not exist`);
    const check = proposedCheckFor(this.branchDeps, params.sessionId);
    return check !== undefined ? { check } : {};
  }

  /** Starts a fan-out (checked and forked before it returns; the branches run in the background). */
  async startFanout(params: { sessionId: string; atSeq?: number; prompt: string; variants: readonly FanoutVariantInput[]; check?: string; concurrency?: number }): Promise<FanoutStarted> {
    this.host.requireCredential();
    return startFanout(this.branchDeps, params);
  }

  /** Cancels every branch of a running fan-out. */
  cancelFanout(params: { fanoutId: string }): { cancelled: boolean } {
    return { cancelled: cancelFanout(this.branchDeps, params.fanoutId) };
  }

  /** A branch merged three-way into its parent's folder. */
  async applyBranch(params: { sessionId: string }): Promise<ApplyBranchResult> {
    const result = await applyBranch(this.branchDeps, params.sessionId);
    this.host.broadcast({ kind: 'sessions/changed' });
    return result;
  }

  /** A session's folder rewound to a turn; the conversation continues in a new fork. */
  rewindSession(params: { sessionId: string; toSeq: number }): Promise<RewindResult> {
    return rewindSession(this.branchDeps, params.sessionId, params.toSeq);
  }

  /** A branch's own folder removed (never the user's). */
  discardBranch(params: { sessionId: string }): Promise<DiscardResult> {
    return discardBranch(this.branchDeps, params.sessionId);
  }

  exportSession(params: { sessionId: string }): { fileName: string; jsonl: string } {
    const jsonl = this.repo.exportJsonl(params.sessionId);
    const title = this.repo.get(params.sessionId)?.header.title ?? 'session';
    const slug =
      title
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '')
        .slice(0, 40) || 'session';
    return { fileName: `forkline-${slug}-${params.sessionId.slice(0, 8)}.jsonl`, jsonl };
  }

  /** A session's bundle for the renderer to read in chunks (electron/host/services/bundle-transfer.ts, as are the bundle methods below). */
  exportBundle(params: { sessionId: string; withFiles?: boolean }): Promise<BundleDownload> {
    return this.bundles.exportBundle(params);
  }

  importBundleBegin(params: { fileName: string; size?: number }): { importId: string } {
    return this.bundles.importBundleBegin(params);
  }

  importBundleChunk(params: { importId: string; text: string }): { bytes: number } {
    return this.bundles.importBundleChunk(params);
  }

  importBundleEnd(params: { importId: string }): Promise<BundleImportView> {
    return this.bundles.importBundleEnd(params);
  }

  importBundleAbort(params: { importId: string }): null {
    return this.bundles.importBundleAbort(params);
  }

  readDownload(params: { downloadId: string }): DownloadChunk {
    return this.bundles.readDownload(params);
  }

  closeDownload(params: { downloadId: string }): null {
    return this.bundles.closeDownload(params);
  }

  importSession(params: { jsonl: string; fileName?: string }): { sessionId: string; warnings: readonly string[]; summary: ImportSummary } {
    const summary = importText(this.repo, params.jsonl, params.fileName);
    this.host.broadcast({ kind: 'sessions/changed' });
    return { sessionId: summary.sessionId, warnings: [...summary.warnings, ...summary.skipped.map((s) => `skipped line ${s.line}: ${s.reason}`)], summary };
  }

  importBegin(params: { fileName: string; size?: number }): { importId: string } {
    if (this.imports.size >= MAX_OPEN_IMPORTS) throw new ForklineError('TOO_MANY_IMPORTS', `at most ${MAX_OPEN_IMPORTS} imports may run at once in one window`);
    const importId = this.host.options.newId();
    this.imports.set(importId, beginImport(this.repo, params.fileName));
    return { importId };
  }

  importChunk(params: { importId: string; text: string }): { chars: number } {
    const job = this.importJob(params.importId);
    try {
      job.write(params.text);
    } catch (error) {
      this.imports.delete(params.importId);
      throw error;
    }
    return { chars: job.chars };
  }

  importEnd(params: { importId: string }): ImportSummary {
    const job = this.importJob(params.importId);
    this.imports.delete(params.importId);
    const summary = job.end();
    this.host.broadcast({ kind: 'sessions/changed' });
    return summary;
  }

  importAbort(params: { importId: string }): null {
    this.imports.get(params.importId)?.abort();
    this.imports.delete(params.importId);
    return null;
  }

  private importJob(importId: string): ImportJob {
    const job = this.imports.get(importId);
    if (!job) throw new ForklineError('IMPORT_NOT_FOUND', `no import ${importId} is running in this window (it ended, failed or was aborted)`);
    return job;
  }

  readEnvelope(params: { sessionId: string; beforeSeq: number }): { events: readonly SessionEvent[] } {
    const agent = this.host.agentFor(params.sessionId);
    const found: SessionEvent[] = [];
    for (const type of ['request/header', 'request/context']) {
      let event: SessionEvent | undefined;
      if (agent) {
        for (let seq = Math.min(params.beforeSeq, agent.session.length) - 1; seq >= 0 && !event; seq--) if (agent.session.eventAt(seq)!.type === type) event = agent.session.eventAt(seq);
      } else {
        if (!this.repo.get(params.sessionId)) throw new ForklineError('SESSION_NOT_FOUND', `session ${params.sessionId} does not exist`);
        event = this.repo.store.lastEventOfType(params.sessionId, type, params.beforeSeq);
      }
      if (event) found.push(event);
    }
    return { events: found.sort((a, b) => a.seq - b.seq) };
  }

  /**
   * The whole log of a session as this host sees it: a live agent's in-memory log (the newest), else
   * the stored log through the one recovery path (an interrupted turn is closed first).
   */
  private eventsOf(sessionId: string): { header: SessionRecord['header']; events: readonly SessionEvent[] } {
    return this.reader.withHeader(sessionId);
  }

  listRequests(params: { sessionId: string }): RequestSummary[] {
    return listRequests(this.eventsOf(params.sessionId).events);
  }

  inspectRequest(params: { sessionId: string; turn?: number; step?: number; attempt?: number; index?: number }): RequestInspection {
    const { header, events } = this.eventsOf(params.sessionId);
    if (params.index !== undefined) return inspectSessionRequest(header, events, { index: params.index });
    if (params.turn === undefined || params.step === undefined) throw new ForklineError('INVALID_PARAMS', 'inspectRequest needs an index, or a turn and a step');
    return inspectSessionRequest(header, events, { turn: params.turn, step: params.step, ...(params.attempt !== undefined ? { attempt: params.attempt } : {}) });
  }

  readRequestStream(params: { sessionId: string; index: number; limit?: number }): { events: readonly SessionEvent[]; total: number } {
    return requestStream(this.eventsOf(params.sessionId).events, params.index, params.limit);
  }

  async searchSessions(params: { query: string; limit?: number; sessionId?: string }): Promise<SearchResult> {
    const { terms, ignored } = parseSearchQuery(params.query);
    const limit = Math.min(Math.max(params.limit ?? 50, 1), 200);
    if (terms.length === 0) return { terms, ignored, hits: [], more: false };
    // Recent appends of running sessions wait in write-behind for up to one window: land them first.
    await this.repo.flushAll();
    // Documents an import deferred are written first, in passes that let other work through.
    await this.repo.catchUpSearch();
    const rows = this.repo.store.search({ terms, limit: limit + 1, ...(params.sessionId !== undefined ? { sessionId: params.sessionId } : {}) });
    const hits = rows.slice(0, limit).map((row) => ({ sessionId: row.sessionId, seq: row.seq, kind: row.kind, snippet: searchSnippet(row.text, terms) }));
    return { terms, ignored, hits, more: rows.length > limit };
  }

  /** "Replay on this build" (services/session-replay.ts). */
  replaySession(params: { sessionId: string }): Promise<ReplayReport> {
    const { createTools, userInstructionsFile } = this.host.options;
    return replayHostSession({ reader: this.reader, createTools: () => createTools(), ...(userInstructionsFile !== undefined ? { userInstructionsFile } : {}) }, params.sessionId);
  }

  private playgroundStore(): PlaygroundRunStore {
    const dir = this.host.options.playgroundDir;
    if (dir === undefined) throw new ForklineError('PLAYGROUND_UNAVAILABLE', 'this host keeps no playground runs (it has no data folder for them)');
    return new PlaygroundRunStore(dir);
  }

  listPlaygroundRuns(params: { sessionId: string; index?: number }): PlaygroundRun[] {
    return this.playgroundStore().list(params.sessionId, params.index);
  }

  /** An edited request sent to a provider (services/request-playground.ts); it streams to this client as `playground/run` pushes. */
  startPlaygroundRun(params: HostParams<'startPlaygroundRun'>): PlaygroundRun {
    const { settings, createModelClient, newId, now } = this.host.options;
    const started = startPlaygroundRun(
      {
        store: this.playgroundStore(),
        reader: this.reader,
        modelClient: (route, reasoningEffort) => createModelClient(settings.providerSettings({ ...route, ...(reasoningEffort !== undefined ? { reasoningEffort } : {}) })),
        newId,
        now: now ?? Date.now,
      },
      params,
      (run) => this.push({ kind: 'playground/run', run }),
    );
    this.playgroundRuns.set(started.run.id, () => started.abort());
    void started.done.then(
      () => this.playgroundRuns.delete(started.run.id),
      (error: unknown) => {
        this.playgroundRuns.delete(started.run.id);
        console.error('a playground run failed:', error);
      },
    );
    return started.run;
  }

  cancelPlaygroundRun(params: { runId: string }): { cancelled: boolean } {
    const abort = this.playgroundRuns.get(params.runId);
    abort?.();
    return { cancelled: abort !== undefined };
  }

  /** "Fork with this prompt": a fork before the prompt's turn (services/prompt-fork.ts), then the edited prompt sent in it. */
  async forkWithPrompt(params: { sessionId: string; messageId: string; text: string }): Promise<SessionSummary> {
    this.host.requireCredential();
    const { newId, checkpoints, worktreesDir } = this.host.options;
    const child = await forkBeforePrompt(
      { repository: this.repo, reader: this.reader, newId, ...(checkpoints ? { checkpoints } : {}), ...(worktreesDir !== undefined ? { worktreesDir } : {}) },
      params,
    );
    this.host.broadcast({ kind: 'sessions/changed' });
    this.followup({ sessionId: child.header.id, text: params.text });
    return this.host.summary(this.repo.get(child.header.id) ?? child);
  }

  takeOverSession(params: { sessionId: string }): null {
    this.host.ensureAgent(params.sessionId, { takeOver: true });
    this.host.broadcast({ kind: 'sessions/changed' });
    return null;
  }

  followup(params: { sessionId: string; text: string }): null {
    this.host.requireCredential();
    const agent = this.host.ensureAgent(params.sessionId);
    const record = this.repo.get(params.sessionId);
    if (record && record.header.title === undefined) {
      this.repo.rename(params.sessionId, titleFromPrompt(params.text));
      this.host.broadcast({ kind: 'sessions/changed' });
    }
    agent.followup(params.text);
    return null;
  }

  steer(params: { sessionId: string; text: string }): null {
    this.host.requireCredential();
    this.host.ensureAgent(params.sessionId).steer(params.text);
    return null;
  }

  cancel(params: { sessionId: string }): null {
    this.host.agentFor(params.sessionId)?.cancel({ kind: 'user' });
    return null;
  }

  async compactSession(params: { sessionId: string }): Promise<{ compacted: boolean; shadowedCount: number }> {
    const outcome = await this.host.ensureAgent(params.sessionId).compact();
    return { compacted: outcome !== undefined, shadowedCount: outcome?.shadowedSeqs.length ?? 0 };
  }

  decideApproval(params: HostParams<'decideApproval'>): null {
    const agent = this.host.agentFor(params.sessionId);
    const decision =
      params.decision === 'allow-session'
        ? { outcome: 'allowed-session' as const, ...(params.commandPrefix !== undefined ? { commandPrefix: params.commandPrefix } : {}) }
        : { outcome: params.decision === 'allow-once' ? ('allowed-once' as const) : ('rejected' as const) };
    const decided = agent?.approvals.decide(params.approvalId, decision) ?? false;
    if (!decided) throw new ForklineError('APPROVAL_NOT_FOUND', `approval ${params.approvalId} is not pending (it may have been decided or cancelled)`);
    return null;
  }

  async getSettings(): Promise<ReturnType<HostMethods['getSettings']>> {
    return this.host.settingsView();
  }

  async updateSettings(params: Parameters<HostMethods['updateSettings']>[0]): Promise<ReturnType<HostMethods['updateSettings']>> {
    const { forgetLearnedLimit, ...patch } = params;
    if (forgetLearnedLimit) this.host.limitStore.forget(forgetLearnedLimit.baseUrl, forgetLearnedLimit.model);
    this.host.options.settings.update(patch);
    if (params.mcpServers !== undefined) this.host.options.mcp?.reload();
    if (params.otlp !== undefined) {
      this.host.options.liveTraces?.reconfigure?.();
      await this.host.options.liveTraces?.whenReady?.();
    }
    return this.host.settingsView();
  }

  setSessionBudget(params: { sessionId: string; sessionUsd?: number; sessionTokens?: number; turnUsd?: number }): SessionSummary {
    const record = this.repo.get(params.sessionId);
    if (!record) throw new ForklineError('SESSION_NOT_FOUND', `session ${params.sessionId} does not exist`);
    this.host.options.settings.setSessionBudget(params.sessionId, {
      ...(params.sessionUsd !== undefined ? { sessionUsd: params.sessionUsd } : {}),
      ...(params.sessionTokens !== undefined ? { sessionTokens: params.sessionTokens } : {}),
      ...(params.turnUsd !== undefined ? { turnUsd: params.turnUsd } : {}),
    });
    this.host.broadcast({ kind: 'sessions/changed' });
    return this.host.summary(record);
  }

  listMcpServers(): McpServerStatus[] {
    return this.host.options.mcp?.statuses() ?? [];
  }

  /** @throws ForklineError MCP_CONFIG_NOT_PENDING when no open workspace has that file untrusted with that content. */
  trustMcpConfig(params: { file: string; sha256: string }): McpServerStatus[] {
    const hub = this.host.options.mcp;
    const pending = hub?.statuses().some((s) => s.state === 'untrusted' && s.file === params.file && s.sha256 === params.sha256);
    if (!hub || !pending) throw new ForklineError('MCP_CONFIG_NOT_PENDING', `${params.file} is not an untrusted MCP configuration of an open workspace (or it changed since it was shown)`);
    this.host.options.settings.trustMcpConfig(params.file, params.sha256);
    hub.reload();
    return hub.statuses();
  }

  async setApiKey(params: { provider: string; apiKey: string }): Promise<ReturnType<HostMethods['setApiKey']>> {
    this.host.options.settings.setApiKey(params.provider, params.apiKey);
    return this.host.settingsView();
  }

  listModels(params: Parameters<HostMethods['listModels']>[0]): Promise<ReturnType<HostMethods['listModels']>> {
    return this.host.listModels(params);
  }

  testConnection(params: Parameters<HostMethods['testConnection']>[0]): Promise<ReturnType<HostMethods['testConnection']>> {
    return this.host.testConnection(params);
  }

  async chooseWorkspace(): Promise<{ path: string } | null> {
    const chooser = this.host.options.chooseWorkspace;
    if (!chooser) return null;
    const path = await chooser();
    return path === null ? null : { path };
  }

  listFolders(params: { path?: string }): ReturnType<HostMethods['listFolders']> {
    return listFolders(params.path);
  }

  openTerminal(params: { sessionId: string; cols: number; rows: number }): { terminalId: string } {
    const record = this.repo.get(params.sessionId);
    if (!record) throw new ForklineError('SESSION_NOT_FOUND', `session ${params.sessionId} does not exist`);
    // The folder named in an imported log is a fact to show, never a place to open a shell in.
    if (isImportedSession(record.header)) throw new ForklineError('SESSION_READ_ONLY', 'this session was imported: its folder is not opened here; continue it in a folder of yours to get a terminal');
    const terminalId = this.host.terminals.open(sessionWorkspace(record.header), params.cols, params.rows);
    this.host.ownTerminal(terminalId, this);
    return { terminalId };
  }

  writeTerminal(params: { terminalId: string; data: string }): null {
    this.host.terminals.write(params.terminalId, params.data);
    return null;
  }

  resizeTerminal(params: { terminalId: string; cols: number; rows: number }): null {
    this.host.terminals.resize(params.terminalId, params.cols, params.rows);
    return null;
  }

  closeTerminal(params: { terminalId: string }): null {
    this.host.terminals.close(params.terminalId);
    return null;
  }

  /** The team store service (services/team-service.ts). @throws ForklineError TEAM_UNAVAILABLE when this host has none. */
  private get team(): TeamService {
    const team = this.host.options.team;
    if (!team) throw new ForklineError('TEAM_UNAVAILABLE', 'this Forkline runs without the team store');
    return team;
  }

  teamStatus(): TeamStatus {
    return this.team.status();
  }

  setTeamSettings(params: { storeUrl?: string; share?: { workspace: string; on: boolean } }): TeamStatus {
    return this.team.update(params.share ? { ...params, share: { ...params.share, workspace: realWorkspace(params.share.workspace) } } : params);
  }

  listTeamSessions(): Promise<TeamSessionView[]> {
    return this.team.list();
  }

  searchTeamSessions(params: { query: string }): Promise<TeamSearchHitView[]> {
    return this.team.search(params.query);
  }

  async openTeamSession(params: { teamSessionId: string }): Promise<SessionSummary> {
    const copy = await this.team.open(params.teamSessionId);
    this.host.broadcast({ kind: 'sessions/changed' });
    return this.host.summary(copy);
  }

  /** The team session's read-only copy forked into `cwd`, with the rules of any imported session (services/session-fork.ts). */
  async forkTeamSession(params: { teamSessionId: string; cwd: string; atSeq?: number }): Promise<SessionSummary> {
    const copy = await this.team.open(params.teamSessionId);
    return this.forkSession({ sessionId: copy.header.id, cwd: params.cwd, ...(params.atSeq !== undefined ? { atSeq: params.atSeq } : {}) });
  }
}
