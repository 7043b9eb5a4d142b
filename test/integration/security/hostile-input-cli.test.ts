/**
 * Issue 8 through the real CLI (child processes, real SQLite, real git, the real `openai` client
 * against scripted servers on 127.0.0.1): a shared session file is untrusted input, and so is the
 * model's text. Each test is one item of the issue with the inputs it describes:
 * 1. an imported log cannot steer `resume` to its own endpoint or folder; a key goes only to the
 *    endpoint configured for it;
 * 2. checkpoint ids from a file never reach git (a PATH shim records every git argv);
 * 3. the terminal shows control characters instead of obeying them (show, ls, compare, import,
 *    and the approval prompt in a real pseudo-terminal);
 * 4. a seq gap cannot exhaust memory;
 * 6. the UI's approval setting does not become the CLI's default; `help` says what is in force;
 * and the data folder / sessions.db are user-only, a corrupt sessions.db is reported and kept.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as pty from 'node-pty';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime } from '../../../electron/host/runtime.js';
import { startBrowserServer } from '../../../electron/host/transport/ws-server.js';
import { hostileLog, writeLog } from '../../support/hostile-logs.js';
import { startScriptedLlm, textResponse, toolCallResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';
import { WsHostClient } from '../../support/ws-host-client.js';
import { forkline as forklineRun, type ForklineRun } from '../../support/cli-process.js';

const ROOT = join(import.meta.dirname, '../../..');
const CLI = join(ROOT, 'bin/forkline.js');
let base: string;
let dataDir: string;
let work: string;
let victim: string;
let shimDir: string;
let gitLog: string;
let attacker: ScriptedLlm;
let good: ScriptedLlm;

beforeAll(async () => {
  attacker = await startScriptedLlm();
  good = await startScriptedLlm();
  base = mkdtempSync(join(tmpdir(), 'forkline-sec-cli-'));
  dataDir = join(base, 'data');
  work = join(base, 'work');
  victim = join(base, 'victim');
  mkdirSync(work);
  mkdirSync(victim);
  writeFileSync(join(work, 'secret.txt'), 'work copy\n');
  writeFileSync(join(victim, 'secret.txt'), 'victim secret\n');
  // A git on PATH that records every argv (fields split by \x1f, calls by \x1e) and runs the real one.
  shimDir = join(base, 'shim');
  gitLog = join(base, 'git-argv.log');
  mkdirSync(shimDir);
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  writeFileSync(join(shimDir, 'git'), `#!/bin/sh\nfor a in "$@"; do printf '%s\\037' "$a" >> '${gitLog}'; done\nprintf '\\036' >> '${gitLog}'\nexec '${realGit}' "$@"\n`, { mode: 0o755 });
});
afterAll(async () => {
  await attacker.close();
  await good.close();
  rmSync(base, { recursive: true, force: true });
});

/** The CLI through the shared spawn helper (test/support/cli-process.ts), with the git shim first on PATH. */
const forkline = (args: string[], env: Record<string, string> = {}, data = dataDir): Promise<ForklineRun> =>
  forklineRun(args, { dataDir: data, env: { OPENROUTER_API_KEY: '', PATH: `${shimDir}:${process.env['PATH']}`, ...env } });

async function importLog(name: string, text: string, data = dataDir): Promise<string> {
  const result = await forkline(['import', writeLog(join(base, 'logs'), name, text)], {}, data);
  expect(result.stderr).not.toMatch(/unexpected error/);
  expect(result.code).toBe(0);
  return importedId(result.stdout);
}

/** The session id from `forkline import`'s summary (`session ID — title`). */
function importedId(stdout: string): string {
  const match = /^session (\S+)/m.exec(stdout);
  expect(match, stdout).not.toBeNull();
  return match![1]!;
}

/** Every git argv the shim recorded so far. */
function gitCalls(): string[][] {
  if (!existsSync(gitLog)) return [];
  return readFileSync(gitLog, 'utf8')
    .split('\x1e')
    .filter((call) => call !== '')
    .map((call) => call.split('\x1f').slice(0, -1));
}

