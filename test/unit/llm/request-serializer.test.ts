import { describe, expect, it } from 'vitest';
import type { LlmCallConfig } from '../../../shared/events.js';
import { SYSTEM_ROLE_SOURCE, type AssistantBlock, type Message, type ToolSchema } from '../../../shared/messages.js';
import type { ModelRequest } from '../../../electron/llm/model-client.js';
import { callConfigFor, PROVIDER_PRESETS } from '../../../electron/llm/providers.js';
import { LlmConfigurationError } from '../../../electron/llm/reasoning-effort.js';
import { serializeChatRequest, type SerializeOptions } from '../../../electron/llm/request-serializer.js';

const deepseek: SerializeOptions = { dialect: PROVIDER_PRESETS.deepseek.dialect };
const openai: SerializeOptions = { dialect: PROVIDER_PRESETS.openai.dialect };

const tools: ToolSchema[] = [
  { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  { name: 'bash', description: 'Run a command', parameters: { type: 'object', properties: { command: { type: 'string' }, timeoutMs: { type: 'number' } }, required: ['command'] } },
];

function assistant(id: string, content: AssistantBlock[]): Message {
  return { id, role: 'assistant', content, source: { kind: 'model', provider: 'deepseek', model: 'deepseek-v4-flash' } };
}
function toolResult(id: string, callId: string, text: string): Message {
  return { id, role: 'user', source: { kind: 'tool', callId }, content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text }], isError: false }] };
}
function user(id: string, ...texts: string[]): Message {
  return { id, role: 'user', content: texts.map((text) => ({ type: 'text' as const, text })), source: { kind: 'user' } };
}

const history: Message[] = [
  user('u1', 'fix the test'),
  assistant('a1', [
    { type: 'reasoning', text: 'Need to read the file.' },
    { type: 'text', text: 'Reading.' },
    { type: 'tool-call', id: 'call_1', name: 'read_file', arguments: '{"path":"sum.js"}' },
  ]),
  toolResult('t1', 'call_1', 'export function sum() {}'),
  assistant('a2', [{ type: 'tool-call', id: 'call_2', name: 'bash', arguments: '{"command":"node test.js"}' }]),
  toolResult('t2', 'call_2', 'ok'),
  assistant('a3', [{ type: 'text', text: 'Done.' }]),
  assistant('a4', [
    { type: 'reasoning', text: 'Think only.' },
    { type: 'text', text: 'Answer.' },
  ]),
];

function request(config: Partial<LlmCallConfig> = {}, messages: Message[] = history): ModelRequest {
  return { header: { config: { provider: 'deepseek', model: 'deepseek-v4-flash', maxTokens: 8192, temperature: 0.2, ...config }, system: 'You are Forkline.', tools }, messages };
}

/** Rebuilds a value with every object's keys in reverse order (same content, other construction order). */
function reverseKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(reverseKeys) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .reverse()
        .map(([k, v]) => [k, reverseKeys(v)]),
    ) as T;
  }
  return value;
}

