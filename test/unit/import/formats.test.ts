/**
 * Each importer on small logs that exercise what the fixtures do not: the reference runtime's
 * whole vocabulary (log-only types kept as raw rows; model-visible ones making the model view
 * incomplete, never a refusal), Claude Code rewinds, compaction, interruptions, sidechains and API
 * errors, Codex tasks, compaction, freeform tools and shell facts, OpenHands SDK events, detection by
 * content, and durations that come only from a clock that runs forward.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UnsupportedFormatError } from '../../../shared/errors.js';
import { eventsOfType, type SessionEvent } from '../../../shared/events.js';
import { firstUnreplayableSeq } from '../../../shared/import-summary.js';
import { timelineOf } from '../../../shared/timeline.js';
import { InvariantChecker } from '../../../electron/session/invariant.js';
import { Session } from '../../../electron/session/session.js';
import { MemorySessionStore } from '../../../electron/store/memory-session-store.js';
import { SessionRepository } from '../../../electron/store/session-repository.js';
import { AGENT_LOGS, historyProblems } from '../../support/import-fixtures.js';
import { importText } from '../../../electron/host/services/session-imports.js';

function setup(): { repo: SessionRepository; store: MemorySessionStore } {
  const store = new MemorySessionStore();
  let n = 0;
  return { store, repo: new SessionRepository(store, { newId: () => `s${++n}` }) };
}

function jsonl(records: readonly unknown[]): string {
  return records.map((r) => JSON.stringify(r)).join('\n') + '\n';
}

/** Imports and checks what every import must satisfy; returns the events and the session. */
function importChecked(repo: SessionRepository, store: MemorySessionStore, text: string) {
  const summary = importText(repo, text, 'log.jsonl');
  const events = store.readAll(summary.sessionId);
  const checker = new InvariantChecker();
  for (const e of events) checker.accept(e);
  const session = new Session({ header: store.get(summary.sessionId)!.header, seed: events, invariants: 'report' });
  expect(session.warnings).toEqual([]);
  const messages = session.deriveMessages();
  expect(historyProblems(messages)).toEqual([]);
  return { summary, events, messages };
}

