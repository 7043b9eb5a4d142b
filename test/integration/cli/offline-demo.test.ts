/**
 * The README's offline demo, as written, twice in a row (issue 15): its copy command (read from the
 * README, pointed at a temp folder) must give a fresh, buggy copy each time — `cp -r` into an
 * existing folder would nest the second copy inside the first and run on already-fixed files — and
 * the scripted server (`npm run scripted-llm`'s entry, one process for everything) must give each
 * session the replies of its own position: both runs fix the bug, a `resume` gets the script's
 * turn-2 answer, and so does a fork of the first session resumed after the second run.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forklineSync } from '../../support/cli-process.js';

const ROOT = join(import.meta.dirname, '../../..');
let dir: string;
let server: ChildProcess;
let baseUrl: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'forkline-demo-'));
  server = spawn(process.execPath, ['scripts/scripted-llm.js', '--script', 'examples/fix-sum.script.json', '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
  baseUrl = await new Promise<string>((resolve, reject) => {
    createInterface({ input: server.stdout! }).once('line', resolve);
    server.once('exit', (code) => reject(new Error(`scripted-llm exited (${code})`)));
  });
}, 30_000);
afterAll(() => {
  server?.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

/** The CLI through the shared spawn helper (test/support/cli-process.ts). */
const forkline = (args: string[]): { code: number; stdout: string; stderr: string } => forklineSync(args, { dataDir: join(dir, 'data') });

/** The README demo's copy line, with /tmp/fix-sum replaced by `target`. */
function readmeCopyCommand(target: string): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = readme.slice(readme.indexOf('### Try it offline with the scripted model'));
  const line = block.split('\n').find((l) => l.includes('cp -r examples/fix-sum'))!;
  const command = line.replace(/\s+#.*$/, '');
  expect(command).toContain('/tmp/fix-sum');
  return command.replaceAll('/tmp/fix-sum', target);
}

describe('the README offline demo', () => {
  it('works twice as written; resume and a fork get the replies of their own position', () => {
    const target = join(dir, 'fix-sum');
    const testPasses = () => spawnSync(process.execPath, ['test.js'], { cwd: target }).status === 0;
    const ids: string[] = [];
    for (let round = 1; round <= 2; round++) {
      execFileSync('bash', ['-c', readmeCopyCommand(target)], { cwd: ROOT });
      expect(existsSync(join(target, 'fix-sum')), 'the copy must not nest').toBe(false);
      expect(testPasses(), `round ${round} starts from the bug`).toBe(false);
      const run = forkline(['run', '--cwd', target, '--base-url', baseUrl, '--model', 'scripted-model', '--approval', 'allow', 'sum([]) returns undefined; make it return 0']);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('→ edit_file sum.js');
      expect(run.stdout).toContain('Fixed: `sum` now starts its total at 0');
      expect(testPasses(), `round ${round} fixes it`).toBe(true);
      ids.push(/session ([0-9a-f-]{36})\s*$/.exec(run.stdout)![1]!);
    }

    const resume = forkline(['resume', ids[1]!, 'what did you change?']);
    expect(resume.code).toBe(0);
    expect(resume.stdout).toContain('━━ Turn 2 ━━');
    expect(resume.stdout).toContain('I changed one line in `sum.js`');

    const fork = forkline(['fork', ids[0]!]);
    expect(fork.code).toBe(0);
    const child = fork.stdout.trim();
    const forked = forkline(['resume', child.slice(0, 8), 'what did you change?']);
    expect(forked.code).toBe(0);
    expect(forked.stdout).toContain('I changed one line in `sum.js`');
  }, 180_000);
});
