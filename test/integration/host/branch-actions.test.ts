/**
 * Issue 21's UI actions through the real dispatch (param schemas, handlers) on a real host (SQLite,
 * git checkpoints, the real `openai` client against the scripted server): `proposeFanoutCheck`
 * reads the project, `startFanout` refuses bad input before anything exists and runs two branches
 * whose checks are logged, `applyBranch` merges the passing branch into the parent's folder,
 * `discardBranch` removes only a Forkline worktree (never the user's folder), `rewindSession`
 * restores the folder to a turn and continues in a new fork, `cancelFanout` stops every branch.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FanoutStarted, HostMethodName } from '../../../shared/api.js';
import { dispatch } from '../../../electron/host/dispatch.js';
import type { HostConnection } from '../../../electron/host/host-connection.js';
import { createRuntime, type Runtime } from '../../../electron/host/runtime.js';
import { frame, framesResponse, startScriptedLlm, type ScriptedLlm } from '../../support/scripted-llm/index.js';
import { fixSumReply, type ScriptedMessage } from '../../support/fix-sum-replies.js';

const ROOT = join(import.meta.dirname, '../../..');
let llm: ScriptedLlm;
let dir: string;
let work: string;
let runtime: Runtime;
let connection: HostConnection;
let nextId = 0;
let parentId: string;

/** model-b fixes sum.js; model-a writes notes. */
const reply = (model: string, messages: readonly ScriptedMessage[]) => fixSumReply(model, messages);

/** One call through the real dispatch (schema validation included); rejects with the error object. */
async function call<T = unknown>(method: HostMethodName, params: unknown): Promise<T> {
  const response = await dispatch(connection, { id: ++nextId, method, params });
  if ('error' in response && response.error) throw Object.assign(new Error(response.error.message), response.error);
  return (response as { result: T }).result;
}

