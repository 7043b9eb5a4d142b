/**
 * Context limits through the real loop, client and store (issue 9, docs/architecture.md §5): an overflow with no
 * known window compacts once and completes (and a window the error states is learned and logged);
 * an overflow caused by the output size alone is retried with a lower max output and no compaction;
 * recovery never loops and ends with advice; a server that truncates prompts silently gets a
 * warning on the step and its reported size becomes the window.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventsOfType } from '../../../shared/events.js';
import type { LearnedLimits } from '../../../electron/agent/agent.js';
import { createHarness, type Harness } from '../../support/agent-harness.js';
import { httpError, startScriptedLlm, textResponse, toolCallResponse, usage, type RecordedRequest, type ScriptedLlm, type ScriptStep } from '../../support/scripted-llm/index.js';

let llm: ScriptedLlm;
let harness: Harness | undefined;

beforeAll(async () => {
  llm = await startScriptedLlm();
});
afterAll(async () => {
  await llm.close();
});
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  llm.setHandler(undefined);
});

const of = eventsOfType;
const isSummaryRequest = (r: RecordedRequest) => JSON.stringify(r.body).includes('You are acting as a compaction engine');

/** Answers summary requests with a summary and everything else from a queue. */
function scripted(): (...steps: ScriptStep[]) => void {
  const queue: ScriptStep[] = [];
  llm.setHandler((request) => {
    if (isSummaryRequest(request)) return textResponse('- earlier: files were read');
    const next = queue.shift();
    if (!next) throw new Error('no scripted answer left');
    return next;
  });
  return (...steps) => queue.push(...steps);
}

/** `turns` turns that each read a ~3,900-character file (about 1,000 tokens). */
async function readTurns(h: Harness, turns: number, push: (...s: ScriptStep[]) => void): Promise<void> {
  for (let t = 1; t <= turns; t++) {
    writeFileSync(`${h.workspace}/file${t}.txt`, 'line of text\n'.repeat(300));
    push(toolCallResponse([{ id: `read-${t}`, name: 'read_file', arguments: JSON.stringify({ path: `file${t}.txt` }) }]), textResponse(`file ${t} read`));
    h.agent.followup(`read file${t}.txt`);
    await h.agent.whenIdle();
  }
}

function lastTurn(h: Harness) {
  const events = h.events();
  const start = events.filter((e) => e.type === 'turn/start').at(-1)!.seq;
  return events.slice(start);
}

