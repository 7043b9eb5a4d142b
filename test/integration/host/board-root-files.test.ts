/**
 * A root session beside its fork on the board (trial findings): every figure of a column — its
 * "diff" line, its "Files:" fold (HostApi `branchDiff`), its name — counts from the same point, where
 * the history the compared branches share ends. Through the real dispatch (param schemas, handlers)
 * on a real host (SQLite, git checkpoints, the real `openai` client against the scripted server).
 *
 * The trial: the root fixed sum.js in turn 1, was forked after it into a folder of its own, and both
 * went on with a turn that changed nothing. The board's root column said "diff 0 changed lines"
 * beside "Files: 1 changed · +2 −2" (its turn-1 fix, shared history); and, since the root's turn 2
 * ran in the same process (a request header is logged only when it changes), its route was unknown:
 * `forkline compare` printed "?/?".
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostMethodName } from '../../../shared/api.js';
import type { BranchDiff, RankedReport } from '../../../shared/branch-ranking.js';
import { dispatch } from '../../../electron/host/dispatch.js';
import type { HostConnection } from '../../../electron/host/host-connection.js';
import { createRuntime, type Runtime } from '../../../electron/host/runtime.js';
import { startScriptedLlm, textResponse, toolCallResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';
import { fixSumReply, type ScriptedMessage } from '../../support/fix-sum-replies.js';

const ROOT = join(import.meta.dirname, '../../..');
let llm: ScriptedLlm;
let dir: string;
let runtime: Runtime;
let connection: HostConnection;
let nextId = 0;
let root: string;
let fork: string;

/** One call through the real dispatch (schema validation included); rejects with the error object. */
async function call<T = unknown>(method: HostMethodName, params: unknown): Promise<T> {
  const response = await dispatch(connection, { id: ++nextId, method, params });
  if ('error' in response && response.error) throw Object.assign(new Error(response.error.message), response.error);
  return (response as { result: T }).result;
}

/** A session's log as the host sees it (a live agent's, else the store's). */
const logOf = (id: string) => runtime.host.agentFor(id)?.session.events ?? runtime.repository.load(id).events;

/** Runs one turn of `sessionId` and waits until its agent is idle (its after-turn checkpoint is taken by then). */
async function turn(sessionId: string, text: string): Promise<void> {
  await call('followup', { sessionId, text });
  await runtime.host.agentFor(sessionId)!.whenIdle();
}

/**
 * "fix …" fixes sum.js (model-a is the fixer here); "… note …" writes notes.txt; anything else is
 * answered with text and changes no file.
 */
function reply(model: string, messages: readonly ScriptedMessage[]) {
  const lastUser = messages.findLastIndex((m) => m.role === 'user');
  const text = JSON.stringify(messages[lastUser]?.content ?? '');
  if (!text.includes('note')) return fixSumReply(model, messages, { fixer: 'model-a' });
  if (messages.slice(lastUser).some((m) => m.role === 'tool')) return textResponse('noted');
  return toolCallResponse([{ id: `call_note_${messages.length}`, name: 'write_file', arguments: JSON.stringify({ path: 'notes.txt', content: 'a note\n' }) }]);
}

beforeAll(async () => {
  llm = await startScriptedLlm({ models: ['model-a'] });
  llm.setHandler((request) => reply(String(request.body.model), request.body.messages as ScriptedMessage[]));
  dir = mkdtempSync(join(tmpdir(), 'forkline-board-root-'));
  const work = join(dir, 'work');
  cpSync(join(ROOT, 'examples/fix-sum'), work, { recursive: true });
  runtime = createRuntime({ dataDir: join(dir, 'data'), env: {}, overrides: { active: { provider: 'custom', baseUrl: llm.baseUrl, model: 'model-a' }, approvalPolicy: 'allow' }, writeWindowMs: 5 });
  connection = runtime.host.connect(() => undefined);
  root = (await call<{ id: string }>('createSession', { cwd: work })).id;
  await turn(root, 'sum([]) returns undefined; fix it');
  const end1 = logOf(root).find((e) => e.type === 'turn/end')!.seq;
  fork = (await call<{ id: string }>('forkSession', { sessionId: root, atSeq: end1, worktree: true })).id;
  await turn(root, 'what did you change?');
  await turn(fork, 'also explain the change in one line');
}, 60_000);
afterAll(async () => {
  connection.dispose();
  await runtime.close();
  await llm.close();
  rmSync(dir, { recursive: true, force: true });
});

const changedFiles = (diff: string): string[] => [...diff.matchAll(/^\+\+\+ b\/(.+)$/gm)].map((m) => m[1]!);
const changedLines = (diff: string): number => diff.split('\n').filter((l) => /^[+-]/.test(l) && !/^(\+\+\+|---) /.test(l)).length;

describe('a root beside its fork on the board', () => {
  it("the root's Files fold counts from the fork point, as its diff figure does", async () => {
    const board = [root, fork];
    const ranked = await call<RankedReport>('rankBranches', { sessionIds: board });
    const figures = (id: string) => ranked.branches.find((b) => b.session === id)!;
    expect([figures(root).diffLines, figures(fork).diffLines]).toEqual([0, 0]);
    // The root's fix in turn 1 is history both share: beside its fork, the root changed nothing.
    const rootFiles = await call<BranchDiff>('branchDiff', { sessionId: root, comparedWith: board });
    expect(rootFiles).toMatchObject({ diff: '', forkCheckpoint: figures(root).forkCheckpoint, lastCheckpoint: figures(root).lastCheckpoint });
    expect(rootFiles.note).toBeUndefined();
    expect(await call<BranchDiff>('branchDiff', { sessionId: fork, comparedWith: board })).toMatchObject({ diff: '' });
    // Alone, a root's files are its whole history's (its own fork point is its start).
    expect(changedFiles((await call<BranchDiff>('branchDiff', { sessionId: root })).diff)).toEqual(['sum.js']);

    // The root goes on and writes a file: the fold shows that change only, and as many lines as its diff figure.
    await turn(root, 'write a note');
    const again = await call<RankedReport>('rankBranches', { sessionIds: board });
    const after = await call<BranchDiff>('branchDiff', { sessionId: root, comparedWith: board });
    expect(changedFiles(after.diff)).toEqual(['notes.txt']);
    expect(changedLines(after.diff)).toBe(again.branches.find((b) => b.session === root)!.diffLines);
    expect(changedLines(after.diff)).toBe(1);
  }, 60_000);

  it('refuses an unknown branch beside it and a malformed list', async () => {
    await expect(call('branchDiff', { sessionId: root, comparedWith: ['00000000-0000-4000-8000-000000000000'] })).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    await expect(call('branchDiff', { sessionId: root, comparedWith: 'nope' })).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    await expect(call('branchDiff', { sessionId: root, comparedWith: Array.from({ length: 65 }, () => fork) })).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
  });

  it('the root is named by its route, though it logged no request header after the fork point', async () => {
    const seed = runtime.repository.get(fork)!.header.seedLength!;
    // The premise: the root's turns after the fork ran in the same process, so it logged no header for them.
    expect(logOf(root).some((e) => e.type === 'request/header' && e.seq >= seed)).toBe(false);
    const ranked = await call<RankedReport>('rankBranches', { sessionIds: [root, fork] });
    expect(ranked.branches.find((b) => b.session === root)!.variant).toMatchObject({ provider: 'custom', model: 'model-a' });
    expect(ranked.branches.find((b) => b.session === fork)!.variant).toMatchObject({ provider: 'custom', model: 'model-a' });
  });
});
