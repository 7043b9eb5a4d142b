/**
 * Gemini CLI chats, Cline / Roo Code task folders and opencode storage folders (issue 20 item 6)
 * imported through the real pipeline into a real SQLite store (folders through the CLI's own
 * folder reader), then continued: a fork into a folder of ours sends, through the real `openai`
 * client, a first request whose history is the imported conversation — user messages, assistant
 * text, tool calls each answered by its result in call order — asserted on the bytes the scripted
 * server received, and equal byte for byte to the request rebuilt from the child's log.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImportSummary } from '../../../shared/import-summary.js';
import { importSources } from '../../../electron/host/services/folder-import.js';
import { createRuntime, type Runtime } from '../../../electron/host/runtime.js';
import { OpenAiCompatibleClient } from '../../../electron/llm/openai-compatible-client.js';
import { InvariantChecker } from '../../../electron/session/invariant.js';
import { Session } from '../../../electron/session/session.js';
import { FIXTURES_DIR } from '../../support/fixtures.js';
import { AGENT_LOGS, historyProblems } from '../../support/import-fixtures.js';
import { rebuildRequestBodies } from '../../support/request-rebuild.js';
import { startScriptedLlm, textResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';
import { beginImport } from '../../../electron/host/services/session-imports.js';

const FOLDERS = join(FIXTURES_DIR, 'agent-session-folders');
const SPEC = join(FIXTURES_DIR, 'agent-session-spec');

let llm: ScriptedLlm;
let dir: string;
let workspace: string;
let runtime: Runtime;

beforeAll(async () => {
  llm = await startScriptedLlm();
  dir = mkdtempSync(join(tmpdir(), 'forkline-continue-more-'));
  workspace = join(dir, 'ws');
  mkdirSync(workspace);
  runtime = createRuntime({
    dataDir: join(dir, 'data'),
    env: { FORKLINE_CHECKPOINTS: 'off' },
    overrides: { active: { provider: 'custom', baseUrl: llm.baseUrl, model: 'scripted-model' }, approvalPolicy: 'allow' },
    writeWindowMs: 5,
  });
});
afterAll(async () => {
  await runtime.close();
  await llm.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Imports a file or a session folder as `forkline import` does (one summary per session). */
async function importPath(path: string): Promise<ImportSummary[]> {
  const out: ImportSummary[] = [];
  for (const source of importSources(path)) {
    const job = beginImport(runtime.repository, source.fileName);
    for await (const chunk of source.chunks()) job.write(chunk);
    out.push(job.end());
  }
  return out;
}

interface WireMessage {
  readonly role: string;
  readonly content?: unknown;
  readonly tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  readonly tool_call_id?: string;
}

/** The history of a request body in a compact form: `user: …`, `assistant: …`, `call id name args`, `tool id: …`. */
function history(raw: string): string[] {
  const body = JSON.parse(raw) as { messages: WireMessage[] };
  const lines: string[] = [];
  for (const m of body.messages) {
    if (m.role === 'system') continue;
    const text = typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? (m.content as { text?: string }[]).map((p) => p.text ?? '').join('\n') : '';
    if (m.role === 'tool') lines.push(`tool ${m.tool_call_id}: ${text}`);
    else if (text !== '' || !m.tool_calls) lines.push(`${m.role}: ${text}`);
    for (const c of m.tool_calls ?? []) lines.push(`call ${c.id} ${c.function.name} ${c.function.arguments}`);
  }
  return lines;
}

/**
 * Checks the imported session (invariant, valid history), forks it into our folder, sends one
 * follow-up and returns the history the server received (after checking it against the log).
 */