describe('overflow recovery', () => {
  it('an overflow with no known window compacts once, learns the stated window, and completes', async () => {
    const learned: LearnedLimits[] = [];
    harness = await createHarness({
      llm,
      client: { dialect: undefined },
      agent: { config: () => ({ provider: 'custom', model: 'scripted-model', baseUrl: llm.baseUrl }), onLimitsLearned: (l) => learned.push(l) },
    });
    const push = scripted();
    await readTurns(harness, 3, push);
    // llama.cpp's shape: the numbers are in the error body as well as the text.
    push(
      httpError(400, {
        error: {
          code: 400,
          message: 'request (5120 tokens) exceeds the available context size (4096 tokens), try increasing it',
          type: 'exceed_context_size_error',
          n_prompt_tokens: 5120,
          n_ctx: 4096,
        },
      }),
      textResponse('recovered'),
    );
    harness.agent.followup('continue');
    await harness.agent.whenIdle();
    const tail = lastTurn(harness);
    expect(of(tail, 'turn/end')[0]!.data.reason).toEqual({ kind: 'completed' });
    expect(of(tail, 'compaction/start')).toHaveLength(1);
    expect(of(tail, 'compaction/end')[0]!.data.error).toBeUndefined();
    expect(of(tail, 'llm/warning').map((e) => e.data.code)).toEqual(['CONTEXT_OVERFLOW_COMPACTED']);
    expect(learned).toEqual([{ provider: 'custom', baseUrl: llm.baseUrl, model: 'scripted-model', contextWindow: 4096, how: 'overflow-error' }]);
    // The window in force is logged before the retried request, so resume and the UI see it.
    const contexts = of(tail, 'request/context');
    expect(contexts.at(-1)!.data).toMatchObject({ contextWindow: 4096, contextSource: 'learned' });
    // The retried request is smaller than the one that failed.
    const requests = llm.requests.filter((r) => !isSummaryRequest(r));
    expect(requests.at(-1)!.rawBody.length).toBeLessThan(requests.at(-2)!.rawBody.length);
  });

  it('an overflow error without numbers (OpenAI wording) still compacts once and completes', async () => {
    harness = await createHarness({ llm, client: { dialect: undefined }, agent: { config: () => ({ provider: 'custom', model: 'scripted-model' }) } });
    const push = scripted();
    await readTurns(harness, 2, push);
    push(
      httpError(400, {
        error: { message: 'Your input exceeds the context window of this model. Please adjust your input and try again.', type: 'invalid_request_error', code: 'context_length_exceeded' },
      }),
      textResponse('ok'),
    );
    harness.agent.followup('continue');
    await harness.agent.whenIdle();
    const tail = lastTurn(harness);
    expect(of(tail, 'turn/end')[0]!.data.reason).toEqual({ kind: 'completed' });
    expect(of(tail, 'compaction/summary')).toHaveLength(1);
  });

  it('an overflow caused by max output alone is retried with a lower max output and no compaction', async () => {
    harness = await createHarness({ llm, client: { dialect: undefined }, agent: { config: () => ({ provider: 'custom', model: 'scripted-model', maxTokens: 8000 }) } });
    const push = scripted();
    // vLLM's shape: the prompt (2778) fits the 4096 window, 8000 tokens of output do not.
    push(
      httpError(400, {
        object: 'error',
        message: "'max_tokens' or 'max_completion_tokens' is too large: 8000. This model's maximum context length is 4096 tokens and your request has 2778 input tokens (8000 > 4096 - 2778). None",
        type: 'BadRequestError',
        param: null,
        code: 400,
      }),
      textResponse('short answer'),
    );
    harness.agent.followup('explain');
    await harness.agent.whenIdle();
    const events = harness.events();
    expect(of(events, 'turn/end')[0]!.data.reason).toEqual({ kind: 'completed' });
    expect(of(events, 'compaction/start')).toHaveLength(0);
    const [failed, retried] = llm.requests.slice(-2);
    expect(failed!.body.max_tokens).toBe(8000);
    // 4096 − 2778 − a 2 % margin (82).
    expect(retried!.body.max_tokens).toBe(4096 - 2778 - 82);
    const warning = of(events, 'llm/warning')[0]!;
    expect(warning.data).toMatchObject({ code: 'MAX_OUTPUT_LOWERED', contextWindow: 4096, maxOutputTokens: 1236, reportedPromptTokens: 2778 });
    // The lowered cap is model-visible configuration: logged in a changed request header.
    expect(of(events, 'request/header').at(-1)!.data).toMatchObject({ reason: 'change', header: { config: { maxTokens: 1236 } } });
  });

  it('never loops: when compaction cannot make it fit, the turn ends with what to do', async () => {
    harness = await createHarness({ llm, client: { dialect: undefined }, agent: { config: () => ({ provider: 'custom', model: 'scripted-model' }) } });
    const push = scripted();
    await readTurns(harness, 2, push);
    const overflow = () =>
      httpError(400, {
        error: {
          message: "This model's maximum context length is 1000 tokens. However, your messages resulted in 3000 tokens. Please reduce the length of the messages.",
          type: 'invalid_request_error',
          code: 'context_length_exceeded',
        },
      });
    for (let i = 0; i < 10; i++) push(overflow());
    const before = llm.requests.length;
    harness.agent.followup('continue');
    await harness.agent.whenIdle();
    const reason = of(lastTurn(harness), 'turn/end')[0]!.data.reason;
    expect(reason.kind).toBe('error');
    if (reason.kind !== 'error') throw new Error('unreachable');
    expect(reason.failure.code).toBe('CONTEXT_WINDOW_EXCEEDED');
    expect(reason.failure.message).toMatch(/What to do: fork this session at an earlier turn/);
    expect(reason.failure.message).toMatch(/--context-window N/);
    // The request, one summary request, the retry: then it stops.
    expect(llm.requests.length - before).toBe(3);
    expect(of(lastTurn(harness), 'compaction/start')).toHaveLength(1);
  });
});