/** Waits until `done` holds (polling), or fails after `ms`. */
async function until(done: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A session's log as the host sees it (a live agent's, else the store's). */
const logOf = (id: string) => runtime.host.agentFor(id)?.session.events ?? runtime.repository.load(id).events;
const checkLogged = (id: string) => logOf(id).some((e) => e.type === 'check/result' && e.data.purpose !== 'setup');

beforeAll(async () => {
  llm = await startScriptedLlm({ models: ['model-a', 'model-b'] });
  llm.setHandler((request) => reply(String(request.body.model), request.body.messages as ScriptedMessage[]));
  dir = mkdtempSync(join(tmpdir(), 'forkline-branch-actions-'));
  work = join(dir, 'work');
  cpSync(join(ROOT, 'examples/fix-sum'), work, { recursive: true });
  runtime = createRuntime({ dataDir: join(dir, 'data'), env: {}, overrides: { active: { provider: 'custom', baseUrl: llm.baseUrl, model: 'model-a' }, approvalPolicy: 'allow' }, writeWindowMs: 5 });
  connection = runtime.host.connect(() => undefined);
  const session = await call<{ id: string }>('createSession', { cwd: work });
  parentId = session.id;
  await call('followup', { sessionId: parentId, text: 'say hello' });
  await runtime.host.agentFor(parentId)!.whenIdle();
  await until(() => logOf(parentId).some((e) => e.type === 'workspace/checkpoint'));
}, 60_000);
afterAll(async () => {
  connection.dispose();
  await runtime.close();
  await llm.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('fan-out actions over the HostApi', () => {
  it('proposes the project check and refuses bad fan-outs before anything exists', async () => {
    expect(await call('proposeFanoutCheck', { sessionId: parentId })).toEqual({ check: 'npm test --silent' });
    await expect(call('startFanout', { sessionId: parentId, prompt: 'fix it', variants: [{ model: 'model-a' }] })).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    await expect(call('startFanout', { sessionId: parentId, prompt: 'fix it', variants: [{ model: 'model-a' }, { model: 'nope' }], check: 'node test.js' })).rejects.toMatchObject({
      message: expect.stringContaining('does not offer model "nope"'),
    });
    expect(existsSync(join(dir, 'data', 'worktrees')) ? runtime.repository.list().length : 1).toBe(1);
  });

  let started: FanoutStarted;
  it('runs two branches with their checks, applies the passing one and discards the other', async () => {
    started = await call<FanoutStarted>('startFanout', {
      sessionId: parentId,
      prompt: 'fix the failing test',
      variants: [{ model: 'model-a' }, { model: 'model-b', effort: 'high' }],
      check: 'node test.js',
    });
    expect(started.check).toBe('node test.js');
    expect(started.branches.map((b) => b.label)).toEqual(['model=model-a', 'model=model-b,effort=high']);
    await until(() => started.branches.every((b) => checkLogged(b.sessionId)));
    const ranked = await call<{ branches: { session: string; rank: number; check?: { passed: boolean } }[] }>('rankBranches', { sessionIds: started.branches.map((b) => b.sessionId) });
    expect(ranked.branches[0]!.session).toBe(started.branches[1]!.sessionId);
    expect(ranked.branches[0]!.check?.passed).toBe(true);
    // The parent compared with a branch: its turns before the fork are shared history, not its own work.
    type Figures = { session: string; tokens: number; billedResponses: number; durationMs: number; reasons: string[] };
    const withParent = await call<{ branches: Figures[] }>('rankBranches', { sessionIds: [parentId, started.branches[1]!.sessionId] });
    const parentFigures = withParent.branches.find((b) => b.session === parentId)!;
    expect(parentFigures).toMatchObject({ tokens: 0, billedResponses: 0, durationMs: 0 });
    const branchFigures = withParent.branches.find((b) => b.session === started.branches[1]!.sessionId)!;
    const alone = ranked.branches.find((b) => b.session === started.branches[1]!.sessionId) as unknown as Figures;
    expect([branchFigures.tokens, branchFigures.durationMs]).toEqual([alone.tokens, alone.durationMs]);
    expect(branchFigures.durationMs).toBeGreaterThan(0);
    // Each branch's files against its fork point (the board's per-branch diff).
    const fixed = await call<{ diff: string; note?: string }>('branchDiff', { sessionId: started.branches[1]!.sessionId });
    expect(fixed.note).toBeUndefined();
    expect(fixed.diff).toContain('+++ b/sum.js');
    expect(fixed.diff).toMatch(/^-\s*let total;$/m);
    expect(fixed.diff).toMatch(/^\+\s*let total = 0;$/m);
    expect(fixed.diff).not.toContain('notes.txt');
    const notes = await call<{ diff: string }>('branchDiff', { sessionId: started.branches[0]!.sessionId });
    expect(notes.diff).toContain('+++ b/notes.txt');
    expect(notes.diff).not.toContain('sum.js');
    await expect(call('branchDiff', { sessionId: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    const applied = await call<{ applied: boolean; files: { path: string }[] }>('applyBranch', { sessionId: started.branches[1]!.sessionId });
    expect(applied.applied).toBe(true);
    expect(applied.files.map((f) => f.path)).toEqual(['sum.js']);
    expect(readFileSync(join(work, 'sum.js'), 'utf8')).toContain('let total = 0;');
    const loser = runtime.repository.get(started.branches[0]!.sessionId)!.header.cwd!;
    expect(existsSync(loser)).toBe(true);
    const discarded = await call<{ removed: boolean }>('discardBranch', { sessionId: started.branches[0]!.sessionId });
    expect(discarded.removed).toBe(true);
    expect(existsSync(loser)).toBe(false);
    // The user's folder is never removed.
    expect(await call('discardBranch', { sessionId: parentId })).toMatchObject({ removed: false });
    expect(existsSync(work)).toBe(true);
  }, 120_000);

  it('rewinds the parent folder to its first turn and continues in a new fork', async () => {
    const events = logOf(parentId);
    const firstEnd = events.findIndex((e) => e.type === 'turn/end');
    const rewound = await call<{ sessionId: string; from: string; turn: number }>('rewindSession', { sessionId: parentId, toSeq: firstEnd });
    expect(rewound.from).toBe(parentId);
    expect(rewound.turn).toBe(1);
    expect(readFileSync(join(work, 'sum.js'), 'utf8')).toContain('let total;');
    expect(runtime.repository.get(rewound.sessionId)!.header.cwd).toBe(work);
  }, 60_000);

  it('cancel all stops every running branch', async () => {
    llm.setHandler(() => framesResponse([frame.stall()]));
    const again = await call<FanoutStarted>('startFanout', { sessionId: parentId, prompt: 'fix the failing test', variants: [{ model: 'model-a' }, { model: 'model-b' }], check: 'node test.js' });
    await until(() => again.branches.every((b) => runtime.host.agentFor(b.sessionId)?.status === 'running'));
    // While they run, the board still gets a ranking: provisional, from the live logs, and said so.
    const live = await call<{ branches: { session: string; provisional?: boolean; check?: unknown; reasons: string[] }[] }>('rankBranches', { sessionIds: again.branches.map((b) => b.sessionId) });
    expect(live.branches.map((b) => b.provisional)).toEqual([true, true]);
    expect(live.branches.every((b) => b.check === undefined && b.reasons.some((r) => r.startsWith('still running')))).toBe(true);
    expect(await call('branchDiff', { sessionId: again.branches[0]!.sessionId })).toMatchObject({ diff: '', note: expect.stringContaining('still running') });
    expect(await call('cancelFanout', { fanoutId: again.fanoutId })).toEqual({ cancelled: true });
    await until(() => again.branches.every((b) => runtime.host.agentFor(b.sessionId)?.status !== 'running'));
    for (const b of again.branches) expect(logOf(b.sessionId).findLast((e) => e.type === 'turn/end')?.data).toMatchObject({ reason: { kind: 'aborted' } });
  }, 60_000);
});
