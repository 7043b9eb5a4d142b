/**
 * Browser mode over a real WebSocket: token and Origin checks, static serving, the HostApi
 * round trip, and the live feed contract (gap replayed, then live; no duplicates, no holes; a
 * reconnect changes nothing in the log). The agent talks to the scripted server through the real
 * client.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import type { HostPush, RpcResponse, SubscribeResult } from '../../../shared/api.js';
import type { SessionEvent } from '../../../shared/events.js';
import { createRuntime, type Runtime } from '../../../electron/host/runtime.js';
import { startBrowserServer, type BrowserServer } from '../../../electron/host/transport/ws-server.js';
import { reply, startScriptedLlm, textResponse, toolCallResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';

let llm: ScriptedLlm;
let dir: string;
let runtime: Runtime;
let server: BrowserServer;
let workspace: string;

beforeAll(async () => {
  llm = await startScriptedLlm();
  dir = mkdtempSync(join(tmpdir(), 'forkline-host-'));
  workspace = join(dir, 'ws');
  mkdirSync(workspace);
  const staticDir = join(dir, 'static');
  mkdirSync(staticDir);
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Forkline</title>');
  runtime = createRuntime({
    dataDir: join(dir, 'data'),
    env: {},
    overrides: { active: { provider: 'custom', baseUrl: llm.baseUrl, model: 'scripted-model' }, approvalPolicy: 'allow' },
    writeWindowMs: 5,
  });
  server = await startBrowserServer({ host: runtime.host, staticDir });
});
afterAll(async () => {
  await server.close();
  await runtime.close();
  await llm.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A small RPC client over a real WebSocket. */
class Client {
  private nextId = 1;
  private readonly waiting = new Map<number, (r: RpcResponse) => void>();
  readonly pushes: HostPush[] = [];
  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (raw) => {
      const message = JSON.parse(raw.toString()) as RpcResponse | { push: HostPush };
      if ('push' in message) this.pushes.push(message.push);
      else this.waiting.get(message.id)?.(message);
    });
  }
  static connect(url: string, origin?: string): Promise<Client> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, origin === undefined ? {} : { origin });
      ws.once('open', () => resolve(new Client(ws)));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      ws.once('error', reject);
    });
  }
  async call<T>(method: string, params: unknown): Promise<T> {
    const id = this.nextId++;
    const response = await new Promise<RpcResponse>((resolve) => {
      this.waiting.set(id, resolve);
      this.ws.send(JSON.stringify({ id, method, params }));
    });
    if (!response.ok) throw Object.assign(new Error(response.error.message), { code: response.error.code });
    return response.result as T;
  }
  eventsFor(subscriptionId: string): SessionEvent[] {
    return this.pushes.flatMap((p) => (p.kind === 'session/events' && p.subscriptionId === subscriptionId ? [...p.events] : []));
  }
  close(): void {
    this.ws.close();
  }
}

const wsUrl = () => `ws://127.0.0.1:${server.port}/host?token=${server.token}`;
const origin = () => `http://127.0.0.1:${server.port}`;
const idle = async (client: Client, sessionId: string) => {
  const agent = runtime.host.agentFor(sessionId);
  await agent?.whenIdle();
  await new Promise((r) => setTimeout(r, 20));
  void client;
};