describe('reference runtime vocabulary', () => {
  const T = 1_780_000_000_000;
  let seq = 0;
  const ev = (type: string, data: unknown, extra: Record<string, unknown> = {}) => ({ type, seq: seq++, time: T + seq, data, ...extra });

  it('keeps every log-only type as a raw row, maps compact/* names, and stays continuable', () => {
    seq = 0;
    const lines = [
      { type: 'session', version: 0, id: 'dsh-vocab', createdAt: T, cwd: '/w' },
      ev('turn/start', { turn: 1 }),
      ev('permission/preset', { preset: 'workspace-write' }),
      ev('sandbox/mode', { mode: 'workspace-write' }),
      ev('command/run', { commandId: 'c1', name: 'goal', args: 'x', source: 'user' }),
      ev('command/done', { commandId: 'c1', kind: 'ok', text: 'done' }),
      ev('step/start', { turn: 1, step: 1 }),
      ev('user/message', { id: 'u1', role: 'user', content: [{ type: 'text', text: 'hi' }], source: { kind: 'user' } }, { surfaceOp: 'append' }),
      ev('hook/invoked', { invocationId: 'h1', point: 'pre-tool' }),
      ev('hook/result', { invocationId: 'h1', decision: 'allow', durationMs: 3 }),
      ev('session/title-llm-request', { messages: [] }),
      ev('llm/retry-started', { retryId: 'r1', turn: 1, step: 1, retry: 1 }),
      ev('tool-workflow/run-start', { runId: 'w1' }),
      ev('tool/code-dispatch-start', { subCallId: 'x:code:1' }),
      ev(
        'assistant/message',
        { turn: 1, step: 1, message: { id: 'a1', role: 'assistant', content: [{ type: 'text', text: 'hello' }], source: { kind: 'model', provider: 'deepseek', model: 'm' } } },
        { surfaceOp: 'append' },
      ),
      ev('step/end', { turn: 1, step: 1 }),
      ev('turn/end', { turn: 1, reason: { kind: 'completed' } }),
      ev('compact/start', { compactionId: 'k1', turn: null }),
      ev('compact/end', { compactionId: 'k1', turn: null, error: 'nothing to compact' }),
    ];
    const { repo, store } = setup();
    const { summary, events } = importChecked(repo, store, jsonl(lines));
    expect(summary.format).toBe('deepseek-harness');
    const raw = eventsOfType(events, 'import/foreign');
    expect(raw.map((e) => e.data.type)).toEqual([
      'permission/preset',
      'sandbox/mode',
      'command/run',
      'command/done',
      'hook/invoked',
      'hook/result',
      'session/title-llm-request',
      'llm/retry-started',
      'tool-workflow/run-start',
      'tool/code-dispatch-start',
    ]);
    expect(raw.every((e) => e.data.modelVisible === undefined)).toBe(true);
    expect(raw[0]!.data.record).toEqual(lines[2]);
    expect(events.map((e) => e.seq)).toEqual(lines.slice(1).map((l) => (l as { seq: number }).seq));
    expect(events.at(-2)!.type).toBe('compaction/start');
    expect(summary.modelViewNotes).toEqual([]);
    expect(firstUnreplayableSeq(events)).toBeUndefined();
    // The debugger shows each as a raw row naming its own type.
    const rows = timelineOf(events).rows.filter((r) => r.kind === 'event' && r.type === 'import/foreign');
    expect(rows.map((r) => (r as { label: string }).label)).toContain('deepseek-harness hook/invoked · a reference-runtime log-only event');
  });

  it('an unknown or model-visible type makes the model view incomplete (noted, never refused)', () => {
    seq = 0;
    const lines = [
      { type: 'session', version: 0, id: 'dsh-newer', createdAt: T },
      ev('turn/start', { turn: 1 }),
      ev('step/start', { turn: 1, step: 1 }),
      ev('user/message', { id: 'u1', role: 'user', content: [{ type: 'text', text: 'hi' }], source: { kind: 'user' } }, { surfaceOp: 'append' }),
      ev(
        'assistant/message',
        { turn: 1, step: 1, message: { id: 'a1', role: 'assistant', content: [{ type: 'text', text: 'hello' }], source: { kind: 'model', provider: 'p', model: 'm' } } },
        { surfaceOp: 'append' },
      ),
      ev('step/end', { turn: 1, step: 1 }),
      ev('turn/end', { turn: 1, reason: { kind: 'completed' } }),
      ev('turn/start', { turn: 2 }),
      ev('system/message', { message: { id: 's1', role: 'system', content: [{ type: 'text', text: 'be brief' }] } }, { surfaceOp: 'append' }),
      ev('future/thing', { x: 1 }),
      ev('turn/end', { turn: 2, reason: { kind: 'completed' } }),
    ];
    const { repo, store } = setup();
    const { summary, events } = importChecked(repo, store, jsonl(lines));
    expect(summary.modelViewNotes.join('\n')).toContain("system/message events (from seq 7) changed what the source's model saw");
    const raw = eventsOfType(events, 'import/foreign');
    expect(raw.map((e) => [e.data.type, e.data.modelVisible ?? false])).toEqual([
      ['system/message', true],
      ['future/thing', false],
    ]);
    expect(firstUnreplayableSeq(events)).toBe(7);
    expect(summary.warnings.join('\n')).toContain('kept as raw rows: system/message ×1, future/thing ×1');
  });

  it('an older turn/end that records only {error} closes the open turn with that error', () => {
    seq = 0;
    const lines = [{ type: 'session', version: 0, id: 'dsh-old', createdAt: T }, ev('turn/start', { turn: 1 }), ev('turn/end', { error: { code: 'RATE_LIMIT', message: 'slow down' } })];
    const { repo, store } = setup();
    const { events } = importChecked(repo, store, jsonl(lines));
    expect(events[1]).toMatchObject({ type: 'turn/end', data: { turn: 1, reason: { kind: 'error', failure: { code: 'RATE_LIMIT', message: 'slow down' } } } });
  });
});

