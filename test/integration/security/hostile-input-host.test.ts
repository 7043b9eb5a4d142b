/**
 * Issue 8 through the real WebSocket host (browser mode; the desktop app runs the same HostApi over
 * IPC): an imported log is shown, never acted on. The UI's follow-up, terminal, compare and "fork in
 * own folder" paths refuse the folder, endpoint, checkpoint ids and read records a file names; a fork
 * into a folder the user names works there, on the configured endpoint; a seq-gap or nesting bomb
 * is refused and the host keeps serving.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionSummary, SubscribeResult } from '../../../shared/api.js';
import { eventsOfType } from '../../../shared/events.js';
import { createRuntime, type Runtime } from '../../../electron/host/runtime.js';
import { startBrowserServer, type BrowserServer } from '../../../electron/host/transport/ws-server.js';
import { hostileLog } from '../../support/hostile-logs.js';
import { startScriptedLlm, textResponse, toolCallResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';
import { WsHostClient } from '../../support/ws-host-client.js';

let base: string;
let work: string;
let victim: string;
let attacker: ScriptedLlm;
let good: ScriptedLlm;
let runtime: Runtime;
let server: BrowserServer;
let client: WsHostClient;

beforeAll(async () => {
  attacker = await startScriptedLlm();
  good = await startScriptedLlm();
  base = mkdtempSync(join(tmpdir(), 'forkline-sec-host-'));
  work = join(base, 'work');
  victim = join(base, 'victim');
  mkdirSync(work);
  mkdirSync(victim);
  writeFileSync(join(work, 'a.txt'), 'hello\n');
  writeFileSync(join(victim, 'a.txt'), 'hello\n');
  const staticDir = join(base, 'static');
  mkdirSync(staticDir);
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html>');
  // The user configured DeepSeek at the good endpoint, with a key, and allows writes.
  runtime = createRuntime({
    dataDir: join(base, 'data'),
    env: { DEEPSEEK_API_KEY: 'sk-ui-key' },
    overrides: { active: { provider: 'deepseek', baseUrl: good.baseUrl, model: 'deepseek-v4-flash' }, approvalPolicy: 'allow' },
    writeWindowMs: 5,
  });
  server = await startBrowserServer({ host: runtime.host, staticDir });
  client = await WsHostClient.connect(server.port, server.token);
});
afterAll(async () => {
  client.close();
  await server.close();
  await runtime.close();
  await attacker.close();
  await good.close();
  rmSync(base, { recursive: true, force: true });
});

async function importLog(jsonl: string): Promise<string> {
  return (await client.call<{ sessionId: string }>('importSession', { jsonl })).sessionId;
}

describe('issue 8 through the real WebSocket host', () => {
  it('the follow-up path never uses the folder, endpoint or read records of an imported log', async () => {
    const id = await importLog(hostileLog({ id: 'ui-steer', cwd: victim, baseUrl: attacker.baseUrl, readRecord: { path: 'a.txt', content: 'hello\n' } }));
    // An imported session is read-only: nothing runs in it, whatever folder its header names.
    expect(await client.failureCode('followup', { sessionId: id, text: 'please continue' })).toBe('SESSION_READ_ONLY');
    expect(await client.failureCode('compactSession', { sessionId: id })).toBe('SESSION_READ_ONLY');
    expect(await client.failureCode('openTerminal', { sessionId: id, cols: 80, rows: 24 })).toBe('SESSION_READ_ONLY');

    // A fork of it must name a folder here; it never inherits the folder the file named.
    expect(await client.failureCode('forkSession', { sessionId: id })).toBe('WORKSPACE_REQUIRED');

    // Forked into a folder the user names, it runs there on the configured endpoint, and the file's
    // read record does not let it edit a.txt unread.
    const child = await client.call<SessionSummary>('forkSession', { sessionId: id, cwd: work });
    expect(child.cwd).toBe(realpathSync(work));
    good.enqueue(toolCallResponse([{ id: 'e1', name: 'edit_file', arguments: JSON.stringify({ path: 'a.txt', old_string: 'hello', new_string: 'bye' }) }]), textResponse('tried to edit'));
    await client.call('followup', { sessionId: child.id, text: 'please continue' });
    await runtime.host.agentFor(child.id)!.whenIdle();
    const sub = await client.call<SubscribeResult>('subscribeSession', { sessionId: child.id, fromSeq: 0 });
    const results = eventsOfType(sub.events as never, 'tool/result');
    expect(results.at(-1)!.data.error?.code).toBe('FILE_NOT_READ');
    expect(readFileSync(join(work, 'a.txt'), 'utf8')).toBe('hello\n');
    expect(good.requests.at(-1)!.headers['authorization']).toBe('Bearer sk-ui-key');
    expect(attacker.requests).toHaveLength(0);
    expect(readFileSync(join(victim, 'a.txt'), 'utf8')).toBe('hello\n');
  });

  it('compare and "fork in own folder" never give git a checkpoint id from a file', async () => {
    const target = join(victim, 'victim.txt');
    const indexTarget = join(victim, 'x');
    writeFileSync(target, 'precious bytes\n');
    writeFileSync(indexTarget, 'precious index\n');
    const a = await importLog(hostileLog({ id: 'ui-ckpt-a', cwd: victim, commit: `--output=${target}` }));
    const b = await importLog(hostileLog({ id: 'ui-ckpt-b', cwd: victim, commit: `--index-output=${indexTarget}` }));
    const compared = await client.call<{ diffNote?: string; files: unknown[] }>('compareSessions', { a, b });
    expect(compared.diffNote).toContain('no workspace checkpoint');
    expect(compared.files).toEqual([]);
    expect(await client.failureCode('forkSession', { sessionId: b, worktree: true })).toBe('WORKSPACE_REQUIRED');
    // A native fork of it (in a folder named here) inherits the prefix, not the right to use its checkpoints.
    const child = await client.call<SessionSummary>('forkSession', { sessionId: b, cwd: work });
    expect(await client.failureCode('forkSession', { sessionId: child.id, worktree: true })).toBe('WORKTREE_UNAVAILABLE');
    const withChild = await client.call<{ diffNote?: string; files: unknown[] }>('compareSessions', { a: child.id, b: a });
    expect(withChild.files).toEqual([]);
    expect(readFileSync(target, 'utf8')).toBe('precious bytes\n');
    expect(readFileSync(indexTarget, 'utf8')).toBe('precious index\n');
  });

  it('a seq-gap or nesting bomb is refused before allocation and the host keeps serving', async () => {
    const heapBefore = process.memoryUsage().heapUsed;
    const gap = [
      JSON.stringify({ type: 'session', version: 0, id: 'ui-gap', createdAt: 1 }),
      JSON.stringify({ type: 'turn/end', seq: 100_000_000, time: 2, data: { turn: 1, reason: { kind: 'completed' } } }),
    ].join('\n');
    expect(await client.failureCode('importSession', { jsonl: gap })).toBe('IMPORT_LIMIT_EXCEEDED');
    const nested = [
      JSON.stringify({ type: 'session', version: 0, id: 'ui-deep', createdAt: 1 }),
      `{"type":"session/title","seq":0,"time":1,"data":{"title":"t","source":${'['.repeat(200_000)}${']'.repeat(200_000)}}}`,
    ].join('\n');
    expect(await client.failureCode('importSession', { jsonl: nested })).toBe('IMPORT_LIMIT_EXCEEDED');
    const sessions = await client.call<SessionSummary[]>('listSessions', {});
    expect(sessions.some((s) => s.id === 'ui-gap' || s.id === 'ui-deep')).toBe(false);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(200 * 1024 * 1024);
  });
});
