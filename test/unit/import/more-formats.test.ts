/**
 * Gemini CLI, Cline / Roo Code and opencode importers on small logs (issue 20 item 6): how a whole
 * JSON document is told from JSONL (any chunking, a bound with a clear error), detection by
 * content, the mapping rules each importer's module comment states (rewritten and rewound Gemini
 * messages, checkpoints, results that answer no call, opencode calls left running), and the
 * folder reader's refusals (a folder of neither kind, a file that is not JSON, an id that would
 * leave the storage folder).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ForklineError } from '../../../shared/errors.js';
import { eventsOfType } from '../../../shared/events.js';
import type { JsonValue } from '../../../shared/json.js';
import { importSources } from '../../../electron/host/services/folder-import.js';
import { formatOfDocument, formatOfRecord, type RecordShape } from '../../../electron/import/detect-format.js';
import { folderEntryLine } from '../../../electron/import/folder-entry.js';
import { MAX_IMPORT_RECORD_CHARS } from '../../../electron/import/record-source.js';
import { InvariantChecker } from '../../../electron/session/invariant.js';
import { Session } from '../../../electron/session/session.js';
import { MemorySessionStore } from '../../../electron/store/memory-session-store.js';
import { SessionRepository } from '../../../electron/store/session-repository.js';
import { historyProblems } from '../../support/import-fixtures.js';
import { beginImport, importText } from '../../../electron/host/services/session-imports.js';

function setup(): { repo: SessionRepository; store: MemorySessionStore } {
  const store = new MemorySessionStore();
  let n = 0;
  return { store, repo: new SessionRepository(store, { newId: () => `s${++n}` }) };
}

function jsonl(records: readonly unknown[]): string {
  return records.map((r) => JSON.stringify(r)).join('\n') + '\n';
}

/** Imports text in the given chunks and checks the invariant and the history. */
function importChunks(repo: SessionRepository, store: MemorySessionStore, chunks: readonly string[]) {
  const job = beginImport(repo, 'log');
  for (const c of chunks) job.write(c);
  const summary = job.end();
  const events = store.readAll(summary.sessionId);
  const checker = new InvariantChecker();
  for (const e of events) checker.accept(e);
  const session = new Session({ header: store.get(summary.sessionId)!.header, seed: events, invariants: 'report' });
  expect(session.warnings).toEqual([]);
  const messages = session.deriveMessages();
  expect(historyProblems(messages)).toEqual([]);
  return { summary, events, messages };
}

function errorOf(fn: () => unknown): ForklineError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ForklineError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

const GEMINI_DOC = {
  kind: 'chat',
  sessionId: 'gem-doc-1',
  projectHash: 'ab12',
  startTime: '2026-03-01T10:00:00.000Z',
  lastUpdated: '2026-03-01T10:00:09.000Z',
  summary: 'Read a file',
  messages: [
    { id: 'u1', timestamp: '2026-03-01T10:00:01.000Z', type: 'user', content: 'Show me a.txt' },
    {
      id: 'g1',
      timestamp: '2026-03-01T10:00:03.000Z',
      type: 'gemini',
      model: 'gemini-2.5-flash',
      content: [{ text: 'Checking first.', thought: true }, { text: 'Reading it.' }, { functionCall: { id: 'c1', name: 'read_file', args: { path: 'a.txt' } } }],
      toolCalls: [
        {
          id: 'c1',
          name: 'read_file',
          args: { path: 'a.txt' },
          status: 'success',
          timestamp: '2026-03-01T10:00:04.000Z',
          result: [{ functionResponse: { id: 'c1', name: 'read_file', response: { output: 'alpha' } } }],
        },
      ],
      tokens: { input: 100, output: 10, cached: 40, thoughts: 5, total: 115 },
    },
    { id: 'w1', timestamp: '2026-03-01T10:00:05.000Z', type: 'warning', content: 'Loop detected' },
    { id: 'g2', timestamp: '2026-03-01T10:00:06.000Z', type: 'gemini', model: 'gemini-2.5-flash', content: 'It says alpha.' },
  ],
};

/** The format one record proves (detection's table), or undefined. */
function proves(value: JsonValue, shape: RecordShape = 'line'): string | undefined {
  const verdict = formatOfRecord(value, shape, true);
  return verdict?.kind === 'read' ? verdict.id : undefined;
}

