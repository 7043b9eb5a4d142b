/**
 * Every agent-session-log fixture (Claude Code, Codex, OpenHands, the reference runtime) through
 * the real import pipeline into a real SQLite file (issue 12 "Done when"):
 * - per file, the counts of user messages, assistant messages, tool calls and tool results
 *   (written out by hand below, from reading each file; calls and results are also counted straight
 *   from the source by its own format's rules);
 * - every call the source pairs with a result is paired in the log (same turn and step, result
 *   after call), and the derived history is one a provider accepts;
 * - the relational invariant checker accepts every event of every imported session;
 * - a re-export re-imports identically;
 * - a torn copy (cut mid-record) imports with a warning; a damaged middle line is refused with its
 *   line number (SESSION_CORRUPT).
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { SessionCorruptionError, UnsupportedFormatError } from '../../../shared/errors.js';
import { eventsOfType } from '../../../shared/events.js';
import { formatImportSummary, type ImportFormatId } from '../../../shared/import-summary.js';
import { InvariantChecker } from '../../../electron/session/invariant.js';
import { Session } from '../../../electron/session/session.js';
import { SessionRepository } from '../../../electron/store/session-repository.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { NO_ID, agentLogFixtures, historyProblems, isSynthesized, sourcePairs, sourceRecords } from '../../support/import-fixtures.js';
import { serializeAll, tempDir } from '../../support/store-fixtures.js';
import { importText } from '../../../electron/host/services/session-imports.js';

interface Expected {
  readonly format: ImportFormatId;
  readonly turns: number;
  /** Model-visible user-role messages that are not tool results (prompts, hook feedback, injected context). */
  readonly user: number;
  /** Model responses (Claude Code: distinct `message.id`s; Codex: runs of output items; OpenHands: model responses). */
  readonly assistant: number;
  readonly calls: number;
  /** Results the source recorded. */
  readonly results: number;
  /** Calls the source never answered (closed as outcome unknown). */
  readonly unanswered: number;
}

