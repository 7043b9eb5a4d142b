/**
 * Workspace checkpoints (real git, real folders): snapshots at turn boundaries, a fork restored into
 * its own folder, and the compare view's figures and file diff between two branches.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../shared/events.js';
import { createRuntime, type Runtime } from '../../../electron/host/runtime.js';
import { WorkspaceCheckpoints } from '../../../electron/workspace/checkpoints.js';
import { startScriptedLlm, textResponse, toolCallResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'forkline-ckpt-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('WorkspaceCheckpoints', () => {
  it('snapshots, skips unchanged trees, honours .gitignore, restores and diffs', async () => {
    const ws = join(dir, 'plain');
    mkdirSync(join(ws, 'src'), { recursive: true });
    writeFileSync(join(ws, 'src/a.txt'), 'one\n');
    writeFileSync(join(ws, '.gitignore'), 'build/\n');
    mkdirSync(join(ws, 'build'));
    writeFileSync(join(ws, 'build/out.bin'), 'ignored');
    const ckpt = new WorkspaceCheckpoints(join(dir, 'shadow.git'));
    const first = await ckpt.snapshot(ws, 'refs/forkline/s1', 'first');
    expect(await ckpt.snapshot(ws, 'refs/forkline/s1', 'again')).toBe(first);
    writeFileSync(join(ws, 'src/a.txt'), 'two\n');
    writeFileSync(join(ws, 'b.txt'), 'new\n');
    const second = await ckpt.snapshot(ws, 'refs/forkline/s1', 'second');
    expect(second).not.toBe(first);
    expect(await ckpt.changedFiles(first, second)).toEqual([
      { status: 'A', path: 'b.txt' },
      { status: 'M', path: 'src/a.txt' },
    ]);
    expect(await ckpt.diff(first, second)).toContain('-one\n+two');
    const restored = join(dir, 'restored');
    await ckpt.restore(first, restored);
    expect(readFileSync(join(restored, 'src/a.txt'), 'utf8')).toBe('one\n');
    expect(existsSync(join(restored, 'b.txt'))).toBe(false);
    expect(existsSync(join(restored, 'build'))).toBe(false);
    // The user's workspace has no .git of ours.
    expect(existsSync(join(ws, '.git'))).toBe(false);
    await expect(ckpt.restore(first, restored)).rejects.toMatchObject({ code: 'TARGET_NOT_EMPTY' });
  });
});

describe('fork into its own folder and compare branches', () => {
  let llm: ScriptedLlm;
  let runtime: Runtime;
  beforeAll(async () => {
    llm = await startScriptedLlm();
    runtime = createRuntime({
      dataDir: join(dir, 'data'),
      env: {},
      overrides: { active: { provider: 'custom', baseUrl: llm.baseUrl, model: 'scripted-model' }, approvalPolicy: 'allow' },
      writeWindowMs: 5,
    });
  });
  afterAll(async () => {
    await runtime.close();
    await llm.close();
  });

  it('logs checkpoints, restores the boundary snapshot for a worktree fork, and diffs the branches', async () => {
    const ws = join(dir, 'project');
    mkdirSync(ws);
    writeFileSync(join(ws, 'notes.txt'), 'start\n');
    const connection = runtime.host.connect(() => undefined);
    const parent = connection.createSession({ cwd: ws });
    const read = (id: string) => toolCallResponse([{ id, name: 'read_file', arguments: '{"path":"notes.txt"}' }]);
    llm.enqueue(read('r1'), toolCallResponse([{ id: 'w1', name: 'write_file', arguments: JSON.stringify({ path: 'notes.txt', content: 'turn one\n' }) }]), textResponse('one done'));
    connection.followup({ sessionId: parent.id, text: 'write turn one' });
    await runtime.host.agentFor(parent.id)!.whenIdle();
    llm.enqueue(toolCallResponse([{ id: 'w2', name: 'write_file', arguments: JSON.stringify({ path: 'notes.txt', content: 'parent turn two\n' }) }]), textResponse('two done'));
    connection.followup({ sessionId: parent.id, text: 'write turn two' });
    await runtime.host.agentFor(parent.id)!.whenIdle();
    const events = runtime.host.agentFor(parent.id)!.session.events;
    const checkpoints = events.filter((e): e is SessionEvent<'workspace/checkpoint'> => e.type === 'workspace/checkpoint');
    expect(checkpoints.map((c) => c.data.turn)).toEqual([0, 1, 2]);
    expect(readFileSync(join(ws, 'notes.txt'), 'utf8')).toBe('parent turn two\n');

    // Fork after turn 1 into its own folder: it holds the files as they were then.
    const firstEnd = events.find((e) => e.type === 'turn/end')!;
    const child = await connection.forkSession({ sessionId: parent.id, atSeq: firstEnd.seq, worktree: true });
    expect(child.cwd).not.toBe(ws);
    expect(readFileSync(join(child.cwd!, 'notes.txt'), 'utf8')).toBe('turn one\n');
    llm.enqueue(read('r-child'), toolCallResponse([{ id: 'c1', name: 'write_file', arguments: JSON.stringify({ path: 'notes.txt', content: 'child turn two\n' }) }]), textResponse('child done'));
    connection.followup({ sessionId: child.id, text: 'a different second turn' });
    await runtime.host.agentFor(child.id)!.whenIdle();
    expect(readFileSync(join(child.cwd!, 'notes.txt'), 'utf8')).toBe('child turn two\n');
    expect(readFileSync(join(ws, 'notes.txt'), 'utf8')).toBe('parent turn two\n');

    const compare = await connection.compareSessions({ a: parent.id, b: child.id });
    expect(compare.commonLength).toBe(child.seedLength);
    expect(compare.a.stats).toMatchObject({ turns: 1, firstPrompt: 'write turn two', lastTurnEnd: 'completed' });
    expect(compare.b.stats).toMatchObject({ turns: 1, firstPrompt: 'a different second turn', lastTurnEnd: 'completed' });
    expect(compare.files).toEqual([{ status: 'M', path: 'notes.txt' }]);
    expect(compare.diff).toContain('-parent turn two\n+child turn two');
    connection.dispose();
  });
});
