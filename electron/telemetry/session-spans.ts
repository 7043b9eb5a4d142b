/**
 * A session's log as OpenTelemetry spans (issue 26), following the GenAI semantic conventions
 * (attribute names as published in @opentelemetry/semantic-conventions 1.45, incubating
 * `gen_ai.*`):
 * - the session: a root span `session <id>`; every span of the trace carries
 *   `gen_ai.conversation.id` = the session id;
 * - a turn: an `invoke_agent forkline` span (`gen_ai.operation.name` = `invoke_agent`);
 * - a step (one model request): a `chat <model>` span (kind CLIENT) with `gen_ai.provider.name`,
 *   `gen_ai.request.model`, `gen_ai.usage.input_tokens` / `output_tokens`,
 *   `gen_ai.usage.cache_read.input_tokens`, `gen_ai.usage.cache_creation.input_tokens`,
 *   `gen_ai.usage.reasoning.output_tokens`, `gen_ai.response.finish_reasons`;
 * - a tool call: an `execute_tool <name>` span with `gen_ai.tool.name`, `gen_ai.tool.call.id`;
 * - a fork: its session span links to the parent's turn span it was forked after;
 * - compaction (`forkline.compaction`), crash recovery (`forkline.recovery`), retries
 *   (`forkline.llm.retry`) and takeovers: span events.
 * Message content (`gen_ai.input.messages` — what the step added: user messages and tool results —,
 * `gen_ai.output.messages`, `gen_ai.tool.call.arguments` / `result`) only with `includeContent`.
 *
 * Ids are derived, not random: the trace id from the session id, each span id from the session id
 * and the seq of the event that opened it, so exporting twice gives the same trace and a fork's
 * link names the very span its parent's export holds. Times are the events' own timestamps.
 *
 * {@link SessionSpanBuilder} is incremental (one event at a time, spans returned as they end), so
 * the same code serves a one-shot export and live streaming.
 */
import { createHash } from 'node:crypto';
import type { SessionEvent, SessionHeader } from '../../shared/events.js';
import type { AssistantMessage, ContentBlock, Message } from '../../shared/messages.js';

/** An attribute value as OTLP carries it. */
export type SpanAttributeValue = string | number | boolean | readonly string[];
export type SpanAttributes = Record<string, SpanAttributeValue>;

/** One finished span, independent of the SDK (otlp-export.ts turns it into a ReadableSpan). */
export interface SpanRecord {
  /** 32 lowercase hex digits. */
  readonly traceId: string;
  /** 16 lowercase hex digits. */
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: 'internal' | 'client';
  /** Epoch ms. */
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: SpanAttributes;
  readonly events: readonly { readonly name: string; readonly timeMs: number; readonly attributes: SpanAttributes }[];
  readonly links: readonly { readonly traceId: string; readonly spanId: string; readonly attributes: SpanAttributes }[];
  readonly status: { readonly code: 'unset' | 'ok' | 'error'; readonly message?: string };
}

function hex(input: string, bytes: number): string {
  const out = createHash('sha256')
    .update(input)
    .digest('hex')
    .slice(0, bytes * 2);
  // An all-zero id is invalid in OTLP (1 in 2^64): nudge it.
  return /^0+$/.test(out) ? `${out.slice(0, -1)}1` : out;
}

/** The trace id of a session: the first 16 bytes of SHA-256(`forkline-trace:` + id). */
export function traceIdOf(sessionId: string): string {
  return hex(`forkline-trace:${sessionId}`, 16);
}

/**
 * A span id (16 hex digits). The session span's: the first 8 bytes of SHA-256(`forkline-span:` + id
 * + `:session`). A span opened by the event at `seq`: a per-session key (the first 8 bytes of
 * SHA-256(`forkline-span:` + id), hashed once per session) mixed with the seq by MurmurHash3's
 * 32-bit finaliser — one hash per session instead of one per span (a SHA-256 per span was ~20% of
 * live export's cost per step). The high half is a bijection of the seq for a given session, so two
 * spans of one session never share an id.
 */
