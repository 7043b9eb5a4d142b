/**
 * Turns a {@link ScriptStep} into an HTTP plan: status, headers and the frames to play. Pure except
 * for reading replay files.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { Frame, FramesStep, HttpErrorStep, ReplayStep, ReplyStep, ScriptStep, StreamOptions } from './script.js';

/** What the server plays for one request. `frames` may be empty (the body ends at once). */
export interface Plan {
  readonly status: number;
  readonly headers: { readonly [name: string]: string };
  readonly frames: readonly Frame[];
}

const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };

/** Compiles a step. `requestNumber` (1-based) names the default `x-request-id`. */
export function compileStep(step: ScriptStep, requestNumber: number, baseDir: string): Plan {
  const requestId = { 'x-request-id': `req_scripted_${requestNumber}` };
  switch (step.type) {
    case 'reply':
      return streamPlan(200, replyFrames(step, requestNumber), step, requestId);
    case 'frames':
      return streamPlan(step.status ?? 200, step.frames, step, requestId);
    case 'replay':
      return streamPlan(200, replayFrames(step, baseDir), step, requestId);
    case 'http-error':
      return httpErrorPlan(step, requestId);
    default: {
      const never: never = step;
      throw new Error(`unknown scripted step ${JSON.stringify(never)}`);
    }
  }
}

function streamPlan(status: number, frames: readonly Frame[], options: StreamOptions, requestId: { 'x-request-id': string }): Plan {
  return { status, headers: { ...SSE_HEADERS, ...requestId, ...(options.headers ?? {}) }, frames: applyOptions(frames, options) };
}

function httpErrorPlan(step: HttpErrorStep, requestId: { 'x-request-id': string }): Plan {
  const body =
    step.body === undefined
      ? JSON.stringify({ error: { message: `scripted HTTP ${step.status}`, type: 'scripted_error', code: step.status } })
      : typeof step.body === 'string'
        ? step.body
        : JSON.stringify(step.body);
  const headers: Record<string, string> = { 'content-type': 'application/json', ...requestId, ...(step.headers ?? {}) };
  if (step.retryAfter !== undefined) headers['retry-after'] = String(step.retryAfter);
  return { status: step.status, headers, frames: [{ raw: body }] };
}

/** Adds pacing, keep-alives and the cut to a frame list. */
function applyOptions(frames: readonly Frame[], options: StreamOptions): Frame[] {
  let out: Frame[] = [];
  let index = 0;
  for (const frame of frames) {
    const content = !('delayMs' in frame) && !('stall' in frame) && !('destroy' in frame);
    if (content) {
      if (options.keepAliveEvery !== undefined && options.keepAliveEvery > 0 && index % options.keepAliveEvery === 0 && index > 0) {
        out.push({ comment: 'keep-alive' });
      }
      if (options.frameDelayMs !== undefined && options.frameDelayMs > 0) out.push({ delayMs: options.frameDelayMs });
      index++;
    }
    out.push(frame);
  }
  if (options.cut) {
    const kept: Frame[] = [];
    let count = 0;
    for (const frame of out) {
      const content = 'data' in frame || 'comment' in frame || 'done' in frame || 'raw' in frame;
      if (content && count >= options.cut.after) break;
      if (content) count++;
      kept.push(frame);
    }
    if (options.cut.then === 'stall') kept.push({ stall: true });
    if (options.cut.then === 'destroy') kept.push({ destroy: true });
    out = kept;
  }
  return out;
}

/** A `chat.completion.chunk` envelope around one choice (or `choices: []` when `choice` is null). */
export function wireChunk(delta: Record<string, unknown> | null, options: { finishReason?: string | null; usage?: unknown; model?: string; id?: string } = {}): Record<string, unknown> {
  const chunk: Record<string, unknown> = {
    id: options.id ?? 'chatcmpl-scripted',
    object: 'chat.completion.chunk',
    created: 0,
    model: options.model ?? 'scripted-model',
    choices: delta === null ? [] : [{ index: 0, delta, finish_reason: options.finishReason ?? null }],
  };
  if (options.usage !== undefined) chunk['usage'] = options.usage;
  return chunk;
}

function pieces(text: string, size: number): string[] {
  if (text === '') return [];
  const out: string[] = [];
  const chars = Array.from(text); // never split a surrogate pair
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}