describe('a JSON document is told from JSONL', () => {
  it('by a first line that is not a whole record (blank lines, CRLF, a first chunk of only "{" included); a one-line object stays JSONL', () => {
    const { repo } = setup();
    const pretty = JSON.stringify(GEMINI_DOC, null, 2);
    const crlf = `\n\n${pretty.replace(/\n/g, '\r\n')}\r\n`;
    expect(importText(repo, crlf)).toMatchObject({ format: 'gemini-cli', formatVersion: 'json', linesRead: 1, skippedCount: 0 });
    const job = beginImport(repo, 'chat.json');
    job.write('{');
    job.write(pretty.slice(1));
    expect(job.end()).toMatchObject({ format: 'gemini-cli', formatVersion: 'json' });
    // One line: a JSONL record, not a document.
    expect(errorOf(() => importText(repo, '{"a":1}\n')).message).toContain('a JSONL file whose only record matches no format we read');
    // A lone `{` and nothing else: a document cut off.
    expect(errorOf(() => importText(repo, '  {  ')).message).toContain('the JSON document does not parse');
    // The document itself is its only record.
    expect(formatOfDocument(GEMINI_DOC as unknown as JsonValue)).toMatchObject({ verdict: { kind: 'read', id: 'gemini-cli' }, records: [GEMINI_DOC] });
  });

  it('imports a pretty-printed Gemini chat in any chunking, with the same events', () => {
    const text = `\uFEFF${JSON.stringify(GEMINI_DOC, null, 2)}\n`;
    const a = setup();
    const whole = importChunks(a.repo, a.store, [text]);
    const b = setup();
    const split = importChunks(b.repo, b.store, [...text]);
    expect(split.events).toEqual(whole.events);
    expect(whole.summary).toMatchObject({ format: 'gemini-cli', formatVersion: 'json', sessionId: 'gem-doc-1', title: 'Read a file', turns: 1, assistantMessages: 2, toolCalls: 1, toolResults: 1 });
    // Modern content: thought parts are reasoning, functionCall parts the calls; input includes cached, output excludes thoughts.
    expect(whole.messages[1]!.content).toEqual([
      { type: 'reasoning', text: 'Checking first.' },
      { type: 'text', text: 'Reading it.' },
      { type: 'tool-call', id: 'c1', name: 'read_file', arguments: '{"path":"a.txt"}' },
    ]);
    expect(whole.summary.tokens).toEqual({ input: 60, output: 15, cacheRead: 40, reasoning: 5 });
    // The display-only warning is a raw row, never model-visible.
    expect(eventsOfType(whole.events, 'import/foreign').find((e) => e.data.type === 'message/warning')?.data.modelVisible).toBeUndefined();
    expect(whole.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('a one-line object is still JSONL, and a document above the bound is refused naming the bound', () => {
    const { repo } = setup();
    expect(importText(repo, `${JSON.stringify(GEMINI_DOC)}\n`).format).toBe('gemini-cli');
    const half = 'x'.repeat(MAX_IMPORT_RECORD_CHARS / 2);
    // Above the bound in one line of the document, or over many lines each below it: the same refusal.
    for (const big of [`{\n"sessionId": "x", "projectHash": "y", "pad": "${'x'.repeat(MAX_IMPORT_RECORD_CHARS)}"}`, `{\n"sessionId": "x",\n"a": "${half}",\n"b": "${half}",\n"messages": []\n}`]) {
      const error = errorOf(() => importText(repo, big));
      expect(error.code).toBe('SESSION_CORRUPT');
      expect(error.message).toContain(`the JSON document is longer than ${MAX_IMPORT_RECORD_CHARS} characters, the most a whole-document import reads`);
      expect((error as ForklineError & { line?: number }).line).toBe(1);
    }
    expect(repo.list()).toHaveLength(1);
  });

  it('a document cut off is refused as damaged (nothing stored)', () => {
    const { repo } = setup();
    const text = JSON.stringify(GEMINI_DOC, null, 2);
    const error = errorOf(() => importText(repo, text.slice(0, text.length - 40)));
    expect(error.code).toBe('SESSION_CORRUPT');
    expect(error.message).toContain('the JSON document does not parse');
    expect(repo.list()).toHaveLength(0);
  });
});

describe('detection by content', () => {
  it('recognises Gemini metadata and messages, and folder entries of the folder formats only', () => {
    expect(proves({ sessionId: 's', projectHash: 'p', startTime: 't' })).toBe('gemini-cli');
    expect(proves({ sessionId: 's', projectHash: 'p', messages: [] }, 'document')).toBe('gemini-cli');
    // A document needs its `messages` (a JSONL metadata line is no whole chat); an array element is no Gemini record.
    expect(proves({ sessionId: 's', projectHash: 'p' }, 'document')).toBeUndefined();
    expect(proves({ sessionId: 's', projectHash: 'p' }, 'element')).toBeUndefined();
    expect(proves({ id: 'g', timestamp: 't', type: 'gemini', content: '' })).toBe('gemini-cli');
    expect(proves({ id: 'u', timestamp: 't', type: 'user', content: '' })).toBeUndefined();
    expect(proves({ role: 'user', content: [{ type: 'text', text: '<task>\nx\n</task>' }] }, 'element')).toBe('cline');
    expect(proves({ role: 'user', content: '<task>x</task>' }, 'line')).toBeUndefined();
    const entry = (format: string) => JSON.parse(folderEntryLine({ format: format as 'cline', folder: 'f', path: 'a.json', value: [] })) as JsonValue;
    expect(proves(entry('cline'))).toBe('cline');
    expect(proves(entry('opencode'))).toBe('opencode');
    expect(proves(entry('claude-code'))).toBeUndefined();
  });
});

describe('Gemini CLI JSONL rules', () => {
  const meta = { sessionId: 'gem-2', projectHash: 'h', startTime: '2026-03-02T09:00:00Z', lastUpdated: '2026-03-02T09:00:00Z' };
  const user = (id: string, text: string, s: number) => ({ id, timestamp: `2026-03-02T09:00:${String(s).padStart(2, '0')}Z`, type: 'user', content: [{ text }] });
  const model = (id: string, text: string, s: number) => ({ id, timestamp: `2026-03-02T09:00:${String(s).padStart(2, '0')}Z`, type: 'gemini', content: text, model: 'gemini-2.5-pro' });

  it('a checkpoint ($set.messages) replaces the chat; a rewind to an unknown id empties it, as upstream', () => {
    const { repo, store } = setup();
    const text = jsonl([
      meta,
      user('u1', 'one', 1),
      model('g1', 'first', 2),
      { $set: { messages: [user('u1', 'one', 1), model('g1b', 'checkpointed', 3)] } },
      user('u2', 'two', 4),
      model('g2', 'second', 5),
    ]);
    const { messages, summary } = importChunks(repo, store, [text]);
    expect(messages.map((m) => (m.content[0] as { text: string }).text)).toEqual(['one', 'checkpointed', 'two', 'second']);
    expect(summary.turns).toBe(2);
    const rewound = importChunks(repo, store, [
      jsonl([{ ...meta, sessionId: 'gem-3' }, user('u1', 'one', 1), model('g1', 'first', 2), { $rewindTo: 'nope' }, user('u9', 'fresh', 6), model('g9', 'start over', 7)]),
    ]);
    expect(rewound.messages.map((m) => (m.content[0] as { text: string }).text)).toEqual(['fresh', 'start over']);
    expect(rewound.summary.warnings.join('\n')).toContain('2 message(s) that a rewind or a checkpoint removed');
  });
});

describe('Gemini CLI user messages the model never saw, and context the CLI added', () => {
  it("slash commands and ? queries are raw rows; a <session_context> message joins the next prompt's turn", () => {
    const { repo, store } = setup();
    const at = (s: number) => `2026-03-03T09:00:0${s}Z`;
    const text = jsonl([
      { sessionId: 'gem-ctx', projectHash: 'h', startTime: at(0) },
      { id: 'c0', timestamp: at(1), type: 'user', content: [{ text: '<session_context>\nOS: linux\n</session_context>' }] },
      { id: 'u1', timestamp: at(2), type: 'user', content: [{ text: 'hi' }] },
      { id: 'g1', timestamp: at(3), type: 'gemini', content: 'hello', model: 'gemini-2.5-pro' },
      { id: 'u2', timestamp: at(4), type: 'user', content: [{ text: '/stats' }] },
      { id: 'u3', timestamp: at(5), type: 'user', content: '?' },
      { id: 'u4', timestamp: at(6), type: 'user', content: [{ text: 'bye' }] },
      { id: 'g2', timestamp: at(7), type: 'gemini', content: 'ciao', model: 'gemini-2.5-pro' },
    ]);
    const { summary, messages, events } = importChunks(repo, store, [text]);
    expect(summary.turns).toBe(2);
    expect(messages.map((m) => (m.content[0] as { text: string }).text)).toEqual(['<session_context>\nOS: linux\n</session_context>', 'hi', 'hello', 'bye', 'ciao']);
    expect(eventsOfType(events, 'user/message')[0]!.data.source.kind).toBe('inject');
    expect(eventsOfType(events, 'import/foreign').filter((e) => e.data.type === 'message/user-command')).toHaveLength(2);
  });
});

describe('Cline rules', () => {
  const entry = (path: string, value: unknown) => folderEntryLine({ format: 'cline', folder: '1700000000000', path, value: value as JsonValue });

  it('a tool_result that answers no open call is kept raw and noted; usage from UI rows only when they match the responses one to one', () => {
    const { repo, store } = setup();
    const ui = [
      { ts: 1_700_000_000_000, type: 'say', say: 'task', text: 'Do it' },
      { ts: 1_700_000_000_100, type: 'say', say: 'api_req_started', text: JSON.stringify({ tokensIn: 10, tokensOut: 2 }) },
      { ts: 1_700_000_000_200, type: 'say', say: 'api_req_started', text: JSON.stringify({ tokensIn: 11, tokensOut: 3 }) },
    ];
    const api = [
      { role: 'user', content: 'Do it' },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'ghost', content: 'orphan' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
    ];
    const { summary, events } = importChunks(repo, store, [entry('ui_messages.json', ui) + entry('api_conversation_history.json', api)]);
    expect(summary).toMatchObject({ format: 'cline', sessionId: '1700000000000', turns: 1, assistantMessages: 1, toolResults: 0 });
    expect(summary.tokens).toBeUndefined();
    expect(summary.warnings.join('\n')).toContain('the UI rows hold 2 request(s) with token counts for 1 model response(s)');
    expect(summary.modelViewNotes.join('\n')).toContain('a tool result that answers no open call');
    expect(eventsOfType(events, 'import/foreign').some((e) => e.data.type === 'tool_result' && e.data.modelVisible === true)).toBe(true);
  });
});

describe('a Cline api_conversation_history.json on its own (as the window sends a dropped file)', () => {
  it('is recognised by its <task> prompt and streamed message by message; a bare chat array is not', () => {
    const { repo, store } = setup();
    const history = [
      { role: 'user', content: [{ type: 'text', text: '<task>\nSay hi\n</task>' }], ts: 1_700_000_100_000 },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'attempt_completion', input: { result: 'hi' } }],
        ts: 1_700_000_101_000,
        metrics: { tokens: { prompt: 50, completion: 5, cached: 20 } },
      },
      // A response cut off before any content: a raw row, never an empty assistant message.
      { role: 'assistant', content: [], ts: 1_700_000_102_000 },
    ];
    const { summary, events } = importChunks(repo, store, [JSON.stringify(history, null, 2)]);
    expect(eventsOfType(events, 'import/foreign').map((e) => e.data.type)).toEqual(['message/assistant-empty']);
    expect(summary).toMatchObject({ format: 'cline', turns: 1, assistantMessages: 1, toolCalls: 1, unansweredCalls: 1 });
    expect(summary.tokens).toEqual({ input: 30, output: 5, cacheRead: 20 });
    expect(store.get(summary.sessionId)!.header.createdAt).toBe(1_700_000_100_000);
    expect(
      errorOf(() =>
        importText(
          repo,
          JSON.stringify([
            { role: 'user', content: 'hello' },
            { role: 'assistant', content: 'hi' },
          ]),
        ),
      ).code,
    ).toBe('UNSUPPORTED_FORMAT');
  });
});

