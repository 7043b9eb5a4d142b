/**
 * Tools through the real browser-mode host (WebSocket, real runtime, real SQLite, the real `openai`
 * client against the scripted model server):
 * - issue 8 item 5: a catastrophic grep runs off the main thread — `listSessions` answers while it
 *   runs — and a cancel ends it;
 * - issue 8 item 7: an approved `echo $DEEPSEEK_API_KEY` puts no key in the log or the next request;
 * - issue 11 item 5: an edit approval carries its diff and a failing edit is never asked;
 *   "allow for this session" is logged and stops the next prompt, also after resume and in a fork.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ApprovalRequest, HostPush, SessionSummary, SubscribeResult } from '../../../shared/api.js';
import { eventsOfType } from '../../../shared/events.js';
import { createRuntime, type Runtime } from '../../../electron/host/runtime.js';
import { startBrowserServer, type BrowserServer } from '../../../electron/host/transport/ws-server.js';
import { WsHostClient } from '../../support/ws-host-client.js';
import { startScriptedLlm, textResponse, toolCallResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';

const ENV_KEY = 'sk-env-deepseek-0123456789abcdef';
const SETTINGS_KEY = 'sk-settings-openai-abcdef987654321';

let llm: ScriptedLlm;
let dir: string;
let runtime: Runtime;
let server: BrowserServer;
let workspace: string;
let client: WsHostClient;

beforeAll(async () => {
  process.env['DEEPSEEK_API_KEY'] = ENV_KEY; // this file runs in its own process (pool: forks)
  llm = await startScriptedLlm();
  dir = mkdtempSync(join(tmpdir(), 'forkline-tools-ws-'));
  workspace = join(dir, 'ws');
  mkdirSync(workspace);
  const staticDir = join(dir, 'static');
  mkdirSync(staticDir);
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Forkline</title>');
  runtime = createRuntime({
    dataDir: join(dir, 'data'),
    env: {},
    overrides: { active: { provider: 'custom', baseUrl: llm.baseUrl, model: 'scripted-model' }, approvalPolicy: 'ask' },
    writeWindowMs: 5,
  });
  server = await startBrowserServer({ host: runtime.host, staticDir });
  client = await WsHostClient.connect(server.port, server.token);
});
afterAll(async () => {
  client.close();
  await server.close();
  await runtime.close();
  await llm.close();
  rmSync(dir, { recursive: true, force: true });
  delete process.env['DEEPSEEK_API_KEY'];
});

const pendingApprovals = (sessionId: string): readonly ApprovalRequest[] => {
  const last = client.pushes.filter((p): p is Extract<HostPush, { kind: 'session/approvals' }> => p.kind === 'session/approvals' && p.sessionId === sessionId).at(-1);
  return last?.approvals ?? [];
};
const idle = async (sessionId: string) => {
  await runtime.host.agentFor(sessionId)?.whenIdle();
};
const logOf = (sessionId: string) => runtime.store.readAll(sessionId);

describe('tools through the WebSocket host', () => {
  it('answers listSessions promptly while a catastrophic grep runs, and a cancel ends the grep', async () => {
    writeFileSync(join(workspace, 'evil.txt'), `${'a'.repeat(31)}!\n`);
    const session = await client.call<SessionSummary>('createSession', { cwd: workspace });
    const sub = await client.call<SubscribeResult>('subscribeSession', { sessionId: session.id, fromSeq: 0 });
    llm.enqueue(toolCallResponse([{ id: 'g1', name: 'grep', arguments: JSON.stringify({ pattern: '^(a+)+$', path: 'evil.txt' }) }]));
    await client.call('followup', { sessionId: session.id, text: 'search' });
    await vi.waitFor(() => expect(client.eventsFor(sub.subscriptionId).some((e) => e.type === 'tool/call')).toBe(true), { timeout: 10_000 });
    await new Promise((r) => setTimeout(r, 500)); // the worker is deep in backtracking by now

    const started = Date.now();
    const list = await client.call<SessionSummary[]>('listSessions', {});
    const answeredIn = Date.now() - started;
    expect(list.some((s) => s.id === session.id)).toBe(true);
    // Still running: the answer did not wait for the search.
    expect(client.eventsFor(sub.subscriptionId).some((e) => e.type === 'tool/result')).toBe(false);
    expect(answeredIn).toBeLessThan(5000);

    await client.call('cancel', { sessionId: session.id });
    await vi.waitFor(() => expect(client.eventsFor(sub.subscriptionId).some((e) => e.type === 'turn/end')).toBe(true), { timeout: 10_000 });
    const result = eventsOfType(logOf(session.id), 'tool/result')[0]!;
    expect(result.data.error?.code).toBe('ABORTED');
    expect(eventsOfType(logOf(session.id), 'turn/end')[0]!.data.reason).toMatchObject({ kind: 'aborted' });
  });

  it('an approved `echo $DEEPSEEK_API_KEY` puts no key into the log or the next request', async () => {
    await client.call('setApiKey', { provider: 'openai', apiKey: SETTINGS_KEY });
    writeFileSync(join(workspace, 'key.txt'), `token=${SETTINGS_KEY}\n`);
    const session = await client.call<SessionSummary>('createSession', { cwd: workspace });
    await client.call('subscribeSession', { sessionId: session.id, fromSeq: 0 });
    llm.enqueue(toolCallResponse([{ id: 'b1', name: 'bash', arguments: JSON.stringify({ command: 'echo "key=[$DEEPSEEK_API_KEY]"; cat key.txt' }) }]), textResponse('done'));
    await client.call('followup', { sessionId: session.id, text: 'print the key' });
    await vi.waitFor(() => expect(pendingApprovals(session.id)).toHaveLength(1), { timeout: 10_000 });
    await client.call('decideApproval', { sessionId: session.id, approvalId: pendingApprovals(session.id)[0]!.id, decision: 'allow-once' });
    await idle(session.id);
    const log = JSON.stringify(logOf(session.id));
    expect(log).not.toContain(ENV_KEY);
    expect(log).not.toContain(SETTINGS_KEY);
    const result = eventsOfType(logOf(session.id), 'tool/result')[0]!;
    expect((result.data.message.content[0]!.content[0] as { text: string }).text).toBe('key=[]\ntoken=[redacted secret]\n[exit code 0]');
    expect(JSON.stringify(llm.requests.at(-1)!.body)).not.toContain(ENV_KEY);
    await client.call('setApiKey', { provider: 'openai', apiKey: '' });
  });

  it('an edit approval shows its diff; an edit that would fail is refused without asking', async () => {
    writeFileSync(join(workspace, 'sum.js'), 'function sum(xs) {\n  return xs.reduce((a, b) => a + b);\n}\n');
    const session = await client.call<SessionSummary>('createSession', { cwd: workspace });
    await client.call('subscribeSession', { sessionId: session.id, fromSeq: 0 });
    llm.enqueue(
      toolCallResponse([{ id: 'e0', name: 'edit_file', arguments: JSON.stringify({ path: 'sum.js', old_string: 'b);', new_string: 'b, 0);' }) }]),
      toolCallResponse([{ id: 'r1', name: 'read_file', arguments: JSON.stringify({ path: 'sum.js' }) }]),
      toolCallResponse([{ id: 'e1', name: 'edit_file', arguments: JSON.stringify({ path: 'sum.js', old_string: 'b);', new_string: 'b, 0);' }) }]),
      textResponse('fixed'),
    );
    await client.call('followup', { sessionId: session.id, text: 'fix sum([])' });
    await vi.waitFor(() => expect(pendingApprovals(session.id)).toHaveLength(1), { timeout: 10_000 });
    const approval = pendingApprovals(session.id)[0]!;
    expect(approval.callId).toBe('e1'); // e0 failed (not read) and was never asked
    expect(approval.preview).toMatchObject({ kind: 'diff', path: 'sum.js', added: 1, removed: 1 });
    expect(approval.preview?.kind === 'diff' && approval.preview.patch).toContain('-  return xs.reduce((a, b) => a + b);\n+  return xs.reduce((a, b) => a + b, 0);\n');
    await client.call('decideApproval', { sessionId: session.id, approvalId: approval.id, decision: 'allow-once' });
    await idle(session.id);
    const results = eventsOfType(logOf(session.id), 'tool/result');
    expect(results[0]!.data.error?.code).toBe('FILE_NOT_READ');
    expect(eventsOfType(logOf(session.id), 'approval/asked').map((e) => e.data.callId)).toEqual(['e1']);
    expect(eventsOfType(logOf(session.id), 'approval/asked')[0]!.data.preview).toEqual(approval.preview);
    expect(readFileSync(join(workspace, 'sum.js'), 'utf8')).toContain('a + b, 0);');
  });

  it('"allow for this session" is logged, stops the next prompt for that command prefix, and survives resume and fork', async () => {
    const session = await client.call<SessionSummary>('createSession', { cwd: workspace });
    await client.call('subscribeSession', { sessionId: session.id, fromSeq: 0 });
    llm.enqueue(
      toolCallResponse([{ id: 'b1', name: 'bash', arguments: JSON.stringify({ command: 'echo one' }) }]),
      toolCallResponse([{ id: 'b2', name: 'bash', arguments: JSON.stringify({ command: 'echo two' }) }]),
      textResponse('done'),
    );
    await client.call('followup', { sessionId: session.id, text: 'echo twice' });
    await vi.waitFor(() => expect(pendingApprovals(session.id)).toHaveLength(1), { timeout: 10_000 });
    const first = pendingApprovals(session.id)[0]!;
    expect(first.preview).toEqual({ kind: 'command', command: 'echo one', cwd: workspace, suggestedPrefix: 'echo' });
    // A bash rule needs a prefix that covers the command.
    await expect(client.call('decideApproval', { sessionId: session.id, approvalId: first.id, decision: 'allow-session' })).rejects.toMatchObject({ code: 'INVALID_RULE' });
    await expect(client.call('decideApproval', { sessionId: session.id, approvalId: first.id, decision: 'allow-session', commandPrefix: 'ls' })).rejects.toMatchObject({ code: 'INVALID_RULE' });
    await client.call('decideApproval', { sessionId: session.id, approvalId: first.id, decision: 'allow-session', commandPrefix: 'echo' });
    await idle(session.id);
    let log = logOf(session.id);
    expect(eventsOfType(log, 'approval/asked')).toHaveLength(1);
    expect(eventsOfType(log, 'approval/decided')[0]!.data.outcome).toBe('allowed-session');
    expect(eventsOfType(log, 'approval/rule')[0]!.data).toEqual({ toolName: 'bash', commandPrefix: 'echo', approvalId: first.id });
    expect(eventsOfType(log, 'tool/result').map((e) => e.data.message.content[0]!.isError)).toEqual([false, false]);

    // Resume (a fresh agent reads the rule back from the log): `echo` runs, a compound command still asks.
    await runtime.host.stopAgent(session.id);
    llm.enqueue(
      toolCallResponse([{ id: 'b3', name: 'bash', arguments: JSON.stringify({ command: 'echo three' }) }]),
      toolCallResponse([{ id: 'b4', name: 'bash', arguments: JSON.stringify({ command: 'echo four; touch pwned' }) }]),
      textResponse('done'),
    );
    await client.call('followup', { sessionId: session.id, text: 'again' });
    await vi.waitFor(() => expect(pendingApprovals(session.id).map((a) => a.callId)).toEqual(['b4']), { timeout: 10_000 });
    await client.call('decideApproval', { sessionId: session.id, approvalId: pendingApprovals(session.id)[0]!.id, decision: 'reject' });
    await idle(session.id);
    log = logOf(session.id);
    expect(eventsOfType(log, 'approval/asked').map((e) => e.data.callId)).toEqual(['b1', 'b4']);

    // A fork at the last turn keeps the rule.
    const child = await client.call<SessionSummary>('forkSession', { sessionId: session.id });
    await client.call('subscribeSession', { sessionId: child.id, fromSeq: 0 });
    llm.enqueue(toolCallResponse([{ id: 'c1', name: 'bash', arguments: JSON.stringify({ command: 'echo from-fork' }) }]), textResponse('done'));
    await client.call('followup', { sessionId: child.id, text: 'in the fork' });
    await idle(child.id);
    const childLog = logOf(child.id);
    expect(eventsOfType(childLog.slice(child.seedLength ?? 0), 'approval/asked')).toHaveLength(0);
    expect((eventsOfType(childLog, 'tool/result').at(-1)!.data.message.content[0]!.content[0] as { text: string }).text).toBe('from-fork\n[exit code 0]');
  });
});
