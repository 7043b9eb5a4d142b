/**
 * Every recorded provider stream in shared/fixtures/provider-streams, played byte for byte by the
 * scripted server to the real `openai` client and our adapter. The expected result is computed
 * here, independently, from the raw file: concatenated text and reasoning, each tool call, the
 * finish reason, usage (cache hits, reasoning tokens), and the order in which content kinds first
 * appear.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlockAssembler } from '../../../electron/llm/assembler.js';
import { fixture, PROVIDER_STREAMS_DIR, replayFile, startScriptedLlm, type ScriptedLlm } from '../../support/scripted-llm/index.js';
import { collect, expectWellFormed, finishOf, scriptedClient, userRequest } from './helpers.js';

interface ExpectedCall {
  id: string;
  name: string;
  arguments: string;
}

interface Expected {
  reasoning: string;
  text: string;
  calls: ExpectedCall[];
  /** Content kinds in first-appearance order: 'reasoning', 'text', 'tool:<index>'. */
  order: string[];
  finishReason: string | undefined;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw wire JSON
  usage: any;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw wire JSON
  errorFrame: any;
  sawDone: boolean;
}

/** Parses a recording into its JSON payloads (plus error frames and the [DONE] marker). */
function payloads(file: string): { data: unknown[]; errorFrame: unknown; sawDone: boolean } {
  const raw = readFileSync(file, 'utf8');
  const data: unknown[] = [];
  let errorFrame: unknown;
  let sawDone = false;
  if (file.endsWith('.chunks.jsonl')) {
    for (const line of raw.split('\n')) if (line.trim() !== '') data.push(JSON.parse(line));
    return { data, errorFrame, sawDone: true }; // the server adds [DONE] to .chunks.jsonl replays
  }
  for (const event of raw.split(/\r?\n\r?\n/)) {
    let name: string | undefined;
    const lines: string[] = [];
    for (const line of event.split(/\r?\n/)) {
      if (line.startsWith('event:')) name = line.slice(6).trim();
      else if (line.startsWith('data:')) lines.push(line.slice(5).replace(/^ /, ''));
    }
    if (lines.length === 0) continue;
    const text = lines.join('\n');
    if (text === '[DONE]') {
      sawDone = true;
      continue;
    }
    const value = JSON.parse(text) as { error?: unknown };
    if (name === 'error' || value.error !== undefined) errorFrame = value.error ?? value;
    else data.push(value);
  }
  return { data, errorFrame, sawDone };
}

function expectedFrom(file: string): Expected {
  const { data, errorFrame, sawDone } = payloads(file);
  const out: Expected = { reasoning: '', text: '', calls: [], order: [], finishReason: undefined, usage: undefined, errorFrame, sawDone };
  const calls = new Map<number, ExpectedCall>();
  const seen = (kind: string): void => {
    if (!out.order.includes(kind)) out.order.push(kind);
  };
  for (const chunk of data as Array<{ choices?: Array<{ delta?: Record<string, unknown>; finish_reason?: string | null }>; usage?: unknown }>) {
    if (chunk.usage) out.usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    const delta = choice.delta ?? {};
    const reasoning = (delta['reasoning_content'] as string | null | undefined) || (delta['reasoning'] as string | null | undefined) || '';
    if (reasoning !== '') {
      seen('reasoning');
      out.reasoning += reasoning;
    }
    const content = (delta['content'] as string | null | undefined) ?? '';
    if (content !== '') {
      seen('text');
      out.text += content;
    }
    for (const call of (delta['tool_calls'] as Array<{ index: number; id?: string | null; function?: { name?: string | null; arguments?: string | null } }> | undefined) ?? []) {
      const entry = calls.get(call.index) ?? { id: '', name: '', arguments: '' };
      if (!entry.id && call.id) entry.id = call.id;
      if (!entry.name && call.function?.name) entry.name = call.function.name;
      entry.arguments += call.function?.arguments ?? '';
      calls.set(call.index, entry);
      if (entry.id || entry.name || entry.arguments) seen(`tool:${call.index}`);
    }
    if (choice.finish_reason) out.finishReason = choice.finish_reason;
  }
  out.calls = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
  return out;
}

const FILES = readdirSync(PROVIDER_STREAMS_DIR)
  // Recordings only: spec-built streams (`*.spec.sse`) are driven through the agent in provider-round-trips.test.ts.
  .filter((name) => (name.endsWith('.sse') || name.endsWith('.chunks.jsonl')) && !name.startsWith('http-error_') && !name.includes('.spec.'))
  .sort();