async function continueImported(summary: ImportSummary, followup: string): Promise<string[]> {
  const events = runtime.store.readAll(summary.sessionId);
  const checker = new InvariantChecker();
  for (const e of events) checker.accept(e);
  expect(checker.openTurn).toBeUndefined();
  const session = new Session({ header: runtime.store.get(summary.sessionId)!.header, seed: events, invariants: 'report' });
  expect(session.warnings).toEqual([]);
  expect(historyProblems(session.deriveMessages())).toEqual([]);

  const connection = runtime.host.connect(() => undefined);
  const child = await connection.forkSession({ sessionId: summary.sessionId, cwd: workspace });
  expect(child.parentSession).toBe(summary.sessionId);
  const before = llm.requests.length;
  llm.enqueue(textResponse('Noted.'));
  connection.followup({ sessionId: child.id, text: followup });
  await runtime.host.agentFor(child.id)!.whenIdle();
  connection.dispose();
  expect(llm.requests).toHaveLength(before + 1);
  const raw = llm.requests[before]!.rawBody;

  // Model-visible means logged: the request rebuilt from the child's log is the one that was sent.
  const childEvents = runtime.store.readAll(child.id);
  const client = new OpenAiCompatibleClient({ provider: 'custom', baseUrl: llm.baseUrl, model: 'scripted-model' });
  expect(rebuildRequestBodies(runtime.store.get(child.id)!.header, childEvents, client)).toEqual([raw]);
  return history(raw);
}

describe('continuing imported Gemini CLI chats', () => {
  it('a pretty-printed JSON chat document (before 0.40)', async () => {
    const [summary] = await importPath(join(AGENT_LOGS, 'gemini-cli', 'agentsessions_gemini_small.json'));
    expect(summary).toMatchObject({ format: 'gemini-cli', sessionId: 'session-2026-01-16T18-34-3739ef95', turns: 1, userMessages: 1, assistantMessages: 1, toolCalls: 0 });
    expect(summary!.tokens).toEqual({ input: 10, output: 5, cacheRead: 0 });
    expect(await continueImported(summary!, 'And now?')).toEqual(['user: Hello', 'assistant: Hi!', 'user: And now?']);
  });

  it('a 0.40 JSONL chat: the call and its result in order, usage from tokens', async () => {
    const [summary] = await importPath(join(AGENT_LOGS, 'gemini-cli', 'agentsessions_gemini_jsonl_v040.jsonl'));
    expect(summary).toMatchObject({ format: 'gemini-cli', formatVersion: 'jsonl', turns: 1, userMessages: 1, assistantMessages: 2, toolCalls: 1, toolResults: 1, unansweredCalls: 0 });
    // input includes cached (promptTokenCount): 11855 + (12069 − 11502) uncached.
    expect(summary!.tokens).toEqual({ input: 11855 + 567, output: 81 + 147, cacheRead: 11502 });
    expect(await continueImported(summary!, 'Thanks.')).toEqual([
      'user: Say hello and list files.',
      `call run_shell_command_stage0 run_shell_command ${JSON.stringify({ command: 'ls -F', description: 'List files in the current directory.' })}`,
      'tool run_shell_command_stage0: Output: AgentSessions/\nREADME.md\nProcess Group PGID: 12345',
      'assistant: Hello! I listed the files.',
      'user: Thanks.',
    ]);
  });

  it('JSONL with messages rewritten in place, a rewind and a cancelled call: the final chat, the rest kept raw', async () => {
    const [summary] = await importPath(join(SPEC, 'gemini-cli_rewind-update.spec.jsonl'));
    expect(summary).toMatchObject({ format: 'gemini-cli', title: 'Create and remove hello.txt', turns: 2, userMessages: 2, assistantMessages: 3, toolCalls: 3, toolResults: 2, unansweredCalls: 1 });
    expect(summary!.warnings.join('\n')).toContain('2 message(s) that a rewind or a checkpoint removed');
    const events = runtime.store.readAll(summary!.sessionId);
    // The rewound prompt is a raw row, never a user message.
    expect(JSON.stringify(events.filter((e) => e.type === 'user/message'))).not.toContain('hi.txt');
    expect(events.some((e) => e.type === 'import/foreign' && JSON.stringify(e.data).includes('Actually, call it hi.txt.'))).toBe(true);
    const results = events.filter((e) => e.type === 'tool/result');
    expect(results.map((e) => [e.data.message.content[0]!.toolCallId, e.data.message.content[0]!.isError])).toEqual([
      ['write_file-1', false],
      ['run_shell_command-2', true],
      ['read_file-3', true],
    ]);
    const sent = await continueImported(summary!, 'Try again.');
    expect(sent.slice(0, 4)).toEqual([
      'user: Create hello.txt containing hi.',
      `call write_file-1 write_file ${JSON.stringify({ file_path: '/home/user/demo/hello.txt', content: 'hi\n' })}`,
      'tool write_file-1: Successfully created and wrote to new file: /home/user/demo/hello.txt.',
      'assistant: Created hello.txt.',
    ]);
    expect(sent.slice(4, 9)).toEqual([
      'user: Now delete hello.txt and show me README.md.',
      "assistant: I'll delete it and read the README.",
      `call run_shell_command-2 run_shell_command ${JSON.stringify({ command: 'rm hello.txt' })}`,
      `call read_file-3 read_file ${JSON.stringify({ absolute_path: '/home/user/demo/README.md' })}`,
      'tool run_shell_command-2: [Operation Cancelled] Reason: User did not allow tool call',
    ]);
    expect(sent[9]).toMatch(/^tool read_file-3: No result for this tool call is recorded in the imported gemini-cli log/);
    expect(sent.slice(10)).toEqual(['user: Try again.']);
  });
});

