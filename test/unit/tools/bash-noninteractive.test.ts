/**
 * Issue 11 "A non-interactive shell" and issue 8 item 7 "Keys leak into tools", with real processes:
 * real git in a temp repository, real bash, real procfs probing.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createBashTool } from '../../../electron/tools/builtin/bash.js';
import { canProbeStdin } from '../../../electron/tools/builtin/stdin-wait-probe.js';
import { isSecretName, toolEnvironment } from '../../../electron/tools/tool-environment.js';
import { expectToolError, makeCtx, useWorkspaceDirs } from './helpers.js';

const FAKE_KEY = 'sk-test-0123456789abcdef0123456789abcdef';

function gitRepo(dir: string): void {
  const git = (...args: string[]) => {
    const r = spawnSync('git', args, { cwd: dir, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
    expect(r.status, r.stderr).toBe(0);
  };
  git('init', '-q');
  git('config', 'user.email', 'test@example.com');
  git('config', 'user.name', 'Test');
  git('commit', '-q', '--allow-empty', '-m', 'one');
  git('commit', '-q', '--allow-empty', '-m', 'two');
}

describe('bash is non-interactive', () => {
  const dirs = useWorkspaceDirs();
  // The user's environment may name a real editor; the tool must not use it.
  const bash = createBashTool({ environment: () => ({ ...process.env, EDITOR: 'vi', VISUAL: 'vi', GIT_EDITOR: 'vi', PAGER: 'less' }) });

  it('git commit without -m returns within 5 s and says why no editor opened', async () => {
    gitRepo(dirs.ws.dir);
    const started = Date.now();
    const out = await bash.execute({ command: 'git commit --allow-empty', timeout_ms: 20_000 }, makeCtx(dirs.ws.dir));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(out.isError).toBe(true);
    expect(out.content).toContain('forkline: no interactive editor can open here');
    expect(out.content).toContain('git commit -m "message"');
    expect(out.content).toMatch(/\[exit code 1\]$/);
    expect(out.content).not.toContain('\u001b['); // no editor screen codes
  });

  it('git rebase -i returns within 5 s with the explanation and leaves no rebase in progress', async () => {
    gitRepo(dirs.ws.dir);
    const started = Date.now();
    const out = await bash.execute({ command: 'git rebase -i HEAD~1', timeout_ms: 20_000 }, makeCtx(dirs.ws.dir));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(out.isError).toBe(true);
    expect(out.content).toContain('forkline: no interactive editor can open here');
    const status = await bash.execute({ command: 'git status' }, makeCtx(dirs.ws.dir));
    expect(status.content).not.toMatch(/rebase in progress/);
  });

  it('pagers are cat and git never prompts for credentials', async () => {
    const out = await bash.execute({ command: 'echo "$PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT $SSH_ASKPASS_REQUIRE $NO_COLOR"' }, makeCtx(dirs.ws.dir));
    expect(out.content).toBe('cat cat 0 never 1\n[exit code 0]');
  });

  it.runIf(canProbeStdin())('a command that waits on stdin with no output is reported as waiting for input, not as a timeout', async () => {
    for (const command of ['cat', 'read -r answer; echo "got $answer"', 'python3 -c "input()"']) {
      const started = Date.now();
      const error = await expectToolError(bash.execute({ command, timeout_ms: 60_000 }, makeCtx(dirs.ws.dir)), 'TOOL_WAITING_FOR_INPUT', /waiting for input/);
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(error.message).toMatch(/blocked reading standard input/);
      expect(error.message).toMatch(/Output so far:\n\(no output\)$/);
    }
  });

  it.runIf(canProbeStdin())('an event-loop prompt (Node readline, as npm init and create-* tools use) is reported as waiting for input', async () => {
    const started = Date.now();
    const error = await expectToolError(
      bash.execute(
        { command: `node -e "require('readline').createInterface({ input: process.stdin, output: process.stdout }).question('Project name? ', (a) => console.log(a))"`, timeout_ms: 60_000 },
        makeCtx(dirs.ws.dir),
      ),
      'TOOL_WAITING_FOR_INPUT',
      /node \(pid \d+\) sat idle waiting on standard input/,
    );
    expect(error.message).toMatch(/Output so far:\nProject name\? $/);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it.runIf(canProbeStdin())('shows the prompt a waiting command printed, and does not stop a busy command that reads nothing', async () => {
    const error = await expectToolError(bash.execute({ command: 'printf "Continue? [y/N] "; read -r x', timeout_ms: 60_000 }, makeCtx(dirs.ws.dir)), 'TOOL_WAITING_FOR_INPUT');
    expect(error.message).toMatch(/Output so far:\nContinue\? \[y\/N\] $/);
    const quiet = await bash.execute({ command: 'sleep 3; echo done' }, makeCtx(dirs.ws.dir));
    expect(quiet.content).toBe('done\n[exit code 0]');
    // A quiet event loop that does not watch stdin is left alone.
    const loop = await bash.execute({ command: `node -e "setTimeout(() => console.log('late'), 3000)"` }, makeCtx(dirs.ws.dir));
    expect(loop.content).toBe('late\n[exit code 0]');
    const piped = await bash.execute({ command: 'printf "y\\n" | (read -r x; echo "got $x")' }, makeCtx(dirs.ws.dir));
    expect(piped.content).toBe('got y\n[exit code 0]');
  });
});

describe('tool environment', () => {
  const dirs = useWorkspaceDirs();

  it('an approved `echo $DEEPSEEK_API_KEY` prints nothing: provider keys and Forkline secrets are not passed', async () => {
    const bash = createBashTool({
      environment: () => ({
        PATH: process.env['PATH'],
        HOME: process.env['HOME'],
        DEEPSEEK_API_KEY: FAKE_KEY,
        OPENAI_API_KEY: `${FAKE_KEY}-openai`,
        OPENROUTER_API_KEY: `${FAKE_KEY}-or`,
        GITHUB_TOKEN: 'ghp_abcdefghijklmnop',
        AWS_SECRET_ACCESS_KEY: 'aws-secret-value-123',
        FORKLINE_DATA_DIR: '/data/forkline',
        COPIED: `Bearer ${FAKE_KEY}`,
        SSH_AUTH_SOCK: '/tmp/agent.sock',
        KEEP_ME: 'visible',
      }),
    });
    const out = await bash.execute(
      {
        command:
          'echo "[$DEEPSEEK_API_KEY][$OPENAI_API_KEY][$OPENROUTER_API_KEY][$GITHUB_TOKEN][$AWS_SECRET_ACCESS_KEY][$FORKLINE_DATA_DIR][$COPIED]"; echo "$SSH_AUTH_SOCK $KEEP_ME"; env | grep -c sk-test || true',
      },
      makeCtx(dirs.ws.dir),
    );
    expect(out.content).toBe('[][][][][][][]\n/tmp/agent.sock visible\n0\n[exit code 0]');
    expect(out.content).not.toContain(FAKE_KEY);
  });

  it('keeps a variable the user passes explicitly, and removes values given as secrets under any name', () => {
    const { env, removed } = toolEnvironment({ GH_TOKEN: 'gho_1234567890', NPM_TOKEN: 'npm_1234567890', FORKLINE_TOOL_ENV_PASS: 'GH_TOKEN', MY_VAR: 'key=settings-key-123456' }, [
      'settings-key-123456',
    ]);
    expect(env['GH_TOKEN']).toBe('gho_1234567890');
    expect(env['NPM_TOKEN']).toBeUndefined();
    expect(env['MY_VAR']).toBeUndefined();
    expect(removed).toEqual(['FORKLINE_TOOL_ENV_PASS', 'MY_VAR', 'NPM_TOKEN']);
  });

  it('classifies names', () => {
    for (const name of [
      'DEEPSEEK_API_KEY',
      'OPENAI_API_KEY',
      'OPENROUTER_API_KEY',
      'ANTHROPIC_API_KEY',
      'GH_TOKEN',
      'PGPASSWORD',
      'MYSQL_PWD',
      'npm_config__auth',
      'STRIPE_SECRET',
      'GPG_KEY',
      'FORKLINE_TOKEN',
      'AZURE_CLIENT_CREDENTIALS',
    ]) {
      expect(isSecretName(name), name).toBe(true);
    }
    for (const name of ['PATH', 'HOME', 'PWD', 'OLDPWD', 'SSH_AUTH_SOCK', 'LANG', 'KEYBOARD_LAYOUT', 'MONKEY', 'GIT_AUTHOR_NAME', 'NODE_OPTIONS', 'TOKENIZERS_PARALLELISM']) {
      expect(isSecretName(name), name).toBe(false);
    }
  });
});
