/**
 * `forkline import FILE…`, `show` and `fork --cwd` on other agents' logs, as real child processes
 * (issue 12): several files in one call, each detected by content and summarised; a file we cannot
 * read is named with UNSUPPORTED_FORMAT and the others still import; `show` reads every stored
 * shape without crashing and never prints a negative or impossible duration; an imported session is
 * continued only by a fork into a folder of yours.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../shared/events.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { IMPORT_BATCH_EVENTS } from '../../../electron/import/log-writer.js';
import { MemorySessionStore } from '../../../electron/store/memory-session-store.js';
import { SessionRepository } from '../../../electron/store/session-repository.js';
import { claudeCodeTranscript } from '../../support/claude-code-log.js';
import { AGENT_LOGS } from '../../support/import-fixtures.js';
import { importText } from '../../../electron/host/services/session-imports.js';
import { forkline as forklineRun, type ForklineRun } from '../../support/cli-process.js';

let dataDir: string;
let work: string;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'forkline-cli-import-'));
  work = mkdtempSync(join(tmpdir(), 'forkline-cli-work-'));
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

/** The CLI through the shared spawn helper (test/support/cli-process.ts). */
const forkline = (args: string[]): Promise<ForklineRun> => forklineRun(args, { dataDir, env: { FORKLINE_CHECKPOINTS: 'off' } });