describe('opencode rules', () => {
  it('a call left pending or running is answered as outcome unknown; a part of no message read before it is kept raw', () => {
    const { repo, store } = setup();
    const e = (path: string, value: unknown) => folderEntryLine({ format: 'opencode', folder: 'storage', path, value: value as JsonValue });
    const text = [
      e('session/p/ses_1.json', { id: 'ses_1', title: 'T', directory: '/d', version: '0.9.0', time: { created: 1_700_000_000_000, updated: 0 } }),
      e('part/msg_0/prt_0.json', { id: 'prt_0', messageID: 'msg_0', type: 'text', text: 'stray' }),
      e('message/ses_1/msg_1.json', { id: 'msg_1', role: 'user', time: { created: 1_700_000_000_100 } }),
      e('part/msg_1/prt_1.json', { id: 'prt_1', messageID: 'msg_1', type: 'text', text: 'go' }),
      e('message/ses_1/msg_2.json', {
        id: 'msg_2',
        role: 'assistant',
        providerID: 'openai',
        modelID: 'gpt-5',
        time: { created: 1_700_000_000_200 },
        tokens: { input: 5, output: 1, reasoning: 0, cache: { read: 0, write: 0 } },
      }),
      e('part/msg_2/prt_2.json', {
        id: 'prt_2',
        messageID: 'msg_2',
        type: 'tool',
        callID: 'call_a',
        tool: 'bash',
        state: { status: 'running', input: { command: 'sleep 9' }, time: { start: 1_700_000_000_300 } },
      }),
    ].join('');
    const { summary, events } = importChunks(repo, store, [text]);
    expect(summary).toMatchObject({ format: 'opencode', toolCalls: 1, toolResults: 0, unansweredCalls: 1 });
    expect(summary.tokens).toEqual({ input: 5, output: 1, cacheRead: 0 });
    expect(eventsOfType(events, 'turn/end').at(-1)!.data.reason.kind).toBe('source-ended');
    expect(eventsOfType(events, 'import/foreign').some((x) => x.data.note === 'a part of no message read before it')).toBe(true);
  });
});

