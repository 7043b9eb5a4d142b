/**
 * MCP tools end to end (docs/architecture.md §8b, issue 15): a real MCP server written with the official SDK
 * (test/support/mcp/test-mcp-server.mjs, run as its own process over stdio, or over streamable
 * HTTP), configured through `--mcp-config`-style files, used by the real host, agent, pipeline and
 * store while the scripted model calls its tools through the real `openai` client.
 *
 * Checked for both transports: the model sees the namespaced tools in every request and the header
 * logs them; calls are logged and paired in model order; schema validation, approvals (per-tool
 * "allow", default ask → the user's answer) apply; killing the server mid-call ends that call with a
 * tool error while the turn goes on, and the next call restarts it. Stdio also: a server that writes
 * non-JSON, one that hangs past its deadline, and one that cannot start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { McpServerStatus } from '../../../shared/api.js';
import { eventsOfType, type ApprovalOutcome, type SessionEvent } from '../../../shared/events.js';
import type { ApprovalQuestion } from '../../../electron/tools/pipeline.js';
import { createRuntime, type Runtime } from '../../../electron/host/runtime.js';
import { OpenAiCompatibleClient } from '../../../electron/llm/openai-compatible-client.js';
import { waitFor } from '../../support/agent-harness.js';
import { rebuildRequestBodies } from '../../support/request-rebuild.js';
import { startScriptedLlm, textResponse, toolCallResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';

const SERVER = join(import.meta.dirname, '../../support/mcp/test-mcp-server.mjs');

let llm: ScriptedLlm;
let dir: string;
let runtime: Runtime | undefined;
let httpServer: ChildProcess | undefined;

beforeAll(async () => {
  llm = await startScriptedLlm();
});
afterAll(async () => {
  await llm.close();
});
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
  httpServer?.kill('SIGKILL');
  httpServer = undefined;
  rmSync(dir, { recursive: true, force: true });
});

interface Setup {
  readonly runtime: Runtime;
  readonly workspace: string;
  readonly notes: string;
  readonly mark: string;
  readonly questions: ApprovalQuestion[];
  answer: ApprovalOutcome;
}

/** A runtime whose every workspace gets the server `calc` from a configuration file. */
function setup(server: Record<string, unknown>, existingDir?: string): Setup {
  dir = existingDir ?? mkdtempSync(join(tmpdir(), 'forkline-mcp-'));
  const workspace = join(dir, 'ws');
  mkdirSync(workspace);
  const notes = join(dir, 'notes.txt');
  const mark = join(dir, 'slow.pid');
  const configFile = join(dir, 'mcp.json');
  writeFileSync(configFile, JSON.stringify({ mcpServers: { calc: { toolApproval: { add: 'allow' }, timeoutMs: 20_000, ...server } } }));
  const state: Setup = {
    runtime: undefined as unknown as Runtime,
    workspace,
    notes,
    mark,
    questions: [],
    answer: 'allowed-once',
  };
  runtime = createRuntime({
    dataDir: join(dir, 'data'),
    env: { PATH: process.env['PATH'], MCP_NOTE_FILE: notes, MCP_MARK_FILE: mark },
    overrides: { active: { provider: 'custom', baseUrl: llm.baseUrl, model: 'scripted-model' }, approvalPolicy: 'ask' },
    writeWindowMs: 5,
    mcpConfigFiles: [configFile],
    approvalAnswerer: async (question) => {
      state.questions.push(question);
      return state.answer;
    },
  });
  return Object.assign(state, { runtime });
}

const stdioServer = () => ({ command: process.execPath, args: [SERVER], env: { MCP_NOTE_FILE: '${MCP_NOTE_FILE}', MCP_MARK_FILE: '${MCP_MARK_FILE}' } });

