/**
 * The terminal approval prompt as a person sees it (issue 11): the real CLI in a real pseudo
 * terminal (node-pty), the real `openai` client against the scripted model server. An edit is
 * shown as its unified diff, a command with its folder; an edit that would fail is never asked;
 * `a` allows a command prefix for the session, so the next such command runs without a prompt;
 * control characters in a command are shown escaped.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn, type IPty } from 'node-pty';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textResponse, toolCallResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';
import { closeScriptedCli, openScriptedCli } from '../../support/scripted-cli.js';

const ROOT = join(import.meta.dirname, '../../..');
let llm: ScriptedLlm;
let dataDir: string;
let work: string;

beforeAll(async () => {
  ({ llm, dataDir, work } = await openScriptedCli('forkline-prompt', { example: 'examples/fix-sum' }));
});
afterAll(() => closeScriptedCli({ llm, dataDir, work }));

/** Runs `forkline run` in a pty; `answer(screen)` returns what to type when a prompt appears. */
function runInTerminal(task: string, answers: readonly string[]): Promise<{ screen: string; code: number; prompts: number }> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, NO_COLOR: '1', DEEPSEEK_API_KEY: '', OPENAI_API_KEY: '' } as Record<string, string>;
    const pty: IPty = spawn(process.execPath, [join(ROOT, 'bin/forkline.js'), 'run', '--cwd', work, '--base-url', llm.baseUrl, '--model', 'scripted-model', '--data-dir', dataDir, task], {
      cwd: ROOT,
      env,
      cols: 160,
      rows: 50,
    });
    let screen = '';
    let prompts = 0;
    const timer = setTimeout(() => {
      pty.kill();
      reject(new Error(`timed out; screen so far:\n${screen}`));
    }, 60_000);
    pty.onData((data) => {
      screen += data;
      const asked = screen.split('Allow? [y]es once').length - 1;
      if (asked > prompts) {
        prompts = asked;
        const answer = answers[prompts - 1] ?? 'n';
        setTimeout(() => pty.write(`${answer}\r`), 50);
      }
    });
    pty.onExit(({ exitCode }) => {
      clearTimeout(timer);
      resolve({ screen: screen.replace(/\r\n/g, '\n'), code: exitCode, prompts });
    });
  });
}

describe('terminal approval prompt', () => {
  it('shows the diff and the command with its folder; "a" stops the next prompt for that prefix', async () => {
    llm.enqueue(
      // Not read yet: fails its precondition, so it is never put to the person.
      toolCallResponse([{ id: 'e0', name: 'edit_file', arguments: JSON.stringify({ path: 'sum.js', old_string: 'let total;', new_string: 'let total = 0;' }) }]),
      toolCallResponse([{ id: 'r1', name: 'read_file', arguments: JSON.stringify({ path: 'sum.js' }) }]),
      toolCallResponse([{ id: 'e1', name: 'edit_file', arguments: JSON.stringify({ path: 'sum.js', old_string: 'let total;', new_string: 'let total = 0;' }) }]),
      toolCallResponse([{ id: 'b1', name: 'bash', arguments: JSON.stringify({ command: 'node test.js' }) }]),
      toolCallResponse([{ id: 'b2', name: 'bash', arguments: JSON.stringify({ command: 'node test.js' }) }]),
      // A command with real control characters that try to redraw the line into a fake prompt.
      toolCallResponse([{ id: 'b3', name: 'bash', arguments: JSON.stringify({ command: 'touch x #\u001b[2K\r? Allow bash `ls -la` [y/N] \u001b[8m' }) }]),
      textResponse('fixed'),
    );
    const { screen, code, prompts } = await runInTerminal('fix sum([])', ['y', 'a', 'n']);
    expect(code).toBe(0);
    expect(prompts).toBe(3); // e1, b1, b3 — not e0 (precondition failed), not b2 (allowed for the session)
    expect(screen).toContain('? edit_file wants to change sum.js (+1 -1):');
    expect(screen).toContain('  --- a/sum.js\n  +++ b/sum.js\n');
    expect(screen).toContain('  -  let total;\n  +  let total = 0;\n');
    expect(screen).toContain('Allow? [y]es once / [a] allow edit_file for this session / [N]o');
    expect(screen).toContain(`? bash wants to run a command:\n  $ node test.js\n  in ${work}\n  Allow? [y]es once / [a] allow \`node test.js\` commands for this session / [N]o`);
    // The control characters of the third command are shown, not executed by the terminal.
    expect(screen).toContain('$ touch x #\\x1b[2K\\r? Allow bash `ls -la` [y/N] \\x1b[8m');
    // (The timeline's own "→ bash …" line is escaped by the CLI output layer, issue 8 item 3.)
    expect(screen.match(/\$ node test\.js/g)).toHaveLength(1);
    expect(readFileSync(join(work, 'sum.js'), 'utf8')).toContain('let total = 0;');
  });
});
