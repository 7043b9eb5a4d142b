/**
 * Import correctness (issue 20 item 5), each on the smallest log that shows it:
 * - Codex call ids a rollout repeats (each call gets an id of its own, results answer in order);
 * - Codex messages recorded only as `event_msg` (`user_message`, `agent_message`), events that
 *   repeat items (in either order) not doubled, and user items without `"type":"message"`;
 * - reference-runtime messages with an image keep their text and stay continuable;
 * - a Claude Code sub-agent's own file: its own id and title, linked to its parent session;
 * - a log that ends inside a turn ends `source-ended` — never "interrupted"/"crashed".
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventsOfType, type SessionEvent } from '../../../shared/events.js';
import { firstUnreplayableSeq } from '../../../shared/import-summary.js';
import { sessionActivity } from '../../../shared/session-activity.js';
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

/** The text of a content list (text blocks joined). */
function textOf(content: unknown): string {
  return (Array.isArray(content) ? content : []).map((b: { type?: string; text?: string }) => (b.type === 'text' ? (b.text ?? '') : '')).join('');
}

const jsonl = (records: readonly unknown[]): string => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

/** Imports and checks what every import must satisfy (invariant, a history a provider accepts). */
function importChecked(repo: SessionRepository, store: MemorySessionStore, text: string, file = 'log.jsonl') {
  const summary = importText(repo, text, file);
  const events = store.readAll(summary.sessionId);
  const checker = new InvariantChecker();
  for (const e of events) checker.accept(e);
  const session = new Session({ header: store.get(summary.sessionId)!.header, seed: events, invariants: 'report' });
  expect(session.warnings).toEqual([]);
  const messages = session.deriveMessages();
  expect(historyProblems(messages)).toEqual([]);
  return { summary, events, messages, header: store.get(summary.sessionId)!.header };
}

const at = (s: number) => new Date(Date.parse('2026-02-01T00:00:00Z') + s * 1000).toISOString();
const item = (s: number, payload: unknown) => ({ timestamp: at(s), type: 'response_item', payload });
const event = (s: number, payload: unknown) => ({ timestamp: at(s), type: 'event_msg', payload });
const meta = { timestamp: at(0), type: 'session_meta', payload: { id: 'cx-dup', cwd: '/r', cli_version: '0.50.0' } };

describe('Codex call ids a rollout repeats', () => {
  it('two function_calls with one call_id in one answer, and again in a later turn: each call answered once, in order', () => {
    const call = (s: number, args: string) => item(s, { type: 'function_call', name: 'shell', arguments: args, call_id: 'call_0' });
    const output = (s: number, text: string) => item(s, { type: 'function_call_output', call_id: 'call_0', output: text });
    const lines = [
      meta,
      item(1, { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'list both folders' }] }),
      call(2, '{"command":["ls","a"]}'),
      call(2, '{"command":["ls","b"]}'),
      output(3, 'a-files'),
      output(3, 'b-files'),
      item(4, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] }),
      item(5, { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'again' }] }),
      call(6, '{"command":["ls","c"]}'),
      output(7, 'c-files'),
      item(8, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done again' }] }),
    ];
    const { repo, store } = setup();
    const { summary, events } = importChecked(repo, store, jsonl(lines));
    expect(summary).toMatchObject({ turns: 2, toolCalls: 3, toolResults: 3, unansweredCalls: 0 });
    const calls = eventsOfType(events, 'tool/call');
    expect(calls.map((c) => c.data.callId)).toEqual(['call_0', 'call_0~2', 'call_0~3']);
    expect(new Set(calls.map((c) => c.data.callId)).size).toBe(3);
    const results = eventsOfType(events, 'tool/result');
    expect(results.map((r) => [r.data.message.content[0].toolCallId, textOf(r.data.message.content[0].content)])).toEqual([
      ['call_0', 'a-files'],
      ['call_0~2', 'b-files'],
      ['call_0~3', 'c-files'],
    ]);
    expect(calls.map((c) => c.data.arguments)).toEqual(['{"command":["ls","a"]}', '{"command":["ls","b"]}', '{"command":["ls","c"]}']);
  });
});

