/**
 * The CLI as a user runs it (real child processes): the seeds' own example (`sum([])` returns
 * `undefined`; make it return `0`) with the README's scripted model, then show / ls / resume /
 * fork / export / import on the stored session, and clear messages (not stack traces) when no key
 * is set or the endpoint refuses.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScriptFile, textResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';
import { forkline as forklineRun, type ForklineRun } from '../../support/cli-process.js';
import { closeScriptedCli, openScriptedCli } from '../../support/scripted-cli.js';

const ROOT = join(import.meta.dirname, '../../..');
let llm: ScriptedLlm;
let dataDir: string;
let work: string;
let sessionId: string;

beforeAll(async () => {
  ({ llm, dataDir, work } = await openScriptedCli('forkline-cli', { example: 'examples/fix-sum' }));
});
afterAll(() => closeScriptedCli({ llm, dataDir, work }));

/** The CLI through the shared spawn helper (test/support/cli-process.ts). */
const forkline = (args: string[], env: Record<string, string> = {}): Promise<ForklineRun> => forklineRun(args, { dataDir, env });

const testPasses = () => spawnSync(process.execPath, ['test.js'], { cwd: work }).status === 0;

describe('forkline CLI', () => {
  it('run: the README example fixes sum([]) with the scripted model', async () => {
    expect(testPasses()).toBe(false);
    llm.enqueue(...loadScriptFile(join(ROOT, 'examples/fix-sum.script.json')).slice(0, 5));
    const run = await forkline(['run', '--cwd', work, '--base-url', llm.baseUrl, '--model', 'scripted-model', '--approval', 'allow', 'sum([]) returns undefined; make it return 0']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('→ read_file sum.js');
    expect(run.stdout).toContain('→ edit_file sum.js');
    expect(run.stdout).toMatch(/━━ Turn 1 ended: completed/);
    sessionId = /session ([0-9a-f-]{36})\s*$/.exec(run.stdout)![1]!;
    expect(testPasses()).toBe(true);
  });

  it('show prints the stored timeline; ls lists the session', async () => {
    const show = await forkline(['show', sessionId]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(`session ${sessionId}`);
    expect(show.stdout).toContain('> sum([]) returns undefined; make it return 0');
    expect(show.stdout).toContain('(thinking)');
    expect(show.stdout).toMatch(/→ bash .*node test\.js/);
    expect(show.stdout).toContain('← error');
    expect(show.stdout).toContain('━━ Turn 1 ended: completed');
    const ls = await forkline(['ls']);
    expect(ls.stdout).toContain(sessionId);
    expect(ls.stdout).toContain('sum([]) returns undefined');
    // Each line ends with the session's folder.
    expect(ls.stdout.split('\n').find((l) => l.startsWith(sessionId))).toMatch(/ {2}in \/\S+$/);
  });

  it('resume continues the same session with the next turn number', async () => {
    // The session read and edited sum.js in turn 1: after resume it may edit it again without
    // re-reading (the read record is rebuilt from the log).
    llm.enqueue(
      {
        type: 'reply',
        toolCalls: [
          {
            id: 'resume-edit',
            name: 'edit_file',
            arguments: JSON.stringify({ path: 'sum.js', old_string: '// Adds up a list of numbers.', new_string: '// Adds up a list of numbers (0 for an empty list).' }),
          },
        ],
      },
      textResponse('The fix initialises the total to 0.'),
    );
    // No --base-url / --model: resume continues on the route the session last used.
    const resume = await forkline(['resume', sessionId.slice(0, 8), '--approval', 'allow', 'what did you change?']);
    expect(resume.code).toBe(0);
    expect(resume.stdout).toContain('━━ Turn 2 ━━');
    expect(resume.stdout).toContain('The fix initialises the total to 0.');
    expect(resume.stdout).toContain("← ok Edited 'sum.js'");
    expect(readFileSync(join(work, 'sum.js'), 'utf8')).toContain('(0 for an empty list)');
    const request = llm.requests.at(-1)!.body as { messages: { role: string }[] };
    // The resumed request carries the whole first turn (user, assistant/tool pairs …) plus the follow-up.
    expect(request.messages.filter((m) => m.role === 'tool').length).toBeGreaterThanOrEqual(4);
  });

  it('fork, export and import', async () => {
    // `show` prints every turn end's seq; that seq is exactly where `fork --at` cuts.
    const show = await forkline(['show', sessionId]);
    const ends = [...show.stdout.matchAll(/━━ Turn (\d+) ended: .*\[seq (\d+)\]/g)].map((m) => ({ turn: Number(m[1]), seq: Number(m[2]) }));
    expect(ends.map((e) => e.turn)).toEqual([1, 2]);
    const [first, second] = ends as [{ turn: number; seq: number }, { turn: number; seq: number }];

    // Inside a turn, or beyond the log: refused, with the turn ends to use instead; no child.
    const inside = await forkline(['fork', sessionId, '--at', '3']);
    expect(inside.code).toBe(2);
    expect(inside.stdout).toBe('');
    expect(inside.stderr).toContain('[OPEN_TURN]');
    expect(inside.stderr).toContain(`seq 3 is inside turn 1, which runs until seq ${first.seq}`);
    expect(inside.stderr).toContain(`turn 1 ended at seq ${first.seq}`);
    const beyond = await forkline(['fork', sessionId, '--at', '999999']);
    expect(beyond.code).toBe(2);
    expect(beyond.stderr).toContain('[NO_SUCH_SEQ]');
    expect(beyond.stderr).toContain(`turn 2 ended at seq ${second.seq}`);

    const fork = await forkline(['fork', sessionId, '--at', String(first.seq)]);
    expect(fork.code).toBe(0);
    expect(fork.stderr).toBe(`forked after turn 1 (seq ${first.seq})\n`);
    const childId = fork.stdout.trim();
    expect(childId).toMatch(/^[0-9a-f-]{36}$/);
    const childShow = await forkline(['show', childId]);
    expect(childShow.stdout).toContain(`forked from ${sessionId} after seq ${first.seq}`);
    // The child holds nothing after turn 1's end: not the parent's resume marker, nor its turn 2 prompt.
    expect(childShow.stdout).toContain(`[seq ${first.seq}]`);
    expect(childShow.stdout).not.toContain('Turn 2');
    expect(childShow.stdout.match(/forked here/g)).toHaveLength(1);
    expect(childShow.stdout).not.toContain('resumed here');
    // Forked after turn 2: the parent's resume (before turn 2) is inherited once, the fork point is its own.
    const late = await forkline(['fork', sessionId, '--at', String(second.seq)]);
    const lateShow = await forkline(['show', late.stdout.trim()]);
    expect(show.stdout.match(/resumed here/g)).toHaveLength(1);
    expect(lateShow.stdout.match(/resumed here/g)).toHaveLength(1);
    expect(lateShow.stdout.match(/forked here/g)).toHaveLength(1);

    const file = join(dataDir, 'export.jsonl');
    const exported = await forkline(['export', sessionId, '--out', file]);
    expect(exported.code).toBe(0);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ type: 'session', id: sessionId });
    const imported = await forkline(['import', file]);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain('Forkline export v0 →');
    expect(imported.stdout).toContain('already exists; imported as');
    const copyId = /^session (\S+)/m.exec(imported.stdout)![1]!;
    const copy = await forkline(['export', copyId]);
    expect(copy.stdout.split('\n').slice(1)).toEqual(readFileSync(file, 'utf8').split('\n').slice(1));
  });

  it('says clearly when no API key is set (no stack trace)', async () => {
    const run = await forkline(['run', '--cwd', work, 'do something']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no API key for DeepSeek: set DEEPSEEK_API_KEY');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('says clearly when the endpoint refuses (no stack trace)', async () => {
    const run = await forkline(['run', '--cwd', work, '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm', 'do something'], { FORKLINE_MAX_RETRIES: '1' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/the model request failed — error TRANSPORT: .*Check the base URL/);
    expect(run.stdout).toContain('↻ retry 1 in');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    llm.enqueue({ type: 'http-error', status: 401, body: { error: { message: 'Authentication Fails, Your api key is invalid' } } });
    const denied = await forkline(['run', '--cwd', work, '--provider', 'deepseek', '--base-url', llm.baseUrl, 'do something'], { DEEPSEEK_API_KEY: 'sk-wrong' });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('error AUTH');
    expect(denied.stderr).toContain('Check the API key');
  });

  it('with no terminal, --approval ask denies risky tools and says how to allow them', async () => {
    writeFileSync(join(work, 'note.txt'), 'x');
    llm.enqueue({ type: 'reply', toolCalls: [{ id: 'b1', name: 'bash', arguments: '{"command":"rm note.txt"}' }] }, textResponse('I could not run it.'));
    const run = await forkline(['run', '--cwd', work, '--base-url', llm.baseUrl, '--model', 'scripted-model', 'delete note.txt']);
    expect(run.stdout).toMatch(/\n! bash needs approval, but there is no terminal to ask\. Re-run with --approval allow/);
    expect(run.stdout.indexOf('→ bash rm note.txt')).toBeLessThan(run.stdout.indexOf('! bash needs approval'));
    expect(readFileSync(join(work, 'note.txt'), 'utf8')).toBe('x');
  });

  it('turns ordinary mistakes into clear messages (exit 2, no stack trace)', async () => {
    const missing = await forkline(['import', join(dataDir, 'nope.jsonl')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no file');
    const unknown = await forkline(['show', 'not-an-id']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no session not-an-id (see forkline ls)');
    const effort = await forkline(['run', '--cwd', work, '--provider', 'deepseek', '--effort', 'extreme', 'x'], { DEEPSEEK_API_KEY: 'sk-x' });
    expect(effort.code).toBe(2);
    expect(effort.stderr).toContain('reasoning effort "extreme" is not supported; use one of off, low, high, max');
    const notSession = join(dataDir, 'not-a-session.jsonl');
    writeFileSync(notSession, '{"hello":"world"}\n');
    const bad = await forkline(['import', notSession]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('this is not a session log we can read');
    expect(bad.stderr).toContain('Formats we read: forkline (Forkline export), deepseek-harness');
    expect(bad.stderr).toContain('[UNSUPPORTED_FORMAT]');
    for (const r of [missing, unknown, effort, bad]) expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('prints usage for bad arguments', async () => {
    const bad = await forkline(['run', '--bogus']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('forkline help');
  });
});