describe('the folder reader', () => {
  const root = mkdtempSync(join(tmpdir(), 'forkline-folder-import-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('refuses a folder of neither kind, and a task file that is not JSON', () => {
    const plain = join(root, 'plain');
    mkdirSync(plain);
    expect(errorOf(() => importSources(plain)).code).toBe('UNSUPPORTED_FORMAT');
    const task = join(root, 'task');
    mkdirSync(task);
    writeFileSync(join(task, 'api_conversation_history.json'), '[{"role":"user",');
    const [source] = importSources(task);
    const error = errorOf(() => [...(source!.chunks() as Iterable<string>)]);
    expect(error.code).toBe('SESSION_CORRUPT');
    expect(error.message).toContain('api_conversation_history.json is not JSON');
  });

  it("Cline's tasks folder gives one import per task folder, each with its files in the importer's order", () => {
    const tasks = join(root, 'tasks');
    for (const id of ['1700000000001', '1700000000002']) {
      mkdirSync(join(tasks, id), { recursive: true });
      writeFileSync(join(tasks, id, 'api_conversation_history.json'), JSON.stringify([{ role: 'user', content: [{ type: 'text', text: `<task>${id}</task>` }] }]));
      writeFileSync(join(tasks, id, 'ui_messages.json'), '[]');
    }
    mkdirSync(join(tasks, 'not-a-task'));
    const sources = importSources(tasks);
    expect(sources.map((s) => s.fileName)).toEqual(['1700000000001', '1700000000002']);
    const lines = [...(sources[1]!.chunks() as Iterable<string>)].map((l) => JSON.parse(l) as { path: string; folder: string });
    expect(lines.map((l) => `${l.folder}/${l.path}`)).toEqual(['1700000000002/ui_messages.json', '1700000000002/api_conversation_history.json']);
  });

  it('never follows an id out of the storage folder', () => {
    const storage = join(root, 'storage');
    mkdirSync(join(storage, 'session', 'p'), { recursive: true });
    mkdirSync(join(storage, 'message', 'ses_ok'), { recursive: true });
    mkdirSync(join(root, 'secret'), { recursive: true });
    writeFileSync(join(root, 'secret', 'x.json'), '{"id":"leak","role":"user"}');
    writeFileSync(join(storage, 'session', 'p', 'ses_ok.json'), JSON.stringify({ id: '../../secret', title: 't' }));
    const [source] = importSources(storage);
    const lines = [...(source!.chunks() as Iterable<string>)];
    // The file's own name is used instead of the id it names: message/ses_ok (empty), nothing from secret/.
    expect(lines).toHaveLength(1);
    expect(lines.join('')).not.toContain('leak');
  });
});