export function spanIdOf(sessionId: string, seq: number | 'session'): string {
  if (seq === 'session') return hex(`forkline-span:${sessionId}:session`, 8);
  const [k0, k1] = spanKeyOf(sessionId);
  const high = fmix32((k0 ^ seq) >>> 0);
  const low = fmix32((k1 ^ Math.imul(seq, 0x9e3779b1) ^ high) >>> 0);
  if (high === 0 && low === 0) return '0000000000000001'; // an all-zero id is invalid in OTLP
  return high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0');
}

/** Per-session span keys (two unsigned 32-bit words), remembered for the sessions seen last. */
const spanKeys = new Map<string, readonly [number, number]>();
const SPAN_KEYS_KEPT = 256;

function spanKeyOf(sessionId: string): readonly [number, number] {
  let key = spanKeys.get(sessionId);
  if (key === undefined) {
    const digest = createHash('sha256').update(`forkline-span:${sessionId}`).digest();
    key = [digest.readUInt32BE(0), digest.readUInt32BE(4)];
    if (spanKeys.size >= SPAN_KEYS_KEPT) spanKeys.clear();
    spanKeys.set(sessionId, key);
  }
  return key;
}

/** MurmurHash3's 32-bit finaliser (a bijection on unsigned 32-bit integers). */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** `gen_ai.provider.name` for a Forkline provider id (the well-known values of the conventions where one exists). */
export function genAiProviderName(provider: string): string {
  const known: Record<string, string> = { gemini: 'gcp.gemini', openai: 'openai', deepseek: 'deepseek', openrouter: 'openrouter', anthropic: 'anthropic', mistral: 'mistral_ai', groq: 'groq' };
  return known[provider] ?? provider;
}

const FINISH: Record<string, string> = { stop: 'stop', 'tool-calls': 'tool_calls', 'max-tokens': 'length', error: 'error', aborted: 'cancelled' };

/** Options of {@link SessionSpanBuilder}. */
export interface SessionSpanOptions {
  readonly header: SessionHeader;
  /** Record message content (opt-in). */
  readonly includeContent: boolean;
  /** The parent's span this fork continues from (its turn at the fork boundary), for the link. */
  readonly forkedFrom?: { readonly sessionId: string; readonly seq: number };
  /** Events before this seq are inherited (a fork's prefix): they open no span. Default: `header.seedLength ?? 0`. */
  readonly firstOwnSeq?: number;
  /**
   * Emit the session span at {@link SessionSpanBuilder.finish} (default true). Live export leaves
   * it out: the session goes on after this process, and the one-shot export writes it; turn spans
   * still name it as their parent.
   */
  readonly sessionSpan?: boolean;
}

interface OpenSpan {
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: 'internal' | 'client';
  startMs: number;
  attributes: SpanAttributes;
  events: { name: string; timeMs: number; attributes: SpanAttributes }[];
  status: { code: 'unset' | 'ok' | 'error'; message?: string };
}

function parts(blocks: readonly ContentBlock[]): unknown[] {
  return blocks.map((b) => {
    switch (b.type) {
      case 'text':
        return { type: 'text', content: b.text };
      case 'reasoning':
        return { type: 'reasoning', content: b.text };
      case 'tool-call':
        return { type: 'tool_call', id: b.id, name: b.name, arguments: b.arguments };
      case 'tool-result':
        return { type: 'tool_call_response', id: b.toolCallId, response: b.content.map((c) => c.text).join('') };
    }
  });
}

function messageJson(message: Message): unknown {
  return { role: message.role === 'assistant' ? 'assistant' : message.content.some((b) => b.type === 'tool-result') ? 'tool' : 'user', parts: parts(message.content) };
}

