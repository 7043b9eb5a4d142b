/**
 * Any OpenAI-compatible endpoint from the CLI, as a new user runs it (real child processes, real
 * HTTP servers on 127.0.0.1; issue 9):
 * - `forkline run --base-url URL` with no `--provider` completes a multi-step tool task against an
 *   endpoint that rejects a missing `reasoning_content` echo (DeepSeek's 400);
 * - a long session on a custom endpoint with `--context-window 8000` compacts by itself and
 *   completes, and no request ever exceeds the window;
 * - a server that truncates prompts silently leaves a warning that `forkline show` prints;
 * - `forkline models --base-url URL` prints the endpoint's models with their windows.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { COMPACTION_INSTRUCTION } from '../../../electron/agent/compaction.js';
import { validators } from '../../support/provider-validators.js';
import { httpError, loadScriptFile, startScriptedLlm, textResponse, toolCallResponse, usage, type RecordedRequest, type ScriptedLlm } from '../../support/scripted-llm/index.js';
import { forkline as forklineRun, type ForklineRun } from '../../support/cli-process.js';

const ROOT = join(import.meta.dirname, '../../..');
let llm: ScriptedLlm;
let dataDir: string;
const dirs: string[] = [];

beforeAll(async () => {
  llm = await startScriptedLlm({
    models: [
      { id: 'qwen/qwen3-coder', object: 'model', context_length: 262144, top_provider: { context_length: 262144, max_completion_tokens: 65536 } },
      { id: 'local-llama', object: 'model', max_model_len: 8192 },
      'bare-model',
    ],
  });
  dataDir = mkdtempSync(join(tmpdir(), 'forkline-cli-providers-'));
});
afterAll(async () => {
  await llm.close();
  rmSync(dataDir, { recursive: true, force: true });
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  llm.setValidator(undefined);
  llm.setHandler(undefined);
});

function workspace(from?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'forkline-ws-'));
  dirs.push(dir);
  if (from) cpSync(from, dir, { recursive: true });
  return dir;
}

/** The CLI through the shared spawn helper (test/support/cli-process.ts). */
const forkline = (args: string[]): Promise<ForklineRun> => forklineRun(args, { dataDir, env: { FORKLINE_CHECKPOINTS: 'off' } });

const sessionOf = (stdout: string) => /session ([0-9a-f-]{36})\s*$/.exec(stdout)![1]!;

/** Our estimate of a request's size, as the scripted endpoint counts it (4 characters per token). */
const tokensOf = (r: RecordedRequest) => Math.ceil(r.rawBody.length / 4);
const isSummaryRequest = (r: RecordedRequest) => r.rawBody.includes(COMPACTION_INSTRUCTION.slice(0, 60));

