import { describe, expect, it } from 'vitest';
import type { StreamChunk } from '../../../shared/chunks.js';
import { assembleChunks, BlockAssembler } from '../../../electron/llm/assembler.js';

describe('BlockAssembler', () => {
  it('keeps blocks in first-seen index order and treats block-end as authoritative', () => {
    const chunks: StreamChunk[] = [
      { type: 'block-start', index: 1, blockType: 'text' },
      { type: 'text-delta', index: 1, text: 'Hel' },
      { type: 'block-start', index: 0, blockType: 'reasoning' },
      { type: 'reasoning-delta', index: 0, text: 'think' },
      { type: 'text-delta', index: 1, text: 'lo' },
      { type: 'block-end', index: 1, block: { type: 'text', text: 'Hello (final)' } },
      { type: 'text-delta', index: 1, text: ' ignored' },
      { type: 'block-end', index: 1, block: { type: 'text', text: 'second close ignored' } },
      { type: 'usage', usage: { inputTokens: 3, outputTokens: 2 } },
      { type: 'finish', reason: { kind: 'stop' } },
    ];
    expect(assembleChunks(chunks)).toEqual({
      blocks: [
        { type: 'text', text: 'Hello (final)' },
        { type: 'reasoning', text: 'think' },
      ],
      usage: { inputTokens: 3, outputTokens: 2 },
      finish: { kind: 'stop' },
    });
  });

  it('assembles delta-only streams; missing finish → stop; latest non-empty id wins, names are never cleared', () => {
    const result = assembleChunks([
      { type: 'tool-call-delta', index: 0, id: 'call_0', argumentsDelta: '{"a"' },
      { type: 'tool-call-delta', index: 0, id: 'real', name: 'f', argumentsDelta: ':' },
      { type: 'tool-call-delta', index: 0, id: '', name: '', argumentsDelta: '1}' },
      { type: 'text-delta', index: 1, text: 'after' },
    ]);
    expect(result).toEqual({
      blocks: [
        { type: 'tool-call', id: 'real', name: 'f', arguments: '{"a":1}' },
        { type: 'text', text: 'after' },
      ],
      finish: { kind: 'stop' },
    });
  });

  it('max-tokens drops every tool-call block, open or closed', () => {
    const result = assembleChunks([
      { type: 'block-start', index: 0, blockType: 'text' },
      { type: 'text-delta', index: 0, text: 'Writing' },
      { type: 'block-start', index: 1, blockType: 'tool-call' },
      { type: 'tool-call-delta', index: 1, id: 'c1', name: 'write_file', argumentsDelta: '{"path":"a","con' },
      { type: 'block-end', index: 2, block: { type: 'tool-call', id: 'c2', name: 'bash', arguments: '{}' } },
      { type: 'finish', reason: { kind: 'max-tokens' } },
    ]);
    expect(result.blocks).toEqual([{ type: 'text', text: 'Writing' }]);
    expect(result.finish).toEqual({ kind: 'max-tokens' });
  });

  it('ignores chunks after finish', () => {
    const a = new BlockAssembler();
    a.push({ type: 'text-delta', index: 0, text: 'a' });
    a.push({ type: 'finish', reason: { kind: 'stop' } });
    a.push({ type: 'text-delta', index: 0, text: 'b' });
    a.push({ type: 'finish', reason: { kind: 'max-tokens' } });
    expect(a.result()).toEqual({ blocks: [{ type: 'text', text: 'a' }], finish: { kind: 'stop' } });
    expect(a.finishReason).toEqual({ kind: 'stop' });
  });

  it('interruptedBlocks keeps only non-blank text and reasoning, open or closed, in order', () => {
    const a = new BlockAssembler().pushAll([
      { type: 'block-start', index: 0, blockType: 'reasoning' },
      { type: 'reasoning-delta', index: 0, text: 'partial thought' },
      { type: 'block-start', index: 1, blockType: 'text' },
      { type: 'text-delta', index: 1, text: '  \n ' },
      { type: 'block-start', index: 2, blockType: 'tool-call' },
      { type: 'tool-call-delta', index: 2, id: 'c', name: 'bash', argumentsDelta: '{"comm' },
      { type: 'block-start', index: 3, blockType: 'text' },
      { type: 'text-delta', index: 3, text: 'visible' },
      { type: 'finish', reason: { kind: 'aborted', failure: { code: 'ABORTED', message: 'user' } } },
    ]);
    expect(a.interruptedBlocks()).toEqual([
      { type: 'reasoning', text: 'partial thought' },
      { type: 'text', text: 'visible' },
    ]);
  });
});