describe('Claude Code', () => {
  const base = { sessionId: 'cc-1', cwd: '/p', version: '2.0.0', isSidechain: false, userType: 'external' };
  let t = Date.parse('2026-01-01T00:00:00Z');
  const ts = () => new Date((t += 1000)).toISOString();
  const user = (uuid: string, parentUuid: string | null, content: unknown, extra: Record<string, unknown> = {}) => ({
    ...base,
    type: 'user',
    uuid,
    parentUuid,
    timestamp: ts(),
    message: { role: 'user', content },
    ...extra,
  });
  const assistant = (uuid: string, parentUuid: string, id: string, content: unknown[], extra: Record<string, unknown> = {}) => ({
    ...base,
    type: 'assistant',
    uuid,
    parentUuid,
    timestamp: ts(),
    message: { id, model: 'claude-x', role: 'assistant', content, usage: { input_tokens: 1, output_tokens: 2, cache_read_input_tokens: 3 } },
    ...extra,
  });

  it('maps thinking, a rewound prompt, a compaction, an interruption, a sidechain and an API error', () => {
    t = Date.parse('2026-01-01T00:00:00Z');
    const records = [
      user('u1', null, 'first question'),
      assistant('a1', 'u1', 'm1', [{ type: 'thinking', thinking: 'let me think', signature: 'sig' }]),
      assistant('a2', 'a1', 'm1', [{ type: 'text', text: 'first answer' }]),
      user('u2', 'a2', 'second question'),
      assistant('a3', 'u2', 'm2', [{ type: 'text', text: 'second answer' }]),
      { ...base, type: 'assistant', isSidechain: true, uuid: 'sc1', parentUuid: null, timestamp: ts(), message: { id: 'sx', role: 'assistant', content: [{ type: 'text', text: 'sub-agent' }] } },
      // Rewind: the user edits the second question (parent = the first answer).
      user('u3', 'a2', 'second question, edited'),
      assistant('a4', 'u3', 'm3', [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }]),
      user('u4', 'a4', [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'a.txt' }] }], { toolUseResult: { stdout: 'a.txt' } }),
      user('u5', 'u4', [{ type: 'text', text: '[Request interrupted by user]' }]),
      {
        ...base,
        type: 'system',
        subtype: 'compact_boundary',
        uuid: 'b1',
        parentUuid: null,
        logicalParentUuid: 'u5',
        timestamp: ts(),
        content: 'Conversation compacted',
        compactMetadata: { trigger: 'manual', preTokens: 1000 },
      },
      user('u6', 'b1', 'This session is being continued from a previous conversation. Summary: listed files.', { isCompactSummary: true, isVisibleInTranscriptOnly: true }),
      user('u7', 'u6', 'third question'),
      assistant('a5', 'u7', 'm4', [{ type: 'text', text: 'API Error: 500' }], {
        isApiErrorMessage: true,
        message: { id: 'e', model: '<synthetic>', role: 'assistant', content: [{ type: 'text', text: 'API Error: 500' }] },
      }),
      { type: 'summary', summary: 'Listing files', leafUuid: 'a3' },
    ];
    const { repo, store } = setup();
    const { summary, events, messages } = importChecked(repo, store, jsonl(records));
    expect(summary).toMatchObject({ format: 'claude-code', formatVersion: '2.0.0', turns: 4, toolCalls: 1, toolResults: 1, title: 'Listing files' });
    expect(summary.warnings.join('\n')).toContain('1 prompt(s) continue from an earlier point');
    const assistantMsgs = eventsOfType(events, 'assistant/message');
    expect(assistantMsgs[0]!.data.message.content).toEqual([
      { type: 'reasoning', text: 'let me think' },
      { type: 'text', text: 'first answer' },
    ]);
    expect(assistantMsgs[0]!.data.usage).toEqual({ inputTokens: 1, outputTokens: 2, cacheReadTokens: 3 });
    // The edited prompt replaces the abandoned second question and answer on the surface.
    const edited = eventsOfType(events, 'user/message').find((e) => e.data.content[0]?.text === 'second question, edited')!;
    expect(edited.surfaceOp).toMatchObject({ op: 'replace' });
    expect(edited.sourceEventSeqs).toHaveLength(2);
    // Interruption ends turn 3 as cancelled by the user; the API error ends turn 4 with an error.
    const ends = eventsOfType(events, 'turn/end').map((e) => e.data.reason.kind);
    expect(ends).toEqual(['completed', 'completed', 'aborted', 'error']);
    // Compaction: what the model sees now starts with the summary.
    expect(eventsOfType(events, 'compaction/summary')).toHaveLength(1);
    expect(messages.map((m) => (m.role === 'assistant' ? 'assistant' : m.content[0]?.type === 'text' ? m.content[0].text.slice(0, 31) : 'tool'))).toEqual([
      'This session is being continued',
      'third question',
    ]);
    const raw = eventsOfType(events, 'import/foreign').map((e) => e.data.type);
    expect(raw).toEqual(expect.arrayContaining(['sidechain/assistant', 'system/compact_boundary', 'assistant/synthetic', 'summary']));
    const timeline = timelineOf(events);
    expect(timeline.rows.some((r) => r.kind === 'reasoning' && r.text === 'let me think')).toBe(true);
  });
});

