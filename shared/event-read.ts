/**
 * Tolerant readers for event payloads, used by the renderer's projections.
 *
 * A session debugger must show whatever a log contains, including logs imported from the
 * reference runtime in older shapes (`assistant/message {content, provenance}`,
 * `tool/result {callId, content, isError}`, `turn/end` reasons `aborted{reason}` / `error{error}`)
 * and logs with damaged payloads. These readers never throw: a missing field reads as
 * `undefined` / empty, so a projection can always produce a row.
 *
 * Pure: no Node, no DOM.
 */
import type { LlmFailure, TokenUsage } from './chunks.js';
import type { CancelCause, TodoItem } from './events.js';

/** Any JSON-ish object, read defensively. */
export type Loose = { readonly [key: string]: unknown };

export function asObject(value: unknown): Loose | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Loose) : undefined;
}

export function asArray(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function asNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A content block as stored (`text`, `reasoning`, `tool-call`, `tool-result`), read loosely. */
export interface LooseBlock {
  readonly type: string;
  readonly text: string;
  /** tool-call: call id; tool-result: toolCallId. */
  readonly id?: string;
  readonly name?: string;
  readonly arguments?: string;
}

export function readBlock(value: unknown): LooseBlock | undefined {
  const o = asObject(value);
  const type = asString(o?.['type']);
  if (!o || !type) return undefined;
  const block: { -readonly [K in keyof LooseBlock]: LooseBlock[K] } = { type, text: asString(o['text']) ?? '' };
  const id = asString(o['id']) ?? asString(o['toolCallId']);
  if (id !== undefined) block.id = id;
  const name = asString(o['name']);
  if (name !== undefined) block.name = name;
  const args = asString(o['arguments']);
  if (args !== undefined) block.arguments = args;
  return block;
}

/** Concatenated `text` blocks of a content array. */
export function joinText(content: unknown): string {
  let out = '';
  for (const item of asArray(content)) {
    const o = asObject(item);
    if (o && o['type'] === 'text' && typeof o['text'] === 'string') out += o['text'];
  }
  return out;
}

/** The content blocks of an `assistant/message` payload (current or legacy shape). */
export function assistantBlocks(data: unknown): LooseBlock[] {
  const d = asObject(data);
  const message = asObject(d?.['message']);
  const content = message ? message['content'] : d?.['content'];
  const out: LooseBlock[] = [];
  for (const item of asArray(content)) {
    const block = readBlock(item);
    if (block) out.push(block);
  }
  return out;
}

/** Provider and model of an `assistant/message` payload (current or legacy shape). */
export function assistantModel(data: unknown): string | undefined {
  const d = asObject(data);
  const source = asObject(asObject(d?.['message'])?.['source']) ?? asObject(d?.['provenance']);
  const model = asString(source?.['model']);
  const provider = asString(source?.['provider']);
  if (!model) return undefined;
  return provider ? `${provider}/${model}` : model;
}

/** The facts of a `tool/result` payload (current or legacy shape). */
export interface ToolResultFacts {
  readonly callId: string | undefined;
  readonly text: string;
  readonly isError: boolean;
  readonly errorCode?: string;
  readonly errorName?: string;
  readonly meta?: unknown;
}

export function toolResultFacts(data: unknown): ToolResultFacts {
  const d = asObject(data);
  const message = asObject(d?.['message']);
  let callId: string | undefined;
  let text = '';
  let isError = false;
  if (message) {
    callId = asString(asObject(message['source'])?.['callId']);
    const block = asObject(asArray(message['content'])[0]);
    if (block) {
      callId = callId ?? asString(block['toolCallId']);
      text = joinText(block['content']);
      isError = block['isError'] === true;
    }
  } else {
    callId = asString(d?.['callId']);
    text = joinText(d?.['content']);
    isError = d?.['isError'] === true;
  }
  const error = asObject(d?.['error']);
  const facts: { -readonly [K in keyof ToolResultFacts]: ToolResultFacts[K] } = { callId, text, isError };
  const code = asString(error?.['code']);
  if (code !== undefined) facts.errorCode = code;
  const name = asString(error?.['name']);
  if (name !== undefined) facts.errorName = name;
  if (d && 'meta' in d && d['meta'] !== undefined) facts.meta = d['meta'];
  return facts;
}

/** Token usage read loosely (missing counts read as 0 / absent). */
export function readUsage(value: unknown): TokenUsage | undefined {
  const o = asObject(value);
  if (!o) return undefined;
  const input = asNumber(o['inputTokens']);
  const output = asNumber(o['outputTokens']);
  if (input === undefined && output === undefined) return undefined;
  const usage: { -readonly [K in keyof TokenUsage]: TokenUsage[K] } = { inputTokens: input ?? 0, outputTokens: output ?? 0 };
  const cacheRead = asNumber(o['cacheReadTokens']);
  if (cacheRead !== undefined) usage.cacheReadTokens = cacheRead;
  const cacheWrite = asNumber(o['cacheWriteTokens']);
  if (cacheWrite !== undefined) usage.cacheWriteTokens = cacheWrite;
  const reasoning = asNumber(o['reasoningTokens']);
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  return usage;
}

/** Adds two usages (for turn totals). */
export function addUsage(a: TokenUsage | undefined, b: TokenUsage | undefined): TokenUsage | undefined {
  if (!a) return b;
  if (!b) return a;
  const sum: { -readonly [K in keyof TokenUsage]: TokenUsage[K] } = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
  };
  if (a.cacheReadTokens !== undefined || b.cacheReadTokens !== undefined) sum.cacheReadTokens = (a.cacheReadTokens ?? 0) + (b.cacheReadTokens ?? 0);
  if (a.cacheWriteTokens !== undefined || b.cacheWriteTokens !== undefined) sum.cacheWriteTokens = (a.cacheWriteTokens ?? 0) + (b.cacheWriteTokens ?? 0);
  if (a.reasoningTokens !== undefined || b.reasoningTokens !== undefined) sum.reasoningTokens = (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0);
  return sum;
}