describe("the window's import (host API, chunked upload)", () => {
  it('takes a Gemini JSON document and a lone Cline api_conversation_history.json in small chunks', async () => {
    const connection = runtime.host.connect(() => undefined);
    const upload = async (file: string, name: string): Promise<ImportSummary> => {
      const text = readFileSync(file, 'utf8');
      const { importId } = connection.importBegin({ fileName: name, size: text.length });
      for (let at = 0; at < text.length; at += 97) connection.importChunk({ importId, text: text.slice(at, at + 97) });
      return connection.importEnd({ importId });
    };
    const gemini = await upload(join(AGENT_LOGS, 'gemini-cli', 'agentsessions_gemini_small.json'), 'session-2026-01-16.json');
    expect(gemini).toMatchObject({ format: 'gemini-cli', turns: 1, assistantMessages: 1 });
    const cline = await upload(join(FOLDERS, 'cline', '1767225600000', 'api_conversation_history.json'), 'api_conversation_history.json');
    expect(cline).toMatchObject({ format: 'cline', turns: 1, assistantMessages: 4, toolCalls: 4, toolResults: 3, unansweredCalls: 1 });
    connection.dispose();
    expect((await continueImported(cline, 'Go on.')).slice(-2)).toEqual([expect.stringMatching(/^tool toolu_04Complete: No result/), 'user: Go on.']);
  });
});

describe('continuing imported Cline / Roo Code tasks (task folders)', () => {
  it('a task with native tool calls: results in call order, usage from metrics, the last completion outcome unknown', async () => {
    const task = join(FOLDERS, 'cline', '1767225600000');
    const [summary] = await importPath(task);
    expect(summary).toMatchObject({
      format: 'cline',
      sessionId: '1767225600000',
      title: 'How many Python files are in this folder?',
      turns: 1,
      userMessages: 2,
      assistantMessages: 4,
      toolCalls: 4,
      toolResults: 3,
      unansweredCalls: 1,
    });
    // metrics.tokens.prompt includes cached: (9120−8800) + (9260−9120) + (9400−9260) + (9480−9400).
    expect(summary!.tokens).toEqual({ input: 320 + 140 + 140 + 80, output: 64 + 71 + 40 + 30, cacheRead: 8800 + 9120 + 9260 + 9400 });
    const sent = await continueImported(summary!, 'Also count the tests.');
    // Text blocks of one message reach the wire joined by a blank line.
    expect(sent[0]).toBe(
      'user: <task>\nHow many Python files are in this folder?\n</task>\n\n<environment_details>\n# Current Working Directory (/home/user/demo) Files\nREADME.md\nmain.py\ntest_main.py\n</environment_details>',
    );
    expect(sent.slice(1, 5)).toEqual([
      "assistant: I'll list the Python files.",
      `call toolu_01CountPy execute_command ${JSON.stringify({ command: 'ls *.py', requires_approval: false })}`,
      'tool toolu_01CountPy: Command executed.\nOutput:\nmain.py\ntest_main.py',
      'user: <environment_details>\n# Current Time\n1/1/2026, 12:00:05 AM (UTC)\n</environment_details>',
    ]);
    expect(
      sent
        .slice(5)
        .filter((l) => l.startsWith('call ') || l.startsWith('tool '))
        .map((l) => l.split(' ').slice(0, 2).join(' ')),
    ).toEqual(['call toolu_02Complete', 'tool toolu_02Complete:', 'call toolu_03Wc', 'tool toolu_03Wc:', 'call toolu_04Complete', 'tool toolu_04Complete:']);
    expect(sent.at(-1)).toBe('user: Also count the tests.');

    // A file inside the task folder names the same task.
    const again = await importPath(join(task, 'ui_messages.json'));
    expect(again.map((s) => [s.format, s.assistantMessages])).toEqual([['cline', 4]]);
  });

  it('a Roo Code task with tools called in XML text: replayed as the text the model saw, usage from the UI rows', async () => {
    const [summary] = await importPath(join(FOLDERS, 'roo-code', '1767312000000'));
    expect(summary).toMatchObject({ format: 'cline', turns: 2, userMessages: 3, assistantMessages: 3, toolCalls: 0 });
    expect(summary!.tokens).toEqual({ input: 5200 + 90 + 60, output: 48 + 40 + 35, cacheRead: 5100 + 5190, cacheWrite: 5100 + 90 + 60 });
    const sent = await continueImported(summary!, 'Thanks.');
    expect(sent).toHaveLength(7);
    expect(sent[1]).toBe('assistant: <thinking>I should read the README.</thinking>\n<read_file>\n<path>README.md</path>\n</read_file>');
    expect(sent[2]).toMatch(/^user: \[read_file for 'README.md'\] Result:\n\n<file><path>README.md<\/path>/);
    expect(sent[4]).toMatch(/^user: \[TASK RESUMPTION\]/);
    expect(sent[6]).toBe('user: Thanks.');
  });
});