describe('browser mode', () => {
  it('binds to 127.0.0.1 and prints a URL with a token', () => {
    expect(server.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${server.port}/\\?token=[0-9a-f]{64}$`));
  });

  it('refuses a connection without the token, with a wrong token, or from a foreign Origin', async () => {
    await expect(Client.connect(`ws://127.0.0.1:${server.port}/host`, origin())).rejects.toThrow('HTTP 401');
    await expect(Client.connect(`ws://127.0.0.1:${server.port}/host?token=${'0'.repeat(64)}`, origin())).rejects.toThrow('HTTP 401');
    await expect(Client.connect(wsUrl(), 'http://evil.example')).rejects.toThrow('HTTP 403');
    await expect(Client.connect(wsUrl())).rejects.toThrow('HTTP 403');
    const ok = await Client.connect(wsUrl(), origin());
    expect(Array.isArray(await ok.call('listSessions', {}))).toBe(true);
    ok.close();
  });

  it('serves the renderer with a CSP and refuses paths outside it', async () => {
    const page = await fetch(`http://127.0.0.1:${server.port}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('Forkline');
    const escape = await fetch(`http://127.0.0.1:${server.port}/%2e%2e/%2e%2e/package.json`);
    expect([403, 404]).toContain(escape.status);
  });

  it('validates method names and arguments at the boundary', async () => {
    const client = await Client.connect(wsUrl(), origin());
    await expect(client.call('deleteEverything', {})).rejects.toMatchObject({ code: 'UNKNOWN_METHOD' });
    await expect(client.call('followup', { sessionId: 'x' })).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    client.close();
  });

  it('replays the gap from a given seq, then streams live events with no duplicates and no holes', async () => {
    const client = await Client.connect(wsUrl(), origin());
    const session = await client.call<{ id: string }>('createSession', { cwd: workspace });
    llm.enqueue(textResponse('first answer'));
    await client.call('followup', { sessionId: session.id, text: 'first' });
    await idle(client, session.id);
    const full = await client.call<SubscribeResult>('subscribeSession', { sessionId: session.id, fromSeq: 0 });
    expect(full.events.map((e) => e.seq)).toEqual(full.events.map((_, i) => i));
    expect(full.header.title).toBe('first');

    // A second client subscribes from seq 5 while the next turn streams slowly.
    const other = await Client.connect(wsUrl(), origin());
    llm.enqueue(reply({ text: 'a slow second answer streamed in many small pieces', split: 3, frameDelayMs: 10 }));
    await client.call('followup', { sessionId: session.id, text: 'second' });
    await new Promise((r) => setTimeout(r, 60));
    const partial = await other.call<SubscribeResult>('subscribeSession', { sessionId: session.id, fromSeq: 5 });
    await idle(other, session.id);
    const seen = [...partial.events, ...other.eventsFor(partial.subscriptionId)].map((e) => e.seq);
    const total = runtime.host.agentFor(session.id)!.session.length;
    expect(seen).toEqual(Array.from({ length: total - 5 }, (_, i) => i + 5));
    // The first client's subscription got the live tail too, exactly once each.
    const live = client.eventsFor(full.subscriptionId).map((e) => e.seq);
    expect(live).toEqual(Array.from({ length: total - full.events.length }, (_, i) => i + full.events.length));
    expect(client.pushes.some((p) => p.kind === 'session/status' && p.status === 'running')).toBe(true);
    other.close();
    client.close();
  });

  it('a reconnecting client (a page reload) changes nothing in the log', async () => {
    const first = await Client.connect(wsUrl(), origin());
    const session = await first.call<{ id: string }>('createSession', { cwd: workspace });
    llm.enqueue(textResponse('hello'));
    await first.call('followup', { sessionId: session.id, text: 'hi' });
    await idle(first, session.id);
    const before = await first.call<SubscribeResult>('subscribeSession', { sessionId: session.id, fromSeq: 0 });
    first.close();
    await new Promise((r) => setTimeout(r, 20));
    const second = await Client.connect(wsUrl(), origin());
    const after = await second.call<SubscribeResult>('subscribeSession', { sessionId: session.id, fromSeq: 0 });
    expect(after.events).toEqual(before.events);
    expect(runtime.store.readAll(session.id).length).toBe(before.events.length);
    second.close();
  });

  it('asks for approval before a write, and runs it once allowed', async () => {
    const client = await Client.connect(wsUrl(), origin());
    const session = await client.call<{ id: string }>('createSession', { cwd: workspace });
    await client.call('updateSettings', { approvalPolicy: 'ask' });
    llm.enqueue(toolCallResponse([{ id: 'w1', name: 'write_file', arguments: JSON.stringify({ path: 'approved.txt', content: 'yes\n' }) }]), textResponse('written'));
    const sub = await client.call<SubscribeResult>('subscribeSession', { sessionId: session.id, fromSeq: 0 });
    await client.call('followup', { sessionId: session.id, text: 'write a file' });
    // vi.waitFor's default is 1 s: the agent's first step (a model request, the approval) takes longer on a loaded machine.
    await vi.waitFor(() => expect(client.pushes.some((p) => p.kind === 'session/approvals' && p.approvals.length === 1)).toBe(true), { timeout: 30_000 });
    const asked = client.pushes.find((p): p is Extract<HostPush, { kind: 'session/approvals' }> => p.kind === 'session/approvals' && p.approvals.length === 1)!;
    expect(asked.approvals[0]).toMatchObject({ toolName: 'write_file', callId: 'w1' });
    expect(existsSync(join(workspace, 'approved.txt'))).toBe(false);
    await client.call('decideApproval', { sessionId: session.id, approvalId: asked.approvals[0]!.id, decision: 'allow-once' });
    await idle(client, session.id);
    expect(readFileSync(join(workspace, 'approved.txt'), 'utf8')).toBe('yes\n');
    const types = client.eventsFor(sub.subscriptionId).map((e) => e.type);
    expect(types.indexOf('approval/asked')).toBeLessThan(types.indexOf('approval/decided'));
    expect(types.indexOf('approval/decided')).toBeLessThan(types.indexOf('tool/result'));
    await expect(client.call('decideApproval', { sessionId: session.id, approvalId: asked.approvals[0]!.id, decision: 'reject' })).rejects.toMatchObject({ code: 'APPROVAL_NOT_FOUND' });
    await client.call('updateSettings', { approvalPolicy: 'allow' });
    client.close();
  });

  it('settings: presets, key presence (never the key), validation', async () => {
    const client = await Client.connect(wsUrl(), origin());
    const view = await client.call<{ presets: { id: string }[]; keys: Record<string, boolean>; active: { provider: string } }>('getSettings', {});
    expect(view.presets.map((p) => p.id)).toEqual(['deepseek', 'openai', 'openrouter', 'gemini', 'ollama', 'vllm', 'llamacpp', 'lmstudio', 'custom']);
    expect(view.keys['deepseek']).toBe(false);
    const after = await client.call<{ keys: Record<string, boolean> }>('setApiKey', { provider: 'deepseek', apiKey: 'sk-secret-value' });
    expect(after.keys['deepseek']).toBe(true);
    expect(JSON.stringify(after)).not.toContain('sk-secret-value');
    await expect(client.call('updateSettings', { active: { provider: 'custom', baseUrl: 'not a url', model: 'm' } })).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    await client.call('setApiKey', { provider: 'deepseek', apiKey: '' });
    client.close();
  });

  it('forks at a closed turn, exports and re-imports through the API', async () => {
    const client = await Client.connect(wsUrl(), origin());
    const session = await client.call<{ id: string }>('createSession', { cwd: workspace });
    llm.enqueue(textResponse('one'), textResponse('two'));
    await client.call('followup', { sessionId: session.id, text: 'turn one' });
    await idle(client, session.id);
    await client.call('followup', { sessionId: session.id, text: 'turn two' });
    await idle(client, session.id);
    const events = runtime.host.agentFor(session.id)!.session.events;
    const firstEnd = events.find((e) => e.type === 'turn/end')!;
    // Inside a turn, or beyond the log: refused, with the turn ends where a fork may cut.
    await expect(client.call('forkSession', { sessionId: session.id, atSeq: firstEnd.seq - 2 })).rejects.toMatchObject({
      code: 'OPEN_TURN',
      message: expect.stringContaining(`turn 1 ended at seq ${firstEnd.seq}`),
    });
    await expect(client.call('forkSession', { sessionId: session.id, atSeq: 999_999 })).rejects.toMatchObject({ code: 'NO_SUCH_SEQ', message: expect.stringContaining('beyond the end') });
    const child = await client.call<{ id: string; parentSession: string; seedLength: number; title?: string }>('forkSession', { sessionId: session.id, atSeq: firstEnd.seq });
    expect(child.parentSession).toBe(session.id);
    // The cut is exactly turn 1's end: the parent's later events (its checkpoint, the splice that
    // queued "turn two") stay with the parent; the child starts from turn 1's workspace snapshot.
    expect(child.seedLength).toBe(firstEnd.seq + 1);
    // A fork inherits no title (no "fork 1 · fork 1 · …" stacking): its own first prompt names it.
    expect(child.title).toBeUndefined();
    const childView = await client.call<SubscribeResult>('subscribeSession', { sessionId: child.id, fromSeq: 0 });
    expect(childView.events.slice(0, firstEnd.seq + 1)).toEqual(events.slice(0, firstEnd.seq + 1));
    expect(childView.events.slice(firstEnd.seq + 1).map((e) => e.type)).toEqual(['session/end-seed', 'workspace/checkpoint']);
    const parentCheckpoint = events.find((e) => e.type === 'workspace/checkpoint' && e.data.turn === 1 && e.seq > firstEnd.seq);
    expect(childView.events.at(-1)!.data).toEqual(parentCheckpoint!.data);
    expect(childView.inbox).toEqual({ nextTurn: [], nextStep: [] });
    llm.enqueue(textResponse('three'));
    await client.call('followup', { sessionId: child.id, text: 'turn two, the other way' });
    await idle(client, child.id);
    const listed = await client.call<{ id: string; title?: string }[]>('listSessions', {});
    expect(listed.find((s) => s.id === child.id)!.title).toBe('turn two, the other way');
    expect(listed.find((s) => s.id === session.id)!.title).toBe('turn one');
    const exported = await client.call<{ fileName: string; jsonl: string }>('exportSession', { sessionId: session.id });
    expect(exported.fileName).toMatch(/\.jsonl$/);
    const imported = await client.call<{ sessionId: string; warnings: string[] }>('importSession', { jsonl: exported.jsonl });
    expect(imported.sessionId).not.toBe(session.id);
    expect(runtime.store.readAll(imported.sessionId)).toEqual(runtime.store.readAll(session.id));
    const empty = await client.call<{ id: string }>('createSession', { cwd: workspace });
    await expect(client.call('forkSession', { sessionId: empty.id })).rejects.toMatchObject({ code: 'FORK_UNAVAILABLE' });
    client.close();
  });
});