/** A failure record read loosely. */
export function readFailure(value: unknown): LlmFailure | undefined {
  const o = asObject(value);
  if (!o) return undefined;
  const code = asString(o['code']) ?? 'UNKNOWN';
  const message = asString(o['message']) ?? '';
  const failure: { -readonly [K in keyof LlmFailure]: LlmFailure[K] } = { code: code as LlmFailure['code'], message };
  const status = asNumber(o['status']);
  if (status !== undefined) failure.status = status;
  return failure;
}

/** A turn-end reason, normalised: kind plus the cause / failure in either shape. */
export interface TurnEndFacts {
  readonly kind: string;
  readonly cause?: CancelCause;
  readonly failure?: LlmFailure;
  /** For `budget`: what stopped the turn, in words. */
  readonly message?: string;
  /** For `budget`: the limit that stopped it (kind, scope, the limit, spent before, the request's worst case). */
  readonly budget?: { readonly limit: 'usd' | 'tokens'; readonly scope: 'session' | 'turn'; readonly budget: number; readonly spent: number; readonly worstCase?: number };
}

export function turnEndFacts(data: unknown): TurnEndFacts {
  const d = asObject(data);
  // An older shape records only `{error}` (a string or a failure record) and no reason.
  if (d && d['reason'] === undefined && d['error'] !== undefined) {
    const failure = readFailure(d['error']) ?? { code: 'UNKNOWN' as const, message: asString(d['error']) ?? '' };
    return { kind: 'error', failure };
  }
  const reason = asObject(asObject(data)?.['reason']);
  const kind = asString(reason?.['kind']) ?? (typeof asObject(data)?.['reason'] === 'string' ? String(asObject(data)?.['reason']) : 'unknown');
  if (kind === 'aborted') {
    const cause = asObject(reason?.['cause']) ?? asObject(reason?.['reason']);
    const causeKind = asString(cause?.['kind']) ?? 'legacy';
    const facts: CancelCause =
      causeKind === 'hook'
        ? { kind: 'hook', reason: asString(cause?.['reason']) ?? '' }
        : causeKind === 'signal'
          ? ({ kind: 'signal', signal: asString(cause?.['signal']) ?? 'SIGTERM' } as CancelCause)
          : ({ kind: causeKind } as CancelCause);
    return { kind, cause: facts };
  }
  if (kind === 'error') {
    const failure = readFailure(reason?.['failure'] ?? reason?.['error']) ?? { code: 'UNKNOWN', message: '' };
    return { kind, failure };
  }
  if (kind === 'budget') {
    const limit = reason?.['limit'] === 'tokens' ? 'tokens' : 'usd';
    const scope = reason?.['scope'] === 'turn' ? 'turn' : 'session';
    const budget = asNumber(reason?.['budget']);
    const spent = asNumber(reason?.['spent']);
    const worstCase = asNumber(reason?.['worstCase']);
    return {
      kind,
      message: asString(reason?.['message']) ?? '',
      ...(budget !== undefined && spent !== undefined ? { budget: { limit, scope, budget, spent, ...(worstCase !== undefined ? { worstCase } : {}) } } : {}),
    };
  }
  return { kind };
}

/** Short human label for a turn end: `completed`, `aborted (user)`, `error RATE_LIMIT`, … */
export function turnEndLabel(facts: TurnEndFacts): string {
  switch (facts.kind) {
    case 'aborted': {
      const cause = facts.cause;
      if (!cause) return 'aborted';
      if (cause.kind === 'signal') return `aborted (${cause.signal})`;
      return cause.kind === 'hook' && cause.reason ? `aborted (hook: ${cause.reason})` : `aborted (${cause.kind})`;
    }
    case 'error':
      return `error ${facts.failure?.code ?? 'UNKNOWN'}`;
    case 'source-ended':
      // An import whose source log stops inside the turn: no crash, the file just ends there.
      return 'source log ends';
    default:
      return facts.kind;
  }
}

/** Todo items read loosely (`content` or `text` or `title`; unknown statuses read as `pending`). */
export function readTodos(value: unknown): TodoItem[] {
  const out: TodoItem[] = [];
  for (const item of asArray(value)) {
    const o = asObject(item);
    const content = asString(o?.['content']) ?? asString(o?.['text']) ?? asString(o?.['title']);
    if (content === undefined) continue;
    const status = asString(o?.['status']);
    out.push({ content, status: status === 'completed' || status === 'in_progress' ? status : 'pending' });
  }
  return out;
}