describe('silent truncation', () => {
  it('a reported prompt far below what was sent is a warning on the step, and the reported size becomes the window', async () => {
    const learned: LearnedLimits[] = [];
    harness = await createHarness({
      llm,
      client: { provider: 'ollama', dialect: undefined },
      agent: { config: () => ({ provider: 'ollama', model: 'qwen3:8b', baseUrl: 'http://127.0.0.1:11434/v1' }), onLimitsLearned: (l) => learned.push(l) },
    });
    const push = scripted();
    // Three reads make the request ~5,000 tokens by our estimate; the server says 2,051.
    writeFileSync(`${harness.workspace}/big.txt`, 'line of text\n'.repeat(1200));
    push(toolCallResponse([{ id: 'r1', name: 'read_file', arguments: '{"path":"big.txt"}' }], { usage: usage(1900, 20) }), textResponse('I only see part of it', { usage: usage(2031, 20) }));
    harness.agent.followup('summarise big.txt');
    await harness.agent.whenIdle();
    const events = harness.events();
    const warnings = of(events, 'llm/warning');
    expect(warnings.map((w) => w.data.code)).toEqual(['PROMPT_TRUNCATED']);
    const warning = warnings[0]!;
    expect(warning.data.step).toBe(2);
    expect(warning.data.reportedPromptTokens).toBe(2031);
    expect(warning.data.estimatedPromptTokens).toBeGreaterThan(4096);
    expect(warning.data.contextWindow).toBe(2051);
    expect(warning.data.hint).toMatch(/OLLAMA_CONTEXT_LENGTH/);
    expect(warning.data.hint).toMatch(/num_ctx/);
    expect(learned).toEqual([{ provider: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen3:8b', contextWindow: 2051, how: 'truncated-prompt' }]);

    // The next turn uses the reported size as the window: it compacts before sending.
    push(textResponse('fine'));
    harness.agent.followup('and now?');
    await harness.agent.whenIdle();
    const tail = lastTurn(harness);
    expect(of(tail, 'request/context').at(-1)!.data).toMatchObject({ contextWindow: 2051, contextSource: 'learned' });
    expect(of(tail, 'compaction/summary')).toHaveLength(1);
    expect(of(tail, 'turn/end')[0]!.data.reason).toEqual({ kind: 'completed' });
  });

  it('a server that keeps cutting the same way is warned of once, and again only for a smaller window', async () => {
    harness = await createHarness({
      llm,
      client: { provider: 'ollama', dialect: undefined },
      agent: { config: () => ({ provider: 'ollama', model: 'qwen3:8b', baseUrl: 'http://127.0.0.1:11434/v1' }), compaction: false },
    });
    const push = scripted();
    writeFileSync(`${harness.workspace}/big.txt`, 'line of text\n'.repeat(1200));
    const read = (id: string, reported: number) => toolCallResponse([{ id, name: 'read_file', arguments: '{"path":"big.txt"}' }], { usage: usage(reported, 20) });
    // Step 1 is small; steps 2–4 are cut at ~2,051 (as Ollama's num_ctx does); step 5 at 1,000.
    push(read('r1', 1900), read('r2', 2031), read('r3', 2031), read('r4', 2035), textResponse('I only see part of it', { usage: usage(980, 20) }));
    harness.agent.followup('read big.txt until you see all of it');
    await harness.agent.whenIdle();
    const warnings = of(harness.events(), 'llm/warning').filter((w) => w.data.code === 'PROMPT_TRUNCATED');
    expect(warnings.map((w) => [w.data.step, w.data.contextWindow])).toEqual([
      [2, 2051],
      [5, 1000],
    ]);
    // From step 3 on the requests go out with the learnt window.
    expect(of(harness.events(), 'request/context').at(-1)!.data).toMatchObject({ contextWindow: 2051, contextSource: 'learned' });
    expect(of(harness.events(), 'turn/end')[0]!.data.reason).toEqual({ kind: 'completed' });
  });

  it('no warning when the counts agree or the request is small', async () => {
    harness = await createHarness({ llm, client: { dialect: undefined }, agent: { config: () => ({ provider: 'custom', model: 'scripted-model' }) } });
    const push = scripted();
    push(textResponse('hi', { usage: usage(12, 2) }));
    harness.agent.followup('hi');
    await harness.agent.whenIdle();
    expect(of(harness.events(), 'llm/warning')).toHaveLength(0);
  });
});
