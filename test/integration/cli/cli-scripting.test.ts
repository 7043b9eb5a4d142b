/**
 * The CLI as scripts use it (real child processes of the bundled CLI): `ls --json` and `show --json`
 * (the timeline's rows), session ids as any unique prefix (an ambiguous one lists the candidates),
 * unknown options and commands with a suggestion, and exit code 2 for every usage or input error —
 * no arguments, a `--cwd` that is a file, a file that is not a session, an export into a missing
 * folder, an MCP configuration that is missing or malformed — always as a message, never a stack
 * trace. Also: MCP server states printed during `run`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TimelineRow } from '../../../shared/timeline.js';
import { SessionRepository } from '../../../electron/store/session-repository.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { startScriptedLlm, textResponse, toolCallResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';
import { forkline as forklineRun, type ForklineRun } from '../../support/cli-process.js';

const ROOT = join(import.meta.dirname, '../../..');
const SERVER = join(ROOT, 'test/support/mcp/test-mcp-server.mjs');
let llm: ScriptedLlm;
let dir: string;
let dataDir: string;
let work: string;
let sessionId: string;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The CLI through the shared spawn helper (test/support/cli-process.ts). */
const forkline = (args: string[], options: { dataDir?: string } = {}): Promise<ForklineRun> => forklineRun(args, { dataDir: options.dataDir ?? dataDir });

const noStack = (r: Run) => expect(r.stderr).not.toMatch(/\n\s+at /);

beforeAll(async () => {
  llm = await startScriptedLlm();
  dir = mkdtempSync(join(tmpdir(), 'forkline-cli-script-'));
  dataDir = join(dir, 'data');
  work = join(dir, 'ws');
  mkdirSync(work);
  writeFileSync(join(work, 'a.txt'), 'alpha\n');
  llm.enqueue(toolCallResponse([{ id: 'r1', name: 'read_file', arguments: '{"path":"a.txt"}' }]), textResponse('It says alpha.'));
  const run = await forkline(['run', '--cwd', work, '--base-url', llm.baseUrl, '--model', 'scripted-model', 'what is in a.txt?']);
  expect(run.code).toBe(0);
  sessionId = /session ([0-9a-f-]{36})\s*$/.exec(run.stdout)![1]!;
}, 60_000);
afterAll(async () => {
  await llm.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('JSON output', () => {
  it('ls --json lists sessions as objects', async () => {
    const ls = await forkline(['ls', '--json']);
    expect(ls.code).toBe(0);
    expect(ls.stderr).toBe('');
    const list = JSON.parse(ls.stdout) as { id: string; cwd: string; eventCount: number; createdAt: number; updatedAt: number }[];
    const entry = list.find((s) => s.id === sessionId)!;
    expect(entry.cwd).toBe(work);
    expect(entry.eventCount).toBeGreaterThan(10);
    expect(entry.updatedAt).toBeGreaterThanOrEqual(entry.createdAt);
    const empty = await forkline(['ls', '--json'], { dataDir: join(dir, 'empty-data') });
    expect(JSON.parse(empty.stdout)).toEqual([]);
  });

  it('show --json gives the session and the timeline rows as the app has them', async () => {
    const show = await forkline(['show', sessionId.slice(0, 6), '--json']);
    expect(show.code).toBe(0);
    const doc = JSON.parse(show.stdout) as { session: { id: string }; repaired: number; rows: TimelineRow[] };
    expect(doc.session.id).toBe(sessionId);
    expect(doc.repaired).toBe(0);
    const kinds = doc.rows.map((r) => r.kind);
    expect(kinds).toEqual(expect.arrayContaining(['turn', 'step', 'user', 'tool', 'text', 'turn-end']));
    const tool = doc.rows.find((r): r is Extract<TimelineRow, { kind: 'tool' }> => r.kind === 'tool')!;
    expect(tool).toMatchObject({ name: 'read_file', callId: 'r1', state: 'done', isError: false });
    expect(tool.resultText).toContain('alpha');
    const user = doc.rows.find((r): r is Extract<TimelineRow, { kind: 'user' }> => r.kind === 'user')!;
    expect(user.text).toBe('what is in a.txt?');
    expect(doc.rows.find((r) => r.kind === 'turn-end')).toMatchObject({ turn: 1, label: 'completed' });
  });
});

describe('session ids', () => {
  it('any unique prefix works, of any length; an ambiguous one lists the candidates', async () => {
    const other = join(dir, 'prefix-data');
    const store = new SqliteSessionStore(join((mkdirSync(other, { recursive: true }), other), 'sessions.db'));
    const repo = new SessionRepository(store, { newId: () => 'unused' });
    for (const [id, title] of [
      ['aaaa1111-0000-4000-8000-000000000001', 'first'],
      ['aaaa2222-0000-4000-8000-000000000002', 'second'],
      ['b0000000-0000-4000-8000-000000000003', 'third'],
    ])
      repo.createStored({ id, title });
    repo.dispose();
    store.close();

    const one = await forkline(['show', 'b', '--json'], { dataDir: other });
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout).session.id).toBe('b0000000-0000-4000-8000-000000000003');
    const longer = await forkline(['show', 'aaaa2', '--json'], { dataDir: other });
    expect(JSON.parse(longer.stdout).session.title).toBe('second');
    const ambiguous = await forkline(['show', 'aaaa'], { dataDir: other });
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain('aaaa matches 2 sessions; give more characters:');
    expect(ambiguous.stderr).toContain('aaaa1111-0000-4000-8000-000000000001  first');
    expect(ambiguous.stderr).toContain('aaaa2222-0000-4000-8000-000000000002  second');
    const none = await forkline(['export', 'c'], { dataDir: other });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no session c (see forkline ls)');
    for (const r of [ambiguous, none]) noStack(r);
  });
});

