/**
 * Every provider kind through a full tool round trip (issue 9): a recorded or spec-built stream
 * (sources in test/fixtures/provider-streams/NOTES.md) drives the real `openai` client and the agent
 * to a tool call; the tool runs; the next request must pass a validator that rejects what that
 * provider rejects (test/support/provider-validators.ts) — a missing reasoning echo, a missing thought
 * signature, `""` arguments, fields a strict server refuses. The validator answers like the provider
 * would (HTTP 400 with its error body), so a request it rejects ends the turn in an error.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { eventsOfType } from '../../../shared/events.js';
import { defineTool, type ToolDefinition } from '../../../electron/tools/tool.js';
import type { ProviderSettings } from '../../../electron/llm/providers.js';
import { createHarness, type Harness } from '../../support/agent-harness.js';
import { fixture, replayFile, startScriptedLlm, textResponse, type RequestValidator, type ScriptedLlm } from '../../support/scripted-llm/index.js';
import { deepSeekViolations, geminiViolations, openAiViolations, openRouterViolations, badArguments, validators } from '../../support/provider-validators.js';

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
  llm.setValidator(undefined);
});

/** A read-only test tool that answers with a fixed text. */
function fixedTool(name: string, parameters: z.ZodType, answer: string): ToolDefinition {
  return defineTool({ name, description: `test tool ${name}`, parameters, risk: 'read', presentation: 'generic', isConcurrencySafe: () => true, execute: async () => ({ content: answer }) });
}

const TOOLS: ToolDefinition[] = [
  fixedTool('weather', z.object({ location: z.string() }).strict(), 'sunny, 21 °C'),
  fixedTool('add', z.object({ a: z.number(), b: z.number() }).strict(), '5'),
  fixedTool('multiply', z.object({ a: z.number(), b: z.number() }).strict(), '6'),
  fixedTool('list_files', z.object({ path: z.string() }).strict(), 'a.txt\nb.txt'),
  fixedTool('get_weather', z.object({ city: z.string() }).strict(), 'mild'),
  fixedTool('get_time', z.object({}).strict(), '12:00'),
  fixedTool('read_note', z.object({ name: z.string() }).strict(), 'buy milk'),
];