describe("forkline import / show / fork on other agents' logs", () => {
  it('imports several files in one call, summarises each, and names the one it cannot read', async () => {
    const notALog = join(work, 'notes.jsonl');
    writeFileSync(notALog, '{"note":"groceries"}\n{"note":"milk"}\n');
    const files = [
      join(AGENT_LOGS, 'claude-code', 'cc_hello-world-script.jsonl'),
      notALog,
      join(AGENT_LOGS, 'codex', 'codex_synthetic_tool-calls-escalation-aborted.rollout.jsonl'),
      join(AGENT_LOGS, 'openhands', 'oh_basic.trajectory.json'),
      join(AGENT_LOGS, 'deepseek-harness', 'dsh_escalation-rejected.session.jsonl'),
    ];
    const r = await forkline(['import', ...files]);
    // The others import; the one file that is not a session log makes it exit 2 (bad input).
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${notALog}: this is not a session log we can read`);
    expect(r.stderr).toContain('[UNSUPPORTED_FORMAT]');
    expect(r.stdout).toContain('Claude Code transcript 2.1.14 → 1 turn, 2 tool calls from cc_hello-world-script.jsonl');
    expect(r.stdout).toContain('1 turn · 4 steps · 2 user messages · 4 assistant messages · 2 tool calls / 2 results');
    // Records kept raw are counted by their source type (the conversation builder counts every raw row).
    expect(r.stdout).toContain('kept as raw rows: queue-operation ×1');
    expect(r.stdout).toContain('tokens: 3 in, 29 out, 71,036 cached, 3,539 cache-written');
    expect(r.stdout).toContain('Codex CLI rollout 0.77.0 → 5 turns, 4 tool calls');
    expect(r.stdout).toContain('2 calls had no result in the log (closed as outcome unknown)');
    expect(r.stdout).toContain('OpenHands trajectory or event stream → 1 turn, 2 tool calls');
    expect(r.stdout).toContain('DeepSeek Harness session v0 → 1 turn, 1 tool call');
    expect(r.stdout.match(/^session \S+/gm)).toHaveLength(4);
    const ls = await forkline(['ls']);
    expect(ls.stdout.trim().split('\n')).toHaveLength(4);
  });

  it('a log of many store batches is written on the writer thread by the bundled CLI: the same events as an import without it, searchable at once', async () => {
    const file = join(work, 'large-transcript.jsonl');
    writeFileSync(file, `${[...claudeCodeTranscript(900)].join('\n')}\n`);
    const r = await forkline(['import', file]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const id = /^session (\S+)/m.exec(r.stdout)![1]!;
    // The reference: the same pipeline in this process on a memory store, which has no writer thread.
    const memory = new MemorySessionStore();
    const reference = importText(new SessionRepository(memory, { newId: () => 'unused' }), readFileSync(file, 'utf8'), 'large-transcript.jsonl');
    expect(reference.events).toBeGreaterThan(3 * IMPORT_BATCH_EVENTS);
    expect(r.stdout).toContain(`${reference.events.toLocaleString('en-US')} events`);
    const store = new SqliteSessionStore(join(dataDir, 'sessions.db'));
    try {
      const stored = store.readAll(id);
      expect(stored).toHaveLength(reference.events);
      expect(stored).toEqual(memory.readAll(reference.sessionId));
      // Search documents were deferred by the import; the search writes them before it answers.
      const prompt = stored.find((e): e is SessionEvent<'user/message'> => e.type === 'user/message' && e.seq > 2 * IMPORT_BATCH_EVENTS)!;
      const text = prompt.data.content
        .map((b) => (b.type === 'text' ? b.text : ''))
        .join('')
        .slice(0, 40);
      expect(store.search({ terms: [text], limit: 50, sessionId: id }).map((h) => h.seq)).toContain(prompt.seq);
    } finally {
      store.close();
    }
  });

  it('show never prints a negative or impossible duration for a log whose clock jumps', async () => {
    const r = await forkline(['import', join(AGENT_LOGS, 'deepseek-harness', 'dsh_escalation-rejected.session.jsonl')]);
    const id = /^session (\S+)/m.exec(r.stdout)![1]!;
    const show = await forkline(['show', id]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('Turn 1 ended: completed');
    expect(show.stdout).not.toMatch(/-\d+(\.\d+)? s|-\d+ ms/);
    // Step 1 spans a jump back of the recording's clock: unknown, not "15153 m".
    expect(show.stdout).toContain('step 1 done (duration unknown');
    expect(show.stdout).not.toMatch(/done in \d{4,}\.\d s/);
  });

  it('show reads a stored turn/end whose data is only {error} (an older shape) without crashing', async () => {
    const store = new SqliteSessionStore(join(dataDir, 'sessions.db'));
    const events = [
      { seq: 0, type: 'turn/start', time: 1_780_000_000_000, data: { turn: 1 } },
      { seq: 1, type: 'turn/end', time: 1_780_000_000_500, data: { error: 'the provider went away' } },
    ] as unknown as SessionEvent[];
    store.createSession({ version: 0, id: 'older-shape-session', createdAt: 1_780_000_000_000 }, events);
    store.close();
    const show = await forkline(['show', 'older-shape-session']);
    expect(show.stderr).toBe('');
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('Turn ? ended: error UNKNOWN: the provider went away');
  });

  it('an imported session is continued only by a fork into a folder of yours', async () => {
    const r = await forkline(['import', join(AGENT_LOGS, 'claude-code', 'cc_stop-hook-uncommitted-changes.jsonl')]);
    const id = /^session (\S+)/m.exec(r.stdout)![1]!;
    const resume = await forkline(['resume', id, '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm', 'go on']);
    // Without a folder named here, resume refuses (nothing from the file is used to act)...
    expect(resume.code).toBe(2);
    expect(resume.stderr).toContain('was imported from a file');
    expect(resume.stderr).toContain('--cwd DIR');
    const noDir = await forkline(['fork', id]);
    expect(noDir.code).toBe(2);
    expect(noDir.stderr).toContain(`forkline fork ${id.slice(0, 8)} --cwd DIR`);
    const fork = await forkline(['fork', id, '--cwd', work]);
    expect(fork.code).toBe(0);
    const childId = fork.stdout.trim();
    expect(fork.stderr).toContain(`workspace: ${work}`);
    expect(fork.stderr).toContain(`continue it: forkline resume ${childId.slice(0, 8)}`);
    const show = await forkline(['show', childId]);
    expect(show.stdout).toContain(`forked from ${id}`);
    expect(show.stdout).toContain('> Read src/main.py and add a docstring to the top. Then stop.');
    expect(readFileSync(join(dataDir, 'sessions.db')).length).toBeGreaterThan(0);
  });

  it('detection says what it saw: known logs we do not read are named, JSON documents are not "not JSON", a format change names its line', async () => {
    const joined = join(work, 'two-logs.jsonl');
    const claude = readFileSync(join(AGENT_LOGS, 'claude-code', 'cc_hello-world-script.jsonl'), 'utf8').trimEnd();
    writeFileSync(joined, `${claude}\n${readFileSync(join(AGENT_LOGS, 'codex', 'codex_real-exec-session_redacted_no-tools.rollout.jsonl'), 'utf8')}`);
    const before = (await forkline(['ls'])).stdout.trim().split('\n').length;
    const qwen = join(AGENT_LOGS, 'other', 'agentsessions_qwen_0004.jsonl');
    const pi = join(AGENT_LOGS, 'other', 'agentsessions_pi_small.jsonl');
    // A pretty-printed JSON document of a format we do not read (Gemini CLI chats, refused here before, are read now).
    const claudeAi = join(work, 'conversations.json');
    writeFileSync(claudeAi, JSON.stringify([{ uuid: 'c1', name: 'Plan', chat_messages: [{ uuid: 'm1', sender: 'human', text: 'hi' }] }], null, 2));
    const r = await forkline(['import', qwen, pi, claudeAi, joined]);
    expect(r.code).toBe(2);
    expect(r.stdout).not.toMatch(/^session /m);
    expect(r.stderr).toContain(`${qwen}: this is not a session log we can read (it looks like a Qwen Code chat log (line 1)`);
    expect(r.stderr).toContain(`${pi}: this is not a session log we can read (it looks like a Pi agent session (line 1)`);
    expect(r.stderr).not.toContain('upgrade Forkline');
    expect(r.stderr).toContain(`${claudeAi}: this is not a session log we can read (it looks like a claude.ai conversation export`);
    expect(r.stderr).not.toContain('is not JSON');
    const line = claude.split('\n').length + 1;
    expect(r.stderr).toContain(`line ${line} is a Codex CLI rollout record, but the file began as a Claude Code transcript (line 1)`);
    expect((await forkline(['ls'])).stdout.trim().split('\n')).toHaveLength(before);
  });

  it('a sub-agent file links to its parent, a log ending inside a turn is not "crashed", and an image prompt can be continued', async () => {
    const parentId = '0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f';
    const folder = join(work, 'claude-projects', parentId, 'subagents');
    mkdirSync(folder, { recursive: true });
    const child = join(folder, 'agent-a0ad4f44468bdf20d.jsonl');
    writeFileSync(child, readFileSync(join(AGENT_LOGS, 'claude-code', 'agentsessions_claude_subagent-child.jsonl')));
    const r = await forkline(['import', join(AGENT_LOGS, 'claude-code', 'agentsessions_claude_subagent-parent.jsonl'), child]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`session ${parentId} — Delegate a repo search to a subagent`);
    expect(r.stdout).toContain('session agent-a0ad4f44468bdf20d — Sub-agent (general-purpose): Search the repo for TODO comments');
    expect(r.stdout).toContain(`warning: a sub-agent's own log: linked to its parent session ${parentId}, imported already`);
    expect(r.stdout).not.toContain('imported copy');
    const show = await forkline(['show', parentId]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('Turn 1 ended: the source log ends inside this turn');
    expect(show.stdout).not.toMatch(/crash|app closed/);
    const ls = await forkline(['ls']);
    expect(ls.stdout.split('\n').find((l) => l.includes(parentId.slice(0, 8)))).not.toMatch(/crash/);
    const showChild = await forkline(['show', 'agent-a0ad4f44468bdf20d']);
    expect(showChild.stdout).toContain(`a sub-agent (a0ad4f44468bdf20d) started by session ${parentId}`);

    const image = await forkline(['import', join(AGENT_LOGS, 'deepseek-harness', 'dsh_inline-image-prompt.session.jsonl')]);
    expect(image.code).toBe(0);
    expect(image.stdout).toContain('model view: image parts of messages are not replayed when continuing');
    const id = /^session (\S+)/m.exec(image.stdout)![1]!;
    const fork = await forkline(['fork', id, '--cwd', work]);
    expect(fork.stderr).not.toContain('MODEL_VIEW_INCOMPLETE');
    expect(fork.code).toBe(0);
  });

  it('a Codex rollout that repeats a call_id imports (exit 0, no INVARIANT_VIOLATION)', async () => {
    const at = (s: number) => new Date(Date.parse('2026-02-01T00:00:00Z') + s * 1000).toISOString();
    const rollout = [
      { timestamp: at(0), type: 'session_meta', payload: { id: 'cx-repeated-call', cwd: '/r', cli_version: '0.50.0' } },
      { timestamp: at(1), type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'list' }] } },
      { timestamp: at(2), type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: '{"command":["ls","a"]}', call_id: 'call_0' } },
      { timestamp: at(2), type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: '{"command":["ls","b"]}', call_id: 'call_0' } },
      { timestamp: at(3), type: 'response_item', payload: { type: 'function_call_output', call_id: 'call_0', output: 'a' } },
      { timestamp: at(3), type: 'response_item', payload: { type: 'function_call_output', call_id: 'call_0', output: 'b' } },
      { timestamp: at(4), type: 'event_msg', payload: { type: 'agent_message', message: 'both listed' } },
    ];
    const file = join(work, 'repeated-call.jsonl');
    writeFileSync(file, rollout.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const r = await forkline(['import', file]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('1 turn · 2 steps · 1 user message · 2 assistant messages · 2 tool calls / 2 results');
  });
});
