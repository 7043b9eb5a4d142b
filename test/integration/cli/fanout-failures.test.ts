/**
 * Issue 21, what goes wrong in a fan-out (the bundled CLI, real SQLite, git, processes, the real
 * openai client against the scripted server): one branch's provider error ends only that branch;
 * a check that hangs is killed at its time limit and ranks as failed (timeout); `.forkline/setup`
 * runs in every new worktree with `FORKLINE_BRANCH` and a distinct port offset, its output logged;
 * Ctrl+C cancels every branch with its closers logged.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frame, framesResponse, httpError, startScriptedLlm, textResponse, toolCallResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';
import { forkline as forklineRun, type ForklineRun } from '../../support/cli-process.js';
import type { ChildProcess } from 'node:child_process';

const ROOT = join(import.meta.dirname, '../../..');
let llm: ScriptedLlm;
let dataDir: string;
let work: string;
let parentId: string;

interface Message {
  role: string;
  content?: unknown;
}

function reply(model: string, messages: readonly Message[]) {
  const lastUser = messages.findLastIndex((m) => m.role === 'user');
  if (!JSON.stringify(messages[lastUser]?.content ?? '').includes('fix')) return textResponse('hello');
  if (model === 'model-err') return httpError(400, { error: { message: 'this model refuses' } });
  if (model === 'model-stall') return framesResponse([frame.comment(), frame.stall()]);
  const toolsSince = messages.slice(lastUser).filter((m) => m.role === 'tool').length;
  const id = `call_${model}_${messages.length}`;
  if (toolsSince === 0 && model === 'model-b') return toolCallResponse([{ id, name: 'write_file', arguments: JSON.stringify({ path: 'fixed.txt', content: 'ok\n' }) }]);
  if (toolsSince === 0 && model === 'model-c') return toolCallResponse([{ id, name: 'write_file', arguments: JSON.stringify({ path: 'hang.txt', content: 'x\n' }) }]);
  return textResponse(`done (${model})`);
}

beforeAll(async () => {
  llm = await startScriptedLlm({ models: ['model-a', 'model-b', 'model-c', 'model-err', 'model-stall'] });
  llm.setHandler((request) => reply(String(request.body.model), request.body.messages as Message[]));
  dataDir = mkdtempSync(join(tmpdir(), 'forkline-fanout-f-'));
  work = mkdtempSync(join(tmpdir(), 'forkline-fanout-f-work-'));
  cpSync(join(ROOT, 'examples/fix-sum'), work, { recursive: true });
  mkdirSync(join(work, '.forkline'));
  writeFileSync(join(work, '.forkline', 'setup'), 'echo "setup for $FORKLINE_BRANCH at port offset $FORKLINE_PORT_OFFSET"\n');
});
afterAll(async () => {
  await llm.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

/** The CLI through the shared spawn helper (test/support/cli-process.ts). */
const forkline = (args: string[], onStderr?: (text: string, child: ChildProcess) => void): Promise<ForklineRun> => forklineRun(args, { dataDir, ...(onStderr ? { onStderr } : {}) });

const route = () => ['--base-url', llm.baseUrl, '--model', 'model-a', '--approval', 'allow'];

interface Ranked {
  branches: { session: string; variant: { model: string; prompt?: string }; turnEnd?: string; turnEndDetail?: string; check?: { passed: boolean; timedOut: boolean; exitCode: number | null } }[];
}

function eventsOf(jsonl: string): { type?: string; data?: Record<string, unknown> }[] {
  return jsonl
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { type?: string; data?: Record<string, unknown> });
}

