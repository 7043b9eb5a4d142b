/**
 * The CLI against the scripted server in strict thinking mode (it refuses what DeepSeek refuses),
 * shared by the files that continue imported and native sessions on it
 * (test/integration/cli/cli-continue-*.test.ts): one server and data folder per file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/events.js';
import { SqliteSessionStore } from '../../electron/store/sqlite-session-store.js';
import { agentLogFixtures, sourcePairs, sourceRecords } from './import-fixtures.js';
import { textResponse, type ScriptedLlm } from './scripted-llm/index.js';
import { strictThinkingViolations } from './scripted-llm/strict-thinking.js';
import { forkline as forklineRun, type ForklineRun } from './cli-process.js';
import { closeScriptedCli, openScriptedCli } from './scripted-cli.js';

/** The formats we import whose fixtures hold tool calls. */
export const FORMATS_WITH_TOOL_CALLS = ['claude-code', 'codex', 'openhands', 'deepseek-harness'] as const;

/** Every importable fixture with tool calls, of the given formats. */
export function fixturesWithToolCalls(formats: readonly string[] = FORMATS_WITH_TOOL_CALLS): ReturnType<typeof agentLogFixtures> {
  const wanted = new Set(formats);
  return agentLogFixtures().filter((f) => wanted.has(f.folder) && sourcePairs(f.folder, sourceRecords(readFileSync(f.path, 'utf8'))).calls.length > 0);
}

/** What a test file gets from {@link thinkingCli}: valid inside its tests (set up in beforeAll). */
export interface ThinkingCli {
  readonly llm: ScriptedLlm;
  readonly dataDir: string;
  readonly work: string;
  /** The CLI through the shared spawn helper, on this file's data folder (checkpoints off). */
  forkline(args: string[]): Promise<ForklineRun>;
  /** A stored session's events. */
  readLog(id: string): SessionEvent[];
  /** The rejections since request number `before`, as the server's error messages. */
  rejectionsSince(before: number): string[];
}

/** Registers this file's beforeAll/afterAll: a strict thinking server and a data folder. */
export function thinkingCli(prefix: string): ThinkingCli {
  let llm: ScriptedLlm | undefined;
  let dataDir = '';
  let work = '';
  beforeAll(async () => {
    ({ llm, dataDir, work } = await openScriptedCli(prefix, { llm: { strictThinking: true } }));
  });
  afterAll(() => closeScriptedCli({ llm: llm!, dataDir, work }));
  const cli: ThinkingCli = {
    get llm() {
      return llm!;
    },
    get dataDir() {
      return dataDir;
    },
    get work() {
      return work;
    },
    forkline: (args) => forklineRun(args, { dataDir, env: { FORKLINE_CHECKPOINTS: 'off' } }),
    readLog(id) {
      const store = new SqliteSessionStore(join(dataDir, 'sessions.db'));
      try {
        return store.readAll(id);
      } finally {
        store.close();
      }
    },
    rejectionsSince: (before) => llm!.rejected.filter((r) => r.request.number > before).map((r) => (r.step.type === 'http-error' ? JSON.stringify(r.step.body) : r.step.type)),
  };
  return cli;
}

/**
 * One test per fixture of `formats`: imported, forked into a folder and resumed on the strict
 * endpoint (`resume CHILD --base-url URL --model M "continue"`), its turn completes with no
 * rejection at all, and so does a follow-up.
 */
export function continueEveryFixture(cli: ThinkingCli, formats: readonly string[]): void {
  const fixtures = fixturesWithToolCalls(formats);
  it('has fixtures of every format it covers', () => {
    expect(new Set(fixtures.map((f) => f.folder))).toEqual(new Set(formats));
  });
  it.each(fixtures.map((f) => [f.file, f] as const))('import, fork --cwd, resume --base-url: %s continues with no 400 left', async (_name, fixture) => {
    const imported = await cli.forkline(['import', fixture.path]);
    expect(imported.code, imported.stderr).toBe(0);
    const id = /^session (\S+)/m.exec(imported.stdout)![1]!;
    const fork = await cli.forkline(['fork', id, '--cwd', cli.work]);
    if (fork.stderr.includes('MODEL_VIEW_INCOMPLETE')) {
      // A log whose model saw something we cannot replay (a sub-agent's sidechain) is not continuable at all (issue 12).
      expect(fork.code).not.toBe(0);
      return;
    }
    expect(fork.code, fork.stderr).toBe(0);
    const child = fork.stdout.trim();

    cli.llm.setHandler(() => textResponse('Continuing from where the log stopped.'));
    const before = cli.llm.requests.length;
    const resume = await cli.forkline(['resume', child, '--base-url', cli.llm.baseUrl, '--model', 'thinking-model', 'continue']);
    cli.llm.setHandler(undefined);
    expect(resume.stderr).toBe('');
    expect(resume.code).toBe(0);
    expect(resume.stdout).toMatch(/Turn \d+ ended: completed/);

    const requests = cli.llm.requests.slice(before);
    // A custom endpoint gets reasoning_content on every tool-call message by default and results in
    // call order: the thinking endpoint refuses nothing, so nothing needs correcting.
    expect(cli.rejectionsSince(before)).toEqual([]);
    expect(requests).toHaveLength(1);
    expect(strictThinkingViolations(requests[0]!.body)).toEqual([]);
    const warnings = cli.readLog(child).filter((e): e is SessionEvent<'llm/warning'> => e.type === 'llm/warning' && e.data.code === 'HISTORY_CORRECTED');
    expect(warnings).toEqual([]);

    // A follow-up on the same endpoint starts from what the log learned: no rejection at all.
    cli.llm.setHandler(() => textResponse('Still here.'));
    const again = cli.llm.requests.length;
    const next = await cli.forkline(['resume', child, '--base-url', cli.llm.baseUrl, '--model', 'thinking-model', 'and then?']);
    cli.llm.setHandler(undefined);
    expect(next.code, next.stderr).toBe(0);
    expect(cli.rejectionsSince(again)).toEqual([]);
  });
}
