/**
 * HostConnection: one client's view of the Host (a browser tab over the WebSocket, or the desktop
 * window over IPC). Every HostApi method is implemented here; subscriptions and terminals opened
 * through a connection belong to it and end with it.
 */
import { join } from 'node:path';
import type { CompareBranch, CompareResult, HostMethods, HostPush, RequestInspection, RequestSummary, SearchResult, SessionSummary, SubscribeResult } from '../../shared/api.js';
import { branchStats } from '../../shared/branch-stats.js';
import { ForklineError } from '../../shared/errors.js';
import type { SessionEvent } from '../../shared/events.js';
import type { IDisposable } from '../../shared/lifecycle.js';
import { messageText } from '../../shared/messages.js';
import { parseSearchQuery, searchSnippet } from '../../shared/search-query.js';
import { boundaryForAnchor } from '../session/fork-boundary.js';
import type { SessionRepository } from '../store/session-repository.js';
import type { SessionRecord } from '../store/session-store.js';
import type { HostHandlers } from './dispatch.js';
import { listFolders } from './folders.js';
import type { Host } from './host.js';
import { inspectSessionRequest, listRequests, requestStream } from './request-inspector.js';
import { realWorkspace } from './workspace-folder.js';

/** One client's view of the host: every HostApi method, bound to this connection. */
export class HostConnection implements HostHandlers, IDisposable {
  private disposed = false;
  constructor(
    private readonly host: Host,
    private readonly sink: (message: HostPush) => void,
  ) {}

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
    this.host.detach(this);
  }

  private get repo(): SessionRepository {
    return this.host.repository;
  }

  listSessions(): SessionSummary[] {
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
    const agent = this.host.agentFor(params.sessionId);
    if (agent) return { events: agent.session.events.slice(params.fromSeq, params.toSeq) };
    if (!this.repo.get(params.sessionId)) throw new ForklineError('SESSION_NOT_FOUND', `session ${params.sessionId} does not exist`);
    return { events: this.repo.store.readRange(params.sessionId, params.fromSeq, params.toSeq) };
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

  async forkSession(params: { sessionId: string; atSeq?: number; worktree?: boolean }): Promise<SessionSummary> {
    const agent = this.host.agentFor(params.sessionId);
    const events = agent ? agent.session.events : this.repo.load(params.sessionId).events;
    const boundary = boundaryForAnchor(events, params.atSeq);
    if (boundary === undefined) {
      throw new ForklineError('FORK_UNAVAILABLE', params.atSeq === undefined ? 'this session has no completed turn to fork from yet' : `seq ${params.atSeq} is in a turn that has not ended; fork at a completed turn`);
    }
    const childId = this.host.options.newId();
    let cwd: string | undefined;
    if (params.worktree) {
      const { checkpoints, worktreesDir } = this.host.options;
      if (!checkpoints || !worktreesDir) throw new ForklineError('WORKTREE_UNAVAILABLE', 'workspace checkpoints are off, so a fork cannot get its own folder');
      let commit: string | undefined;
      for (let seq = boundary; seq >= 0 && commit === undefined; seq--) {
        const event = events[seq]!;
        if (event.type === 'workspace/checkpoint') commit = event.data.commit;
      }
      if (commit === undefined) throw new ForklineError('WORKTREE_UNAVAILABLE', 'there is no workspace checkpoint at or before this turn to restore');
      cwd = join(worktreesDir, childId);
      await checkpoints.restore(commit, cwd);
      await checkpoints.pin(`refs/forkline/${childId}`, commit);
    }
    const child = await this.repo.fork(params.sessionId, boundary, childId, cwd !== undefined ? { cwd } : {});
    const parentTitle = this.repo.get(params.sessionId)?.header.title ?? firstPrompt(events) ?? 'Session';
    const siblings = this.repo.list().filter((r) => r.header.parentSession === params.sessionId).length;
    // The fork number leads so forks stay distinguishable where long titles are cut off.
    this.repo.rename(child.header.id, `fork ${siblings} · ${parentTitle}`);
    this.host.broadcast({ kind: 'sessions/changed' });
    return this.host.summary(this.repo.get(child.header.id)!);
  }

  async compareSessions(params: { a: string; b: string; files?: boolean }): Promise<CompareResult> {
    const eventsOf = (id: string) => this.host.agentFor(id)?.session.events ?? this.repo.load(id).events;
    const a = this.repo.get(params.a);
    const b = this.repo.get(params.b);
    if (!a || !b) throw new ForklineError('SESSION_NOT_FOUND', `session ${!a ? params.a : params.b} does not exist`);
    const common = commonLength(this.repo, params.a, params.b);
    const eventsA = eventsOf(params.a);
    const eventsB = eventsOf(params.b);
    const branch = (record: SessionRecord, events: readonly SessionEvent[]): CompareBranch => ({
      sessionId: record.header.id,
      ...(record.header.title !== undefined ? { title: record.header.title } : {}),
      ...(record.header.cwd !== undefined ? { cwd: record.header.cwd } : {}),
      stats: branchStats(events, common),
    });
    const left = branch(a, eventsA);
    const right = branch(b, eventsB);
    const { checkpoints } = this.host.options;
    let files: { status: string; path: string }[] = [];
    let diff = '';
    let diffNote: string | undefined;
    if (params.files === false) diffNote = 'files were not compared';
    else if (!checkpoints) diffNote = 'workspace checkpoints are off';
    else if (!left.stats.lastCheckpoint || !right.stats.lastCheckpoint) diffNote = 'a branch has no workspace checkpoint yet (one is taken after every turn)';
    else {
      files = await checkpoints.changedFiles(left.stats.lastCheckpoint, right.stats.lastCheckpoint);
      diff = await checkpoints.diff(left.stats.lastCheckpoint, right.stats.lastCheckpoint);
      if (diff.length > 1_000_000) {
        diff = diff.slice(0, 1_000_000);
        diffNote = 'the diff was cut at 1 MB';
      }
    }
    return { commonLength: common, a: left, b: right, files, diff, ...(diffNote !== undefined ? { diffNote } : {}) };
  }

  exportSession(params: { sessionId: string }): { fileName: string; jsonl: string } {
    const jsonl = this.repo.exportJsonl(params.sessionId);
    const title = this.repo.get(params.sessionId)?.header.title ?? 'session';
    const slug = title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'session';
    return { fileName: `forkline-${slug}-${params.sessionId.slice(0, 8)}.jsonl`, jsonl };
  }

  importSession(params: { jsonl: string }): { sessionId: string; warnings: readonly string[] } {
    const result = this.repo.importJsonl(params.jsonl);
    this.host.broadcast({ kind: 'sessions/changed' });
    return { sessionId: result.id, warnings: result.warnings };
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

  /** The whole log of a session as this host sees it (a live agent's in-memory log is the newest). */
  private eventsOf(sessionId: string): { header: SessionRecord['header']; events: readonly SessionEvent[] } {
    const agent = this.host.agentFor(sessionId);
    const record = this.repo.get(sessionId);
    if (!record) throw new ForklineError('SESSION_NOT_FOUND', `session ${sessionId} does not exist`);
    return { header: record.header, events: agent ? agent.session.events : this.repo.store.readAll(sessionId) };
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
    const rows = this.repo.store.search({ terms, limit: limit + 1, ...(params.sessionId !== undefined ? { sessionId: params.sessionId } : {}) });
    const hits = rows.slice(0, limit).map((row) => ({ sessionId: row.sessionId, seq: row.seq, kind: row.kind, snippet: searchSnippet(row.text, terms) }));
    return { terms, ignored, hits, more: rows.length > limit };
  }

  followup(params: { sessionId: string; text: string }): null {
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

  decideApproval(params: { sessionId: string; approvalId: string; decision: 'allow-once' | 'reject' }): null {
    const agent = this.host.agentFor(params.sessionId);
    const decided = agent?.approvals.decide(params.approvalId, params.decision === 'allow-once' ? 'allowed-once' : 'rejected') ?? false;
    if (!decided) throw new ForklineError('APPROVAL_NOT_FOUND', `approval ${params.approvalId} is not pending (it may have been decided or cancelled)`);
    return null;
  }

  async getSettings(): Promise<ReturnType<HostMethods['getSettings']>> {
    return this.host.withLocalModels(this.host.options.settings.view());
  }

  async updateSettings(params: Parameters<HostMethods['updateSettings']>[0]): Promise<ReturnType<HostMethods['updateSettings']>> {
    this.host.options.settings.update(params);
    return this.host.withLocalModels(this.host.options.settings.view());
  }

  async setApiKey(params: { provider: string; apiKey: string }): Promise<ReturnType<HostMethods['setApiKey']>> {
    this.host.options.settings.setApiKey(params.provider, params.apiKey);
    return this.host.withLocalModels(this.host.options.settings.view());
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
    const terminalId = this.host.terminals.open(realWorkspace(record.header.cwd), params.cols, params.rows);
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
}

/**
 * Number of leading events two sessions share: along each one's fork lineage to their lowest
 * common ancestor, the smallest seed length taken on the way (a session is its own ancestor).
 */
export function commonLength(repo: SessionRepository, a: string, b: string): number {
  const chain = (id: string) => {
    const out: { id: string; limit: number }[] = [];
    let limit = Number.POSITIVE_INFINITY;
    let current: string | undefined = id;
    const seen = new Set<string>();
    while (current !== undefined && !seen.has(current)) {
      seen.add(current);
      const record = repo.get(current);
      if (!record) break;
      out.push({ id: current, limit: Math.min(limit, record.eventCount) });
      if (record.header.parentSession === undefined || record.header.seedLength === undefined) break;
      limit = Math.min(limit, record.header.seedLength);
      current = record.header.parentSession;
    }
    return out;
  };
  const left = chain(a);
  const right = new Map(chain(b).map((e) => [e.id, e.limit]));
  for (const entry of left) {
    const other = right.get(entry.id);
    if (other !== undefined) return Math.min(entry.limit, other);
  }
  return 0;
}

/** A short title from a prompt: its first line, at most 60 characters. */
export function titleFromPrompt(text: string): string {
  const line = text.trim().split('\n')[0]!.trim();
  return line.length > 60 ? `${line.slice(0, 57)}…` : line || 'Session';
}

function firstPrompt(events: readonly SessionEvent[]): string | undefined {
  for (const e of events) if (e.type === 'user/message' && e.data.source.kind === 'user') return titleFromPrompt(messageText(e.data));
  return undefined;
}
