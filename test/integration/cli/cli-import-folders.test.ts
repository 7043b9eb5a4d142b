/**
 * `forkline import` on the formats of issue 20 item 6, as a real child process of the bundled CLI:
 * a Gemini CLI JSON document and JSONL chat, a Cline task folder, a Roo Code task file and an
 * opencode storage folder in one call, each summarised; a folder of neither kind is named with
 * UNSUPPORTED_FORMAT (exit 2) while the others import; an imported task folder is continued by
 * `fork --cwd`, whose child shows the imported conversation.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES_DIR } from '../../support/fixtures.js';
import { AGENT_LOGS } from '../../support/import-fixtures.js';
import { forkline as forklineRun, type ForklineRun } from '../../support/cli-process.js';

const FOLDERS = join(FIXTURES_DIR, 'agent-session-folders');
let dataDir: string;
let work: string;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'forkline-cli-folders-'));
  work = mkdtempSync(join(tmpdir(), 'forkline-cli-folders-work-'));
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

/** The CLI through the shared spawn helper (test/support/cli-process.ts). */
const forkline = (args: string[]): Promise<ForklineRun> => forklineRun(args, { dataDir, env: { FORKLINE_CHECKPOINTS: 'off' } });

describe('forkline import on Gemini CLI chats and session folders', () => {
  it('imports documents, task folders and a storage folder in one call, names the folder it cannot read, and forks a task', async () => {
    const notASession = join(work, 'holiday-photos');
    mkdirSync(notASession);
    const r = await forkline([
      'import',
      join(AGENT_LOGS, 'gemini-cli', 'agentsessions_gemini_small.json'),
      join(AGENT_LOGS, 'gemini-cli', 'agentsessions_gemini_jsonl_v040.jsonl'),
      join(FOLDERS, 'cline', '1767225600000'),
      notASession,
      join(FOLDERS, 'roo-code', '1767312000000', 'api_conversation_history.json'),
      join(FOLDERS, 'opencode'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${notASession} is a folder, but not a Cline / Roo Code task folder`);
    expect(r.stderr).toContain('[UNSUPPORTED_FORMAT]');
    expect(r.stdout).toContain('Gemini CLI chat json → 1 turn, 0 tool calls from agentsessions_gemini_small.json');
    expect(r.stdout).toContain('Gemini CLI chat jsonl → 1 turn, 1 tool call from agentsessions_gemini_jsonl_v040.jsonl');
    expect(r.stdout).toContain('Cline / Roo Code task → 1 turn, 4 tool calls from 1767225600000');
    expect(r.stdout).toContain('1 turn · 4 steps · 2 user messages · 4 assistant messages · 4 tool calls / 3 results');
    expect(r.stdout).toContain('1 call had no result in the log (closed as outcome unknown)');
    expect(r.stdout).toContain('Cline / Roo Code task → 2 turns, 0 tool calls from 1767312000000');
    expect(r.stdout).toContain('opencode session 0.15.8 → 2 turns, 3 tool calls from ses_4b2f0c1d7ffeQ8wH2kLmN3pR5s.json');
    expect(r.stdout).toContain('tokens: 50 in, 215 out, 26,900 cached, 1,500 cache-written, 12 reasoning');
    expect(r.stdout.match(/^session \S+/gm)).toHaveLength(5);
    const ls = await forkline(['ls']);
    expect(ls.stdout.trim().split('\n')).toHaveLength(5);

    // The task is continued by a fork into a folder of ours; the child shows the imported conversation.
    const fork = await forkline(['fork', '1767225600000', '--cwd', work]);
    expect(fork.stderr).not.toContain('error');
    expect(fork.code).toBe(0);
    const childId = fork.stdout.trim();
    const show = await forkline(['show', childId]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('forked from 1767225600000');
    expect(show.stdout).toContain('How many Python files are in this folder?');
    expect(show.stdout).toContain('execute_command');
  });
});