describe('serializeChatRequest', () => {
  it('is deterministic: same bytes across calls and across key orders of the input objects', () => {
    const first = JSON.stringify(serializeChatRequest(request(), deepseek));
    expect(JSON.stringify(serializeChatRequest(request(), deepseek))).toBe(first);
    const permuted: ModelRequest = {
      messages: reverseKeys(history).map((m) => ({ ...m })),
      header: reverseKeys({ tools, system: 'You are Forkline.', config: { temperature: 0.2, maxTokens: 8192, model: 'deepseek-v4-flash', provider: 'deepseek' } }),
    };
    // Tool parameters keep their own (declared) order; only the envelope is rebuilt.
    const expected = JSON.parse(first) as { tools: unknown[] };
    const got = serializeChatRequest(permuted, deepseek);
    expect(JSON.stringify({ ...got, tools: undefined })).toBe(JSON.stringify({ ...expected, tools: undefined }));
    const samePermutedTools: ModelRequest = { ...permuted, header: { ...permuted.header, tools } };
    expect(JSON.stringify(serializeChatRequest(samePermutedTools, deepseek))).toBe(first);
  });

  it('uses a fixed top-level key order and keeps tools in header order', () => {
    const body = serializeChatRequest(request(), deepseek);
    expect(Object.keys(body)).toEqual(['model', 'messages', 'tools', 'stream', 'stream_options', 'max_tokens', 'temperature', 'thinking', 'reasoning_effort']);
    expect(body.tools?.map((t) => t.function.name)).toEqual(['read_file', 'bash']);
    expect(body.tools?.[0]).toEqual({ type: 'function', function: tools[0] });
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.max_tokens).toBe(8192);
  });

  it('serialises each message kind', () => {
    const body = serializeChatRequest(request(), deepseek);
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are Forkline.' },
      { role: 'user', content: 'fix the test' },
      {
        role: 'assistant',
        content: 'Reading.',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"sum.js"}' } }],
        reasoning_content: 'Need to read the file.',
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'export function sum() {}' },
      // A tool-call turn without reasoning still sends reasoning_content, as "" (fault class 4).
      { role: 'assistant', content: '', tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'bash', arguments: '{"command":"node test.js"}' } }], reasoning_content: '' },
      { role: 'tool', tool_call_id: 'call_2', content: 'ok' },
      { role: 'assistant', content: 'Done.' },
      { role: 'assistant', content: 'Answer.', reasoning_content: 'Think only.' },
    ]);
    for (const m of body.messages) if (m.role === 'assistant') expect(m.content).not.toBeNull();
  });

  it('joins several user text blocks with a blank line and omits an empty system prompt', () => {
    const body = serializeChatRequest({ header: { config: { provider: 'custom', model: 'm' }, system: '' }, messages: [user('u', 'one', 'two')] }, { dialect: PROVIDER_PRESETS.custom.dialect });
    expect(body.messages).toEqual([{ role: 'user', content: 'one\n\ntwo' }]);
    expect(body).not.toHaveProperty('tools');
    expect(body).not.toHaveProperty('max_tokens');
    expect(body).not.toHaveProperty('thinking');
  });

  it('a system message the request playground added goes out as role system where it stands; an injected one stays user', () => {
    const added: Message = { id: 's', role: 'user', content: [{ type: 'text', text: 'Answer in German.' }], source: SYSTEM_ROLE_SOURCE };
    const injected: Message = { id: 'i', role: 'user', content: [{ type: 'text', text: 'context' }], source: { kind: 'inject' } };
    const body = serializeChatRequest(
      { header: { config: { provider: 'custom', model: 'm' }, system: 'You are Forkline.' }, messages: [user('u', 'hi'), added, injected] },
      { dialect: PROVIDER_PRESETS.custom.dialect },
    );
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are Forkline.' },
      { role: 'user', content: 'hi' },
      { role: 'system', content: 'Answer in German.' },
      { role: 'user', content: 'context' },
    ]);
  });

  it('DeepSeek thinking: default high, off disables, low/max pass, unknown values throw before anything else', () => {
    const fields = (effort?: string) => {
      const body = serializeChatRequest(request(effort === undefined ? {} : { reasoningEffort: effort }), deepseek);
      return { thinking: body.thinking, reasoning_effort: body.reasoning_effort };
    };
    expect(fields()).toEqual({ thinking: { type: 'enabled' }, reasoning_effort: 'high' });
    expect(fields('off')).toEqual({ thinking: { type: 'disabled' }, reasoning_effort: undefined });
    expect(fields('low')).toEqual({ thinking: { type: 'enabled' }, reasoning_effort: 'low' });
    expect(fields('max')).toEqual({ thinking: { type: 'enabled' }, reasoning_effort: 'max' });
    for (const bad of ['auto', 'medium', 'HIGH', '']) {
      expect(() => serializeChatRequest(request({ reasoningEffort: bad }), deepseek)).toThrow(LlmConfigurationError);
    }
    try {
      serializeChatRequest(request({ reasoningEffort: 'auto' }), deepseek);
    } catch (error) {
      expect((error as LlmConfigurationError).code).toBe('UNSUPPORTED_REASONING_EFFORT');
    }
    const body = serializeChatRequest(request({ reasoningEffort: 'off' }), deepseek);
    expect(body).not.toHaveProperty('reasoning_effort');
  });

  it('OpenAI dialect: no reasoning_content in history, max_completion_tokens, effort only when valid', () => {
    const body = serializeChatRequest(request({ provider: 'openai', model: 'gpt-5-mini', reasoningEffort: 'minimal' }), openai);
    expect(body.messages.some((m) => 'reasoning_content' in m)).toBe(false);
    expect(body.max_completion_tokens).toBe(8192);
    expect(body).not.toHaveProperty('max_tokens');
    expect(body.reasoning_effort).toBe('minimal');
    expect(body).not.toHaveProperty('thinking');
    expect(serializeChatRequest(request({ reasoningEffort: 'max' }), openai)).not.toHaveProperty('reasoning_effort');
    expect(serializeChatRequest(request({ reasoningEffort: 'off' }), openai)).not.toHaveProperty('reasoning_effort');
    const ollama = serializeChatRequest(request({ reasoningEffort: 'high' }), { dialect: PROVIDER_PRESETS.ollama.dialect });
    expect(ollama).not.toHaveProperty('reasoning_effort');
    expect(ollama.messages.some((m) => 'reasoning_content' in m)).toBe(false);
  });

  it('falls back to the options when the header leaves fields out; the header wins otherwise', () => {
    const options: SerializeOptions = { ...deepseek, fallbackModel: 'deepseek-v4-pro', fallbackReasoningEffort: 'off', fallbackMaxTokens: 1000 };
    const bare = serializeChatRequest({ header: { config: { provider: 'deepseek', model: '' } }, messages: [user('u', 'x')] }, options);
    expect(bare).toMatchObject({ model: 'deepseek-v4-pro', max_tokens: 1000, thinking: { type: 'disabled' } });
    const explicit = serializeChatRequest({ header: { config: { provider: 'deepseek', model: 'deepseek-v4-flash', maxTokens: 5, reasoningEffort: 'max' } }, messages: [user('u', 'x')] }, options);
    expect(explicit).toMatchObject({ model: 'deepseek-v4-flash', max_tokens: 5, thinking: { type: 'enabled' }, reasoning_effort: 'max' });
  });
});

