/**
 * What the real `openai` client puts on the wire through our adapter, and how split/parallel tool
 * calls come back, against the scripted server.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AssistantBlock, Message } from '../../../shared/messages.js';
import { BlockAssembler } from '../../../electron/llm/assembler.js';
import {
  fixture,
  frame,
  framesResponse,
  httpError,
  reasoningResponse,
  replayFile,
  startScriptedLlm,
  textResponse,
  toolCallResponse,
  usage,
  wireChunk,
  type ScriptedLlm,
} from '../../support/scripted-llm/index.js';
import { collect, expectWellFormed, finishOf, scriptedClient, userRequest } from './helpers.js';

/** JSON text with every object's keys sorted. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner) ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => a.localeCompare(b))) : inner,
  );
}

const blocksOf = (chunks: Parameters<BlockAssembler['pushAll']>[0]) => new BlockAssembler().pushAll(chunks).result().blocks;

function assistant(id: string, content: AssistantBlock[]): Message {
  return { id, role: 'assistant', content, source: { kind: 'model', provider: 'deepseek', model: 'deepseek-v4-flash' } };
}
function toolResult(id: string, callId: string, text: string): Message {
  return { id, role: 'user', source: { kind: 'tool', callId }, content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text }], isError: false }] };
}

describe('requests on the wire', () => {
  let llm: ScriptedLlm;
  beforeAll(async () => {
    llm = await startScriptedLlm();
  });
  afterAll(async () => {
    await llm.close();
  });

  it('sends exactly the serialised body, with the key and extra headers', async () => {
    const client = scriptedClient(llm.baseUrl, { provider: 'deepseek', model: 'deepseek-v4-flash', apiKey: 'sk-test', extraHeaders: { 'x-forkline-session': 's1' } });
    const request = userRequest(
      'hello',
      { provider: 'deepseek', model: 'deepseek-v4-flash', maxTokens: 4096 },
      {
        system: 'be brief',
        tools: [{ name: 'read_file', description: 'Read', parameters: { type: 'object', properties: { path: { type: 'string' } } } }],
      },
    );
    llm.enqueue(textResponse('hi'), textResponse('hi again'));
    await collect(client, request);
    await collect(client, request);
    const [first, second] = llm.requests.slice(-2);
    expect(first!.rawBody).toBe(JSON.stringify(client.requestBody(request)));
    expect(second!.rawBody).toBe(first!.rawBody); // byte-stable across calls (prefix cache)
    expect(first!.path).toBe('/v1/chat/completions');
    expect(first!.headers['authorization']).toBe('Bearer sk-test');
    expect(first!.headers['x-forkline-session']).toBe('s1');
    expect(first!.body).toMatchObject({ model: 'deepseek-v4-flash', stream: true, stream_options: { include_usage: true }, max_tokens: 4096, thinking: { type: 'enabled' }, reasoning_effort: 'high' });
  });

  it('DeepSeek thinking switch and effort on the wire', async () => {
    const client = scriptedClient(llm.baseUrl, { provider: 'deepseek', model: 'deepseek-v4-pro', apiKey: 'sk-test' });
    llm.enqueue(textResponse('a'), textResponse('b'), textResponse('c'));
    await collect(client, userRequest('x', { provider: 'deepseek', model: 'deepseek-v4-pro', reasoningEffort: 'off' }));
    await collect(client, userRequest('x', { provider: 'deepseek', model: 'deepseek-v4-pro', reasoningEffort: 'max' }));
    await collect(scriptedClient(llm.baseUrl, { provider: 'deepseek', model: 'deepseek-chat', apiKey: 'sk-test' }), userRequest('x', { provider: 'deepseek', model: '' }));
    const [off, max, chat] = llm.requests.slice(-3).map((r) => r.body);
    expect(off.thinking).toEqual({ type: 'disabled' });
    expect(off).not.toHaveProperty('reasoning_effort');
    expect(max).toMatchObject({ thinking: { type: 'enabled' }, reasoning_effort: 'max' });
    expect(chat).toMatchObject({ model: 'deepseek-chat', thinking: { type: 'disabled' } }); // the non-thinking alias defaults to off
  });

  it('sends reasoning_content back for every tool-call turn (also "" when empty) — DeepSeek fault class 4', async () => {
    const client = scriptedClient(llm.baseUrl, { provider: 'deepseek', model: 'deepseek-v4-flash', apiKey: 'sk-test' });
    // Turn 1 is produced by the (scripted) model, assembled from the stream like the agent does.
    llm.enqueue(toolCallResponse([{ id: 'call_1', name: 'read_file', arguments: '{"path":"sum.js"}' }], { reasoning: 'Read it first.', split: 3 }));
    const step1 = await collect(client, userRequest('fix sum'));
    const blocks1 = blocksOf(step1);
    expect(blocks1).toEqual([
      { type: 'reasoning', text: 'Read it first.', field: 'reasoning_content' },
      { type: 'tool-call', id: 'call_1', name: 'read_file', arguments: '{"path":"sum.js"}' },
    ]);
    llm.enqueue(toolCallResponse([{ id: 'call_2', name: 'bash', arguments: '{"command":"node test.js"}' }])); // no reasoning
    const history: Message[] = [{ id: 'u1', role: 'user', content: [{ type: 'text', text: 'fix sum' }], source: { kind: 'user' } }, assistant('a1', blocks1), toolResult('t1', 'call_1', 'source')];
    const step2 = await collect(client, userRequest('', {}, { messages: history }));
    const history2: Message[] = [...history, assistant('a2', blocksOf(step2)), toolResult('t2', 'call_2', 'ok')];
    llm.enqueue(textResponse('Done.'));
    await collect(client, userRequest('', {}, { messages: history2 }));
    const sent = llm.requests.at(-1)!.body.messages as Array<Record<string, unknown>>;
    const assistants = sent.filter((m) => m['role'] === 'assistant');
    expect(assistants).toEqual([
      { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"sum.js"}' } }], reasoning_content: 'Read it first.' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'bash', arguments: '{"command":"node test.js"}' } }], reasoning_content: '' },
    ]);
    expect(sent.filter((m) => m['role'] === 'tool')).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: 'source' },
      { role: 'tool', tool_call_id: 'call_2', content: 'ok' },
    ]);
  });

  it('rebuilds the recorded OpenAI two-step request from the step-1 stream', async () => {
    llm.enqueue(replayFile(fixture('openai-gpt-4o_parallel-tool-calls_two-step.step1.sse')));
    const step1 = await collect(scriptedClient(llm.baseUrl, { provider: 'openai', apiKey: 'sk-test', model: 'gpt-4o' }), userRequest());
    const recorded = JSON.parse(readFileSync(fixture('openai-gpt-4o_parallel-tool-calls_two-step.step2.request.json'), 'utf8')) as {
      body: { messages: Array<Record<string, unknown>>; tools: Array<{ function: { name: string; description: string; parameters: never } }> };
    };
    const calls = blocksOf(step1).filter((b) => b.type === 'tool-call');
    const history: Message[] = [
      { id: 'u', role: 'user', content: [{ type: 'text', text: recorded.body.messages[1]!['content'] as string }], source: { kind: 'user' } },
      assistant('a', blocksOf(step1)),
      toolResult('t1', calls[0]!.id, '5'),
      toolResult('t2', calls[1]!.id, '6'),
    ];
    const client = scriptedClient(llm.baseUrl, { provider: 'openai', apiKey: 'sk-test', model: 'gpt-4o' });
    const body = client.requestBody(
      userRequest(
        '',
        { provider: 'openai', model: 'gpt-4o' },
        {
          system: recorded.body.messages[0]!['content'] as string,
          tools: recorded.body.tools.map((t) => ({ name: t.function.name, description: t.function.description, parameters: t.function.parameters })),
          messages: history,
        },
      ),
    );
    // Same conversation as the recorded request (ours always sends content, "" when empty).
    const normalise = (messages: ReadonlyArray<Record<string, unknown>>) => messages.map((m) => canonical({ ...m, content: m['content'] ?? '' }));
    expect(normalise(body.messages as unknown as Array<Record<string, unknown>>)).toEqual(normalise(recorded.body.messages));
    expect(normalise(recorded.body.messages)).toHaveLength(5);
  });

  it('one attempt per call even for a retryable status with Retry-After 0', async () => {
    llm.enqueue(httpError(429, { error: { message: 'slow' } }, { retryAfter: 0 }), textResponse('should stay queued'));
    const before = llm.requests.length;
    const chunks = await collect(scriptedClient(llm.baseUrl), userRequest());
    expect(llm.requests.length - before).toBe(1);
    expect(finishOf(chunks)).toMatchObject({ kind: 'error', failure: { code: 'RATE_LIMIT', retryAfterMs: 0 } });
    expect(llm.pending).toBe(1);
    await collect(scriptedClient(llm.baseUrl), userRequest()); // drain
  });
});

describe('tool-call merging through the real client', () => {
  let llm: ScriptedLlm;
  beforeAll(async () => {
    llm = await startScriptedLlm();
  });
  afterAll(async () => {
    await llm.close();
  });

  const calls = [
    { id: 'call_read', name: 'read_file', arguments: '{"path":"src/sum.js"}' },
    { id: 'call_bash', name: 'bash', arguments: '{"command":"node test.js && echo \\"ok ✓\\""}' },
    { id: 'call_edit', name: 'edit_file', arguments: '{"path":"sum.js","old_string":"let total;","new_string":"let total = 0;"}' },
  ];

  for (const laterIdName of ['omit', 'empty', 'null'] as const) {
    for (const split of [1, 3, 17]) {
      it(`parallel interleaved calls, later id/name ${laterIdName}, ${split} char(s) per delta`, async () => {
        llm.enqueue(toolCallResponse(calls, { text: 'Three things.', laterIdName, split, interleave: true, usage: usage(100, 40, { cached: 64 }) }));
        const chunks = await collect(scriptedClient(llm.baseUrl), userRequest());
        expectWellFormed(chunks);
        const toolDeltas = chunks.filter((c) => c.type === 'tool-call-delta');
        for (const delta of toolDeltas) {
          expect(delta.type === 'tool-call-delta' && delta.id).toMatch(/^call_(read|bash|edit)$/);
          expect(delta.type === 'tool-call-delta' && delta.name).toMatch(/^(read_file|bash|edit_file)$/);
        }
        const blocks = blocksOf(chunks);
        expect(blocks).toEqual([{ type: 'text', text: 'Three things.' }, ...calls.map((c) => ({ type: 'tool-call', ...c }))]);
        for (const call of blocks.filter((b) => b.type === 'tool-call')) expect(() => JSON.parse(call.arguments)).not.toThrow();
        expect(chunks.find((c) => c.type === 'usage')).toEqual({ type: 'usage', usage: { inputTokens: 36, outputTokens: 40, cacheReadTokens: 64 } });
        expect(finishOf(chunks)).toEqual({ kind: 'tool-calls' });
      });
    }
  }

  it('two calls that share wire index 0 stay two calls', async () => {
    llm.enqueue(
      framesResponse([
        frame.data(wireChunk({ role: 'assistant', content: null })),
        frame.data(wireChunk({ tool_calls: [{ index: 0, id: 'a1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }] })),
        frame.data(wireChunk({ tool_calls: [{ index: 0, id: 'b2', type: 'function', function: { name: 'read_file', arguments: '{"path":"b"}' } }] })),
        frame.data(wireChunk({}, { finishReason: 'tool_calls' })),
        frame.done(),
      ]),
    );
    const chunks = await collect(scriptedClient(llm.baseUrl), userRequest());
    expectWellFormed(chunks);
    expect(blocksOf(chunks)).toEqual([
      { type: 'tool-call', id: 'a1', name: 'read_file', arguments: '{"path":"a"}' },
      { type: 'tool-call', id: 'b2', name: 'read_file', arguments: '{"path":"b"}' },
    ]);
  });

  it('usage on the finish chunk (DeepSeek style) and reasoning via the `reasoning` field (Groq style)', async () => {
    llm.enqueue(reasoningResponse('thinking hard', 'answer', { reasoningField: 'reasoning', usage: usage(50, 20, { reasoning: 12 }), usageIn: 'finish-chunk' }));
    const chunks = await collect(scriptedClient(llm.baseUrl), userRequest());
    expectWellFormed(chunks);
    expect(blocksOf(chunks)).toEqual([
      { type: 'reasoning', text: 'thinking hard', field: 'reasoning' },
      { type: 'text', text: 'answer' },
    ]);
    expect(chunks.at(-2)).toEqual({ type: 'usage', usage: { inputTokens: 50, outputTokens: 20, reasoningTokens: 12 } });
  });

  it('max-tokens in the middle of a tool call: the assembled message has no tool call', async () => {
    llm.enqueue(toolCallResponse([{ id: 'c1', name: 'edit_file', arguments: '{"path":"sum.js","old_str' }], { reasoning: 'edit', finish: 'length', split: 5 }));
    const chunks = await collect(scriptedClient(llm.baseUrl), userRequest());
    expectWellFormed(chunks);
    const result = new BlockAssembler().pushAll(chunks).result();
    expect(result.finish).toEqual({ kind: 'max-tokens' });
    expect(result.blocks).toEqual([{ type: 'reasoning', text: 'edit', field: 'reasoning_content' }]);
    // The raw deltas were still delivered (they are logged), but never as a closed block.
    expect(chunks.some((c) => c.type === 'tool-call-delta')).toBe(true);
  });
});