const noStackTrace = (text: string) => expect(text).not.toMatch(/\n\s+at .+:\d+/);

describe('issue 8 through the real CLI', { timeout: 120_000 }, () => {
  it('1. resume of an imported log uses neither the endpoint nor the folder the file names', async () => {
    const id = await importLog('steer.jsonl', hostileLog({ id: 'steer-1', cwd: victim, baseUrl: attacker.baseUrl, provider: 'deepseek' }));
    const key = { DEEPSEEK_API_KEY: 'sk-victim-key-123' };

    const refused = await forkline(['resume', id, 'please continue'], key);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('was imported from a file');
    expect(refused.stderr).toContain('--cwd DIR');
    noStackTrace(refused.stderr);

    // With a folder named here and the endpoint the user configures, the work happens there.
    good.enqueue(toolCallResponse([{ id: 'r1', name: 'read_file', arguments: JSON.stringify({ path: 'secret.txt' }) }]), textResponse('read it'));
    const before = good.requests.length;
    const resumed = await forkline(['resume', id, '--cwd', work, '--provider', 'deepseek', '--base-url', good.baseUrl, 'please continue'], key);
    expect(resumed.stderr).toContain(`continuing imported session ${id} as new session`);
    expect(resumed.code).toBe(0);
    expect(good.requests.length - before).toBe(2);
    expect(good.requests.at(-1)!.headers['authorization']).toBe('Bearer sk-victim-key-123');
    expect(resumed.stdout).toContain('work copy');
    expect(resumed.stdout).not.toContain('victim secret');
    expect(attacker.requests).toHaveLength(0);
    // The imported log stays as it was read.
    const shown = await forkline(['show', id]);
    expect(shown.stdout).not.toContain('please continue');
    expect(shown.stdout).toContain('imported from steer.jsonl');
  });

  it("1. a key is only sent to its configured endpoint, also when a native session's route names another", async () => {
    const key = { DEEPSEEK_API_KEY: 'sk-route-key' };
    good.enqueue(textResponse('first answer'));
    const run = await forkline(['run', '--cwd', work, '--provider', 'deepseek', '--base-url', good.baseUrl, '--approval', 'deny', 'hello'], key);
    expect(run.code).toBe(0);
    const id = /session ([0-9a-f-]{36})\s*$/.exec(run.stdout)![1]!;
    const count = good.requests.length;

    // No flags: the session's route names good.baseUrl for DeepSeek, which the key is not configured for now.
    const refused = await forkline(['resume', id, 'again'], key);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('key (DEEPSEEK_API_KEY) is only sent to https://api.deepseek.com');
    expect(refused.stderr).toContain(`--base-url ${good.baseUrl}`);
    expect(good.requests.length).toBe(count);

    good.enqueue(textResponse('second answer'));
    const named = await forkline(['resume', id, '--provider', 'deepseek', '--base-url', good.baseUrl, 'again'], key);
    expect(named.code).toBe(0);
    expect(good.requests.at(-1)!.headers['authorization']).toBe('Bearer sk-route-key');
  });

  it('2. checkpoint ids from a file never reach git: compare and fork --worktree keep victim files intact', async () => {
    const target = join(victim, 'victim.txt');
    const indexTarget = join(victim, 'x');
    writeFileSync(target, 'precious bytes\n');
    writeFileSync(indexTarget, 'precious index\n');
    const a = await importLog('ckpt-a.jsonl', hostileLog({ id: 'ckpt-a', cwd: victim, commit: `--output=${target}` }));
    const b = await importLog('ckpt-b.jsonl', hostileLog({ id: 'ckpt-b', cwd: victim, commit: `--index-output=${indexTarget}` }));
    const callsBefore = gitCalls().length;

    const compare = await forkline(['compare', a, b]);
    expect(compare.code).toBe(0);
    expect(compare.stdout).toContain('a branch has no workspace checkpoint');
    // An imported log is continued only in a folder named here; --worktree alone is refused before git runs.
    const worktree = await forkline(['fork', b, '--worktree']);
    expect(worktree.code).toBe(2);
    expect(worktree.stderr).toContain('--cwd DIR');
    noStackTrace(worktree.stderr);
    // A native fork of the imported log inherits its prefix, but not the right to use its checkpoints.
    const child = await forkline(['fork', b, '--cwd', work]);
    expect(child.code).toBe(0);
    const childId = child.stdout.trim();
    expect((await forkline(['fork', childId, '--worktree'])).stderr).toContain('WORKTREE_UNAVAILABLE');
    expect((await forkline(['compare', childId, a])).code).toBe(0);

    expect(readFileSync(target, 'utf8')).toBe('precious bytes\n');
    expect(readFileSync(indexTarget, 'utf8')).toBe('precious index\n');
    const calls = gitCalls().slice(callsBefore);
    for (const argv of calls) for (const arg of argv) expect(arg).not.toMatch(/--output|--index-output|victim/);
  });

  it('2. git gets validated ids after --end-of-options for the checkpoints this installation records', async () => {
    const project = join(base, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'a.txt'), 'one\n');
    good.enqueue(toolCallResponse([{ id: 'w1', name: 'write_file', arguments: JSON.stringify({ path: 'a.txt', content: 'two\n' }) }]), textResponse('changed'));
    const run = await forkline(['run', '--cwd', project, '--base-url', good.baseUrl, '--model', 'm', '--approval', 'allow', 'change a.txt']);
    expect(run.code).toBe(0);
    const id = /session ([0-9a-f-]{36})\s*$/.exec(run.stdout)![1]!;
    const callsBefore = gitCalls().length;
    const fork = await forkline(['fork', id, '--worktree']);
    expect(fork.code).toBe(0);
    const compare = await forkline(['compare', id, fork.stdout.trim()]);
    expect(compare.code).toBe(0);
    const calls = gitCalls().slice(callsBefore);
    const withIds = calls.filter((argv) => (argv.some((arg) => /^[0-9a-f]{40}$/.test(arg)) && argv.includes('diff')) || argv.includes('read-tree'));
    expect(withIds.length).toBeGreaterThanOrEqual(2);
    for (const argv of withIds) {
      const marker = argv.indexOf('--end-of-options');
      expect(marker, argv.join(' ')).toBeGreaterThan(-1);
      for (const arg of argv.slice(marker + 1)) expect(arg).toMatch(/^[0-9a-f]{40}$/);
    }
  });

  it('3. show, ls, compare and import print control characters visibly, never raw', async () => {
    const evil = '\r\x1b[2K\x1b]0;pwned-title\x07? Allow bash `ls -la` (runs a command)? [y/N] \x1b[8m\x9b31m\u202e';
    const text = hostileLog({
      id: 'bad\x1b[2Kid',
      cwd: `${victim}${evil}`,
      title: `title${evil}`,
      prompt: `prompt${evil}`,
      answer: `answer${evil}\nsecond line`,
      toolCall: { name: `bash${evil}`, arguments: JSON.stringify({ command: `ls${evil}` }), result: `output${evil}` },
    });
    const imported = await forkline(['import', writeLog(join(base, 'logs'), 'escapes.jsonl', text)]);
    expect(imported.code).toBe(0);
    const id = importedId(imported.stdout);
    const outputs = [imported.stderr, (await forkline(['show', id])).stdout, (await forkline(['ls'])).stdout, (await forkline(['compare', id, id])).stdout];
    for (const out of outputs) {
      // eslint-disable-next-line no-control-regex -- looking for raw control characters
      expect(out).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/);
    }
    const show = outputs[1]!;
    expect(show).toContain('\\r\\x1b[2K\\x1b]0;pwned-title\\x07? Allow bash');
    expect(show).toContain('\\x1b[8m\\x9b31m\\u202e');
    expect(show).toContain('answer');
    expect(show).toContain('second line');
    expect(outputs[2]).toContain('title\\r\\x1b[2K');
  });

  it('3. the approval prompt in a real terminal shows the exact command, escapes and all; n runs nothing', async () => {
    const command = 'touch pwned\r\x1b[2K? Allow bash `ls -la` (runs a command)? [y/N] \x1b[8m';
    good.enqueue(toolCallResponse([{ id: 'b1', name: 'bash', arguments: JSON.stringify({ command }) }]), textResponse('ok'));
    const term = pty.spawn(process.execPath, [CLI, 'run', '--cwd', work, '--base-url', good.baseUrl, '--model', 'm', 'list the files', '--data-dir', dataDir], {
      cwd: ROOT,
      cols: 200,
      rows: 50,
      env: { ...process.env, NO_COLOR: '1', DEEPSEEK_API_KEY: '' } as Record<string, string>,
    });
    let output = '';
    let answered = false;
    const exitCode = await new Promise<number>((resolve) => {
      term.onData((data) => {
        output += data;
        if (!answered && output.includes('[N]o ')) {
          answered = true;
          term.write('n\r');
        }
      });
      term.onExit(({ exitCode: code }) => resolve(code));
    });
    expect(answered).toBe(true);
    expect(exitCode).toBe(0);
    expect(output).toContain('$ touch pwned\\r\\x1b[2K? Allow bash `ls -la` (runs a command)? [y/N] \\x1b[8m');
    expect(output).toContain(`in ${work}`);
    expect(output).toContain('this holds invisible or control characters');
    // NO_COLOR: not one escape byte reached the terminal, and no bare carriage return.
    expect(output).not.toContain('\x1b');
    expect(output.replace(/\r\n/g, '\n')).not.toContain('\r');
    expect(existsSync(join(work, 'pwned'))).toBe(false);
  });

  it('4. a 737-byte file whose last seq is 100,000,000 is refused before any allocation', async () => {
    const header = JSON.stringify({ type: 'session', version: 0, id: 'gap-bomb', createdAt: 1, cwd: '/tmp' });
    const lines = [
      header,
      JSON.stringify({ type: 'turn/start', seq: 0, time: 1, data: { turn: 1 } }),
      JSON.stringify({ type: 'turn/end', seq: 100_000_000, time: 2, data: { turn: 1, reason: { kind: 'completed' } } }),
    ];
    let text = lines.join('\n') + '\n';
    text = text.replace('"cwd":"/tmp"', `"cwd":"/tmp","title":"${'x'.repeat(737 - text.length - 11)}"`);
    expect(Buffer.byteLength(text)).toBe(737);
    const before = (await forkline(['ls'])).stdout;
    const started = Date.now();
    const result = await forkline(['import', writeLog(join(base, 'logs'), 'gap.jsonl', text)], { NODE_OPTIONS: '--max-old-space-size=192' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('[IMPORT_LIMIT_EXCEEDED]');
    expect(result.stderr).toContain('seq 100000000');
    noStackTrace(result.stderr);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect((await forkline(['ls'])).stdout).toBe(before);
  });

  it('6. the approval setting of the UI does not become the CLI default; help says what is in force', async () => {
    const cliData = join(base, 'scopes');
    const project = join(base, 'scoped');
    mkdirSync(project);
    // The user picks "allow" in browser mode (the real WebSocket host on this data folder).
    const runtime = createRuntime({ dataDir: cliData, env: {} });
    const staticDir = join(base, 'static');
    mkdirSync(staticDir, { recursive: true });
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html>');
    const server = await startBrowserServer({ host: runtime.host, staticDir });
    const client = await WsHostClient.connect(server.port, server.token);
    await client.call('updateSettings', { approvalPolicy: 'allow' });
    client.close();
    await server.close();
    await runtime.close();
    expect(JSON.parse(readFileSync(join(cliData, 'settings.json'), 'utf8')).approvalPolicy).toBe('allow');

    const help = await forkline(['help'], {}, cliData);
    expect(help.stdout).toContain(`Approval policy in force for run and resume: ask, from the default (no --approval flag, no approvalPolicy in ${join(cliData, 'cli.json')})`);
    good.enqueue(toolCallResponse([{ id: 'w', name: 'write_file', arguments: JSON.stringify({ path: 'out.txt', content: 'x' }) }]), textResponse('tried'));
    const run = await forkline(['run', '--cwd', project, '--base-url', good.baseUrl, '--model', 'm', 'write out.txt'], {}, cliData);
    expect(run.stdout).toContain('needs approval, but there is no terminal');
    expect(existsSync(join(project, 'out.txt'))).toBe(false);

    // A CLI config says otherwise: then (and only then) the CLI allows.
    writeFileSync(join(cliData, 'cli.json'), JSON.stringify({ approvalPolicy: 'allow' }));
    expect((await forkline(['help'], {}, cliData)).stdout).toContain(`Approval policy in force for run and resume: allow, from approvalPolicy in ${join(cliData, 'cli.json')}`);
    good.enqueue(toolCallResponse([{ id: 'w2', name: 'write_file', arguments: JSON.stringify({ path: 'out.txt', content: 'x' }) }]), textResponse('wrote'));
    const allowed = await forkline(['run', '--cwd', project, '--base-url', good.baseUrl, '--model', 'm', 'write out.txt'], {}, cliData);
    expect(allowed.code).toBe(0);
    expect(readFileSync(join(project, 'out.txt'), 'utf8')).toBe('x');
    expect((await forkline(['help', '--approval', 'deny'], {}, cliData)).stdout).toContain('deny, from the --approval flag');
    writeFileSync(join(cliData, 'cli.json'), '{"approvalPolicy": "yes"}');
    expect((await forkline(['help'], {}, cliData)).stdout).toMatch(/: ask, from the default \(.*cli\.json is ignored: its approvalPolicy must be/);
  });

  it('the data folder and sessions.db are made user-only even when they already exist', async () => {
    const dir = join(base, 'loose');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'sessions.db'), '', { mode: 0o644 });
    chmodSync(join(dir, 'sessions.db'), 0o644);
    expect((await forkline(['ls'], {}, dir)).code).toBe(0);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'sessions.db')).mode & 0o777).toBe(0o600);
    const fresh = join(base, 'fresh', 'nested');
    expect((await forkline(['ls'], {}, fresh)).code).toBe(0);
    expect(statSync(fresh).mode & 0o777).toBe(0o700);
    for (const name of ['sessions.db', 'sessions.db-wal', 'sessions.db-shm']) {
      if (existsSync(join(fresh, name))) expect(statSync(join(fresh, name)).mode & 0o777, name).toBe(0o600);
    }
  });

  it('a corrupt or foreign sessions.db gets a clear message and keeps every byte', async () => {
    const cases = [randomBytes(8192), Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), randomBytes(8176)])];
    for (const [i, bytes] of cases.entries()) {
      const dir = join(base, `corrupt-${i}`);
      mkdirSync(dir);
      writeFileSync(join(dir, 'sessions.db'), bytes);
      for (const command of [['ls'], ['import', join(base, 'logs', 'steer.jsonl')]]) {
        const result = await forkline(command, {}, dir);
        expect(result.code, result.stderr).toBe(1);
        expect(result.stderr).toMatch(/sessions\.db (is not an SQLite database|is damaged)/);
        expect(result.stderr).toContain('[STORE_UNREADABLE]');
        noStackTrace(result.stderr);
        expect(readFileSync(join(dir, 'sessions.db')).equals(bytes)).toBe(true);
      }
    }
  });

  it('import refuses what is not a regular file (a FIFO would block forever)', async () => {
    const fifo = join(base, 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
    const result = await forkline(['import', fifo]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is not a regular file');
  });
});