describe('echo what the wire sent (docs/architecture.md §5)', () => {
  const custom: SerializeOptions = { dialect: PROVIDER_PRESETS.custom.dialect };
  const openrouter: SerializeOptions = { dialect: PROVIDER_PRESETS.openrouter.dialect };
  const details = [{ type: 'reasoning.encrypted', data: 'ENC', format: 'openai-responses-v1', index: 0 }];
  const taught: Message[] = [
    user('u1', 'go'),
    assistant('a1', [
      { type: 'reasoning', text: 'Think.', field: 'reasoning_content' },
      { type: 'tool-call', id: 'c1', name: 'bash', arguments: '{"command":"ls"}' },
    ]),
    toolResult('t1', 'c1', 'a.txt'),
    // A later call with no reasoning: a DeepSeek-compatible server still wants the field ("").
    assistant('a2', [{ type: 'tool-call', id: 'c2', name: 'list', arguments: '' }]),
    toolResult('t2', 'c2', 'ok'),
  ];
  const wireAssistants = (options: SerializeOptions, messages: Message[]) =>
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON
    serializeChatRequest(request({ provider: 'custom', model: 'm' }, messages), options).messages.filter((m) => m.role === 'assistant') as any[];

  it('custom endpoint: reasoning_content learned from the wire goes back on every tool-call message ("" when none)', () => {
    const [a1, a2] = wireAssistants(custom, taught);
    expect(a1.reasoning_content).toBe('Think.');
    expect(a2.reasoning_content).toBe('');
    expect(a2.tool_calls[0].function.arguments).toBe('{}'); // a zero-argument call streamed as ""
  });

  it('custom endpoint with no reasoning_content on the wire: nothing is added', () => {
    const plain = [user('u1', 'go'), assistant('a1', [{ type: 'tool-call', id: 'c1', name: 'bash', arguments: '  ' }]), toolResult('t1', 'c1', 'x')];
    const [a1] = wireAssistants(custom, plain);
    expect(Object.keys(a1)).toEqual(['role', 'content', 'tool_calls']);
    expect(a1.tool_calls[0].function.arguments).toBe('{}');
  });

  it('`reasoning` and `reasoning_details` go back in their own fields; extras go back on their call', () => {
    const messages = [
      user('u1', 'go'),
      assistant('a1', [
        { type: 'reasoning', text: 'Plan.', field: 'reasoning', details },
        { type: 'tool-call', id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}', extras: { extra_content: { google: { thought_signature: 'SIG' } } } },
      ]),
      toolResult('t1', 'c1', 'mild'),
    ];
    const [a1] = wireAssistants(openrouter, messages);
    expect(a1).toEqual({
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' }, extra_content: { google: { thought_signature: 'SIG' } } }],
      reasoning: 'Plan.',
      reasoning_details: details,
    });
  });

  it('an extra can never overwrite the standard call fields', () => {
    const messages = [
      user('u1', 'go'),
      assistant('a1', [{ type: 'tool-call', id: 'c1', name: 't', arguments: '{}', extras: { id: 'evil', function: { name: 'x' }, ok: 1 } }]),
      toolResult('t1', 'c1', 'x'),
    ];
    const [a1] = wireAssistants(custom, messages);
    expect(a1.tool_calls[0]).toEqual({ id: 'c1', type: 'function', function: { name: 't', arguments: '{}' }, ok: 1 });
  });

  it("strict OpenAI never receives reasoning fields or extras, even from another provider's history", () => {
    const messages = [
      ...taught,
      assistant('a3', [
        { type: 'reasoning', text: 'x', field: 'reasoning', details },
        { type: 'tool-call', id: 'c3', name: 't', arguments: '{}', extras: { extra_content: {} } },
      ]),
      toolResult('t3', 'c3', 'x'),
    ];
    for (const a of wireAssistants(openai, messages)) {
      expect(Object.keys(a).sort()).toEqual(['content', 'role', 'tool_calls']);
      for (const call of a.tool_calls) expect(Object.keys(call)).toEqual(['id', 'type', 'function']);
    }
  });

  it('reasoning of unknown origin (older or imported logs) counts as reasoning_content once the wire speaks it', () => {
    const legacy = [
      ...taught,
      assistant('a3', [
        { type: 'reasoning', text: 'old' },
        { type: 'tool-call', id: 'c3', name: 't', arguments: '{}' },
      ]),
      toolResult('t3', 'c3', 'x'),
    ];
    expect(wireAssistants(custom, legacy)[2].reasoning_content).toBe('old');
    const alone = [
      user('u1', 'go'),
      assistant('a1', [
        { type: 'reasoning', text: 'old' },
        { type: 'tool-call', id: 'c1', name: 't', arguments: '{}' },
      ]),
      toolResult('t1', 'c1', 'x'),
    ];
    expect(wireAssistants(custom, alone)[0].reasoning_content).toBeUndefined();
  });
});