const EXPECTED: Record<string, Expected> = {
  // 1 prompt + 2 stop-hook feedback messages (isMeta); 14 API responses; 13 tool_use / 13 tool_result.
  'cc_coverage-test-fix.jsonl': { format: 'claude-code', turns: 1, user: 3, assistant: 14, calls: 13, results: 13, unanswered: 0 },
  // prompt + stop-hook feedback; Write, Bash, two text answers.
  'cc_hello-world-script.jsonl': { format: 'claude-code', turns: 1, user: 2, assistant: 4, calls: 2, results: 2, unanswered: 0 },
  'cc_stop-hook-uncommitted-changes.jsonl': { format: 'claude-code', turns: 1, user: 2, assistant: 4, calls: 2, results: 2, unanswered: 0 },
  // developer message, environment context, the prompt; one answer; no tools.
  'codex_real-exec-session_redacted_no-tools.rollout.jsonl': { format: 'codex', turns: 1, user: 3, assistant: 1, calls: 0, results: 0, unanswered: 0 },
  // 5 prompts; answers: [reasoning+text+call], [text], [reasoning+call], [text], [call], [text], [call];
  // call_esc_002 (escalation, then "nevermind") and call_esc_004 (turn aborted) have no output.
  'codex_synthetic_tool-calls-escalation-aborted.rollout.jsonl': { format: 'codex', turns: 5, user: 5, assistant: 7, calls: 4, results: 2, unanswered: 2 },
  // prompt + the compaction's replacement message; 2 answers; one bash call.
  'dsh_compaction-recovery.session.jsonl': { format: 'deepseek-harness', turns: 1, user: 2, assistant: 2, calls: 1, results: 1, unanswered: 0 },
  // 2 prompts; 4 assistant/message lines (turn 1); turns 2 and 3 have chunks only (the recording elides them).
  'dsh_cordis-tool-round.session.jsonl': { format: 'deepseek-harness', turns: 3, user: 2, assistant: 4, calls: 3, results: 3, unanswered: 0 },
  // prompt + runtime-context snapshot; 2 answers; one bash call (approval rejected).
  'dsh_escalation-rejected.session.jsonl': { format: 'deepseek-harness', turns: 1, user: 2, assistant: 2, calls: 1, results: 1, unanswered: 0 },
  'dsh_fs-edit.session.jsonl': { format: 'deepseek-harness', turns: 1, user: 2, assistant: 3, calls: 2, results: 2, unanswered: 0 },
  // prompt; edit (observed) then finish (no observation).
  'oh_basic.trajectory.json': { format: 'openhands', turns: 1, user: 1, assistant: 2, calls: 2, results: 1, unanswered: 1 },
  // prompt; run, edit, edit, run (all observed), then a final agent message.
  'oh_basic_gui_mode.trajectory.json': { format: 'openhands', turns: 1, user: 1, assistant: 5, calls: 4, results: 4, unanswered: 0 },
  // 3 prompts; two text answers and a finish call (no observation).
  'oh_basic_interactions.trajectory.json': { format: 'openhands', turns: 3, user: 3, assistant: 3, calls: 1, results: 0, unanswered: 1 },
  // prompt; one answer whose Task call the file never answers (its sub-agent has a file of its own).
  'agentsessions_claude_subagent-parent.jsonl': { format: 'claude-code', turns: 1, user: 1, assistant: 1, calls: 1, results: 0, unanswered: 1 },
  // the sub-agent's own transcript: its task prompt, one answer with a bash call, the call's result (no tool_use ids: paired in order).
  'agentsessions_claude_subagent-child.jsonl': { format: 'claude-code', turns: 1, user: 1, assistant: 1, calls: 1, results: 1, unanswered: 0 },
  // a prompt with an image between two text parts, plus the runtime-context snapshot; one answer.
  'dsh_inline-image-prompt.session.jsonl': { format: 'deepseek-harness', turns: 1, user: 2, assistant: 1, calls: 0, results: 0, unanswered: 0 },
  // Gemini CLI JSON document: a prompt and its answer (with a thought summary).
  'agentsessions_gemini_small.json': { format: 'gemini-cli', turns: 1, user: 1, assistant: 1, calls: 0, results: 0, unanswered: 0 },
  // Gemini CLI 0.40 JSONL: a prompt; a response with one shell call (its result inside the call record); the final answer.
  'agentsessions_gemini_jsonl_v040.jsonl': { format: 'gemini-cli', turns: 1, user: 1, assistant: 2, calls: 1, results: 1, unanswered: 0 },
};

/**
 * Known agents' logs we do not read: refused with UNSUPPORTED_FORMAT naming what they are (never
 * "not JSON", never imported empty). An importer added for one moves its files to EXPECTED.
 */
const REFUSED: Record<string, string> = {
  'agentsessions_qwen_0004.jsonl': 'it looks like a Qwen Code chat log (line 1)',
  'agentsessions_pi_small.jsonl': 'it looks like a Pi agent session (line 1)',
};