describe('Codex messages recorded as events', () => {
  it('a rollout with only event_msg user_message / agent_message has its messages', () => {
    const lines = [
      meta,
      event(1, { type: 'task_started', turn_id: 't1' }),
      event(2, { type: 'user_message', message: 'what is 2+2?', images: [] }),
      event(3, { type: 'agent_message', message: '4' }),
      event(4, { type: 'task_complete', turn_id: 't1', last_agent_message: '4' }),
      event(5, { type: 'task_started', turn_id: 't2' }),
      event(6, { type: 'user_message', message: 'and 3+3?' }),
      event(7, { type: 'agent_message', message: '6' }),
    ];
    const { repo, store } = setup();
    const { summary, messages } = importChecked(repo, store, jsonl(lines));
    expect(summary).toMatchObject({ turns: 2, userMessages: 2, assistantMessages: 2 });
    expect(messages.map((m) => [m.role, textOf(m.content)])).toEqual([
      ['user', 'what is 2+2?'],
      ['assistant', '4'],
      ['user', 'and 3+3?'],
      ['assistant', '6'],
    ]);
  });

  it('events that repeat items are not doubled, whichever comes first', () => {
    const user = item(2, { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] });
    const userEvent = event(2, { type: 'user_message', message: 'hi' });
    const answer = item(3, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hello' }] });
    const answerEvent = event(3, { type: 'agent_message', message: 'hello' });
    const orders = [
      [user, userEvent, answerEvent, answer],
      [userEvent, user, answer, answerEvent],
      [userEvent, { timestamp: at(2), type: 'turn_context', payload: { model: 'gpt-5' } }, user, answerEvent, event(3, { type: 'token_count', info: null }), answer],
    ];
    for (const order of orders) {
      const { repo, store } = setup();
      const { summary, messages } = importChecked(repo, store, jsonl([meta, event(1, { type: 'task_started' }), ...order, event(4, { type: 'task_complete' })]));
      expect(summary).toMatchObject({ turns: 1, userMessages: 1, assistantMessages: 1 });
      expect(messages.map((m) => textOf(m.content))).toEqual(['hi', 'hello']);
    }
  });

  it('a response_item user message without "type":"message" is the prompt', () => {
    const lines = [
      meta,
      item(1, { role: 'user', content: [{ type: 'input_text', text: 'fix the bug' }] }),
      item(2, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'fixed' }] }),
    ];
    const { repo, store } = setup();
    const { summary, messages } = importChecked(repo, store, jsonl(lines));
    expect(summary).toMatchObject({ turns: 1, userMessages: 1, assistantMessages: 1, rawRecords: 1 });
    expect(textOf(messages[0]!.content)).toBe('fix the bug');
  });
});

describe('reference-runtime messages with an image', () => {
  it('keep their text, note the image, and the session stays continuable', () => {
    const { repo, store } = setup();
    const { summary, events, messages } = importChecked(repo, store, readFileSync(join(AGENT_LOGS, 'deepseek-harness', 'dsh_inline-image-prompt.session.jsonl'), 'utf8'));
    expect(summary).toMatchObject({ format: 'deepseek-harness', turns: 1, userMessages: 2, assistantMessages: 1 });
    expect(eventsOfType(events, 'import/foreign').filter((e) => e.data.modelVisible === true)).toEqual([]);
    expect(firstUnreplayableSeq(events)).toBeUndefined();
    expect(summary.modelViewNotes.join('\n')).toContain('image parts of messages are not replayed when continuing');
    const prompt = eventsOfType(events, 'user/message')[0]!;
    expect(textOf(prompt.data.content)).toBe('Inspect this image, then reply with exactly the single word DONE.');
    // The image part is kept as the source's fact.
    expect(JSON.stringify(prompt.data.source)).toContain('sha256:b1ff9c8ea3a780bad09b346c423d2d0e46815926879b18e841d928376a946640');
    expect(messages[0]).toMatchObject({ role: 'user' });
    expect(messages.at(-1)).toMatchObject({ role: 'assistant' });
  });
});

describe('a Claude Code sub-agent file', () => {
  const parentText = readFileSync(join(AGENT_LOGS, 'claude-code', 'agentsessions_claude_subagent-parent.jsonl'), 'utf8');
  const childText = readFileSync(join(AGENT_LOGS, 'claude-code', 'agentsessions_claude_subagent-child.jsonl'), 'utf8');
  const parentId = '0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f';
  const childPath = `/home/user/.claude/projects/-tmp/${parentId}/subagents/agent-a0ad4f44468bdf20d.jsonl`;

  it('is its own session agent-<id>, titled for its task, linked to its parent (imported first or later)', () => {
    for (const parentFirst of [true, false]) {
      const { repo, store } = setup();
      if (parentFirst) expect(importText(repo, parentText, `${parentId}.jsonl`).sessionId).toBe(parentId);
      const { summary, header } = importChecked(repo, store, childText, childPath);
      expect(summary.sessionId).toBe('agent-a0ad4f44468bdf20d');
      expect(summary.title).toBe('Sub-agent (general-purpose): Search the repo for TODO comments');
      expect(summary.title).not.toContain('imported copy');
      expect(header.origin).toMatchObject({ kind: 'imported', format: 'claude-code', spawnedBy: { sessionId: parentId, agentId: 'a0ad4f44468bdf20d' } });
      expect(header.parentSession).toBeUndefined(); // a provenance link, not a fork: no parent prefix is read
      expect(summary.warnings.join('\n')).toContain(parentFirst ? `linked to its parent session ${parentId}, imported already` : `linked to its parent session ${parentId}, not imported yet`);
      if (!parentFirst) expect(importText(repo, parentText, `${parentId}.jsonl`).sessionId).toBe(parentId);
      expect(store.get(parentId)).toBeDefined();
    }
  });

  it("whose records carry the parent's sessionId (the real layout) is not a copy of the parent", () => {
    const { repo, store } = setup();
    importText(repo, parentText, `${parentId}.jsonl`);
    const shared = childText.replaceAll('"sessionId":"agent-a0ad4f44468bdf20d"', `"sessionId":"${parentId}"`);
    expect(shared).toContain(`"sessionId":"${parentId}"`);
    // Even with only a bare file name (a drop in the window), the records name the parent.
    const { summary, header } = importChecked(repo, store, shared, 'agent-a0ad4f44468bdf20d.jsonl');
    expect(summary.sessionId).toBe('agent-a0ad4f44468bdf20d');
    expect(summary.title).toMatch(/^Sub-agent/);
    expect(summary.warnings.join('\n')).not.toContain('already exists');
    expect(header.origin).toMatchObject({ spawnedBy: { sessionId: parentId } });
  });

  it("with neither an agentId nor a subagents/ path, still never takes the parent's id", () => {
    const { repo, store } = setup();
    importText(repo, parentText, `${parentId}.jsonl`);
    const bare = childText.replaceAll('"sessionId":"agent-a0ad4f44468bdf20d"', `"sessionId":"${parentId}"`).replaceAll('"agentId":"a0ad4f44468bdf20d",', '');
    expect(bare).not.toContain('agentId');
    const { summary, header } = importChecked(repo, store, bare, 'sub.jsonl');
    expect(summary.sessionId).not.toBe(parentId);
    expect(summary.title).toBe('Sub-agent (general-purpose): Search the repo for TODO comments');
    expect(summary.warnings.join('\n')).not.toContain('already exists');
    expect(header.origin).toMatchObject({ spawnedBy: { sessionId: parentId } });
  });
});