/** Builds a session's spans from its events, in seq order. */
export class SessionSpanBuilder {
  readonly traceId: string;
  private readonly id: string;
  private readonly firstOwnSeq: number;
  private session: OpenSpan | undefined;
  private turn: OpenSpan | undefined;
  private step: OpenSpan | undefined;
  private readonly tools = new Map<string, OpenSpan>();
  private provider: string | undefined;
  private model: string | undefined;
  private stepInput: unknown[] = [];
  private finishReasons: string[] = [];
  private compaction: { start: number; id: string } | undefined;
  private lastTime = 0;

  constructor(private readonly options: SessionSpanOptions) {
    this.id = options.header.id;
    this.traceId = traceIdOf(this.id);
    this.firstOwnSeq = options.firstOwnSeq ?? options.header.seedLength ?? 0;
  }

  private open(seq: number | 'session', name: string, kind: 'internal' | 'client', startMs: number, parent: OpenSpan | undefined, attributes: SpanAttributes): OpenSpan {
    return {
      spanId: spanIdOf(this.id, seq),
      ...(parent ? { parentSpanId: parent.spanId } : {}),
      name,
      kind,
      startMs,
      attributes: { 'gen_ai.conversation.id': this.id, ...attributes },
      events: [],
      status: { code: 'unset' },
    };
  }

  private close(span: OpenSpan, endMs: number, links: SpanRecord['links'] = []): SpanRecord {
    return {
      traceId: this.traceId,
      spanId: span.spanId,
      ...(span.parentSpanId !== undefined ? { parentSpanId: span.parentSpanId } : {}),
      name: span.name,
      kind: span.kind,
      startMs: span.startMs,
      endMs: Math.max(endMs, span.startMs),
      attributes: span.attributes,
      events: span.events,
      links,
      status: span.status,
    };
  }

  private ensureSession(time: number): OpenSpan {
    if (!this.session) {
      const h = this.options.header;
      this.session = this.open('session', `session ${this.id}`, 'internal', Math.min(h.createdAt || time, time), undefined, {
        ...(h.title !== undefined ? { 'forkline.session.title': h.title } : {}),
        ...(h.parentSession !== undefined ? { 'forkline.session.parent': h.parentSession } : {}),
        ...(h.seedLength !== undefined ? { 'forkline.session.seed_length': h.seedLength } : {}),
        ...(h.origin?.kind === 'imported' ? { 'forkline.session.imported_from': h.origin.format } : {}),
      });
    }
    return this.session;
  }

