/**
 * Shared helpers for the llm integration tests: a request builder, stream collection and a checker
 * for the chunk protocol of `ModelClient` (electron/llm/model-client.ts).
 */
import { expect } from 'vitest';
import type { StreamChunk } from '../../../shared/chunks.js';
import type { LlmCallConfig } from '../../../shared/events.js';
import type { Message, ToolSchema } from '../../../shared/messages.js';
import type { ModelClient, ModelRequest } from '../../../electron/llm/model-client.js';
import { OpenAiCompatibleClient } from '../../../electron/llm/openai-compatible-client.js';
import type { ProviderSettings } from '../../../electron/llm/providers.js';

/** A one-user-message request. */
export function userRequest(text = 'hi', config: Partial<LlmCallConfig> = {}, extra: { system?: string; tools?: ToolSchema[]; messages?: Message[] } = {}): ModelRequest {
  const messages: Message[] = extra.messages ?? [{ id: 'u1', role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } }];
  return {
    header: {
      config: { provider: 'custom', model: 'scripted-model', ...config },
      ...(extra.system === undefined ? {} : { system: extra.system }),
      ...(extra.tools === undefined ? {} : { tools: extra.tools }),
    },
    messages,
  };
}

/** A client for the scripted server (custom provider unless overridden). */
export function scriptedClient(baseUrl: string, settings: Partial<ProviderSettings> = {}): OpenAiCompatibleClient {
  return new OpenAiCompatibleClient({ provider: 'custom', baseUrl, model: 'scripted-model', idleTimeoutMs: 2_000, ...settings });
}

/** Reads a whole stream. `onChunk` may abort mid-stream. */
export async function collect(
  client: ModelClient,
  request: ModelRequest,
  signal: AbortSignal = new AbortController().signal,
  onChunk?: (chunk: StreamChunk, all: StreamChunk[]) => void,
): Promise<StreamChunk[]> {
  const chunks: StreamChunk[] = [];
  for await (const chunk of client.stream(request, signal)) {
    chunks.push(chunk);
    onChunk?.(chunk, chunks);
  }
  return chunks;
}

/** The finish chunk's reason (asserting there is exactly one, last). */
export function finishOf(chunks: readonly StreamChunk[]): Extract<StreamChunk, { type: 'finish' }>['reason'] {
  const last = chunks.at(-1);
  if (last?.type !== 'finish') throw new Error(`last chunk is not a finish: ${JSON.stringify(last)}`);
  return last.reason;
}

/** The failure code of an error/aborted finish, or the finish kind. */
export function finishCode(chunks: readonly StreamChunk[]): string {
  const reason = finishOf(chunks);
  return reason.kind === 'error' || reason.kind === 'aborted' ? reason.failure.code : reason.kind;
}

/**
 * Checks the chunk protocol: exactly one finish, last; at most one usage, right before it;
 * block-ends after every delta; indexes 0..n-1 in first-seen order; each block starts with a
 * block-start of its type; block-end content equals the concatenated deltas; fixed key orders;
 * every value JSON-safe (no undefined).
 */
export function expectWellFormed(chunks: readonly StreamChunk[]): void {
  const finishes = chunks.filter((c) => c.type === 'finish');
  expect(finishes).toHaveLength(1);
  expect(chunks.at(-1)?.type).toBe('finish');
  const usages = chunks.filter((c) => c.type === 'usage');
  expect(usages.length).toBeLessThanOrEqual(1);
  if (usages.length === 1) expect(chunks.at(-2)?.type).toBe('usage');
  expect(JSON.parse(JSON.stringify(chunks))).toEqual(chunks);

  const started = new Map<number, string>();
  const text = new Map<number, string>();
  let firstEnd = -1;
  chunks.forEach((chunk, position) => {
    switch (chunk.type) {
      case 'block-start':
        expect(started.has(chunk.index)).toBe(false);
        expect(chunk.index).toBe(started.size);
        started.set(chunk.index, chunk.blockType);
        text.set(chunk.index, '');
        break;
      case 'text-delta':
      case 'reasoning-delta':
        expect(Object.keys(chunk)).toEqual(['type', 'index', 'text']);
        expect(started.get(chunk.index)).toBe(chunk.type === 'text-delta' ? 'text' : 'reasoning');
        expect(chunk.text).not.toBe('');
        expect(firstEnd).toBe(-1);
        text.set(chunk.index, text.get(chunk.index)! + chunk.text);
        break;
      case 'tool-call-delta':
        expect(Object.keys(chunk)).toEqual(chunk.name === undefined ? ['type', 'index', 'id', 'argumentsDelta'] : ['type', 'index', 'id', 'name', 'argumentsDelta']);
        expect(started.get(chunk.index)).toBe('tool-call');
        expect(chunk.id).not.toBe('');
        expect(firstEnd).toBe(-1);
        text.set(chunk.index, text.get(chunk.index)! + chunk.argumentsDelta);
        break;
      case 'block-end': {
        if (firstEnd === -1) firstEnd = position;
        expect(started.get(chunk.index)).toBe(chunk.block.type);
        const body = chunk.block.type === 'tool-call' ? chunk.block.arguments : chunk.block.text;
        expect(body).toBe(text.get(chunk.index));
        break;
      }
      default:
        break;
    }
  });
}
