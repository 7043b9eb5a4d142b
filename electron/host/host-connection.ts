/**
 * HostConnection: one client's view of the Host (a browser tab over the WebSocket, or the desktop
 * window over IPC). Every HostApi method is implemented here; subscriptions and terminals opened
 * through a connection belong to it and end with it.
 */
import { join } from 'node:path';
import type { CompareBranch, CompareResult, HostMethods, HostPush, SessionSummary, SubscribeResult } from '../../shared/api.js';
import { branchStats } from '../../shared/branch-stats.js';
import { ForklineError } from '../../shared/errors.js';
import type { SessionEvent } from '../../shared/events.js';
import type { IDisposable } from '../../shared/lifecycle.js';
import { boundaryForAnchor } from '../session/fork-boundary.js';
import type { SessionRepository } from '../store/session-repository.js';
import type { SessionRecord } from '../store/session-store.js';
import type { HostHandlers } from './dispatch.js';
import { listFolders } from './folders.js';
import { listModels, testConnection } from './provider-probe.js';
import type { Host } from './host.js';
import { inspectRequest } from './request-inspector.js';
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

  subscribeSession(params: { sessionId: string; fromSeq: number }): SubscribeResult {
    return this.host.subscribe(this, params.sessionId, params.fromSeq);
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
    // No inherited title: the fork is titled by its own first prompt (followup), so fork titles say
    // what the branch does differently; until then the UI labels it "fork N of <parent title>".
    this.repo.rename(child.header.id, undefined);
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

  inspectRequest(params: { sessionId: string; turn: number; step: number }): ReturnType<HostMethods['inspectRequest']> {
    const agent = this.host.agentFor(params.sessionId);
    const record = this.repo.get(params.sessionId);
    if (!record) throw new ForklineError('SESSION_NOT_FOUND', `session ${params.sessionId} does not exist`);
    const events = agent ? agent.session.events : this.repo.store.readAll(params.sessionId);
    return inspectRequest(record.header, events, params.turn, params.step);
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

  async listModels(params: { provider: string; baseUrl?: string }): Promise<ReturnType<HostMethods['listModels']>> {
    const list = await listModels(this.host.probeDeps(), params);
    return { models: [...list.models], source: list.source };
  }

  testConnection(params: { provider: string; baseUrl?: string; model: string; apiKey?: string }): Promise<ReturnType<HostMethods['testConnection']>> {
    return testConnection(this.host.probeDeps(), params);
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