describe('continuing an imported opencode session (storage folder)', () => {
  it('steps split at step-start, parallel calls answered in call order, ignored text left out, usage per step', async () => {
    const storage = join(FOLDERS, 'opencode', 'storage');
    const summaries = await importPath(join(FOLDERS, 'opencode'));
    expect(summaries).toHaveLength(1);
    const summary = summaries[0]!;
    expect(summary).toMatchObject({
      format: 'opencode',
      formatVersion: '0.15.8',
      sessionId: 'ses_4b2f0c1d7ffeQ8wH2kLmN3pR5s',
      title: 'Fix the failing add test',
      turns: 2,
      userMessages: 2,
      assistantMessages: 4,
      toolCalls: 3,
      toolResults: 3,
      unansweredCalls: 0,
    });
    // Per step (output already counts reasoning); the second message's one step uses its step-finish.
    expect(summary.tokens).toEqual({ input: 10 + 12 + 8 + 20, output: 90 + 60 + 40 + 25, cacheRead: 8800 + 9000 + 0 + 9100, cacheWrite: 900 + 600, reasoning: 12 });
    expect(runtime.store.get(summary.sessionId)!.header.cwd).toBe('/home/user/demo');
    const sent = await continueImported(summary, 'Run the tests again.');
    expect(sent).toEqual([
      'user: The add test fails. Please fix it.',
      'assistant: Let me run the tests.',
      `call toolu_01RunTests bash ${JSON.stringify({ command: 'npm test', description: 'Run the tests' })}`,
      'tool toolu_01RunTests: FAIL add.test.js\n  expected 3, received -1',
      `call toolu_02Edit edit ${JSON.stringify({ filePath: '/home/user/demo/add.js', oldString: 'a - b', newString: 'a + b' })}`,
      `call toolu_03Read read ${JSON.stringify({ filePath: '/home/user/demo/add.test.ts' })}`,
      'tool toolu_02Edit: ',
      'tool toolu_03Read: File not found: /home/user/demo/add.test.ts',
      'assistant: Fixed: `add` subtracted instead of adding. The test passes now.',
      'user: Thanks! Is anything else subtracting?',
      'assistant: No, `add` was the only one.',
      'user: Run the tests again.',
    ]);

    // The session file alone imports that session (a second copy, under a new id).
    const sessionFile = join(storage, 'session', '0f3c7a1e9b2d4c6a8e0f1a2b3c4d5e6f7a8b9c0d', 'ses_4b2f0c1d7ffeQ8wH2kLmN3pR5s.json');
    const copy = await importPath(sessionFile);
    expect(copy.map((s) => [s.format, s.assistantMessages, s.toolCalls])).toEqual([['opencode', 4, 3]]);
    expect(copy[0]!.sessionId).not.toBe(summary.sessionId);
    expect(readFileSync(sessionFile, 'utf8')).toContain('"version": "0.15.8"');
  });
});
