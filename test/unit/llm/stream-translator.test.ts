import { describe, expect, it } from 'vitest';
import type { StreamChunk } from '../../../shared/chunks.js';
import { mapFinishReason, mapUsage, StreamTranslator } from '../../../electron/llm/stream-translator.js';
import type { WireChunk, WireDelta } from '../../../electron/llm/wire-types.js';

const d = (delta: WireDelta, finish_reason: string | null = null): WireChunk => ({ choices: [{ index: 0, delta, finish_reason }] });
const tc = (index: number | undefined, id: string | null | undefined, name: string | null | undefined, args: string | null | undefined): WireDelta => ({
  tool_calls: [
    { ...(index === undefined ? {} : { index }), ...(id === undefined ? {} : { id }), function: { ...(name === undefined ? {} : { name }), ...(args === undefined ? {} : { arguments: args }) } },
  ],
});

function run(chunks: WireChunk[]): StreamChunk[] {
  const t = new StreamTranslator();
  return [...chunks.flatMap((c) => t.push(c)), ...t.complete()];
}
const ends = (out: StreamChunk[]) => out.flatMap((c) => (c.type === 'block-end' ? [c.block] : []));

describe('StreamTranslator', () => {
  it('an empty reasoning_content streamed with a tool call is logged as an empty reasoning block of that field (issue 20)', () => {
    const t = new StreamTranslator();
    expect(t.push(d({ role: 'assistant', content: '' }))).toEqual([]);
    t.push(d({ reasoning_content: '', tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'list_dir', arguments: '{}' } }] }));
    t.push(d({}, 'tool_calls'));
    expect(ends(t.complete())).toEqual([
      { type: 'reasoning', text: '', field: 'reasoning_content' },
      { type: 'tool-call', id: 'c1', name: 'list_dir', arguments: '{}' },
    ]);
    // `null` says nothing about the field; an answer of an empty block alone is still empty.
    const none = new StreamTranslator();
    expect(none.push(d({ role: 'assistant', content: null, reasoning_content: null }))).toEqual([]);
    const empty = new StreamTranslator();
    empty.push(d({ reasoning_content: '' }, 'stop'));
    expect(empty.complete().at(-1)).toMatchObject({ type: 'finish', reason: { kind: 'error', failure: { code: 'EMPTY_RESPONSE' } } });
  });

  it('opens a block at its first non-empty delta; an empty first reasoning_content opens the reasoning block with no delta', () => {
    const t = new StreamTranslator();
    expect(t.push(d({ role: 'assistant', content: null, reasoning_content: '' }))).toEqual([{ type: 'block-start', index: 0, blockType: 'reasoning' }]);
    expect(t.push(d({ reasoning_content: 'Hm' }))).toEqual([{ type: 'reasoning-delta', index: 0, text: 'Hm' }]);
    expect(t.push(d({ content: '', reasoning_content: null }))).toEqual([]);
    expect(t.push(d({ content: 'Hi' }))).toEqual([
      { type: 'block-start', index: 1, blockType: 'text' },
      { type: 'text-delta', index: 1, text: 'Hi' },
    ]);
    // Groq / Ollama spell it `reasoning`; it joins the same reasoning block.
    expect(t.push(d({ reasoning: '!' }))).toEqual([{ type: 'reasoning-delta', index: 0, text: '!' }]);
    expect(t.push(d({}, 'stop'))).toEqual([]);
    expect(t.complete()).toEqual([
      { type: 'block-end', index: 0, block: { type: 'reasoning', text: 'Hm!', field: 'reasoning_content' } },
      { type: 'block-end', index: 1, block: { type: 'text', text: 'Hi' } },
      { type: 'finish', reason: { kind: 'stop' } },
    ]);
    expect(t.complete()).toEqual([]); // nothing after finish
  });

  it('never overwrites a known id or name with "" or null, and every delta carries them', () => {
    const out = run([d(tc(0, 'call_A', 'read_file', '')), d(tc(0, '', '', '{"pa')), d(tc(0, null, null, 'th":')), d(tc(0, undefined, undefined, '"x"}')), d({}, 'tool_calls')]);
    const deltas = out.filter((c) => c.type === 'tool-call-delta');
    expect(deltas).toEqual([
      { type: 'tool-call-delta', index: 0, id: 'call_A', name: 'read_file', argumentsDelta: '' },
      { type: 'tool-call-delta', index: 0, id: 'call_A', name: 'read_file', argumentsDelta: '{"pa' },
      { type: 'tool-call-delta', index: 0, id: 'call_A', name: 'read_file', argumentsDelta: 'th":' },
      { type: 'tool-call-delta', index: 0, id: 'call_A', name: 'read_file', argumentsDelta: '"x"}' },
    ]);
    for (const delta of deltas) expect(Object.keys(delta)).toEqual(['type', 'index', 'id', 'name', 'argumentsDelta']);
    expect(ends(out)).toEqual([{ type: 'tool-call', id: 'call_A', name: 'read_file', arguments: '{"path":"x"}' }]);
    expect(out.at(-1)).toEqual({ type: 'finish', reason: { kind: 'tool-calls' } });
  });

  it('merges interleaved parallel calls by index and numbers blocks in first-seen order', () => {
    const out = run([
      d({ content: 'Both.' }),
      d(tc(1, 'call_B', 'bash', '')),
      d(tc(0, 'call_A', 'read_file', '')),
      d(tc(1, null, null, '{"command":')),
      d(tc(0, null, null, '{"path":"a"}')),
      d(tc(1, null, null, '"ls"}')),
      d({}, 'tool_calls'),
    ]);
    expect(ends(out)).toEqual([
      { type: 'text', text: 'Both.' },
      { type: 'tool-call', id: 'call_B', name: 'bash', arguments: '{"command":"ls"}' },
      { type: 'tool-call', id: 'call_A', name: 'read_file', arguments: '{"path":"a"}' },
    ]);
    expect(out.filter((c) => c.type === 'block-end').map((c) => (c.type === 'block-end' ? c.index : -1))).toEqual([0, 1, 2]);
  });

  it('a repeated index with a different id and a name is a new call; a stray id without a name is not', () => {
    const out = run([
      d(tc(0, 'call_1', 'read_file', '{"path":"a"}')),
      d(tc(0, 'call_2', 'read_file', '{"path":"b"}')),
      d(tc(0, 'bogus', undefined, '')), // no name: continues call_2, id kept
      d({}, 'tool_calls'),
    ]);
    expect(ends(out)).toEqual([
      { type: 'tool-call', id: 'call_1', name: 'read_file', arguments: '{"path":"a"}' },
      { type: 'tool-call', id: 'call_2', name: 'read_file', arguments: '{"path":"b"}' },
    ]);
    // Several fragments for the same index inside one chunk are applied in order.
    const t = new StreamTranslator();
    t.push({
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              { index: 0, id: 'c', function: { name: 'f', arguments: '{"a"' } },
              { index: 0, function: { arguments: ':1}' } },
            ],
          },
        },
      ],
    });
    t.push(d({}, 'tool_calls'));
    expect(ends(t.complete())).toEqual([{ type: 'tool-call', id: 'c', name: 'f', arguments: '{"a":1}' }]);
  });

  it('a call whose id arrives late gets a placeholder id until then; name-less deltas omit name', () => {
    const out = run([d(tc(0, undefined, undefined, '{"a"')), d(tc(0, 'real_id', 'f', ':1}')), d({}, 'tool_calls')]);
    const deltas = out.filter((c) => c.type === 'tool-call-delta');
    expect(deltas[0]).toEqual({ type: 'tool-call-delta', index: 0, id: 'call_0', argumentsDelta: '{"a"' });
    expect(Object.keys(deltas[0]!)).toEqual(['type', 'index', 'id', 'argumentsDelta']);
    expect(deltas[1]).toEqual({ type: 'tool-call-delta', index: 0, id: 'real_id', name: 'f', argumentsDelta: ':1}' });
    expect(ends(out)).toEqual([{ type: 'tool-call', id: 'real_id', name: 'f', arguments: '{"a":1}' }]);
  });

  it('fragments without an index continue the last call unless they bring a new id', () => {
    const out = run([d(tc(undefined, 'x1', 'f', '{}')), d(tc(undefined, 'x2', 'g', '{"b"')), d(tc(undefined, undefined, undefined, ':2}')), d({}, 'tool_calls')]);
    expect(ends(out)).toEqual([
      { type: 'tool-call', id: 'x1', name: 'f', arguments: '{}' },
      { type: 'tool-call', id: 'x2', name: 'g', arguments: '{"b":2}' },
    ]);
  });

  it('length in the middle of a tool call: no tool-call block-end, finish max-tokens', () => {
    const out = run([d({ content: 'Writing' }), d(tc(0, 'c1', 'write_file', '{"path":"a","con')), d({}, 'length')]);
    expect(ends(out)).toEqual([{ type: 'text', text: 'Writing' }]);
    expect(out.at(-1)).toEqual({ type: 'finish', reason: { kind: 'max-tokens' } });
  });

  it('stop with no content → EMPTY_RESPONSE; stop with tool calls → tool-calls; no finish_reason → stop', () => {
    expect(run([d({ role: 'assistant', content: '' }), d({ content: '' }, 'stop')])).toEqual([
      { type: 'finish', reason: { kind: 'error', failure: { code: 'EMPTY_RESPONSE', message: 'the provider finished without any content' } } },
    ]);
    expect(run([d(tc(0, 'c', 'f', '{}')), d({}, 'stop')]).at(-1)).toEqual({ type: 'finish', reason: { kind: 'tool-calls' } });
    expect(run([d({ content: 'x' })]).at(-1)).toEqual({ type: 'finish', reason: { kind: 'stop' } });
  });

  it('usage from the finish chunk or a usage-only chunk comes right before finish', () => {
    const usage = { prompt_tokens: 339, completion_tokens: 83, prompt_tokens_details: { cached_tokens: 320 }, completion_tokens_details: { reasoning_tokens: 39 } };
    const onFinish = run([d({ content: 'x' }), { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage }]);
    const separate = run([d({ content: 'x' }), d({}, 'stop'), { choices: [], usage }]);
    for (const out of [onFinish, separate]) {
      expect(out.slice(-2)).toEqual([
        { type: 'usage', usage: { inputTokens: 19, outputTokens: 83, cacheReadTokens: 320, reasoningTokens: 39 } },
        { type: 'finish', reason: { kind: 'stop' } },
      ]);
    }
  });

  it('fail() ends with usage (if any) and the given finish, without block-ends', () => {
    const t = new StreamTranslator();
    t.push(d({ content: 'partial' }));
    t.push({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 1 } });
    const failure = { code: 'TRANSPORT' as const, message: 'gone' };
    expect(t.fail({ kind: 'error', failure })).toEqual([
      { type: 'usage', usage: { inputTokens: 5, outputTokens: 1 } },
      { type: 'finish', reason: { kind: 'error', failure } },
    ]);
    expect(t.push(d({ content: 'late' }))).toEqual([]);
  });
});