describe('callConfigFor', () => {
  it('logs the effective effort and output cap', () => {
    expect(callConfigFor({ provider: 'deepseek', baseUrl: 'x', model: 'deepseek-v4-flash' })).toEqual({ provider: 'deepseek', model: 'deepseek-v4-flash', reasoningEffort: 'high' });
    expect(callConfigFor({ provider: 'deepseek', baseUrl: 'x', model: 'deepseek-chat' })).toEqual({ provider: 'deepseek', model: 'deepseek-chat', reasoningEffort: 'off' });
    expect(callConfigFor({ provider: 'ollama', baseUrl: 'x', model: 'qwen3', reasoningEffort: 'high', maxOutputTokens: 100 })).toEqual({ provider: 'ollama', model: 'qwen3', maxTokens: 100 });
  });
});

describe("a message's id is never sent", () => {
  // replay-session.ts compares requests without serialising them when everything but the messages'
  // ids is the same (a replay mints new ids); this holds the serializer to never writing them.
  const outOfOrder: Message[] = [
    user('u1', 'run both'),
    assistant('a1', [
      { type: 'tool-call', id: 'call_a', name: 'bash', arguments: '{"command":"ls"}' },
      { type: 'tool-call', id: 'call_b', name: 'bash', arguments: '{"command":"pwd"}' },
    ]),
    toolResult('t2', 'call_b', '/work'),
    toolResult('t1', 'call_a', 'a.txt'),
    toolResult('t3', 'call_gone', 'an orphan result'),
  ];
  const renamed = (messages: readonly Message[]): Message[] => messages.map((m, i) => ({ ...m, id: `renamed-${i}-${m.id}` }));
  it.each(Object.keys(PROVIDER_PRESETS) as (keyof typeof PROVIDER_PRESETS)[])('for %s: other message ids give the same body', (provider) => {
    const options: SerializeOptions = { dialect: PROVIDER_PRESETS[provider].dialect };
    for (const messages of [history, outOfOrder]) {
      const config = { provider, model: 'm' };
      expect(JSON.stringify(serializeChatRequest(request(config, renamed(messages)), options))).toBe(JSON.stringify(serializeChatRequest(request(config, messages), options)));
    }
  });
});