/** The frames of a reply (see {@link ReplyStep}). */
export function replyFrames(step: ReplyStep, requestNumber = 1): Frame[] {
  const size = Math.max(1, step.split ?? 4);
  const common = { model: step.model ?? 'scripted-model', id: `chatcmpl-scripted-${requestNumber}` };
  const frames: Frame[] = [];
  const push = (delta: Record<string, unknown> | null, extra: { finishReason?: string | null; usage?: unknown } = {}): void => {
    frames.push({ data: wireChunk(delta, { ...common, ...extra }) });
  };
  push({ role: 'assistant', content: '' });
  const reasoningField = step.reasoningField ?? 'reasoning_content';
  for (const piece of pieces(step.reasoning ?? '', size)) push({ [reasoningField]: piece });
  // A thinking endpoint with nothing to think: `reasoning_content: ""` on the first content delta.
  let emptyReasoning = step.emptyReasoningContent === true && (step.reasoning ?? '') === '';
  const withEmpty = (delta: Record<string, unknown>): Record<string, unknown> => {
    if (!emptyReasoning) return delta;
    emptyReasoning = false;
    return { reasoning_content: '', ...delta };
  };
  for (const piece of pieces(step.text ?? '', size)) push(withEmpty({ content: piece }));

  const calls = step.toolCalls ?? [];
  const later = step.laterIdName ?? 'omit';
  const argPieces = calls.map((call) => pieces(call.arguments, size));
  const header = (i: number): Record<string, unknown> => {
    const call = calls[i]!;
    return withEmpty({ tool_calls: [{ index: i, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] });
  };
  const argDelta = (i: number, piece: string): Record<string, unknown> => {
    if (later === 'empty') return { tool_calls: [{ index: i, id: '', type: 'function', function: { name: '', arguments: piece } }] };
    if (later === 'null') return { tool_calls: [{ index: i, id: null, type: 'function', function: { name: null, arguments: piece } }] };
    return { tool_calls: [{ index: i, function: { arguments: piece } }] };
  };
  if (step.interleave) {
    calls.forEach((_, i) => push(header(i)));
    const longest = Math.max(0, ...argPieces.map((p) => p.length));
    for (let k = 0; k < longest; k++) {
      argPieces.forEach((p, i) => {
        if (k < p.length) push(argDelta(i, p[k]!));
      });
    }
  } else {
    calls.forEach((_, i) => {
      push(header(i));
      for (const piece of argPieces[i]!) push(argDelta(i, piece));
    });
  }

  const finish = step.finish === undefined ? (calls.length > 0 ? 'tool_calls' : 'stop') : step.finish;
  const usageIn = step.usageIn ?? 'separate-chunk';
  if (finish !== null) {
    const onFinish = step.usage !== undefined && usageIn === 'finish-chunk' ? { usage: step.usage } : {};
    push(withEmpty(calls.length > 0 || (step.text ?? '') !== '' || (step.reasoning ?? '') !== '' ? {} : { content: '' }), { finishReason: finish, ...onFinish });
  }
  if (step.usage !== undefined && (usageIn === 'separate-chunk' || finish === null)) push(null, { usage: step.usage });
  if (step.done ?? true) frames.push({ done: true });
  return frames;
}

/** The frames of a replayed recording (see {@link ReplayStep}). */
export function replayFrames(step: ReplayStep, baseDir: string): Frame[] {
  const path = isAbsolute(step.file) ? step.file : resolve(baseDir, step.file);
  const text = readFileSync(path, 'utf8');
  if (path.endsWith('.chunks.jsonl')) {
    const frames: Frame[] = [];
    for (const line of text.split(/\r?\n/)) if (line.trim() !== '') frames.push({ raw: `data: ${line}\n\n` });
    frames.push({ done: true });
    return frames;
  }
  if (path.endsWith('.sse')) {
    // Byte for byte: the concatenation of these raw frames is the file.
    const frames: Frame[] = [];
    let start = 0;
    for (;;) {
      const end = text.indexOf('\n\n', start);
      if (end === -1) break;
      frames.push({ raw: text.slice(start, end + 2) });
      start = end + 2;
    }
    if (start < text.length) frames.push({ raw: text.slice(start) });
    return frames;
  }
  throw new Error(`scripted-llm: cannot replay ${path} (expected .sse or .chunks.jsonl)`);
}

/** Serialises one frame to the bytes it puts on the wire ('' for actions). */
export function frameText(frame: Frame): string {
  if ('raw' in frame) return frame.raw;
  if ('comment' in frame) return `: ${frame.comment}\n\n`;
  if ('done' in frame) return 'data: [DONE]\n\n';
  if ('event' in frame) return `event: ${frame.event}\ndata: ${typeof frame.data === 'string' ? frame.data : JSON.stringify(frame.data)}\n\n`;
  if ('data' in frame) return `data: ${typeof frame.data === 'string' ? frame.data : JSON.stringify(frame.data)}\n\n`;
  return '';
}

/** Checks that a value looks like a script step (for script files); throws with a readable message. */
export function assertStep(value: unknown, where: string): asserts value is ScriptStep {
  const type = typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
  if (type !== 'reply' && type !== 'frames' && type !== 'http-error' && type !== 'replay') {
    throw new Error(`${where}: a step needs "type" of reply | frames | http-error | replay, got ${JSON.stringify(type)}`);
  }
  if (type === 'frames' && !Array.isArray((value as FramesStep).frames)) throw new Error(`${where}: a frames step needs a "frames" array`);
  if (type === 'http-error' && typeof (value as HttpErrorStep).status !== 'number') throw new Error(`${where}: an http-error step needs a numeric "status"`);
  if (type === 'replay' && typeof (value as ReplayStep).file !== 'string') throw new Error(`${where}: a replay step needs a "file"`);
}
