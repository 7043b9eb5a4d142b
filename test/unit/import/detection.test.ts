/**
 * Detection that says what it saw (issue 20 item 4): a file is taken for a format only when a
 * record carries the fields that format needs; a pretty-printed JSON document is read as one
 * document (never "line 1 is not JSON"); a file that matches nothing says whether it is a JSON
 * document, a JSON array or a JSONL file; a known agent's log we do not read is named; a format
 * change inside a file is refused naming its line; reference-runtime headers without `version`
 * are read.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionCorruptionError, UnsupportedFormatError } from '../../../shared/errors.js';
import { eventsOfType } from '../../../shared/events.js';
import { InvariantChecker } from '../../../electron/session/invariant.js';
import { MemorySessionStore } from '../../../electron/store/memory-session-store.js';
import { SessionRepository } from '../../../electron/store/session-repository.js';
import { AGENT_LOGS } from '../../support/import-fixtures.js';
import { importText } from '../../../electron/host/services/session-imports.js';

function setup(): { repo: SessionRepository; store: MemorySessionStore } {
  const store = new MemorySessionStore();
  let n = 0;
  return { store, repo: new SessionRepository(store, { newId: () => `s${++n}` }) };
}

function fixture(folder: string, file: string): string {
  return readFileSync(join(AGENT_LOGS, folder, file), 'utf8');
}

function refusal(repo: SessionRepository, text: string, file = 'x.jsonl'): Error {
  const before = repo.list().length;
  let error: unknown;
  try {
    importText(repo, text, file);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(Error);
  // A refused import leaves nothing behind.
  expect(repo.list()).toHaveLength(before);
  return error as Error;
}

const jsonl = (records: readonly unknown[]): string => records.map((r) => JSON.stringify(r)).join('\n') + '\n';
const lines = (text: string): string[] => text.split('\n').filter((l) => l.trim() !== '');

describe('a format is taken only when the fields it needs are there', () => {
  it('a Qwen Code log (Claude-like envelope, message.parts) is named, not imported as an empty Claude Code session', () => {
    const { repo } = setup();
    const error = refusal(repo, fixture('other', 'agentsessions_qwen_0004.jsonl'));
    expect(error).toBeInstanceOf(UnsupportedFormatError);
    expect(error.message).toContain('it looks like a Qwen Code chat log (line 1)');
    expect(error.message).toContain('Formats we read: forkline');
  });

  it('the same envelope with message.content is Claude Code; a Qwen record inside a Claude Code file is a format change', () => {
    const { repo } = setup();
    const base = { sessionId: 'q', cwd: '/p', timestamp: '2026-01-01T00:00:00Z' };
    const claude = { ...base, type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'hi' } };
    expect(importText(repo, jsonl([claude]), 'a.jsonl').format).toBe('claude-code');
    // A Claude Code file with one record of another agent's shape further down: a format change.
    const qwen = { ...base, type: 'assistant', uuid: 'u2', parentUuid: 'u1', message: { role: 'model', parts: [{ text: 'yo' }] } };
    const error = refusal(repo, jsonl([claude, qwen]));
    expect(error).toBeInstanceOf(SessionCorruptionError);
    expect((error as SessionCorruptionError).line).toBe(2);
    expect(error.message).toContain('line 2 is a Qwen Code chat log record, but the file began as a Claude Code transcript (line 1)');
  });

  it('a Pi agent session (type:session, version 3, ISO timestamp) is named, not "format version 3 is newer…; upgrade Forkline"', () => {
    const { repo } = setup();
    const error = refusal(repo, fixture('other', 'agentsessions_pi_small.jsonl'));
    expect(error).toBeInstanceOf(UnsupportedFormatError);
    expect(error.message).toContain('it looks like a Pi agent session (line 1)');
    expect(error.message).not.toMatch(/upgrade Forkline|newer/);
  });

  it('a reference-runtime header without `version` is read (older snapshots); a newer version is still refused as newer', () => {
    const { repo, store } = setup();
    const events = [
      { type: 'turn/start', seq: 0, time: 1_780_000_000_001, data: { turn: 1 } },
      { type: 'turn/end', seq: 1, time: 1_780_000_000_002, data: { turn: 1, reason: { kind: 'completed' } } },
    ];
    const summary = importText(repo, jsonl([{ type: 'session', id: 'dsh-noversion', createdAt: 1_780_000_000_000, cwd: '/w' }, ...events]), 'session.jsonl');
    expect(summary).toMatchObject({ format: 'deepseek-harness', sessionId: 'dsh-noversion', turns: 1 });
    expect(store.readAll('dsh-noversion')).toHaveLength(2);
    const error = refusal(repo, jsonl([{ type: 'session', version: 1, id: 'dsh-v1', createdAt: 1_780_000_000_000 }, ...events]));
    expect(error.message).toContain('session format version 1 is newer');
  });
});

describe('JSON documents are read as documents', () => {
  it('a pretty-printed Gemini CLI chat is read as one document (its only record), never "line 1 is not JSON"', () => {
    const { repo } = setup();
    const summary = importText(repo, fixture('gemini-cli', 'agentsessions_gemini_small.json'), 'chat.json');
    expect(summary).toMatchObject({ format: 'gemini-cli', formatVersion: 'json', linesRead: 1 });
  });

  it('a claude.ai export (pretty-printed array of conversations, or one conversation) is named', () => {
    const { repo } = setup();
    const conversation = { uuid: 'c1', name: 'Plan', created_at: '2026-01-01T00:00:00Z', chat_messages: [{ uuid: 'm1', sender: 'human', text: 'hi', content: [{ type: 'text', text: 'hi' }] }] };
    for (const text of [JSON.stringify([conversation], null, 2), JSON.stringify(conversation, null, 2), JSON.stringify({ conversations: [conversation] }, null, 2)]) {
      const error = refusal(repo, text, 'conversations.json');
      expect(error).toBeInstanceOf(UnsupportedFormatError);
      expect(error.message).toContain('it looks like a claude.ai conversation export');
    }
  });

  it('a Claude Code web "loglines" document imports as the Claude Code transcript it wraps', () => {
    const { repo, store } = setup();
    const transcript = fixture('claude-code', 'cc_hello-world-script.jsonl');
    const records = lines(transcript).map((l) => JSON.parse(l) as unknown);
    const fromLines = importText(repo, transcript, 'a.jsonl');
    const fromDocument = importText(repo, JSON.stringify({ loglines: records, session_id: 'web-1' }, null, 2), 'web.json');
    expect(fromDocument.format).toBe('claude-code');
    const counts = (s: typeof fromLines) => [s.turns, s.steps, s.userMessages, s.assistantMessages, s.toolCalls, s.toolResults, s.linesRead];
    expect(counts(fromDocument)).toEqual(counts(fromLines));
    const checker = new InvariantChecker();
    for (const e of store.readAll(fromDocument.sessionId)) checker.accept(e);
  });

  it('an OpenHands CLI document (pretty-printed, its events in one list) imports as OpenHands', () => {
    const { repo } = setup();
    const events = [
      { kind: 'MessageEvent', id: 'e1', timestamp: '2026-03-01T00:00:01', source: 'user', llm_message: { role: 'user', content: [{ type: 'text', text: 'list files' }] } },
      { kind: 'MessageEvent', id: 'e2', timestamp: '2026-03-01T00:00:02', source: 'agent', llm_message: { role: 'assistant', content: [{ type: 'text', text: 'none' }] } },
    ];
    const summary = importText(repo, JSON.stringify({ id: 'conv-1', events }, null, 2), 'trajectory.json');
    expect(summary).toMatchObject({ format: 'openhands', turns: 1, userMessages: 1, assistantMessages: 1 });
  });

  it('a valid document, array or JSONL file that matches nothing says which of the three it is', () => {
    const { repo } = setup();
    expect(refusal(repo, JSON.stringify({ settings: { theme: 'dark' }, list: [1, 2] }, null, 2)).message).toContain('(a JSON document that matches no format we read)');
    expect(refusal(repo, '{"a":1}\n{"b":2}\n').message).toContain('(a JSONL file that matches no format we read: none of its first 2 records carries the fields of one)');
    expect(refusal(repo, '[{"a":1},{"b":2}]').message).toContain('(a JSON array that matches no format we read: none of its first 2 elements carries the fields of one)');
    expect(refusal(repo, '{"a":1}\n').message).toContain('(a JSONL file whose only record matches no format we read)');
  });

  it('a file that starts like a document but is not JSON says both', () => {
    const { repo } = setup();
    // `{"messages": [` on line 1 could be a JSONL file's damaged first line, or a document: neither reads.
    const error = refusal(repo, '{"messages": [\n    {"type": "user",\n');
    expect(error).toBeInstanceOf(UnsupportedFormatError);
    expect(error.message).toMatch(/line 1 is not JSON, and the file is not one JSON document either: /);
  });

  it('a file whose first line is a lone { is a document: one that does not parse is damaged or cut off (SESSION_CORRUPT)', () => {
    const { repo } = setup();
    // No JSONL line is a lone `{`, so this is certainly a document, cut off: never "not a session log".
    const error = refusal(repo, '{\n  "messages": [\n    {"type": "user",\n');
    expect(error).toBeInstanceOf(SessionCorruptionError);
    expect((error as SessionCorruptionError).line).toBe(1);
    expect(error.message).toMatch(/the JSON document does not parse \(.+\): the file is damaged or cut off/);
  });

  it('a JSONL file whose first line is damaged is still a damaged JSONL file (SESSION_CORRUPT naming the line)', () => {
    const { repo } = setup();
    const transcript = lines(fixture('claude-code', 'cc_hello-world-script.jsonl'));
    transcript[0] = transcript[0]!.slice(0, 40);
    const error = refusal(repo, transcript.join('\n') + '\n');
    expect(error).toBeInstanceOf(SessionCorruptionError);
    expect((error as SessionCorruptionError).line).toBe(1);
  });
});

describe('a format change inside a file is an error naming the line', () => {
  const cc = () => lines(fixture('claude-code', 'cc_hello-world-script.jsonl'));
  const codex = () => lines(fixture('codex', 'codex_real-exec-session_redacted_no-tools.rollout.jsonl'));
  const dsh = () => lines(fixture('deepseek-harness', 'dsh_fs-edit.session.jsonl'));
  const oh = () => (JSON.parse(fixture('openhands', 'oh_basic_interactions.trajectory.json')) as unknown[]).map((e) => JSON.stringify(e));
  const gemini = () => lines(fixture('gemini-cli', 'agentsessions_gemini_jsonl_v040.jsonl'));

  const cases: [string, () => string[], () => string[], string, string][] = [
    ['Claude Code then Codex', cc, codex, 'a Codex CLI rollout record', 'a Claude Code transcript'],
    ['Codex then Claude Code', codex, cc, 'a Claude Code transcript record', 'a Codex CLI rollout'],
    ['Claude Code then a reference-runtime log', cc, dsh, 'a DeepSeek Harness session record', 'a Claude Code transcript'],
    ['a reference-runtime log then Claude Code', dsh, cc, 'a Claude Code transcript record', 'a DeepSeek Harness session'],
    ['Codex then OpenHands events', codex, oh, 'an OpenHands', 'a Codex CLI rollout'],
    ['two reference-runtime logs', dsh, dsh, 'starts a second DeepSeek Harness session (another session header)', 'a DeepSeek Harness session'],
    ['Claude Code then a Gemini CLI chat', cc, gemini, 'a Gemini CLI chat record', 'a Claude Code transcript'],
    ['two Gemini CLI chats (JSONL)', gemini, gemini, 'starts a second Gemini CLI chat (another session header)', 'a Gemini CLI chat'],
  ];
  for (const [name, first, second, what, began] of cases) {
    it(name, () => {
      const { repo } = setup();
      const a = first();
      const error = refusal(repo, [...a, ...second()].join('\n') + '\n');
      expect(error).toBeInstanceOf(SessionCorruptionError);
      expect((error as SessionCorruptionError).line).toBe(a.length + 1);
      expect(error.message).toContain(`line ${a.length + 1} `);
      expect(error.message).toContain(what);
      expect(error.message).toContain(`the file began as ${began}`);
    });
  }

  it('records of one format that prove nothing (unknown types) are no format change', () => {
    const { repo, store } = setup();
    const text = [...cc(), JSON.stringify({ type: 'some-future-record', sessionId: 'x', uuid: 'z1' })].join('\n') + '\n';
    const summary = importText(repo, text, 'a.jsonl');
    expect(summary.format).toBe('claude-code');
    expect(eventsOfType(store.readAll(summary.sessionId), 'import/foreign').some((e) => e.data.type === 'some-future-record')).toBe(true);
  });
});