/** A pretty-printed JSON document (not JSONL, not an array): read whole, so damage anywhere refuses it. */
const isDocument = (text: string): boolean => /^\s*\{\s*\n/.test(text);

const tmp = tempDir('forkline-import-');
const store = new SqliteSessionStore(tmp.file('imports.db'));
let counter = 0;
const repo = new SessionRepository(store, { newId: () => `imported-${++counter}` });
afterAll(() => {
  store.close();
  tmp.dispose();
});

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

const FIXTURES = agentLogFixtures().filter((f) => !f.file.endsWith('.md'));

describe('agent-session-log fixtures import', () => {
  it('covers every fixture file', () => {
    expect(FIXTURES.map((f) => f.file).sort()).toEqual([...Object.keys(EXPECTED), ...Object.keys(REFUSED)].sort());
  });

  for (const { file, path } of FIXTURES.filter((f) => REFUSED[f.file] !== undefined)) {
    it(`${file} is refused, naming what it is, leaving nothing behind`, () => {
      const before = repo.list().length;
      const error = catchError(() => importText(repo, readFileSync(path, 'utf8'), file));
      expect(error).toBeInstanceOf(UnsupportedFormatError);
      expect((error as Error).message).toContain(REFUSED[file]);
      expect((error as Error).message).toContain('Forkline does not read that format');
      expect((error as Error).message).not.toMatch(/not JSON/);
      expect(repo.list()).toHaveLength(before);
    });
  }

  for (const { folder, file, path } of FIXTURES.filter((f) => EXPECTED[f.file] !== undefined)) {
    describe(file, () => {
      const text = readFileSync(path, 'utf8');
      const expected = EXPECTED[file]!;

      it('imports with the expected counts, pairs, a valid history and a passing invariant', () => {
        const summary = importText(repo, text, `/somewhere/${file}`);
        expect(summary.format).toBe(expected.format);
        expect(summary).toMatchObject({
          turns: expected.turns,
          userMessages: expected.user,
          assistantMessages: expected.assistant,
          toolCalls: expected.calls,
          toolResults: expected.results,
          unansweredCalls: expected.unanswered,
        });
        expect(formatImportSummary(summary).join('\n')).toContain(`${expected.calls === 1 ? '1 tool call' : `${expected.calls} tool calls`}`);

        const record = store.get(summary.sessionId)!;
        expect(record.header.origin).toMatchObject({ kind: 'imported', format: expected.format, file });
        const events = store.readAll(summary.sessionId);
        expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));

        // The same counts, straight from the stored events.
        const users = eventsOfType(events, 'user/message').filter((e) => e.data.source.kind !== 'compaction');
        expect(users).toHaveLength(expected.user);
        expect(eventsOfType(events, 'assistant/message')).toHaveLength(expected.assistant);
        expect(eventsOfType(events, 'tool/call')).toHaveLength(expected.calls);
        const results = eventsOfType(events, 'tool/result').filter((e) => e.surfaceOp === 'append');
        expect(results.filter((e) => !isSynthesized(e))).toHaveLength(expected.results);
        expect(results.filter(isSynthesized)).toHaveLength(expected.unanswered);

        // Calls and results counted from the source by its own rules agree.
        const pairs = sourcePairs(folder, sourceRecords(text));
        expect(pairs.calls).toHaveLength(expected.calls);
        expect(pairs.answered).toHaveLength(expected.results);

        // Every call the source answers is answered in the log: same turn and step, after the call.
        for (const id of pairs.answered.filter((a) => !a.startsWith(NO_ID))) {
          const call = eventsOfType(events, 'tool/call').find((e) => e.data.callId === id);
          const result = results.find((e) => e.data.message.content[0].toolCallId === id);
          expect(call, `tool/call ${id}`).toBeDefined();
          expect(result, `tool/result ${id}`).toBeDefined();
          expect(isSynthesized(result!)).toBe(false);
          expect(result!.seq).toBeGreaterThan(call!.seq);
          expect([result!.data.turn, result!.data.step]).toEqual([call!.data.turn, call!.data.step]);
          expect(result!.sourceEventSeqs).toEqual([call!.seq]);
        }

        // The invariant checker accepts every event; the derived history is valid for a provider.
        const checker = new InvariantChecker();
        for (const e of events) checker.accept(e);
        expect(checker.openTurn).toBeUndefined();
        const session = new Session({ header: record.header, seed: events, invariants: 'report' });
        expect(session.warnings).toEqual([]);
        const messages = session.deriveMessages();
        expect(messages.length).toBeGreaterThan(0);
        expect(historyProblems(messages)).toEqual([]);
        // Source times, never a clock of ours: no event is stamped at or after the import.
        expect(events.every((e) => e.time < Date.now() - 60_000)).toBe(true);
      });

      it('re-exports and re-imports identically', () => {
        const first = importText(repo, text, file);
        const exported = repo.exportJsonl(first.sessionId);
        const again = importText(repo, exported, 'exported.jsonl');
        expect(again.format).toBe('forkline');
        expect(again.sessionId).not.toBe(first.sessionId);
        expect(again.warnings.filter((w) => !/already exists/.test(w))).toEqual([]);
        expect(serializeAll(store.readAll(again.sessionId))).toEqual(serializeAll(store.readAll(first.sessionId)));
        expect(repo.exportJsonl(again.sessionId).split('\n').slice(1)).toEqual(exported.split('\n').slice(1));
      });

      it('imports a torn copy (cut mid-record) with a warning', () => {
        const body = text.trimEnd();
        const cut = body.slice(0, body.length - 7);
        const lastLine = cut.split('\n').length;
        if (isDocument(body)) {
          // A whole document has no records before its end: a cut one is refused as damaged.
          expect(catchError(() => importText(repo, cut, `torn-${file}`))).toMatchObject({ code: 'SESSION_CORRUPT', message: expect.stringContaining('the JSON document does not parse') });
          return;
        }
        const summary = importText(repo, cut, `torn-${file}`);
        expect(summary.warnings.join('\n')).toMatch(/torn|cut off/);
        if (!body.startsWith('[')) expect(summary.skipped).toContainEqual({ line: lastLine, reason: expect.stringContaining('torn last line') });
        const events = store.readAll(summary.sessionId);
        const checker = new InvariantChecker();
        for (const e of events) checker.accept(e);
        const session = new Session({ header: store.get(summary.sessionId)!.header, seed: events, invariants: 'report' });
        expect(historyProblems(session.deriveMessages())).toEqual([]);
      });

      it('refuses a damaged middle line with its number, leaving nothing behind', () => {
        const lines = text.split('\n');
        const before = repo.list().length;
        let target = Math.floor(lines.length / 2);
        if (isDocument(text)) {
          while (!/^\s+"[a-zA-Z_]+": /.test(lines[target]!)) target++;
          lines[target] = lines[target]!.replace('": ', '" ');
          const error = catchError(() => importText(repo, lines.join('\n'), `damaged-${file}`));
          expect(error).toBeInstanceOf(SessionCorruptionError);
          expect((error as SessionCorruptionError).line).toBe(1);
          expect((error as Error).message).toContain('the JSON document does not parse');
        } else if (text.trimStart().startsWith('[')) {
          // Pretty-printed array: damage a line inside an element; the error names the element's first line.
          while (!/^\s+"[a-z_]+": /.test(lines[target]!)) target++;
          lines[target] = lines[target]!.replace('": ', '" ');
          let start = target;
          while (!/^ {2}\{\s*$/.test(lines[start]!)) start--; // top-level elements are indented by two spaces
          const error = catchError(() => importText(repo, lines.join('\n'), `damaged-${file}`));
          expect(error).toBeInstanceOf(SessionCorruptionError);
          expect((error as SessionCorruptionError).line).toBe(start + 1);
          expect((error as Error).message).toContain(`line ${start + 1}`);
        } else {
          lines[target] = lines[target]!.slice(0, Math.max(1, Math.floor(lines[target]!.length / 2)));
          const error = catchError(() => importText(repo, lines.join('\n'), `damaged-${file}`));
          expect(error).toBeInstanceOf(SessionCorruptionError);
          expect((error as SessionCorruptionError).code).toBe('SESSION_CORRUPT');
          expect((error as SessionCorruptionError).line).toBe(target + 1);
          expect((error as Error).message).toContain(`line ${target + 1}`);
        }
        expect(repo.list()).toHaveLength(before);
      });
    });
  }
});
