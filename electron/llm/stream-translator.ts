/**
 * OpenAI-compatible wire chunks → our normalised {@link StreamChunk}s (shared/chunks.ts), one
 * attempt at a time. Pure: no I/O, no clock.
 *
 * Blocks: one per wire content kind — reasoning (`delta.reasoning_content`, or `delta.reasoning`
 * as Groq/Ollama/OpenRouter send it), text (`delta.content`), and one per tool-call wire `index` —
 * numbered in first-seen order. A block opens (`block-start`) at its first non-empty delta, except
 * that an empty `reasoning_content: ""` opens the reasoning block (with no delta) when none is open:
 * the field's presence is what tells a thinking endpoint that needs it back (an answer made of such
 * an empty block alone is still EMPTY_RESPONSE). Deltas are emitted as they
 * arrive; `block-end`s (authoritative assembled blocks), then `usage`, then `finish` are emitted
 * only when the stream is over ({@link StreamTranslator.complete} / {@link StreamTranslator.fail}).
 *
 * The reasoning block remembers the wire field its text came in (`field`) and collects OpenRouter
 * `reasoning_details` fragments, merged by their `index` (string parts `text`, `summary`, `data`
 * concatenate; other keys keep their first non-null value); a tool call keeps every extra key the
 * server put on it (`extras`, e.g. Gemini's `extra_content` thought signature; plain objects merge,
 * later values win). Both appear on the authoritative `block-end` only, so the logged
 * `assistant/message` carries what the serializer must echo (docs/architecture.md §5 "the wire teaches the
 * dialect").
 *
 * Tool-call merge rules (FIELD-NOTES fault class 5): fragments merge by wire `index`; a known id or
 * name is never overwritten by `""`/`null`/another value on a later fragment; a fragment for a known
 * index that carries a *different* id *and* a name starts a new call (providers that number
 * parallel calls all `0`); a call whose first fragment has no id gets `call_<blockIndex>` until
 * its real id arrives. Every `tool-call-delta` carries the known id and, once known, the name.
 *
 * Key order of emitted chunks is fixed (`{type, index, text}`, `{type, index, id, name,
 * argumentsDelta}`): the store packs runs of identically shaped chunks.
 */
import type { BlockType, FinishReason, LlmErrorCode, StreamChunk, TokenUsage } from '../../shared/chunks.js';
import type { JsonValue } from '../../shared/json.js';
import type { AssistantBlock, ReasoningWireField } from '../../shared/messages.js';
import { llmFailure } from './failure.js';
import type { WireChunk, WireToolCallDelta, WireUsage } from './wire-types.js';

interface BlockState {
  readonly index: number;
  readonly type: BlockType;
  text: string;
  id: string;
  idSynthetic: boolean;
  name: string | undefined;
  /** Reasoning: the wire field its text came in. */
  field?: ReasoningWireField;
  /** Reasoning: merged `reasoning_details` entries in first-seen order. */
  details?: { [key: string]: JsonValue }[];
  /** Tool call: extra keys of the wire call. */
  extras?: { [key: string]: JsonValue };
}

const TOOL_CALL_KEYS: ReadonlySet<string> = new Set(['index', 'id', 'type', 'function']);
const DETAIL_TEXT_KEYS: ReadonlySet<string> = new Set(['text', 'summary', 'data']);

/** Translates one attempt's wire chunks. Create one per `stream()` call. */
export class StreamTranslator {
  private readonly blocks: BlockState[] = [];
  private reasoning: BlockState | undefined;
  private text: BlockState | undefined;
  private readonly toolByWire = new Map<number, BlockState>();
  private lastToolWire: number | undefined;
  private syntheticWire = -1;
  private wireFinish: string | undefined;
  private usage: TokenUsage | undefined;
  private finished = false;

  /** The wire `finish_reason` seen, if any (`stop`, `tool_calls`, `length`, …). */
  get finishReason(): string | undefined {
    return this.wireFinish;
  }

  /** Number of blocks opened so far. */
  get blockCount(): number {
    return this.blocks.length;
  }