  /** Feeds the next event; returns the spans it ended. */
  add(event: SessionEvent): SpanRecord[] {
    const time = event.time;
    this.lastTime = Math.max(this.lastTime, time);
    // The inherited prefix belongs to the parent's trace; only the route it ended on carries over.
    if (event.seq < this.firstOwnSeq) {
      if (event.type === 'request/header') this.route(event.data.header.config.provider, event.data.header.config.model);
      return [];
    }
    const session = this.ensureSession(time);
    const out: SpanRecord[] = [];
    switch (event.type) {
      case 'turn/start':
        this.turn = this.open(event.seq, 'invoke_agent forkline', 'internal', time, session, {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.name': 'forkline',
          'forkline.turn': event.data.turn,
        });
        break;
      case 'turn/end': {
        for (const tool of this.tools.values()) out.push(this.close(tool, time));
        this.tools.clear();
        if (this.step) out.push(this.close(this.step, time));
        this.step = undefined;
        if (this.turn) {
          const reason = event.data.reason;
          this.turn.attributes['forkline.turn.end_reason'] = reason.kind;
          if (reason.kind === 'error') this.turn.status = { code: 'error', message: reason.failure.message };
          if (reason.kind === 'interrupted') this.turn.events.push({ name: 'forkline.recovery', timeMs: time, attributes: { 'forkline.recovery.kind': 'turn-interrupted' } });
          if (this.provider !== undefined) this.turn.attributes['gen_ai.provider.name'] = genAiProviderName(this.provider);
          out.push(this.close(this.turn, time));
        }
        this.turn = undefined;
        break;
      }
      case 'request/header':
        this.route(event.data.header.config.provider, event.data.header.config.model);
        if (this.step) this.stepRoute(this.step);
        break;
      case 'step/start':
        this.step = this.open(event.seq, 'chat', 'client', time, this.turn ?? session, { 'gen_ai.operation.name': 'chat', 'forkline.step': event.data.step });
        this.stepRoute(this.step);
        this.stepInput = [];
        this.finishReasons = [];
        break;
      case 'user/message':
        if (this.options.includeContent && this.step) this.stepInput.push(messageJson(event.data));
        break;
      case 'assistant/chunk':
        if (event.data.chunk.type === 'finish') this.finishReasons = [FINISH[event.data.chunk.reason.kind] ?? event.data.chunk.reason.kind];
        break;
      case 'assistant/message':
        if (this.step) this.usage(this.step, event.data.message, event.data.usage);
        break;
      case 'llm/retry':
        (this.step ?? this.turn ?? session).events.push({
          name: 'forkline.llm.retry',
          timeMs: time,
          attributes: { 'forkline.retry.attempt': event.data.attempt, 'forkline.retry.delay_ms': event.data.delayMs, 'error.type': event.data.failure.code },
        });
        break;
      case 'tool/call': {
        const tool = this.open(event.seq, `execute_tool ${event.data.name}`, 'internal', time, this.step ?? this.turn ?? session, {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': event.data.name,
          'gen_ai.tool.call.id': event.data.callId,
          'gen_ai.tool.type': 'function',
          ...(this.options.includeContent ? { 'gen_ai.tool.call.arguments': event.data.arguments } : {}),
        });
        this.tools.set(event.data.callId, tool);
        break;
      }
      case 'tool/result': {
        if (event.surfaceOp !== undefined && event.surfaceOp !== 'append') break; // a pruned copy, not a result
        const block = event.data.message.content[0];
        const callId = block?.toolCallId ?? '';
        const code = event.data.error?.code;
        if (code === 'TOOL_NOT_STARTED' || code === 'TOOL_OUTCOME_UNKNOWN') {
          (this.turn ?? session).events.push({ name: 'forkline.recovery', timeMs: time, attributes: { 'forkline.recovery.kind': code, 'gen_ai.tool.call.id': callId } });
        }
        if (this.options.includeContent && this.step) this.stepInput.push(messageJson(event.data.message));
        const tool = this.tools.get(callId);
        if (!tool) break;
        this.tools.delete(callId);
        if (block?.isError) tool.status = { code: 'error', ...(code !== undefined ? { message: code } : {}) };
        if (code !== undefined) tool.attributes['error.type'] = code;
        if (this.options.includeContent && block) tool.attributes['gen_ai.tool.call.result'] = block.content.map((c) => c.text).join('');
        out.push(this.close(tool, time));
        break;
      }
      case 'step/end':
        if (this.step) {
          if (this.finishReasons.length > 0) this.step.attributes['gen_ai.response.finish_reasons'] = this.finishReasons;
          if (this.options.includeContent && this.stepInput.length > 0) this.step.attributes['gen_ai.input.messages'] = JSON.stringify(this.stepInput);
          out.push(this.close(this.step, time));
        }
        this.step = undefined;
        break;
      case 'compaction/start':
        this.compaction = { start: time, id: event.data.compactionId };
        break;
      case 'compaction/summary':
        (this.step ?? this.turn ?? session).events.push({
          name: 'forkline.compaction',
          timeMs: time,
          attributes: {
            'forkline.compaction.id': event.data.compactionId,
            'forkline.compaction.shadowed_tokens': event.data.shadowedTokenCount,
            'forkline.compaction.shadowed_events': event.data.shadowedSeqs.length,
          },
        });
        break;
      case 'compaction/end':
        (this.step ?? this.turn ?? session).events.push({
          name: 'forkline.compaction.end',
          timeMs: time,
          attributes: {
            'forkline.compaction.id': event.data.compactionId,
            'forkline.compaction.duration_ms': this.compaction ? time - this.compaction.start : 0,
            ...(event.data.error !== undefined ? { 'error.type': 'compaction_failed' } : {}),
          },
        });
        this.compaction = undefined;
        break;
      case 'session/takeover':
        session.events.push({ name: 'forkline.recovery', timeMs: time, attributes: { 'forkline.recovery.kind': 'takeover', 'forkline.takeover.reason': event.data.reason } });
        break;
      default:
        break;
    }
    return out;
  }