describe('provider-stream fixtures through the real openai client', () => {
  let llm: ScriptedLlm;
  beforeAll(async () => {
    llm = await startScriptedLlm();
  });
  afterAll(async () => {
    await llm.close();
  });

  it('covers every recording in the folder', () => {
    expect(FILES.length).toBeGreaterThanOrEqual(15);
    expect(FILES.filter((f) => f.endsWith('.sse'))).toHaveLength(8);
    expect(FILES.filter((f) => f.endsWith('.chunks.jsonl'))).toHaveLength(7);
  });

  for (const name of FILES) {
    it(name, async () => {
      const expected = expectedFrom(fixture(name));
      llm.enqueue(replayFile(fixture(name)));
      const before = llm.requests.length;
      const chunks = await collect(scriptedClient(llm.baseUrl), userRequest());
      expect(llm.requests.length).toBe(before + 1);
      expectWellFormed(chunks);

      const deltas = (type: 'text-delta' | 'reasoning-delta'): string => chunks.map((c) => (c.type === type ? c.text : '')).join('');
      expect(deltas('reasoning-delta')).toBe(expected.reasoning);
      expect(deltas('text-delta')).toBe(expected.text);

      const finish = finishOf(chunks);
      if (expected.errorFrame !== undefined) {
        // Groq: partial reasoning first, then the in-stream error by its status (400 → INVALID_REQUEST).
        expect(expected.reasoning.length).toBeGreaterThan(0);
        expect(finish.kind).toBe('error');
        const status = expected.errorFrame.status_code as number;
        expect(status).toBe(400);
        expect(finish.kind === 'error' && finish.failure.code).toBe('INVALID_REQUEST');
        expect(finish.kind === 'error' && finish.failure.message).toContain(expected.errorFrame.message);
        expect(chunks.some((c) => c.type === 'block-end')).toBe(false);
        const lastDelta = chunks.findLastIndex((c) => c.type === 'reasoning-delta');
        expect(lastDelta).toBe(chunks.length - 2);
        return;
      }

      const wireToKind: Record<string, string> = { stop: 'stop', tool_calls: 'tool-calls', length: 'max-tokens' };
      expect(finish.kind).toBe(wireToKind[expected.finishReason ?? 'stop']);

      const ends = chunks.flatMap((c) => (c.type === 'block-end' ? [c.block] : []));
      const expectedCalls = finish.kind === 'max-tokens' ? [] : expected.calls;
      const expectedOrder = expected.order.filter((k) => finish.kind !== 'max-tokens' || !k.startsWith('tool:'));
      expect(ends.map((b) => (b.type === 'tool-call' ? 'tool' : b.type))).toEqual(expectedOrder.map((k) => (k.startsWith('tool:') ? 'tool' : k)));
      expect(ends.filter((b) => b.type === 'text').map((b) => (b.type === 'text' ? b.text : ''))).toEqual(expected.text === '' ? [] : [expected.text]);
      expect(ends.filter((b) => b.type === 'reasoning').map((b) => (b.type === 'reasoning' ? b.text : ''))).toEqual(expected.reasoning === '' ? [] : [expected.reasoning]);
      const calls = ends.flatMap((b) => (b.type === 'tool-call' ? [{ id: b.id, name: b.name, arguments: b.arguments }] : []));
      expect(calls).toEqual(expectedCalls);
      for (const call of calls) expect(() => JSON.parse(call.arguments)).not.toThrow();

      const usageChunk = chunks.find((c) => c.type === 'usage');
      if (expected.usage === undefined) {
        expect(usageChunk).toBeUndefined();
      } else {
        const u = expected.usage;
        const cached = u.prompt_tokens_details?.cached_tokens ?? u.prompt_cache_hit_tokens;
        const want: Record<string, number> = { inputTokens: u.prompt_tokens - (cached ?? 0), outputTokens: u.completion_tokens };
        if (cached !== undefined) want['cacheReadTokens'] = cached;
        if (u.completion_tokens_details?.reasoning_tokens !== undefined) want['reasoningTokens'] = u.completion_tokens_details.reasoning_tokens;
        expect(usageChunk?.type === 'usage' && usageChunk.usage).toEqual(want);
      }

      // The assembler rebuilds the same message from the logged chunks.
      const assembled = new BlockAssembler().pushAll(chunks).result();
      expect(assembled.blocks).toEqual(ends);
      expect(assembled.finish).toEqual(finish);
    });
  }

  it('delivers the DeepSeek cache-hit and reasoning token counts (tool-call recording)', async () => {
    llm.enqueue(replayFile(fixture('deepseek-reasoner_reasoning-then-tool-call.chunks.jsonl')));
    const chunks = await collect(scriptedClient(llm.baseUrl), userRequest());
    expect(chunks.find((c) => c.type === 'usage')).toEqual({ type: 'usage', usage: { inputTokens: 19, outputTokens: 83, cacheReadTokens: 320, reasoningTokens: 39 } });
    expect(finishOf(chunks)).toEqual({ kind: 'tool-calls' });
  });
});