describe('usage and input errors exit 2 with a message', () => {
  it('no arguments: help on stderr, exit 2; help asked for: stdout, exit 0', async () => {
    const bare = await forkline([]);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toBe('');
    expect(bare.stderr).toContain('Usage:');
    const help = await forkline(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage:');
  });

  it('unknown options and commands name the nearest one', async () => {
    const option = await forkline(['ls', '--jsno']);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain('unknown option --jsno (did you mean --json?)');
    const model = await forkline(['run', '--cwd', work, '--modle', 'm', 'x']);
    expect(model.stderr).toContain('unknown option --modle (did you mean --model?)');
    const far = await forkline(['ls', '--zzzzzzzz']);
    expect(far.stderr).toMatch(/unknown option --zzzzzzzz\n/);
    const command = await forkline(['shwo', sessionId]);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain('unknown command shwo (did you mean show?)');
    const missingValue = await forkline(['run', '--cwd']);
    expect(missingValue.code).toBe(2);
    for (const r of [option, model, far, command, missingValue]) noStack(r);
  });

  it('--cwd that is a file, a file that is not a session, export into a missing folder, bad MCP configuration', async () => {
    const cwdFile = await forkline(['run', '--cwd', join(work, 'a.txt'), '--base-url', llm.baseUrl, '--model', 'm', 'x']);
    expect(cwdFile.code).toBe(2);
    expect(cwdFile.stderr).toContain('is a file, not a folder');

    const notSession = join(dir, 'notes.txt');
    writeFileSync(notSession, 'just some text\n');
    const imported = await forkline(['import', notSession]);
    expect(imported.code).toBe(2);

    const missingFolder = await forkline(['export', sessionId, '--out', join(dir, 'no', 'such', 'folder', 's.jsonl')]);
    expect(missingFolder.code).toBe(2);
    expect(missingFolder.stderr).toContain(`the folder ${join(dir, 'no', 'such', 'folder')} does not exist`);
    const intoFolder = await forkline(['export', sessionId, '--out', dir]);
    expect(intoFolder.code).toBe(2);
    expect(intoFolder.stderr).toContain('it is a folder');
    const ok = await forkline(['export', sessionId, '--out', join(dir, 's.jsonl')]);
    expect(ok.code).toBe(0);
    expect(readFileSync(join(dir, 's.jsonl'), 'utf8')).toContain(sessionId);

    const noConfig = await forkline(['run', '--cwd', work, '--base-url', llm.baseUrl, '--model', 'm', '--mcp-config', join(dir, 'nope.json'), 'x']);
    expect(noConfig.code).toBe(2);
    expect(noConfig.stderr).toContain(`no MCP configuration file ${join(dir, 'nope.json')}`);
    writeFileSync(join(dir, 'bad-mcp.json'), '{"mcpServers": {"x": {}}}');
    const badConfig = await forkline(['run', '--cwd', work, '--base-url', llm.baseUrl, '--model', 'm', '--mcp-config', join(dir, 'bad-mcp.json'), 'x']);
    expect(badConfig.code).toBe(2);
    expect(badConfig.stderr).toContain('server "x" needs a "command" (stdio) or a "url"');
    for (const r of [cwdFile, imported, missingFolder, intoFolder, noConfig, badConfig]) noStack(r);
  });
});

describe('MCP on the command line', () => {
  it('run --mcp-config: the tools reach the model, calls run, and a broken server is reported', async () => {
    const config = join(dir, 'mcp.json');
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { calc: { command: process.execPath, args: [SERVER, '--tools', 'add'], approval: 'allow' }, broken: { command: join(dir, 'no-such-server') } } }),
    );
    const first = llm.requests.length;
    llm.enqueue(toolCallResponse([{ id: 'm1', name: 'mcp__calc__add', arguments: '{"a":20,"b":22}' }]), textResponse('42'));
    const run = await forkline(['run', '--cwd', work, '--base-url', llm.baseUrl, '--model', 'scripted-model', '--mcp-config', config, 'add 20 and 22']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('· MCP server calc ready (1 tool)');
    expect(run.stdout).toMatch(/! MCP server broken failed: could not start: the command .*no-such-server was not found/);
    expect(run.stdout).toContain('→ mcp__calc__add');
    expect(run.stdout).toContain('← ok 42');
    const tools = (llm.requests[first]!.body as { tools: { function: { name: string } }[] }).tools.map((t) => t.function.name);
    expect(tools).toContain('mcp__calc__add');
  }, 60_000);

  it('no MCP server outlives the CLI, even one that ignores its stdin closing: Ctrl+C during a call', async () => {
    const mark = join(dir, 'slow.pid');
    const config = join(dir, 'mcp-slow.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { calc: { command: process.execPath, args: [SERVER, '--tools', 'slow', '--stubborn'], env: { MCP_MARK_FILE: mark }, approval: 'allow' } } }));
    llm.enqueue(toolCallResponse([{ id: 's1', name: 'mcp__calc__slow', arguments: '{}' }]), textResponse('never'));
    const child = spawn(
      process.execPath,
      [join(ROOT, 'bin/forkline.js'), 'run', '--cwd', work, '--base-url', llm.baseUrl, '--model', 'scripted-model', '--mcp-config', config, '--data-dir', dataDir, 'be slow'],
      {
        cwd: ROOT,
        env: { ...process.env, NO_COLOR: '1' },
        stdio: ['ignore', 'ignore', 'ignore'],
      },
    );
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const start = Date.now();
    while (!(existsSync(mark) && readFileSync(mark, 'utf8') !== '') && Date.now() - start < 20_000) await new Promise((r) => setTimeout(r, 20));
    const pid = Number(readFileSync(mark, 'utf8'));
    child.kill('SIGINT');
    expect(await exited).toBe(1);
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    // The CLI has exited: the server is gone at once, or within moments of its SIGTERM.
    const deadline = Date.now() + 3_000;
    while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(alive()).toBe(false);
  }, 60_000);
});
