/**
 * Issue 8 items 5 and 7 through the real CLI (child processes, the scripted model server):
 * grep on a FIFO returns at once; a catastrophic grep is stopped by Ctrl+C (the process exits
 * promptly instead of hanging); an approved `echo $DEEPSEEK_API_KEY` puts no key in the stored log.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textResponse, toolCallResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';
import { forkline as forklineRun, type ForklineRun } from '../../support/cli-process.js';
import { closeScriptedCli, openScriptedCli } from '../../support/scripted-cli.js';

const KEY = 'sk-cli-test-0123456789abcdefABCDEF';
let llm: ScriptedLlm;
let dataDir: string;
let work: string;

beforeAll(async () => {
  ({ llm, dataDir, work } = await openScriptedCli('forkline-tools-cli', {}));
});
afterAll(() => closeScriptedCli({ llm, dataDir, work }));

/** The CLI through the shared spawn helper (test/support/cli-process.ts). */
const forkline = (args: string[], env: Record<string, string> = {}, onStdout?: (text: string, pid: number) => void): Promise<ForklineRun> =>
  forklineRun(args, { dataDir, env, ...(onStdout ? { onStdout: (text: string, child: ChildProcess) => onStdout(text, child.pid!) } : {}) });
const model = () => ['--base-url', llm.baseUrl, '--model', 'scripted-model'];

describe('tools through the CLI', () => {
  it('grep on a FIFO returns at once with NOT_REGULAR_FILE', async () => {
    expect(spawnSync('mkfifo', [join(work, 'pipe')]).status).toBe(0);
    llm.enqueue(toolCallResponse([{ id: 'g1', name: 'grep', arguments: JSON.stringify({ pattern: 'x', path: 'pipe' }) }]), textResponse('that is a pipe'));
    const run = await forkline(['run', '--cwd', work, ...model(), '--approval', 'allow', 'search the pipe']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('NOT_REGULAR_FILE');
    expect(run.ms).toBeLessThan(30_000);
  });

  it('Ctrl+C stops a catastrophic grep and the process exits', async () => {
    writeFileSync(join(work, 'evil.txt'), `${'a'.repeat(31)}!\n`);
    llm.enqueue(toolCallResponse([{ id: 'g2', name: 'grep', arguments: JSON.stringify({ pattern: '^(a+)+$', path: 'evil.txt' }) }]));
    let signalled = false;
    const run = await forkline(['run', '--cwd', work, ...model(), '--approval', 'allow', 'search'], {}, (text, pid) => {
      if (!signalled && text.includes('grep')) {
        signalled = true;
        setTimeout(() => process.kill(pid, 'SIGINT'), 800);
      }
    });
    expect(signalled).toBe(true);
    expect(run.stdout).toContain('cancelling the turn');
    expect(run.stdout).toContain('← error ABORTED Error: The search was cancelled.');
    expect(run.stdout).toContain('Turn 1 ended: cancelled (user)');
    expect(run.code).toBe(1);
  });

  it('an approved `echo $DEEPSEEK_API_KEY` leaves no key in the stored log', async () => {
    llm.enqueue(toolCallResponse([{ id: 'b1', name: 'bash', arguments: JSON.stringify({ command: 'echo "key=[$DEEPSEEK_API_KEY]"' }) }]), textResponse('printed'));
    const run = await forkline(['run', '--cwd', work, ...model(), '--approval', 'allow', 'print the key'], { DEEPSEEK_API_KEY: KEY });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('key=[]');
    const id = /session ([0-9a-f-]{36})\s*$/.exec(run.stdout)![1]!;
    const exported = await forkline(['export', id]);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain('key=[]');
    expect(exported.stdout).not.toContain(KEY);
    expect(JSON.stringify(llm.requests.map((r) => r.body))).not.toContain(KEY);
  });
});