describe('Claude Code sub-agent transcript', () => {
  it('a file whose message records are all sidechain (subagents/agent-*.jsonl) is the conversation itself', () => {
    const base = { sessionId: 'cc-parent', agentId: 'a1b2', isSidechain: true, cwd: '/p', version: '2.1.0' };
    const lines = [
      { ...base, type: 'user', uuid: 'u1', parentUuid: null, timestamp: '2026-01-01T00:00:01Z', message: { role: 'user', content: 'Find the config file' } },
      {
        ...base,
        type: 'assistant',
        uuid: 'a1',
        parentUuid: 'u1',
        timestamp: '2026-01-01T00:00:02Z',
        message: { id: 'm1', model: 'claude-x', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Glob', input: { pattern: '**/*.toml' } }] },
      },
      { ...base, type: 'user', uuid: 'u2', parentUuid: 'a1', timestamp: '2026-01-01T00:00:03Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'app.toml' }] } },
      {
        ...base,
        type: 'assistant',
        uuid: 'a2',
        parentUuid: 'u2',
        timestamp: '2026-01-01T00:00:04Z',
        message: { id: 'm2', model: 'claude-x', role: 'assistant', content: [{ type: 'text', text: 'It is app.toml.' }] },
      },
    ];
    const { repo, store } = setup();
    const { summary } = importChecked(repo, store, jsonl(lines));
    expect(summary).toMatchObject({ turns: 1, userMessages: 1, assistantMessages: 2, toolCalls: 1, toolResults: 1, rawRecords: 0 });
  });
});

describe('Codex', () => {
  const at = (s: number) => new Date(Date.parse('2026-02-01T00:00:00Z') + s * 1000).toISOString();
  it('follows task events, maps freeform tools and shell facts, and a compaction', () => {
    const lines = [
      { timestamp: at(0), type: 'session_meta', payload: { id: 'cx-1', cwd: '/r', cli_version: '0.140.0', model_provider: 'openai', base_instructions: { text: 'You are Codex.' } } },
      { timestamp: at(1), type: 'event_msg', payload: { type: 'task_started', turn_id: 't1', model_context_window: 200000 } },
      { timestamp: at(1), type: 'turn_context', payload: { model: 'gpt-5', effort: 'high', cwd: '/r' } },
      { timestamp: at(2), type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'patch it' }] } },
      { timestamp: at(3), type: 'response_item', payload: { type: 'reasoning', summary: [{ type: 'summary_text', text: 'apply a patch' }], encrypted_content: 'xx' } },
      { timestamp: at(4), type: 'response_item', payload: { type: 'custom_tool_call', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch', call_id: 'c1' } },
      { timestamp: at(5), type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}', call_id: 'c2' } },
      {
        timestamp: at(5),
        type: 'event_msg',
        payload: { type: 'token_count', info: { last_token_usage: { input_tokens: 100, cached_input_tokens: 60, output_tokens: 9, reasoning_output_tokens: 4 } } },
      },
      { timestamp: at(6), type: 'response_item', payload: { type: 'custom_tool_call_output', call_id: 'c1', output: 'Success' } },
      { timestamp: at(7), type: 'event_msg', payload: { type: 'exec_command_end', call_id: 'c2', exit_code: 2, duration: { secs: 1, nanos: 500000000 } } },
      { timestamp: at(7), type: 'response_item', payload: { type: 'function_call_output', call_id: 'c2', output: '{"output":"ls: no","metadata":{"exit_code":2,"duration_seconds":1.5}}' } },
      { timestamp: at(8), type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] } },
      { timestamp: at(9), type: 'event_msg', payload: { type: 'task_complete', turn_id: 't1' } },
      { timestamp: at(10), type: 'compacted', payload: { message: 'We patched it.' } },
    ];
    const { repo, store } = setup();
    const { summary, events, messages } = importChecked(repo, store, jsonl(lines));
    expect(summary).toMatchObject({
      format: 'codex',
      formatVersion: '0.140.0',
      sessionId: 'cx-1',
      turns: 1,
      steps: 2,
      toolCalls: 2,
      toolResults: 2,
      tokens: { input: 40, output: 9, cacheRead: 60, reasoning: 4 },
    });
    const first = eventsOfType(events, 'assistant/message')[0]!;
    expect(first.data.message.content).toEqual([
      { type: 'reasoning', text: 'apply a patch' },
      { type: 'tool-call', id: 'c1', name: 'apply_patch', arguments: '*** Begin Patch\n*** End Patch' },
      { type: 'tool-call', id: 'c2', name: 'shell', arguments: '{"command":["ls"]}' },
    ]);
    const results = eventsOfType(events, 'tool/result');
    expect(results[1]!.data.meta).toEqual({ exitCode: 2, durationMs: 1500 });
    expect(results[1]!.data.message.content[0].content).toEqual([{ type: 'text', text: 'ls: no' }]);
    expect(eventsOfType(events, 'request/header')[0]!.data.header).toMatchObject({ config: { provider: 'openai', model: 'gpt-5', reasoningEffort: 'high' }, system: 'You are Codex.' });
    expect(eventsOfType(events, 'turn/end')[0]!.data.reason).toEqual({ kind: 'completed' });
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'We patched it.' }] });
  });
});

describe('OpenHands SDK events', () => {
  it('maps messages, actions and observations linked by tool call id', () => {
    const lines = [
      {
        kind: 'SystemPromptEvent',
        id: 'e0',
        timestamp: '2026-03-01T00:00:00',
        source: 'agent',
        system_prompt: { type: 'text', text: 'You are OpenHands.' },
        tools: [{ type: 'function', function: { name: 'execute_bash', description: 'run', parameters: { type: 'object' } } }],
      },
      { kind: 'MessageEvent', id: 'e1', timestamp: '2026-03-01T00:00:01', source: 'user', llm_message: { role: 'user', content: [{ type: 'text', text: 'list files' }] } },
      {
        kind: 'ActionEvent',
        id: 'e2',
        timestamp: '2026-03-01T00:00:02',
        source: 'agent',
        thought: [{ type: 'text', text: 'I will run ls' }],
        tool_name: 'execute_bash',
        tool_call_id: 'call_1',
        tool_call: { id: 'call_1', type: 'function', function: { name: 'execute_bash', arguments: '{"command":"ls"}' } },
        llm_response_id: 'r1',
        action: { kind: 'ExecuteBashAction', command: 'ls' },
      },
      {
        kind: 'ObservationEvent',
        id: 'e3',
        timestamp: '2026-03-01T00:00:03',
        source: 'environment',
        tool_name: 'execute_bash',
        tool_call_id: 'call_1',
        action_id: 'e2',
        observation: { kind: 'ExecuteBashObservation', content: [{ type: 'text', text: 'a.txt' }] },
      },
      { kind: 'MessageEvent', id: 'e4', timestamp: '2026-03-01T00:00:04', source: 'agent', llm_message: { role: 'assistant', content: [{ type: 'text', text: 'There is a.txt' }] } },
      { kind: 'ConversationStateUpdateEvent', id: 'e5', timestamp: '2026-03-01T00:00:05', source: 'environment', key: 'agent_status', value: 'finished' },
    ];
    const { repo, store } = setup();
    const { summary, events } = importChecked(repo, store, jsonl(lines));
    expect(summary).toMatchObject({ format: 'openhands', turns: 1, steps: 2, userMessages: 1, assistantMessages: 2, toolCalls: 1, toolResults: 1 });
    expect(eventsOfType(events, 'tool/call')[0]!.data).toMatchObject({ callId: 'call_1', name: 'execute_bash', arguments: '{"command":"ls"}' });
    expect(eventsOfType(events, 'request/header')[0]!.data.header).toMatchObject({ system: 'You are OpenHands.', tools: [{ name: 'execute_bash' }] });
    // Timestamps without an offset are read as UTC.
    expect(eventsOfType(events, 'user/message')[0]!.time).toBe(Date.parse('2026-03-01T00:00:01Z'));
  });
});

describe('detection by content', () => {
  it('does not care about the file name, and lists the formats it reads when nothing matches', () => {
    const { repo } = setup();
    const cc = readFileSync(join(AGENT_LOGS, 'claude-code', 'cc_hello-world-script.jsonl'), 'utf8');
    expect(importText(repo, cc, 'whatever.json').format).toBe('claude-code');
    for (const text of ['', 'hello world\n', '{"a":1}\n{"b":2}\n', '[1,2,3]']) {
      let error: unknown;
      try {
        importText(repo, text, 'x.jsonl');
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UnsupportedFormatError);
      expect((error as UnsupportedFormatError).formats).toEqual(['forkline', 'deepseek-harness', 'claude-code', 'codex', 'openhands', 'gemini-cli', 'cline', 'opencode']);
      expect((error as Error).message).toContain('Formats we read: forkline (Forkline export), deepseek-harness');
    }
    expect(repo.list()).toHaveLength(1);
  });
});

describe('durations on an imported log', () => {
  it('are unknown where the source clock jumps back, never negative', () => {
    const { repo, store } = setup();
    const text = readFileSync(join(AGENT_LOGS, 'deepseek-harness', 'dsh_escalation-rejected.session.jsonl'), 'utf8');
    const { events } = importChecked(repo, store, text);
    const rows = timelineOf(events as SessionEvent[]).rows;
    const turnEnd = rows.find((r) => r.kind === 'turn-end')!;
    // turn/start says 1785821445663, turn/end 1785730481629: the end-minus-start would be −90964034 ms.
    expect(turnEnd).not.toHaveProperty('durationMs');
    for (const r of rows) if ('durationMs' in r && r.durationMs !== undefined) expect(r.durationMs).toBeGreaterThanOrEqual(0);
    const steps = rows.filter((r) => r.kind === 'step');
    expect(steps[0]).not.toHaveProperty('durationMs'); // spans a jump back: not "15153 m 38 s"

    // Where the clock runs forward (times of 0 are placeholders, skipped), durations are the source's own.
    const other = importChecked(repo, store, readFileSync(join(AGENT_LOGS, 'deepseek-harness', 'dsh_compaction-recovery.session.jsonl'), 'utf8'));
    const otherRows = timelineOf(other.events as SessionEvent[]).rows;
    expect(otherRows.find((r) => r.kind === 'turn-end')).toHaveProperty('durationMs', 1786123401730 - 1786123401614);
    expect(otherRows.find((r) => r.kind === 'step')).toHaveProperty('durationMs', 1786123401700 - 1786123401667);
  });
});