  /** Translates one wire chunk into zero or more delta chunks (block-start + deltas). */
  push(chunk: WireChunk): StreamChunk[] {
    if (this.finished) return [];
    const out: StreamChunk[] = [];
    if (chunk.usage !== undefined && chunk.usage !== null && typeof chunk.usage === 'object') this.usage = mapUsage(chunk.usage);
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    if (!choice) return out;
    const delta = choice.delta;
    if (delta) {
      const fromContent = nonEmpty(delta.reasoning_content);
      const field: ReasoningWireField | undefined = fromContent !== undefined ? 'reasoning_content' : nonEmpty(delta.reasoning) !== undefined ? 'reasoning' : undefined;
      let reasoning = fromContent ?? nonEmpty(delta.reasoning);
      const details = Array.isArray(delta.reasoning_details) ? delta.reasoning_details.filter(isPlainObject) : [];
      if (reasoning === undefined && details.length > 0) reasoning = nonEmpty(details.map(detailText).join(''));
      if (reasoning === undefined && details.length === 0 && delta.reasoning_content === '' && this.reasoning === undefined) {
        // The field arrived empty (a thinking endpoint with nothing to say before a tool call): an
        // empty block records which field this server speaks, so it goes back (as "") where the
        // server needs it (docs/providers.md "A history any endpoint accepts").
        this.reasoning = this.open('reasoning', out);
        this.reasoning.field = 'reasoning_content';
      }
      if (reasoning !== undefined || details.length > 0) {
        this.reasoning ??= this.open('reasoning', out);
        if (field !== undefined) this.reasoning.field ??= field;
        if (details.length > 0) mergeDetails((this.reasoning.details ??= []), details);
      }
      if (reasoning !== undefined) {
        this.reasoning!.text += reasoning;
        out.push({ type: 'reasoning-delta', index: this.reasoning!.index, text: reasoning });
      }
      const content = nonEmpty(delta.content);
      if (content !== undefined) {
        this.text ??= this.open('text', out);
        this.text.text += content;
        out.push({ type: 'text-delta', index: this.text.index, text: content });
      }
      if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) this.pushToolCall(call, out);
    }
    if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') this.wireFinish = choice.finish_reason;
    return out;
  }

  /**
   * The end of a stream that finished normally (`[DONE]`, or a finish_reason before a clean end):
   * every `block-end`, then `usage` if any, then `finish`. Missing finish_reason counts as `stop`.
   * `stop`/`tool-calls` with no block → `error EMPTY_RESPONSE`; `length` → `max-tokens` without any
   * tool-call `block-end`; `content_filter` and unknown reasons → `error` (no `block-end`s).
   */
  complete(): StreamChunk[] {
    if (this.finished) return [];
    let finish = mapFinishReason(this.wireFinish ?? 'stop');
    const hasToolCall = this.blocks.some((b) => b.type === 'tool-call');
    if (finish.kind === 'stop' && hasToolCall) finish = { kind: 'tool-calls' };
    if ((finish.kind === 'stop' || finish.kind === 'tool-calls') && this.blocks.every(isEmptyReasoning)) {
      finish = { kind: 'error', failure: llmFailure('EMPTY_RESPONSE', 'the provider finished without any content') };
    }
    const out: StreamChunk[] = [];
    if (finish.kind === 'stop' || finish.kind === 'tool-calls' || finish.kind === 'max-tokens') {
      for (const block of this.blocks) {
        if (finish.kind === 'max-tokens' && block.type === 'tool-call') continue;
        out.push({ type: 'block-end', index: block.index, block: toAssistantBlock(block) });
      }
    }
    return this.end(finish, out);
  }

  /** The end of a failed or aborted attempt: `usage` if any, then the given finish. No block-ends. */
  fail(finish: FinishReason): StreamChunk[] {
    if (this.finished) return [];
    return this.end(finish, []);
  }

  private end(finish: FinishReason, out: StreamChunk[]): StreamChunk[] {
    this.finished = true;
    if (this.usage) out.push({ type: 'usage', usage: this.usage });
    out.push({ type: 'finish', reason: finish });
    return out;
  }

  private open(type: BlockType, out: StreamChunk[]): BlockState {
    const block: BlockState = { index: this.blocks.length, type, text: '', id: '', idSynthetic: false, name: undefined };
    this.blocks.push(block);
    out.push({ type: 'block-start', index: block.index, blockType: type });
    return block;
  }

  private pushToolCall(call: WireToolCallDelta, out: StreamChunk[]): void {
    const id = nonEmpty(call.id);
    const name = nonEmpty(call.function?.name);
    const args = typeof call.function?.arguments === 'string' ? call.function.arguments : '';
    const wire = this.wireIndexOf(call, id);
    const extras = callExtras(call);
    let block = this.toolByWire.get(wire);
    if (block && id !== undefined && name !== undefined && !block.idSynthetic && block.id !== id && block.name !== undefined) {
      block = undefined; // another call reusing the index
    }
    if (block && extras !== undefined) block.extras = mergeObjects(block.extras ?? {}, extras);
    if (!block) {
      if (id === undefined && name === undefined && args === '' && extras === undefined) return;
      block = this.open('tool-call', out);
      block.id = id ?? `call_${block.index}`;
      block.idSynthetic = id === undefined;
      block.name = name;
      block.text = args;
      if (extras !== undefined) block.extras = extras;
      this.toolByWire.set(wire, block);
      this.lastToolWire = wire;
      out.push(toolDelta(block, args));
      return;
    }
    this.lastToolWire = wire;
    let changed = args !== '';
    if (id !== undefined && block.idSynthetic) {
      block.id = id;
      block.idSynthetic = false;
      changed = true;
    }
    if (name !== undefined && block.name === undefined) {
      block.name = name;
      changed = true;
    }
    block.text += args;
    if (changed) out.push(toolDelta(block, args));
  }

  /** The wire index of a fragment; fragments without one continue the last call unless they bring a new id. */
  private wireIndexOf(call: WireToolCallDelta, id: string | undefined): number {
    if (typeof call.index === 'number' && Number.isInteger(call.index)) return call.index;
    const last = this.lastToolWire === undefined ? undefined : this.toolByWire.get(this.lastToolWire);
    if (last === undefined) return id === undefined ? 0 : this.syntheticWire--;
    if (id !== undefined && !last.idSynthetic && last.id !== id) return this.syntheticWire--;
    return this.lastToolWire ?? 0;
  }
}