/** Starts the test server over streamable HTTP in its own process; resolves with its URL. */
async function startHttpServer(env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, [SERVER, '--http'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  httpServer = child;
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the HTTP MCP server exited (${code})`)));
  });
}

/** Runs one turn with `text` and returns the session's events. */
async function turn(s: Setup, sessionId: string, text: string): Promise<readonly SessionEvent[]> {
  const connection = s.runtime.host.connect(() => undefined);
  connection.followup({ sessionId, text });
  const agent = s.runtime.host.agentFor(sessionId)!;
  await agent.whenIdle();
  connection.dispose();
  return agent.session.events;
}

function newSession(s: Setup): string {
  const connection = s.runtime.host.connect(() => undefined);
  const id = connection.createSession({ cwd: s.workspace }).id;
  connection.dispose();
  return id;
}

const statuses = (s: Setup): McpServerStatus[] => s.runtime.host.connect(() => undefined).listMcpServers();
const resultOf = (events: readonly SessionEvent[], callId: string) => eventsOfType(events, 'tool/result').find((e) => e.data.message.content[0]!.toolCallId === callId)!;
const textOf = (e: SessionEvent<'tool/result'>) => e.data.message.content[0]!.content[0]!.text;

/** Every tool/call has exactly one tool/result after it, in the same order. */
function expectPaired(events: readonly SessionEvent[]): void {
  const calls = eventsOfType(events, 'tool/call').map((e) => e.data.callId);
  const results = eventsOfType(events, 'tool/result')
    .filter((e) => e.surfaceOp === 'append')
    .map((e) => e.data.message.content[0]!.toolCallId);
  expect(results).toEqual(calls);
  for (const id of calls) {
    const call = eventsOfType(events, 'tool/call').find((e) => e.data.callId === id)!;
    expect(resultOf(events, id).seq).toBeGreaterThan(call.seq);
  }
}

for (const transport of ['stdio', 'http'] as const) {
  describe(`MCP tools over ${transport}`, () => {
    it('are offered, validated, approved, logged and paired; a server killed mid-call gives a tool error and the turn goes on', async () => {
      let s: Setup;
      if (transport === 'stdio') s = setup(stdioServer());
      else {
        const own = mkdtempSync(join(tmpdir(), 'forkline-mcp-'));
        dir = own;
        const url = await startHttpServer({ MCP_NOTE_FILE: join(own, 'notes.txt'), MCP_MARK_FILE: join(own, 'slow.pid') });
        s = setup({ url }, own);
      }
      const sessionId = newSession(s);
      const first = llm.requests.length;
      llm.enqueue(
        toolCallResponse([
          { id: 'add1', name: 'mcp__calc__add', arguments: '{"a":2,"b":3}' },
          { id: 'note1', name: 'mcp__calc__note', arguments: '{"text":"hello"}' },
        ]),
        toolCallResponse([{ id: 'bad1', name: 'mcp__calc__add', arguments: '{"a":"two","b":3}' }]),
        textResponse('2 + 3 = 5, and the note is saved.'),
      );
      let events = await turn(s, sessionId, 'add 2 and 3, then note hello');

      // The model saw both tools (namespaced, schema without $schema) in every request of the turn.
      const body = llm.requests[first]!.body as { tools: { function: { name: string; parameters: Record<string, unknown> } }[] };
      const offered = body.tools.map((t) => t.function.name);
      expect(offered).toEqual(expect.arrayContaining(['mcp__calc__add', 'mcp__calc__note', 'read_file', 'bash']));
      const add = body.tools.find((t) => t.function.name === 'mcp__calc__add')!.function;
      expect(add.parameters).toMatchObject({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] });
      expect(add.parameters).not.toHaveProperty('$schema');
      const header = eventsOfType(events, 'request/header')[0]!.data.header;
      expect(header.tools!.map((t) => t.name)).toEqual(expect.arrayContaining(['mcp__calc__add', 'mcp__calc__note', 'mcp__calc__slow']));

      // add ran without asking (per-tool allow); note asked (default ask) and ran once allowed.
      expect(textOf(resultOf(events, 'add1'))).toBe('5');
      expect(s.questions.map((q) => q.toolName)).toEqual(['mcp__calc__note']);
      expect(s.questions[0]!.reason).toBe('calls tool "note" of MCP server "calc"');
      expect(eventsOfType(events, 'approval/asked').map((e) => e.data.toolName)).toEqual(['mcp__calc__note']);
      expect(textOf(resultOf(events, 'note1'))).toBe('noted: hello');
      expect(readFileSync(s.notes, 'utf8')).toBe('hello\n');
      // Invalid arguments never reach the server.
      expect(resultOf(events, 'bad1').data.error?.code).toBe('INVALID_ARGS');
      expectPaired(events);
      expect(eventsOfType(events, 'turn/end').at(-1)!.data.reason).toEqual({ kind: 'completed' });
      const client = new OpenAiCompatibleClient(s.runtime.settings.providerSettings());
      expect(rebuildRequestBodies(s.runtime.host.agentFor(sessionId)!.session.header, events, client)).toEqual(llm.requests.slice(first).map((r) => r.rawBody));

      // A rejected approval: the tool never runs.
      s.answer = 'rejected';
      llm.enqueue(toolCallResponse([{ id: 'note2', name: 'mcp__calc__note', arguments: '{"text":"nope"}' }]), textResponse('Understood.'));
      events = await turn(s, sessionId, 'note nope');
      expect(resultOf(events, 'note2').data.error?.code).toBe('DENIED');
      expect(readFileSync(s.notes, 'utf8')).toBe('hello\n');

      // Kill the server while `slow` runs: that call ends with a tool error, the turn goes on.
      s.answer = 'allowed-once';
      llm.enqueue(toolCallResponse([{ id: 'slow1', name: 'mcp__calc__slow', arguments: '{}' }]), textResponse('The server died; I will tell the user.'));
      const running = turn(s, sessionId, 'do the slow thing');
      await waitFor(() => existsSync(s.mark) && readFileSync(s.mark, 'utf8') !== '', 15_000);
      if (transport === 'stdio') process.kill(Number(readFileSync(s.mark, 'utf8')), 'SIGKILL');
      else httpServer!.kill('SIGKILL');
      events = await running;
      const slow = resultOf(events, 'slow1');
      expect(slow.data.message.content[0]!.isError).toBe(true);
      expect(slow.data.error?.code).toBe('TOOL_ERROR');
      expect(textOf(slow)).toContain('MCP server "calc"');
      expect(eventsOfType(events, 'assistant/message').at(-1)!.data.message.content).toEqual([{ type: 'text', text: 'The server died; I will tell the user.' }]);
      expect(eventsOfType(events, 'turn/end').at(-1)!.data.reason).toEqual({ kind: 'completed' });
      expectPaired(events);
      const calc = statuses(s).find((x) => x.name === 'calc')!;
      expect(['closed', 'failed']).toContain(calc.state);
      expect(calc.error).toBeTruthy();

      if (transport === 'stdio') {
        // The next call restarts the server.
        llm.enqueue(toolCallResponse([{ id: 'add2', name: 'mcp__calc__add', arguments: '{"a":3,"b":4}' }]), textResponse('7'));
        events = await turn(s, sessionId, 'add 3 and 4');
        expect(textOf(resultOf(events, 'add2'))).toBe('7');
        expect(statuses(s).find((x) => x.name === 'calc')!.state).toBe('ready');
      } else {
        // Nobody restarts a remote server: the next call tries to reconnect and says it is not running.
        llm.enqueue(toolCallResponse([{ id: 'add2', name: 'mcp__calc__add', arguments: '{"a":3,"b":4}' }]), textResponse('It is down.'));
        events = await turn(s, sessionId, 'add 3 and 4');
        expect(resultOf(events, 'add2').data.error?.code).toBe('TOOL_ERROR');
        expect(textOf(resultOf(events, 'add2'))).toMatch(/MCP server "calc" is not running/);
        expect(eventsOfType(events, 'turn/end').at(-1)!.data.reason).toEqual({ kind: 'completed' });
      }
    }, 60_000);
  });
}

describe('MCP servers that misbehave', () => {
  it('a server writing non-JSON fails the call at once and shows why', async () => {
    const s = setup(stdioServer());
    const sessionId = newSession(s);
    llm.enqueue(toolCallResponse([{ id: 'g1', name: 'mcp__calc__garbage', arguments: '{}' }]), textResponse('It broke.'));
    const started = Date.now();
    const events = await turn(s, sessionId, 'break it');
    expect(Date.now() - started).toBeLessThan(15_000);
    const result = resultOf(events, 'g1');
    expect(result.data.error?.code).toBe('TOOL_ERROR');
    expect(textOf(result)).toContain('not JSON-RPC');
    expect(eventsOfType(events, 'turn/end').at(-1)!.data.reason).toEqual({ kind: 'completed' });
    const calc = statuses(s).find((x) => x.name === 'calc')!;
    expect(calc.state).toBe('failed');
    expect(calc.error).toContain('not JSON-RPC');
  }, 30_000);

  it("a call that hangs past the server's deadline ends as TOOL_TIMEOUT", async () => {
    const s = setup({ ...stdioServer(), timeoutMs: 400 });
    const sessionId = newSession(s);
    llm.enqueue(toolCallResponse([{ id: 'h1', name: 'mcp__calc__slow', arguments: '{}' }]), textResponse('Too slow.'));
    const events = await turn(s, sessionId, 'be slow');
    expect(resultOf(events, 'h1').data.error?.code).toBe('TOOL_TIMEOUT');
    expect(eventsOfType(events, 'turn/end').at(-1)!.data.reason).toEqual({ kind: 'completed' });
  }, 30_000);

  it('a server that cannot start leaves its tools out, shows the error, and the turn runs', async () => {
    const s = setup({ command: join(tmpdir(), 'no-such-mcp-server-binary') });
    const sessionId = newSession(s);
    const first = llm.requests.length;
    llm.enqueue(textResponse('Fine without it.'));
    const events = await turn(s, sessionId, 'hello');
    const body = llm.requests[first]!.body as { tools: { function: { name: string } }[] };
    expect(body.tools.map((t) => t.function.name).filter((n) => n.startsWith('mcp__'))).toEqual([]);
    expect(eventsOfType(events, 'turn/end').at(-1)!.data.reason).toEqual({ kind: 'completed' });
    const calc = statuses(s).find((x) => x.name === 'calc')!;
    expect(calc.state).toBe('failed');
    expect(calc.error).toMatch(/could not start: the command .*no-such-mcp-server-binary was not found; install it/);
  }, 30_000);

  it('a workspace .forkline/mcp.json starts only once trusted, for exactly those bytes', async () => {
    dir = mkdtempSync(join(tmpdir(), 'forkline-mcp-'));
    const workspace = join(dir, 'ws');
    mkdirSync(join(workspace, '.forkline'), { recursive: true });
    const file = join(workspace, '.forkline', 'mcp.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { repo: { command: process.execPath, args: [SERVER, '--tools', 'add'] } } }));
    runtime = createRuntime({
      dataDir: join(dir, 'data'),
      env: { PATH: process.env['PATH'] },
      overrides: { active: { provider: 'custom', baseUrl: llm.baseUrl, model: 'scripted-model' }, approvalPolicy: 'allow' },
      writeWindowMs: 5,
    });
    const s = { runtime, workspace } as Setup;
    const sessionId = newSession(s);
    let first = llm.requests.length;
    llm.enqueue(textResponse('no repo tools'));
    await turn(s, sessionId, 'hi');
    const names = (n: number) => (llm.requests[n]!.body as { tools: { function: { name: string } }[] }).tools.map((t) => t.function.name);
    expect(names(first).filter((n) => n.startsWith('mcp__'))).toEqual([]);
    const pending = statuses(s).find((x) => x.name === 'repo')!;
    expect(pending.state).toBe('untrusted');
    expect(pending.file).toBe(file);

    const connection = runtime.host.connect(() => undefined);
    expect(() => connection.trustMcpConfig({ file, sha256: '0'.repeat(64) })).toThrow(/not an untrusted MCP configuration/);
    connection.trustMcpConfig({ file, sha256: pending.sha256! });
    first = llm.requests.length;
    llm.enqueue(toolCallResponse([{ id: 'r1', name: 'mcp__repo__add', arguments: '{"a":1,"b":1}' }]), textResponse('2'));
    const events = await turn(s, sessionId, 'add');
    expect(names(first)).toContain('mcp__repo__add');
    expect(textOf(resultOf(events, 'r1'))).toBe('2');
    // The tool list changed between the two turns: a new header says so.
    expect(eventsOfType(events, 'request/header').map((e) => e.data.reason)).toEqual(['initial', 'change']);
    connection.dispose();
  }, 30_000);
});