describe('fanout failures (issue 21)', () => {
  it('a base session', async () => {
    const run = await forkline(['run', '--cwd', work, ...route(), 'say hello']);
    expect(run.code, run.stderr).toBe(0);
    parentId = /session ([0-9a-f-]{36})\s*$/.exec(run.stdout)![1]!;
  });

  it('a provider error ends only its branch; a hanging check is killed at its limit and ranks as failed; setup runs with the branch env', async () => {
    const check = "if [ -f hang.txt ]; then sleep 60; fi; node -e \"process.exit(require('fs').existsSync('fixed.txt') ? 0 : 1)\"";
    const promptFile = join(dataDir, 'prompt.txt');
    writeFileSync(promptFile, 'fix it, as this file says');
    const res = await forkline([
      'fanout',
      parentId,
      ...route(),
      '--variant',
      'model=model-err',
      '--variant',
      'model=model-c',
      '--variant',
      `model=model-b,prompt=@${promptFile}`,
      '--check',
      check,
      '--check-timeout',
      '3',
      '--json',
      'fix it',
    ]);
    expect(res.code, res.stderr).toBe(0);
    const doc = JSON.parse(res.stdout) as Ranked;
    expect(doc.branches.map((b) => b.variant.model)).toEqual(['model-b', 'model-c', 'model-err']);
    expect(doc.branches[0]!.check).toMatchObject({ passed: true, timedOut: false });
    expect(doc.branches[0]!.variant).toMatchObject({ model: 'model-b', prompt: 'fix it, as this file says' });
    expect(doc.branches[1]!.variant).toMatchObject({ model: 'model-c', prompt: 'fix it' });
    expect(doc.branches[1]!.check).toMatchObject({ passed: false, timedOut: true, exitCode: null });
    expect(doc.branches[2]).toMatchObject({ turnEnd: 'error' });
    expect(doc.branches[2]!.turnEndDetail).toContain('this model refuses');
    expect(doc.branches[2]!.check).toBeUndefined();
    // Setup ran in each new worktree, with that branch's id and its own port offset, and was logged there.
    const offsets = new Set<string>();
    for (const b of doc.branches) {
      const setup = eventsOf((await forkline(['export', b.session])).stdout).find((e) => e.type === 'check/result' && e.data?.['purpose'] === 'setup');
      expect(String(setup?.data?.['outputTail'])).toContain(`setup for ${b.session} at port offset`);
      offsets.add(/port offset (\d+)/.exec(String(setup?.data?.['outputTail']))![1]!);
    }
    expect(offsets.size).toBe(3);
  }, 120_000);

  it('Ctrl+C cancels every branch; each logs its closers', async () => {
    let sent = false;
    // Ctrl+C once both branches have started and both stalled requests have reached the server
    // (the signal itself, instead of a fixed 1.5 s after the "started" lines).
    const stalled = () => llm.requests.filter((r) => r.body.model === 'model-stall').length;
    const stalledBefore = stalled();
    const res = await forkline(
      ['fanout', parentId, ...route(), '--variant', 'model=model-stall,system=Answer in haiku.', '--variant', 'model=model-stall', '--check', 'true', '--json', 'fix it'],
      (stderr, child) => {
        if (!sent && (stderr.match(/started/g) ?? []).length === 2) {
          sent = true;
          const poll = setInterval(() => {
            if (stalled() < stalledBefore + 2) return;
            clearInterval(poll);
            child.kill('SIGINT');
          }, 10);
          child.once('exit', () => clearInterval(poll));
        }
      },
    );
    expect(sent).toBe(true);
    expect(res.code).toBe(130);
    const doc = JSON.parse(res.stdout) as Ranked;
    expect(doc.branches).toHaveLength(2);
    // The system-prompt addendum reached the model and is logged in that branch's request header only.
    const headers = await Promise.all(doc.branches.map(async (b) => JSON.stringify(eventsOf((await forkline(['export', b.session])).stdout).filter((e) => e.type === 'request/header'))));
    expect(headers.filter((h) => h.includes('Answer in haiku.'))).toHaveLength(1);
    expect(llm.requests.some((r) => JSON.stringify((r.body.messages as Message[])[0]).includes('Answer in haiku.'))).toBe(true);
    for (const b of doc.branches) {
      expect(b.turnEnd).toBe('aborted');
      const events = eventsOf((await forkline(['export', b.session])).stdout);
      expect(events.at(-1)?.type === 'turn/end' || events.some((e) => e.type === 'turn/end' && (e.data?.['reason'] as { kind?: string })?.kind === 'aborted')).toBe(true);
      expect(events.some((e) => e.type === 'step/end')).toBe(true);
    }
  }, 120_000);
});
