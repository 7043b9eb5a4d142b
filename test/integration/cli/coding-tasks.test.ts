/**
 * End to end through `forkline run` (a real child process running the CLI): for every task in
 * test/fixtures/coding-tasks, copied into a temp git repo, a scripted model plays the steps a
 * coding agent takes — read the code, run the failing test, edit, run the test again — and the
 * tools really execute. The test then re-reads the files and runs the task's test itself: it fails
 * before and passes after. The stored session reloads with the invariants holding.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../shared/events.js';
import { Session } from '../../../electron/session/session.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { startScriptedLlm, textResponse, toolCallResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';
import { editsFromUnifiedDiff } from '../../support/unified-diff.js';
import { CODING_TASKS } from '../../support/fixtures.js';
import { forkline as forklineRun, type ForklineRun } from '../../support/cli-process.js';

const TASKS = CODING_TASKS;
const taskNames = readdirSync(TASKS).filter((n) => n.startsWith('humanevalfix-'));

let llm: ScriptedLlm;
let dataDir: string;

beforeAll(async () => {
  llm = await startScriptedLlm();
  dataDir = mkdtempSync(join(tmpdir(), 'forkline-cli-data-'));
});
afterAll(async () => {
  await llm.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Runs `node test.js` in `dir` (5 s cap: one buggy task loops forever). */
function runTaskTest(dir: string): number {
  const result = spawnSync('timeout', ['5', process.execPath, 'test.js'], { cwd: dir, encoding: 'utf8' });
  return result.status ?? -1;
}

/** The CLI through the shared spawn helper (test/support/cli-process.ts). */
const forkline = (args: string[]): Promise<ForklineRun> => forklineRun(args);

describe('forkline run fixes real bugs end to end', () => {
  for (const name of taskNames) {
    it(`fixes ${name}`, async () => {
      const work = mkdtempSync(join(tmpdir(), `forkline-${name}-`));
      mkdirSync(work, { recursive: true });
      for (const file of ['buggy.js', 'test.js', 'TASK.md']) copyFileSync(join(TASKS, name, file), join(work, file));
      execFileSync('git', ['init', '-q'], { cwd: work });
      execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', 'add', '.'], { cwd: work });
      execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'buggy'], { cwd: work });

      expect(runTaskTest(work)).not.toBe(0);

      const edits = editsFromUnifiedDiff(readFileSync(join(TASKS, name, 'fix.diff'), 'utf8'));
      expect(edits.length).toBeGreaterThan(0);
      const test = '{"command":"timeout 5 node test.js"}';
      llm.enqueue(
        toolCallResponse([{ id: 'read-1', name: 'read_file', arguments: JSON.stringify({ path: 'buggy.js' }) }], { text: 'Let me look at the code.' }),
        toolCallResponse([{ id: 'test-1', name: 'bash', arguments: test }]),
        toolCallResponse(edits.map((e, i) => ({ id: `edit-${i + 1}`, name: 'edit_file', arguments: JSON.stringify({ path: 'buggy.js', old_string: e.oldText, new_string: e.newText }) }))),
        toolCallResponse([{ id: 'test-2', name: 'bash', arguments: test }]),
        textResponse('Fixed buggy.js; node test.js now passes.'),
      );
      const run = await forkline([
        'run',
        '--cwd',
        work,
        '--base-url',
        llm.baseUrl,
        '--model',
        'scripted-model',
        '--approval',
        'allow',
        '--data-dir',
        dataDir,
        'Fix buggy.js so that node test.js passes.',
      ]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const sessionId = /session ([0-9a-f-]{36})\s*$/.exec(run.stdout)?.[1];
      expect(sessionId).toBeDefined();
      expect(run.stdout).toContain('→ bash timeout 5 node test.js');

      // The files really changed and the task's own test now passes.
      expect(readFileSync(join(work, 'test.js'), 'utf8')).toBe(readFileSync(join(TASKS, name, 'test.js'), 'utf8'));
      expect(runTaskTest(work)).toBe(0);
      const status = execFileSync('git', ['status', '--porcelain'], { cwd: work, encoding: 'utf8' });
      expect(status.trim()).toBe('M buggy.js');

      // The stored session reloads, its invariants hold, and the tool results tell the story.
      const store = new SqliteSessionStore(join(dataDir, 'sessions.db'));
      try {
        const events = store.readAll(sessionId!);
        const session = new Session({ header: store.get(sessionId!)!.header, seed: events });
        expect(session.warnings).toEqual([]);
        const results = events.filter((e): e is SessionEvent<'tool/result'> => e.type === 'tool/result');
        const byCall = new Map(results.map((r) => [r.data.message.content[0].toolCallId, r.data.message.content[0]]));
        expect(byCall.get('test-1')!.isError).toBe(true);
        expect(byCall.get('test-2')!.isError).toBe(false);
        expect(byCall.get('test-2')!.content[0]!.text).toContain('[exit code 0]');
        for (let i = 1; i <= edits.length; i++) expect(byCall.get(`edit-${i}`)!.isError).toBe(false);
        const end = events.filter((e) => e.type === 'turn/end').at(-1) as SessionEvent<'turn/end'>;
        expect(end.data.reason).toEqual({ kind: 'completed' });
      } finally {
        store.close();
      }
      rmSync(work, { recursive: true, force: true });
    });
  }
});