describe('mapUsage / mapFinishReason', () => {
  it('maps DeepSeek cache hits when cached_tokens is absent', () => {
    expect(mapUsage({ prompt_tokens: 100, completion_tokens: 7, prompt_cache_hit_tokens: 64, prompt_cache_miss_tokens: 36 })).toEqual({ inputTokens: 36, outputTokens: 7, cacheReadTokens: 64 });
    expect(mapUsage({ prompt_tokens: 10, completion_tokens: 2 })).toEqual({ inputTokens: 10, outputTokens: 2 });
  });

  it('maps finish reasons', () => {
    expect(mapFinishReason('stop')).toEqual({ kind: 'stop' });
    expect(mapFinishReason('tool_calls')).toEqual({ kind: 'tool-calls' });
    expect(mapFinishReason('length')).toEqual({ kind: 'max-tokens' });
    expect(mapFinishReason('content_filter')).toMatchObject({ kind: 'error', failure: { code: 'CONTENT_FILTER' } });
    expect(mapFinishReason('insufficient_system_resource')).toMatchObject({ kind: 'error', failure: { code: 'INSUFFICIENT_SYSTEM_RESOURCE' } });
  });
});

describe('StreamTranslator: what the wire teaches', () => {
  it('merges OpenRouter reasoning_details by index (text concatenates, a later signature joins) and remembers the field', () => {
    const out = run([
      d({ reasoning: 'Plan', reasoning_details: [{ type: 'reasoning.text', text: 'Plan', format: 'anthropic-claude-v1', index: 0 }] }),
      d({ reasoning: ' it.', reasoning_details: [{ type: 'reasoning.text', text: ' it.', format: 'anthropic-claude-v1', index: 0 }] }),
      d({
        reasoning_details: [
          { type: 'reasoning.text', signature: 'SIG', format: 'anthropic-claude-v1', index: 0 },
          { type: 'reasoning.encrypted', data: 'EN', index: 1 },
        ],
      }),
      d({ reasoning_details: [{ type: 'reasoning.encrypted', data: 'C', index: 1, id: null }] }),
      d({ content: 'ok' }, 'stop'),
    ]);
    expect(ends(out)[0]).toEqual({
      type: 'reasoning',
      text: 'Plan it.',
      field: 'reasoning',
      details: [
        { type: 'reasoning.text', text: 'Plan it.', format: 'anthropic-claude-v1', index: 0, signature: 'SIG' },
        { type: 'reasoning.encrypted', data: 'ENC', index: 1 },
      ],
    });
  });

  it('details with text but no reasoning field still show as reasoning text; encrypted-only details open a block without text', () => {
    const withText = run([d({ reasoning_details: [{ type: 'reasoning.summary', summary: 'Sum', index: 0 }] }), d({ content: 'x' }, 'stop')]);
    expect(withText.filter((c) => c.type === 'reasoning-delta')).toEqual([{ type: 'reasoning-delta', index: 0, text: 'Sum' }]);
    expect(ends(withText)[0]).toEqual({ type: 'reasoning', text: 'Sum', details: [{ type: 'reasoning.summary', summary: 'Sum', index: 0 }] });
    const encrypted = run([d({ reasoning_details: [{ type: 'reasoning.encrypted', data: 'E', index: 0 }] }), d({ content: 'x' }, 'stop')]);
    expect(ends(encrypted)[0]).toEqual({ type: 'reasoning', text: '', details: [{ type: 'reasoning.encrypted', data: 'E', index: 0 }] });
  });

  it("keeps a tool call's provider extras (Gemini thought signature) and merges later ones", () => {
    const out = run([
      {
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ id: 'f1', type: 'function', function: { name: 'get', arguments: '{}' }, extra_content: { google: { thought_signature: 'S1' } } }] },
            finish_reason: null,
          },
        ],
      },
      { choices: [{ index: 0, delta: { tool_calls: [{ id: 'f2', type: 'function', function: { name: 'get', arguments: '{"a":1}' } }] }, finish_reason: 'stop' }] },
    ]);
    expect(ends(out)).toEqual([
      { type: 'tool-call', id: 'f1', name: 'get', arguments: '{}', extras: { extra_content: { google: { thought_signature: 'S1' } } } },
      { type: 'tool-call', id: 'f2', name: 'get', arguments: '{"a":1}' },
    ]);
    expect(out.at(-1)).toEqual({ type: 'finish', reason: { kind: 'tool-calls' } });
    const merged = run([
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'c', function: { name: 'n', arguments: '' }, meta: { a: 1 } }] }, finish_reason: null }] },
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{}' }, meta: { b: 2 } }] }, finish_reason: 'tool_calls' }] },
    ]);
    expect(ends(merged)[0]).toEqual({ type: 'tool-call', id: 'c', name: 'n', arguments: '{}', extras: { meta: { a: 1, b: 2 } } });
  });
});