  /**
   * Ends the session span (and anything still open, marked unfinished) at `endMs` (default: the
   * last event's time); returns those spans. The builder is spent afterwards.
   */
  finish(endMs = this.lastTime): SpanRecord[] {
    const out: SpanRecord[] = [];
    const session = this.ensureSession(endMs);
    for (const span of [...this.tools.values(), this.step, this.turn]) {
      if (!span) continue;
      span.attributes['forkline.unfinished'] = true;
      out.push(this.close(span, endMs));
    }
    this.tools.clear();
    this.step = undefined;
    this.turn = undefined;
    const from = this.options.forkedFrom;
    if (this.options.sessionSpan === false) return out;
    out.push(this.close(session, endMs, from ? [{ traceId: traceIdOf(from.sessionId), spanId: spanIdOf(from.sessionId, from.seq), attributes: { 'forkline.link': 'forked-from' } }] : []));
    return out;
  }

  private route(provider: string, model: string): void {
    this.provider = provider;
    this.model = model;
  }

  private stepRoute(step: OpenSpan): void {
    if (this.provider !== undefined) step.attributes['gen_ai.provider.name'] = genAiProviderName(this.provider);
    if (this.model !== undefined) {
      step.attributes['gen_ai.request.model'] = this.model;
      step.name = `chat ${this.model}`;
    }
  }

  private usage(
    step: OpenSpan,
    message: AssistantMessage,
    usage: { inputTokens: number; outputTokens: number; cacheReadTokens?: number; cacheWriteTokens?: number; reasoningTokens?: number } | undefined,
  ): void {
    const source = message.source as { model?: string } | undefined;
    if (source?.model !== undefined) step.attributes['gen_ai.response.model'] = source.model;
    if (usage) {
      step.attributes['gen_ai.usage.input_tokens'] = usage.inputTokens;
      step.attributes['gen_ai.usage.output_tokens'] = usage.outputTokens;
      if (usage.cacheReadTokens !== undefined) step.attributes['gen_ai.usage.cache_read.input_tokens'] = usage.cacheReadTokens;
      if (usage.cacheWriteTokens !== undefined) step.attributes['gen_ai.usage.cache_creation.input_tokens'] = usage.cacheWriteTokens;
      if (usage.reasoningTokens !== undefined) step.attributes['gen_ai.usage.reasoning.output_tokens'] = usage.reasoningTokens;
    }
    if (this.options.includeContent) step.attributes['gen_ai.output.messages'] = JSON.stringify([messageJson(message)]);
  }
}

/**
 * Which span a fork continues from: the turn (by its `turn/start` seq) that ends at the fork
 * boundary, and the session that recorded it (walking up the lineage while the seq lies in an
 * inherited prefix). Undefined for a session that is not a fork or whose boundary holds no turn.
 * @param lineage header of a session by id (the repository's records).
 */
export function forkLinkTarget(header: SessionHeader, prefix: readonly SessionEvent[], lineage: (id: string) => SessionHeader | undefined): { sessionId: string; seq: number } | undefined {
  const seed = header.seedLength;
  if (header.parentSession === undefined || seed === undefined) return undefined;
  const start = prefix.slice(0, seed).findLast((e) => e.type === 'turn/start');
  if (!start) return undefined;
  let owner = header.parentSession;
  for (let guard = 0; guard < 1000; guard++) {
    const h = lineage(owner);
    if (!h || h.parentSession === undefined || h.seedLength === undefined || start.seq >= h.seedLength) break;
    owner = h.parentSession;
  }
  return { sessionId: owner, seq: start.seq };
}