describe('a log that ends inside a turn', () => {
  const endReason = (events: readonly SessionEvent[]) => eventsOfType(events, 'turn/end').at(-1)!.data.reason;
  const noCrashWords = (events: readonly SessionEvent[]) => {
    const results = eventsOfType(events, 'tool/result').map((r) => textOf(r.data.message.content[0].content));
    for (const text of results) expect(text).not.toMatch(/crash|app closed/);
  };

  it('ends source-ended in every format (not interrupted), and its open calls say the log holds no outcome', () => {
    const { repo, store } = setup();
    const claude = importChecked(repo, store, readFileSync(join(AGENT_LOGS, 'claude-code', 'agentsessions_claude_subagent-parent.jsonl'), 'utf8'));
    expect(endReason(claude.events)).toEqual({ kind: 'source-ended' });
    expect(claude.summary.warnings.join('\n')).toContain('the log ends inside a turn');
    noCrashWords(claude.events);

    const codex = importChecked(
      repo,
      store,
      jsonl([
        meta,
        event(1, { type: 'task_started' }),
        item(2, { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go' }] }),
        item(3, { type: 'function_call', name: 'shell', arguments: '{}', call_id: 'c1' }),
      ]),
    );
    expect(endReason(codex.events)).toEqual({ kind: 'source-ended' });
    noCrashWords(codex.events);

    const T = 1_780_000_000_000;
    const dsh = importChecked(
      repo,
      store,
      jsonl([
        { type: 'session', version: 0, id: 'dsh-open', createdAt: T },
        { type: 'turn/start', seq: 0, time: T + 1, data: { turn: 1 } },
        { type: 'step/start', seq: 1, time: T + 2, data: { turn: 1, step: 1 } },
        { type: 'user/message', seq: 2, time: T + 3, data: { id: 'u1', role: 'user', content: [{ type: 'text', text: 'go' }], source: { kind: 'user' } }, surfaceOp: 'append' },
        {
          type: 'assistant/message',
          seq: 3,
          time: T + 4,
          data: {
            turn: 1,
            step: 1,
            message: { id: 'a1', role: 'assistant', content: [{ type: 'tool-call', id: 'k1', name: 'bash', arguments: '{}' }], source: { kind: 'model', provider: 'p', model: 'm' } },
          },
          surfaceOp: 'append',
        },
        { type: 'tool/call', seq: 4, time: T + 5, data: { turn: 1, step: 1, callId: 'k1', name: 'bash', arguments: '{}' } },
      ]),
    );
    expect(endReason(dsh.events)).toEqual({ kind: 'source-ended' });
    expect(dsh.summary.warnings.join('\n')).toContain('closed it as ending with the source log');
    expect(dsh.summary.unansweredCalls).toBe(1);
    noCrashWords(dsh.events);
  });

  it('is not "crashed" in the session list (its last turn is source-ended, an idle session)', () => {
    expect(sessionActivity({ status: 'idle', lastTurn: 'source-ended', waitingApproval: false, ownedElsewhere: false })).toBe('idle');
    expect(sessionActivity({ status: 'idle', lastTurn: 'interrupted', waitingApproval: false, ownedElsewhere: false })).toBe('crashed');
  });
});