function toolDelta(block: BlockState, argumentsDelta: string): StreamChunk {
  return block.name === undefined
    ? { type: 'tool-call-delta', index: block.index, id: block.id, argumentsDelta }
    : { type: 'tool-call-delta', index: block.index, id: block.id, name: block.name, argumentsDelta };
}

function toAssistantBlock(block: BlockState): AssistantBlock {
  if (block.type === 'tool-call') {
    return block.extras === undefined
      ? { type: 'tool-call', id: block.id, name: block.name ?? '', arguments: block.text }
      : { type: 'tool-call', id: block.id, name: block.name ?? '', arguments: block.text, extras: block.extras };
  }
  if (block.type === 'reasoning') {
    return {
      type: 'reasoning',
      text: block.text,
      ...(block.field !== undefined ? { field: block.field } : {}),
      ...(block.details !== undefined ? { details: block.details } : {}),
    };
  }
  return { type: block.type, text: block.text };
}

/** A reasoning block with no text and no details (only records which field the server speaks). */
function isEmptyReasoning(block: BlockState): boolean {
  return block.type === 'reasoning' && block.text === '' && (block.details === undefined || block.details.length === 0);
}

function isPlainObject(value: unknown): value is { [key: string]: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON copy of a wire value (drops `undefined`, functions and the like; never throws on plain JSON). */
function toJson(value: unknown): JsonValue {
  return JSON.parse(JSON.stringify(value ?? null)) as JsonValue;
}

/** The display text of one `reasoning_details` fragment (`text` or `summary`; encrypted data has none). */
function detailText(detail: { [key: string]: unknown }): string {
  return typeof detail['text'] === 'string' ? detail['text'] : typeof detail['summary'] === 'string' ? detail['summary'] : '';
}

/** Merges streamed `reasoning_details` fragments into `into`, by `index` (entries without one are appended). */
function mergeDetails(into: { [key: string]: JsonValue }[], fragments: readonly { [key: string]: unknown }[]): void {
  for (const fragment of fragments) {
    const index = typeof fragment['index'] === 'number' ? fragment['index'] : undefined;
    const existing = index === undefined ? undefined : into.find((d) => d['index'] === index);
    if (!existing) {
      into.push(toJson(fragment) as { [key: string]: JsonValue });
      continue;
    }
    for (const [key, raw] of Object.entries(fragment)) {
      if (raw === null || raw === undefined) continue;
      const value = toJson(raw);
      const current = existing[key];
      if (DETAIL_TEXT_KEYS.has(key) && typeof value === 'string' && typeof current === 'string') existing[key] = current + value;
      else if (current === undefined || current === null) existing[key] = value;
    }
  }
}

/** The extra keys of a wire tool call (anything but index/id/type/function, non-null), or undefined. */
function callExtras(call: WireToolCallDelta): { [key: string]: JsonValue } | undefined {
  let out: { [key: string]: JsonValue } | undefined;
  for (const [key, value] of Object.entries(call)) {
    if (TOOL_CALL_KEYS.has(key) || value === null || value === undefined) continue;
    (out ??= {})[key] = toJson(value);
  }
  return out;
}

/** Deep-merges plain JSON objects; later values win, arrays and scalars are replaced. */
function mergeObjects(a: { [key: string]: JsonValue }, b: { [key: string]: JsonValue }): { [key: string]: JsonValue } {
  const out: { [key: string]: JsonValue } = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? mergeObjects(current as { [key: string]: JsonValue }, value as { [key: string]: JsonValue }) : value;
  }
  return out;
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * Wire usage → {@link TokenUsage} (counts disjoint, in tokens):
 * `cacheReadTokens = prompt_tokens_details.cached_tokens ?? prompt_cache_hit_tokens` (DeepSeek),
 * `inputTokens = prompt_tokens − cacheReadTokens` (DeepSeek's and OpenAI's prompt counts include
 * cache hits), `outputTokens = completion_tokens`, `reasoningTokens =
 * completion_tokens_details.reasoning_tokens` (a subset of output). Optional fields appear only when
 * the provider reported them.
 */
export function mapUsage(usage: WireUsage): TokenUsage {
  const prompt = count(usage.prompt_tokens) ?? 0;
  const cacheRead = count(usage.prompt_tokens_details?.cached_tokens) ?? count(usage.prompt_cache_hit_tokens);
  const out: { inputTokens: number; outputTokens: number; cacheReadTokens?: number; reasoningTokens?: number } = {
    inputTokens: Math.max(0, prompt - (cacheRead ?? 0)),
    outputTokens: count(usage.completion_tokens) ?? 0,
  };
  if (cacheRead !== undefined) out.cacheReadTokens = cacheRead;
  const reasoning = count(usage.completion_tokens_details?.reasoning_tokens);
  if (reasoning !== undefined) out.reasoningTokens = reasoning;
  return out;
}

/**
 * Wire finish_reason → {@link FinishReason}: `stop`→stop, `tool_calls` (and legacy
 * `function_call`)→tool-calls, `length`→max-tokens, `content_filter`→error CONTENT_FILTER, anything
 * else → error with the upper-cased reason as code (e.g. DeepSeek's `insufficient_system_resource`
 * → `INSUFFICIENT_SYSTEM_RESOURCE`).
 */
export function mapFinishReason(reason: string): FinishReason {
  switch (reason) {
    case 'stop':
      return { kind: 'stop' };
    case 'tool_calls':
    case 'function_call':
      return { kind: 'tool-calls' };
    case 'length':
      return { kind: 'max-tokens' };
    default: {
      // Provider-specific reasons become upper-cased codes (reference runtime behaviour); the
      // shared LlmErrorCode union has no open member for them yet, hence the cast.
      const code = reason.toUpperCase().replace(/[^A-Z0-9]+/g, '_') as LlmErrorCode;
      return { kind: 'error', failure: llmFailure(code, `the provider stopped the response: ${reason}`) };
    }
  }
}