interface Case {
  readonly name: string;
  readonly stream: string;
  readonly client: Partial<ProviderSettings>;
  readonly validator: RequestValidator;
  /** Extra checks on the second request body. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw wire JSON
  readonly check: (body: any) => void;
}

const OPENROUTER_DETAILS = [
  { type: 'reasoning.text', text: 'The user wants the files. I will list the folder.', format: 'anthropic-claude-v1', index: 0, signature: 'EqQBCkgIBxABGAIiQLspecbuiltSignatureAAAA' },
];
const GEMINI_SIGNATURES: Record<string, string> = { 'function-call-11111': 'CiQB0e2Kb7specBuiltThoughtSignature==' };

const CASES: Case[] = [
  {
    name: 'DeepSeek (recorded deepseek-reasoner stream) on a custom endpoint: reasoning_content learned from the wire and echoed',
    stream: 'deepseek-reasoner_reasoning-then-tool-call.chunks.jsonl',
    client: { provider: 'custom', dialect: undefined },
    validator: validators.deepseek(),
    check: (body) => {
      const assistant = body.messages.find((m: { role: string }) => m.role === 'assistant');
      expect(assistant.reasoning_content).toMatch(/^The user is asking/);
      expect(assistant.tool_calls[0]).toEqual({ id: 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF', type: 'function', function: { name: 'weather', arguments: '{"location": "San Francisco"}' } });
    },
  },
  {
    name: 'DeepSeek preset (recorded stream)',
    stream: 'deepseek-reasoner_reasoning-then-tool-call.chunks.jsonl',
    client: { provider: 'deepseek', dialect: undefined, apiKey: 'sk-test', model: 'deepseek-reasoner' },
    validator: validators.deepseek(),
    check: (body) => {
      expect(body.thinking).toEqual({ type: 'enabled' });
      expect(body.messages.find((m: { role: string }) => m.role === 'assistant').reasoning_content).toMatch(/^The user is asking/);
    },
  },
  {
    name: 'OpenAI (recorded gpt-4o parallel calls): strict fields only',
    stream: 'openai-gpt-4o_parallel-tool-calls_two-step.step1.sse',
    client: { provider: 'openai', dialect: undefined, apiKey: 'sk-test', model: 'gpt-4o' },
    validator: validators.openai(),
    check: (body) => {
      const assistant = body.messages.find((m: { role: string }) => m.role === 'assistant');
      expect(Object.keys(assistant).sort()).toEqual(['content', 'role', 'tool_calls']);
      expect(assistant.tool_calls.map((c: { function: { name: string } }) => c.function.name)).toEqual(['add', 'multiply']);
      expect(body.messages.filter((m: { role: string }) => m.role === 'tool').map((m: { tool_call_id: string }) => m.tool_call_id)).toEqual(assistant.tool_calls.map((c: { id: string }) => c.id));
    },
  },
  {
    name: 'OpenRouter (spec-built Anthropic stream): reasoning and reasoning_details sent back as streamed',
    stream: 'openrouter-claude-sonnet_reasoning-details-then-tool-call.spec.sse',
    client: { provider: 'openrouter', dialect: undefined, apiKey: 'sk-or-test', model: 'anthropic/claude-sonnet-4.5' },
    validator: validators.openrouter(OPENROUTER_DETAILS),
    check: (body) => {
      const assistant = body.messages.find((m: { role: string }) => m.role === 'assistant');
      expect(assistant.reasoning).toBe('The user wants the files. I will list the folder.');
      expect(assistant.reasoning_details).toEqual(OPENROUTER_DETAILS);
      expect(assistant.reasoning_content).toBeUndefined();
    },
  },
  {
    name: 'Ollama /v1 (spec-built qwen3 stream): `reasoning` echoed in its own field',
    stream: 'ollama-qwen3_reasoning-then-tool-call.spec.sse',
    client: { provider: 'ollama', dialect: undefined, model: 'qwen3:8b' },
    validator: validators.ollama(),
    check: (body) => {
      const assistant = body.messages.find((m: { role: string }) => m.role === 'assistant');
      expect(assistant.reasoning).toBe('I need the current time.');
      expect(assistant.tool_calls[0].function).toEqual({ name: 'get_time', arguments: '{}' });
    },
  },
  {
    name: 'vLLM (spec-built stream): a zero-argument call streamed as "" goes back as "{}"',
    stream: 'vllm-qwen3_reasoning-content-then-zero-arg-call.spec.sse',
    client: { provider: 'vllm', dialect: undefined, model: 'Qwen/Qwen3-8B' },
    validator: validators.vllm(),
    check: (body) => {
      const assistant = body.messages.find((m: { role: string }) => m.role === 'assistant');
      expect(assistant.tool_calls[0].function).toEqual({ name: 'get_time', arguments: '{}' });
      expect(assistant.reasoning_content).toBe('Check the clock before answering.');
    },
  },
  {
    name: 'llama.cpp (spec-built llama-server stream)',
    stream: 'llamacpp_reasoning-content-then-tool-call.spec.sse',
    client: { provider: 'llamacpp', dialect: undefined, model: 'local' },
    validator: validators.llamacpp(),
    check: (body) => {
      const assistant = body.messages.find((m: { role: string }) => m.role === 'assistant');
      expect(assistant.tool_calls[0].function).toEqual({ name: 'read_note', arguments: '{"name":"todo"}' });
      expect(assistant.reasoning_content).toBe('Read the file first.');
    },
  },
  {
    name: 'Gemini OpenAI-compatible (spec-built stream): the thought signature returns on its call, parallel calls without index stay two',
    stream: 'gemini-3-pro_parallel-tool-calls-thought-signature.spec.sse',
    client: { provider: 'gemini', dialect: undefined, apiKey: 'gm-test', model: 'gemini-3-pro-preview' },
    validator: validators.gemini((id) => GEMINI_SIGNATURES[id]),
    check: (body) => {
      const assistant = body.messages.find((m: { role: string }) => m.role === 'assistant');
      expect(assistant.tool_calls).toEqual([
        {
          id: 'function-call-11111',
          type: 'function',
          function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          extra_content: { google: { thought_signature: 'CiQB0e2Kb7specBuiltThoughtSignature==' } },
        },
        { id: 'function-call-22222', type: 'function', function: { name: 'get_weather', arguments: '{"city":"London"}' } },
      ]);
    },
  },
];

describe("a tool round trip on every provider, checked by that provider's validator", () => {
  for (const c of CASES) {
    it(c.name, async () => {
      llm.setValidator(c.validator);
      llm.enqueue(replayFile(fixture(c.stream)), textResponse('done'));
      harness = await createHarness({ llm, tools: TOOLS, client: c.client, agent: { config: () => ({ provider: c.client.provider ?? 'custom', model: c.client.model ?? 'scripted-model' }) } });
      const before = llm.requests.length;
      harness.agent.followup('go');
      await harness.agent.whenIdle();
      const events = harness.events();
      expect(llm.rejected.map((r) => JSON.stringify(r.step))).toEqual([]);
      expect(eventsOfType(events, 'turn/end').at(-1)!.data.reason).toEqual({ kind: 'completed' });
      const results = eventsOfType(events, 'tool/result');
      expect(results.length).toBeGreaterThan(0);
      expect(results.every((r) => !r.data.message.content[0].isError)).toBe(true);
      expect(llm.requests.length).toBe(before + 2);
      c.check(llm.requests.at(-1)!.body);
    });
  }
});

describe('the validators reject what the providers reject', () => {
  const call = (args: string, extra: Record<string, unknown> = {}) => ({ id: 'c1', type: 'function', function: { name: 't', arguments: args }, ...extra });
  const body = (assistant: Record<string, unknown>) => ({
    model: 'm',
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: '', ...assistant },
      { role: 'tool', tool_call_id: 'c1', content: 'ok' },
    ],
  });

  it("DeepSeek: a tool-call message without reasoning_content (the issue's 400)", () => {
    expect(deepSeekViolations(body({ tool_calls: [call('{}')] }))).toEqual(['Missing `reasoning_content` field in the assistant message at message index 1']);
    expect(deepSeekViolations(body({ tool_calls: [call('{}')], reasoning_content: '' }))).toEqual([]);
  });

  it('OpenAI: unknown fields on the message, the call or the body', () => {
    expect(openAiViolations(body({ tool_calls: [call('{}')], reasoning_content: 'x' }))).toEqual(['Unrecognized request argument supplied: messages[1].reasoning_content']);
    expect(openAiViolations(body({ tool_calls: [call('{}', { extra_content: {} })] }))).toEqual(['Unrecognized request argument supplied: messages[1].tool_calls[].extra_content']);
    expect(openAiViolations({ ...body({}), thinking: { type: 'enabled' } })).toEqual(['Unrecognized request argument supplied: thinking']);
  });

  it('every strict server: "" or blank arguments', () => {
    expect(badArguments(body({ tool_calls: [call('')] }))).toHaveLength(1);
    expect(badArguments(body({ tool_calls: [call('  ')] }))).toHaveLength(1);
    expect(badArguments(body({ tool_calls: [call('{}')] }))).toEqual([]);
  });

  it('OpenRouter: reasoning_details missing or changed', () => {
    expect(openRouterViolations(body({ tool_calls: [call('{}')] }), OPENROUTER_DETAILS)).toHaveLength(1);
    expect(openRouterViolations(body({ tool_calls: [call('{}')], reasoning_details: [{ ...OPENROUTER_DETAILS[0], signature: 'other' }] }), OPENROUTER_DETAILS)).toHaveLength(1);
    expect(openRouterViolations(body({ tool_calls: [call('{}')], reasoning_details: OPENROUTER_DETAILS }), OPENROUTER_DETAILS)).toEqual([]);
  });

  it('Gemini: the first call of a step without its thought signature', () => {
    const sig = (id: string) => (id === 'c1' ? 'sig' : undefined);
    expect(geminiViolations(body({ tool_calls: [call('{}')] }), sig)[0]).toMatch(/missing a thought_signature/);
    expect(geminiViolations(body({ tool_calls: [call('{}', { extra_content: { google: { thought_signature: 'sig' } } })] }), sig)).toEqual([]);
  });
});