describe('forkline and OpenAI-compatible endpoints', () => {
  it('run --base-url without --provider: a multi-step tool task on an endpoint that requires the reasoning echo', async () => {
    const work = workspace(join(ROOT, 'examples/fix-sum'));
    llm.setValidator(validators.deepseek());
    // Turn 1 only (the script's sixth reply answers a follow-up).
    llm.enqueue(...loadScriptFile(join(ROOT, 'examples/fix-sum.script.json')).slice(0, 5));
    const before = llm.requests.length;
    const run = await forkline(['run', '--cwd', work, '--base-url', llm.baseUrl, '--model', 'deepseek-chat', '--approval', 'allow', 'sum([]) returns undefined; make it return 0']);
    expect(llm.rejected.map((r) => JSON.stringify(r.step.type === 'http-error' ? r.step.body : r.step))).toEqual([]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/━━ Turn 1 ended: completed/);
    const requests = llm.requests.slice(before);
    expect(requests.length).toBeGreaterThanOrEqual(4);
    // Every request after the first carries reasoning_content on each assistant tool-call message.
    for (const r of requests.slice(1)) {
      const assistants = r.body.messages.filter((m: { role: string; tool_calls?: unknown[] }) => m.role === 'assistant' && m.tool_calls);
      expect(assistants.length).toBeGreaterThan(0);
      for (const a of assistants) expect(typeof a.reasoning_content).toBe('string');
    }
    expect(spawnSync(process.execPath, ['test.js'], { cwd: work }).status).toBe(0);
  });

  it('--context-window 8000 on a custom endpoint: the long session compacts by itself and completes', async () => {
    const work = workspace();
    const reads = 6;
    for (let i = 1; i <= reads; i++) writeFileSync(join(work, `part${i}.txt`), `part ${i}\n${'some notes about the module, line by line\n'.repeat(90)}`);
    let step = 0;
    // An endpoint with a real 8,000-token window: it refuses anything larger (vLLM's error) and
    // reports the prompt size it counted.
    llm.setValidator((r) =>
      tokensOf(r) + (r.body.max_tokens ?? 0) > 8000
        ? httpError(400, {
            error: {
              message: `This model's maximum context length is 8000 tokens. However, you requested ${tokensOf(r) + (r.body.max_tokens ?? 0)} tokens (${tokensOf(r)} in the messages, ${r.body.max_tokens ?? 0} in the completion). Please reduce the length of the messages or completion.`,
              type: 'BadRequestError',
              param: null,
              code: 400,
            },
          })
        : undefined,
    );
    llm.setHandler((r) => {
      const u = usage(tokensOf(r), 30);
      if (isSummaryRequest(r)) return textResponse('## Primary Request and Intent\n- read part1..part6 and report\n## Current Work\n- parts read so far are noted', { usage: u });
      step++;
      if (step <= reads) return toolCallResponse([{ id: `read_${step}`, name: 'read_file', arguments: JSON.stringify({ path: `part${step}.txt` }) }], { usage: u });
      return textResponse('All six parts are read: they describe the module line by line.', { usage: u });
    });
    const before = llm.requests.length;
    const run = await forkline([
      'run',
      '--cwd',
      work,
      '--base-url',
      llm.baseUrl,
      '--model',
      'small-ctx',
      '--context-window',
      '8000',
      '--approval',
      'allow',
      'read part1.txt to part6.txt one by one, then report',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    // Its summary request is billed like a step, and shown so: no price is known for this endpoint's model.
    expect(run.stdout).toMatch(/\[compacted \d+ messages · tokens: input \d+ · output 30 · price unknown\]/);
    expect(run.stdout).toMatch(/━━ Turn 1 ended: completed/);
    // It compacted before the endpoint had to refuse anything.
    expect(llm.rejected).toEqual([]);
    const requests = llm.requests.slice(before);
    expect(requests.some(isSummaryRequest)).toBe(true);
    expect(Math.max(...requests.map(tokensOf))).toBeLessThanOrEqual(8000);
    const show = await forkline(['show', sessionOf(run.stdout)]);
    expect(show.stdout).toMatch(/\[compacted \d+ messages · tokens: input \d+ · output 30 · price unknown\]/);
  });

  it('a truncating endpoint: the warning and what to do are in forkline show', async () => {
    const work = workspace();
    writeFileSync(join(work, 'big.txt'), 'a long line of text that fills the context window\n'.repeat(500));
    llm.enqueue(
      toolCallResponse([{ id: 'read_big', name: 'read_file', arguments: '{"path":"big.txt"}' }], { usage: usage(1900, 20) }),
      // Ollama-like: HTTP 200, but only 2,051 prompt tokens counted for a request of ~9,000.
      textResponse('The file seems to be about something.', { usage: usage(2051, 12) }),
    );
    const run = await forkline(['run', '--cwd', work, '--base-url', llm.baseUrl, '--model', 'llama3.2', '--approval', 'allow', 'what is in big.txt?']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('⚠ PROMPT_TRUNCATED');
    const show = await forkline(['show', sessionOf(run.stdout)]);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/⚠ PROMPT_TRUNCATED: the server counted 2051 prompt tokens for a request of about \d+/);
    expect(show.stdout).toMatch(/what to do: .*--context-window/);
  });

  it("models --base-url lists the endpoint's models with the windows it publishes", async () => {
    const result = await forkline(['models', '--base-url', llm.baseUrl]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/qwen\/qwen3-coder\s+262144\s+65536/);
    expect(result.stdout).toMatch(/local-llama\s+8192\s+\?/);
    expect(result.stdout).toMatch(/bare-model\s+\?\s+\?/);
    expect(result.stdout).toMatch(/numbers from: GET .*\/models \(context_length, top_provider.max_completion_tokens, max_model_len\)/);
  });

  it('bad limit flags are usage errors', async () => {
    const bad = await forkline(['run', '--cwd', ROOT, '--base-url', llm.baseUrl, '--context-window', 'lots', 'x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--context-window must be a positive number of tokens (got lots)');
    const tight = await forkline(['run', '--cwd', ROOT, '--base-url', llm.baseUrl, '--context-window', '4000', '--max-output', '4000', 'x']);
    expect(tight.code).toBe(2);
    expect(tight.stderr).toContain('leaves no room for the prompt');
  });
});
