/**
 * Every failure code of docs/architecture.md §5 produced by the real `openai` client against the scripted server,
 * ending the stream with `finish{error|aborted}` (never a throw), with status, Retry-After and
 * request id carried when known.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LlmFailure, StreamChunk } from '../../../shared/chunks.js';
import {
  emptyResponse,
  fixture,
  frame,
  framesResponse,
  httpError,
  reasoningResponse,
  reply,
  startScriptedLlm,
  textResponse,
  toolCallResponse,
  wireChunk,
  type ScriptedLlm,
} from '../../support/scripted-llm/index.js';
import { collect, expectWellFormed, finishCode, finishOf, scriptedClient, userRequest } from './helpers.js';

function failureOf(chunks: readonly StreamChunk[]): LlmFailure {
  const reason = finishOf(chunks);
  if (reason.kind !== 'error' && reason.kind !== 'aborted') throw new Error(`not a failure: ${JSON.stringify(reason)}`);
  return reason.failure;
}

function fixtureBody(name: string): unknown {
  return (JSON.parse(readFileSync(fixture(name), 'utf8')) as { body: unknown }).body;
}

const textOf = (chunks: readonly StreamChunk[]): string => chunks.map((c) => (c.type === 'text-delta' || c.type === 'reasoning-delta' ? c.text : '')).join('');

describe('failure codes', () => {
  let llm: ScriptedLlm;
  beforeAll(async () => {
    llm = await startScriptedLlm();
  });
  afterAll(async () => {
    await llm.close();
  });

  async function run(step: Parameters<ScriptedLlm['enqueue']>[0], settings: Parameters<typeof scriptedClient>[1] = {}, request = userRequest()): Promise<StreamChunk[]> {
    llm.enqueue(step);
    const before = llm.requests.length;
    const chunks = await collect(scriptedClient(llm.baseUrl, settings), request);
    expect(llm.requests.length - before).toBe(1); // exactly one attempt per call
    expectWellFormed(chunks);
    return chunks;
  }

  it('401 and 403 → AUTH, with status and x-request-id', async () => {
    const a = failureOf(await run(httpError(401, { error: { message: 'Authentication Fails, Your api key is invalid', type: 'authentication_error' } })));
    expect(a).toMatchObject({ code: 'AUTH', status: 401 });
    expect(a.requestId).toMatch(/^req_scripted_\d+$/);
    expect(failureOf(await run(httpError(403, { error: { message: 'forbidden' } })))).toMatchObject({ code: 'AUTH', status: 403 });
  });

  it('402 → QUOTA, and a 429 that says the quota is gone → QUOTA', async () => {
    expect(failureOf(await run(httpError(402, { error: { message: 'Insufficient Balance', type: 'unknown_error' } })))).toMatchObject({ code: 'QUOTA', status: 402 });
    const openAiQuota = { error: { message: 'You exceeded your current quota, please check your plan and billing details.', type: 'insufficient_quota', code: 'insufficient_quota' } };
    expect(failureOf(await run(httpError(429, openAiQuota)))).toMatchObject({ code: 'QUOTA', status: 429 });
  });

  it('429 → RATE_LIMIT carrying Retry-After (seconds and HTTP-date forms)', async () => {
    const seconds = failureOf(await run(httpError(429, fixtureBody('http-error_openrouter_429_rate-limited.json'), { retryAfter: 2 })));
    expect(seconds).toMatchObject({ code: 'RATE_LIMIT', status: 429, retryAfterMs: 2000 });
    const at = new Date(Date.now() + 5_000).toUTCString();
    const dated = failureOf(await run(httpError(429, { error: { message: 'Rate Limit Reached' } }, { retryAfter: at })));
    expect(dated.code).toBe('RATE_LIMIT');
    expect(dated.retryAfterMs).toBeGreaterThan(2_500);
    expect(dated.retryAfterMs).toBeLessThanOrEqual(5_000);
    const none = failureOf(await run(httpError(429, { error: { message: 'slow down' } })));
    expect(none.code).toBe('RATE_LIMIT');
    expect(none).not.toHaveProperty('retryAfterMs');
  });

  it('400 with a context-length message → CONTEXT_WINDOW_EXCEEDED', async () => {
    const body = {
      error: {
        message:
          "This model's maximum context length is 131072 tokens. However, you requested 140000 tokens (140000 in the messages, 0 in the completion). Please reduce the length of the messages or completion.",
        type: 'invalid_request_error',
        code: 'invalid_request_error',
      },
    };
    expect(failureOf(await run(httpError(400, body)))).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED', status: 400 });
    expect(failureOf(await run(httpError(400, { error: { message: 'prompt is too long: 210000 tokens > 200000 maximum' } })))).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED' });
  });

  it('the recorded 400 and 404 bodies → INVALID_REQUEST', async () => {
    const bad = failureOf(await run(httpError(400, fixtureBody('http-error_openai_400_invalid-request.json'))));
    expect(bad).toMatchObject({ code: 'INVALID_REQUEST', status: 400 });
    expect(bad.message).toContain("does not support 'developer'");
    const missing = failureOf(await run(httpError(404, fixtureBody('http-error_openai_404_model-not-found.json'))));
    expect(missing).toMatchObject({ code: 'INVALID_REQUEST', status: 404 });
    expect(missing.message).toContain('does not exist');
    expect(failureOf(await run(httpError(422, { error: { message: 'Invalid Parameters' } })))).toMatchObject({ code: 'INVALID_REQUEST', status: 422 });
  });

  it('5xx → SERVER after exactly one attempt (no library retries)', async () => {
    expect(failureOf(await run(httpError(500, { error: { message: 'Server Error' } })))).toMatchObject({ code: 'SERVER', status: 500 });
    expect(failureOf(await run(httpError(503, { error: { message: 'Server Overloaded' } }, { retryAfter: 1 })))).toMatchObject({ code: 'SERVER', status: 503, retryAfterMs: 1000 });
  });

  it('a socket dropped mid-stream → TRANSPORT, after the partial chunks', async () => {
    const chunks = await run(textResponse('hello there, general', { split: 3, cut: { after: 4, then: 'destroy' } }));
    expect(failureOf(chunks).code).toBe('TRANSPORT');
    expect(textOf(chunks)).toBe('hello the'); // role chunk + 3 text deltas
    expect(chunks.some((c) => c.type === 'block-end')).toBe(false);
  });

  it('a stalled body → TIMEOUT after idleTimeoutMs, partial reasoning kept as chunks', async () => {
    const started = Date.now();
    const chunks = await run(reasoningResponse('let me think about it', 'answer', { split: 5, cut: { after: 3, then: 'stall' } }), { idleTimeoutMs: 300 });
    const elapsed = Date.now() - started;
    expect(failureOf(chunks).code).toBe('TIMEOUT');
    expect(textOf(chunks)).toBe('let me thi'); // role chunk + 2 reasoning deltas
    expect(elapsed).toBeGreaterThanOrEqual(280);
    expect(elapsed).toBeLessThan(2_000);
  });

  it('no response headers at all → TIMEOUT from the idle watchdog', async () => {
    llm.setHandler(() => new Promise(() => {}));
    try {
      const before = llm.requests.length;
      const chunks = await collect(scriptedClient(llm.baseUrl, { idleTimeoutMs: 250 }), userRequest());
      expect(llm.requests.length - before).toBe(1);
      expect(failureOf(chunks).code).toBe('TIMEOUT');
      expect(chunks).toHaveLength(1);
    } finally {
      llm.setHandler(undefined);
    }
  });

  it('keep-alive comments reset the idle watchdog; the same silence without them times out', async () => {
    const slowFrames = (withComments: boolean) =>
      framesResponse([
        frame.data(wireChunk({ role: 'assistant', content: 'wait' })),
        ...Array.from({ length: 6 }, () => (withComments ? [frame.delay(100), frame.comment('keep-alive')] : [frame.delay(100)])).flat(),
        frame.data(wireChunk({ content: ' done' })),
        frame.data(wireChunk({}, { finishReason: 'stop' })),
        frame.done(),
      ]);
    const kept = await run(slowFrames(true), { idleTimeoutMs: 400 });
    expect(finishOf(kept)).toEqual({ kind: 'stop' });
    expect(textOf(kept)).toBe('wait done');
    const silent = await run(slowFrames(false), { idleTimeoutMs: 400 });
    expect(failureOf(silent).code).toBe('TIMEOUT');
    expect(textOf(silent)).toBe('wait');
  });

  it('a clean end without [DONE] and without finish_reason → STREAM_CLOSED', async () => {
    const chunks = await run(textResponse('partial answer here', { split: 4, cut: { after: 3, then: 'end' } }));
    expect(failureOf(chunks)).toMatchObject({ code: 'STREAM_CLOSED' });
    expect(textOf(chunks)).toBe('partial ');
    const noFinish = await run(reply({ text: 'abc', finish: null, done: false }));
    expect(finishCode(noFinish)).toBe('STREAM_CLOSED');
  });

  it('a finish_reason without [DONE] is a complete response', async () => {
    const chunks = await run(reply({ text: 'complete', done: false }));
    expect(finishOf(chunks)).toEqual({ kind: 'stop' });
  });

  it('finish stop with no content (C5) → EMPTY_RESPONSE, nothing to project', async () => {
    const chunks = await run(emptyResponse());
    expect(failureOf(chunks).code).toBe('EMPTY_RESPONSE');
    expect(chunks.filter((c) => c.type !== 'finish')).toEqual([]);
  });

  it('unparsable data → MALFORMED_RESPONSE after the good chunks', async () => {
    const chunks = await run(framesResponse([frame.data(wireChunk({ role: 'assistant', content: 'fine' })), frame.raw('data: {"choices": [tru\n\n'), frame.done()]));
    expect(failureOf(chunks).code).toBe('MALFORMED_RESPONSE');
    expect(textOf(chunks)).toBe('fine');
  });

  it('a data:{"error":…} frame mid-stream is classified by its type', async () => {
    const chunks = await run(framesResponse([frame.data(wireChunk({ content: 'partial' })), frame.data({ error: { code: 'server_error', message: 'Provider disconnected' } })]));
    expect(failureOf(chunks).code).toBe('SERVER');
    expect(textOf(chunks)).toBe('partial');
    const limited = await run(framesResponse([frame.event('error', { error: { message: 'Rate limit reached', type: 'rate_limit_error', status_code: 429 } })]));
    expect(failureOf(limited)).toMatchObject({ code: 'RATE_LIMIT', status: 429 });
  });

  it('content_filter and unknown finish reasons → error with the upper-cased reason', async () => {
    expect(failureOf(await run(reply({ text: 'some', finish: 'content_filter' }))).code).toBe('CONTENT_FILTER');
    expect(failureOf(await run(reply({ text: 'some', finish: 'insufficient_system_resource' }))).code).toBe('INSUFFICIENT_SYSTEM_RESOURCE');
  });

  it('a caller abort mid-stream → finish aborted ABORTED, partial chunks delivered, socket released', async () => {
    // 30 deltas, 40 ms apart: the whole stream would take about 1.2 s.
    llm.enqueue(textResponse(`one two ${'x'.repeat(112)}`, { split: 4, frameDelayMs: 40 }));
    const controller = new AbortController();
    const before = llm.requests.length;
    const started = Date.now();
    const chunks = await collect(scriptedClient(llm.baseUrl), userRequest(), controller.signal, (chunk, all) => {
      if (chunk.type === 'text-delta' && all.filter((c) => c.type === 'text-delta').length === 2) controller.abort({ kind: 'user' });
    });
    expect(llm.requests.length - before).toBe(1);
    expectWellFormed(chunks);
    expect(finishOf(chunks)).toEqual({ kind: 'aborted', failure: expect.objectContaining({ code: 'ABORTED' }) });
    expect(textOf(chunks)).toBe('one two ');
    expect(Date.now() - started).toBeLessThan(700); // did not wait for the rest of the stream
  });

  it('an already aborted signal → ABORTED without a request', async () => {
    const controller = new AbortController();
    controller.abort();
    const before = llm.requests.length;
    const chunks = await collect(scriptedClient(llm.baseUrl), userRequest(), controller.signal);
    expect(llm.requests.length).toBe(before);
    expect(finishOf(chunks)).toMatchObject({ kind: 'aborted', failure: { code: 'ABORTED' } });
  });

  it('a tool call cut by max tokens never surfaces as a tool-call block', async () => {
    const chunks = await run(toolCallResponse([{ id: 'call_1', name: 'write_file', arguments: '{"path":"a.txt","content":"hello wor' }], { text: 'Writing.', finish: 'length', split: 6 }));
    expect(finishOf(chunks)).toEqual({ kind: 'max-tokens' });
    expect(chunks.some((c) => c.type === 'block-end' && c.block.type === 'tool-call')).toBe(false);
    expect(chunks.filter((c) => c.type === 'block-end').map((c) => (c.type === 'block-end' ? c.block : undefined))).toEqual([{ type: 'text', text: 'Writing.' }]);
  });
});

describe('failures before any I/O', () => {
  let llm: ScriptedLlm;
  beforeAll(async () => {
    llm = await startScriptedLlm();
  });
  afterAll(async () => {
    await llm.close();
  });

  it('MISSING_CREDENTIAL: a keyed preset without a key sends nothing', async () => {
    llm.enqueue(textResponse('never'));
    const chunks = await collect(scriptedClient(llm.baseUrl, { provider: 'deepseek', model: 'deepseek-v4-flash' }), userRequest('hi', { provider: 'deepseek', model: 'deepseek-v4-flash' }));
    expect(finishOf(chunks)).toMatchObject({ kind: 'error', failure: { code: 'MISSING_CREDENTIAL' } });
    expect(failureOf(chunks).message).toContain('DEEPSEEK_API_KEY');
    expect(llm.requests.length).toBe(0);
  });

  it('UNSUPPORTED_REASONING_EFFORT: DeepSeek effort "auto" is refused locally (D5)', async () => {
    const client = scriptedClient(llm.baseUrl, { provider: 'deepseek', model: 'deepseek-v4-flash', apiKey: 'sk-test' });
    const chunks = await collect(client, userRequest('compact this', { provider: 'deepseek', model: 'deepseek-v4-flash', reasoningEffort: 'auto' }));
    expect(finishOf(chunks)).toMatchObject({ kind: 'error', failure: { code: 'UNSUPPORTED_REASONING_EFFORT' } });
    const viaSettings = scriptedClient(llm.baseUrl, { provider: 'deepseek', model: 'deepseek-v4-flash', apiKey: 'sk-test', reasoningEffort: 'medium' });
    expect(finishCode(await collect(viaSettings, userRequest()))).toBe('UNSUPPORTED_REASONING_EFFORT');
    expect(llm.requests.length).toBe(0);
  });

  it('TRANSPORT: connection refused', async () => {
    const gone = await startScriptedLlm();
    const baseUrl = gone.baseUrl;
    await gone.close();
    const chunks = await collect(scriptedClient(baseUrl), userRequest());
    expect(chunks).toHaveLength(1);
    expect(failureOf(chunks).code).toBe('TRANSPORT');
    expect(failureOf(chunks).message).toMatch(/ECONNREFUSED|Connection error/);
  });
});
