/**
 * Compaction (docs/architecture.md §8; reference runtime `compaction-basic`): when the estimated request passes a
 * share of the context window, the oldest part of the model-visible surface is replaced by a
 * summary. Nothing is deleted from the log: the replacement is a `user/message` with
 * `surfaceOp: replace` that cites every shadowed node, inside a
 * `compaction/start → compaction/summary → replacement → compaction/end` transaction. A failure
 * closes the bracket with `error` and leaves the surface untouched.
 *
 * The replaced range is head-anchored and never splits a tool call from its result (the cut is
 * moved head-ward until the count of open tool calls before it is zero).
 */
import type { LlmFailure } from '../../shared/chunks.js';
import { ForklineError } from '../../shared/errors.js';
import type { RequestHeader, SessionEvent } from '../../shared/events.js';
import type { Message, TextBlock, ToolSchema, UserMessage } from '../../shared/messages.js';
import { BlockAssembler } from '../llm/assembler.js';
import type { ModelClient } from '../llm/model-client.js';
import type { Session } from '../session/session.js';
import { BudgetStop } from './budget-stop.js';

export interface CompactionConfig {
  /** Compact when the estimate reaches this share of the context window (default 0.8). */
  readonly thresholdRatio: number;
  /** Keep at least this share of the window verbatim at the tail (default 0.16). */
  readonly retainRatio: number;
  /** Output cap of the summary request, tokens (default 8192). */
  readonly summaryMaxTokens: number;
}

export const DEFAULT_COMPACTION_CONFIG: CompactionConfig = { thresholdRatio: 0.8, retainRatio: 0.16, summaryMaxTokens: 8192 };

/** Estimates of immutable messages, computed once (the loop estimates the whole request every step). */
const messageEstimates = new WeakMap<Message, number>();
/** `JSON.stringify(tools).length` of immutable tool lists. */
const toolListChars = new WeakMap<readonly ToolSchema[], number>();

/** Rough token count of a message: 4 characters per token plus small per-role/per-block overheads (reference runtime `token-meter` heuristic). */
export function estimateMessageTokens(message: Message): number {
  const known = messageEstimates.get(message);
  if (known !== undefined) return known;
  const estimate = computeMessageTokens(message);
  if (Object.isFrozen(message)) messageEstimates.set(message, estimate);
  return estimate;
}

function computeMessageTokens(message: Message): number {
  let chars = 0;
  for (const block of message.content) {
    switch (block.type) {
      case 'text':
      case 'reasoning':
        chars += block.text.length;
        break;
      case 'tool-call':
        chars += block.name.length + block.arguments.length;
        break;
      case 'tool-result':
        for (const part of block.content) chars += part.text.length;
        break;
    }
  }
  return Math.ceil(chars / 4) + 4 + 4 * message.content.length;
}

/**
 * Estimated size of the next request in tokens: the provider's own count at the last response on
 * the surface (input + cache + output) when there is one, plus estimates for what came after;
 * otherwise estimates for everything, plus the system prompt and tool schemas.
 */
export function measureRequestTokens(session: Session): number {
  const nodes = session.surface;
  let total = 0;
  let anchored = false;
  for (let i = nodes.length - 1; i >= 0; i--) {
    const event = session.eventAt(nodes[i]!)!;
    if (event.type === 'assistant/message' && event.data.usage) {
      const u = event.data.usage;
      total += u.inputTokens + (u.cacheReadTokens ?? 0) + (u.cacheWriteTokens ?? 0) + u.outputTokens;
      anchored = true;
      break;
    }
    const message = messageOf(event);
    if (message) total += estimateMessageTokens(message);
  }
  if (!anchored) {
    const header = session.requestHeader();
    total += Math.ceil(((header?.system?.length ?? 0) + JSON.stringify(header?.tools ?? []).length) / 4);
  }
  return total;
}

/**
 * Our estimate of a whole request (tokens): system prompt and tool schemas (4 characters per
 * token) plus every message (see {@link estimateMessageTokens}). Independent of what the provider
 * reported, so it can be compared with the provider's count (silent truncation) and bound the
 * prompt after an overflow.
 */
export function estimateRequestTokens(header: RequestHeader, messages: readonly Message[]): number {
  let toolChars = 0;
  if (header.tools !== undefined) {
    toolChars = toolListChars.get(header.tools) ?? JSON.stringify(header.tools).length;
    if (Object.isFrozen(header.tools)) toolListChars.set(header.tools, toolChars);
  }
  let total = Math.ceil(((header.system?.length ?? 0) + toolChars) / 4);
  for (const message of messages) total += estimateMessageTokens(message);
  return total;
}

/** {@link estimateRequestTokens} for what the surface holds now, with the latest logged header. */
export function estimateSurfaceTokens(session: Session): number {
  const header = session.requestHeader();
  let total = header ? estimateRequestTokens(header, []) : 0;
  for (const seq of session.surface) {
    const message = messageOf(session.eventAt(seq)!);
    if (message) total += estimateMessageTokens(message);
  }
  return total;
}

/**
 * Output cap and input budget of a summary request for a context window (tokens): the cap is
 * `summaryMaxTokens`, but at most a quarter of the window (an 8,000-token model cannot be asked
 * for 8,192 tokens of summary); the input budget is what is left after the cap and a 10 % margin.
 * With no known window: the cap alone, no budget.
 */
export function summaryLimits(contextWindow: number | undefined, summaryMaxTokens: number): { maxTokens: number; maxInputTokens?: number } {
  if (contextWindow === undefined) return { maxTokens: summaryMaxTokens };
  const maxTokens = Math.max(256, Math.min(summaryMaxTokens, Math.floor(contextWindow / 4)));
  return { maxTokens, maxInputTokens: Math.max(512, Math.floor(contextWindow * 0.9) - maxTokens) };
}

/**
 * The messages of a summary request: the shadowed events' messages in surface order, then the
 * compaction instruction as a user message. When `fit` is given and those messages would be larger
 * than `fit.maxInputTokens` (estimated with `fit.header`), they are sent as one plain transcript cut
 * to fit ({@link transcriptOf}). Shared by {@link compactSession} and the request inspector, which
 * rebuilds the request from the log (`compaction/start` names the range, the instruction and the
 * input budget).
 */
export function summaryRequestMessages(
  shadowed: readonly SessionEvent[],
  instruction: string,
  compactionId: string,
  fit?: { readonly header: RequestHeader; readonly maxInputTokens: number },
): Message[] {
  let messages = shadowed.map((event) => messageOf(event)).filter((m): m is Message => m !== undefined);
  const request: UserMessage = { id: `compaction-instruction-${compactionId}`, role: 'user', content: [{ type: 'text', text: instruction }], source: { kind: 'compaction', compactionId } };
  if (fit !== undefined && estimateRequestTokens(fit.header, [...messages, request]) > fit.maxInputTokens) {
    const budgetChars = Math.max(1024, (fit.maxInputTokens - estimateRequestTokens(fit.header, [request]) - 64) * 4);
    messages = [{ id: `compaction-transcript-${compactionId}`, role: 'user', content: [{ type: 'text', text: transcriptOf(messages, budgetChars) }], source: { kind: 'compaction', compactionId } }];
  }
  return [...messages, request];
}

function messageOf(event: SessionEvent): Message | undefined {
  if (event.type === 'user/message') return event.data;
  if (event.type === 'tool/result') return event.data.message;
  if (event.type === 'assistant/message') return event.data.message.content.length > 0 ? event.data.message : undefined;
  return undefined;
}

/** The head-anchored, tool-balanced range to replace: surface positions [0, keepFrom). */
export interface CompactableRange {
  readonly startSeq: number;
  readonly endSeq: number;
  readonly shadowedSeqs: readonly number[];
  readonly shadowedTokens: number;
}

/**
 * Picks the range: walk from the tail summing estimates until `retainTokens` are kept (a message
 * that would take the kept tail past twice `retainTokens` stops the walk, except the last one); then
 * move the cut head-ward until no tool call before it is unanswered. Undefined when nothing qualifies.
 */
export function selectCompactableRange(session: Session, retainTokens: number): CompactableRange | undefined {
  const nodes = session.surface;
  const prices = nodes.map((seq) => {
    const message = messageOf(session.eventAt(seq)!);
    return message ? estimateMessageTokens(message) : 0;
  });
  let kept = 0;
  let keepFrom = nodes.length;
  while (keepFrom > 0 && kept < retainTokens) {
    // A message that alone would overshoot the retained share (a huge tool output) is not kept
    // verbatim, unless it is the last one: on a small window it is exactly what must be summarised.
    if (keepFrom < nodes.length && kept + prices[keepFrom - 1]! > retainTokens * 2) break;
    keepFrom--;
    kept += prices[keepFrom]!;
  }
  if (retainTokens <= 0) keepFrom = Math.max(0, nodes.length - 1);
  // Balance: count open tool calls before each cut position.
  const openBefore: number[] = [0];
  let open = 0;
  for (const seq of nodes) {
    const event = session.eventAt(seq)!;
    if (event.type === 'assistant/message') open += event.data.message.content.filter((b) => b.type === 'tool-call').length;
    if (event.type === 'tool/result') open -= 1;
    openBefore.push(open);
  }
  while (keepFrom > 0 && openBefore[keepFrom] !== 0) keepFrom--;
  if (keepFrom <= 0) return undefined;
  const shadowedSeqs = nodes.slice(0, keepFrom);
  return {
    startSeq: shadowedSeqs[0]!,
    endSeq: shadowedSeqs[shadowedSeqs.length - 1]!,
    shadowedSeqs,
    shadowedTokens: prices.slice(0, keepFrom).reduce((a, b) => a + b, 0),
  };
}

export const COMPACTION_INSTRUCTION = [
  'You are acting as a compaction engine. Summarise the conversation above so that work can continue from the summary alone.',
  'Output this Markdown skeleton, with terse bullets and "(none)" for empty sections:',
  '## Primary Request and Intent',
  '## Key Technical Concepts',
  '## Files and Code',
  '## Errors and Fixes',
  '## Pending Jobs',
  '## Current Work',
  '## Next Step',
  '## Critical Context',
  "Keep exact file paths, commands, error messages, identifiers and numbers. Quote the user's requests and corrections verbatim. Do not mention this summary or the compaction. Do not call tools. If an earlier <compacted-summary> exists above, merge it into one consolidated summary instead of copying it.",
].join('\n');

export const CHECKPOINT_PREAMBLE =
  'This is an automatically generated checkpoint condensing an earlier span of the conversation to free up context. Treat the captured context as established background and build on it without restating it. Continue the task directly from the messages that follow, without acknowledging this checkpoint.';

export interface CompactionOutcome {
  readonly compactionId: string;
  readonly shadowedSeqs: readonly number[];
  readonly replacementSeq: number;
}

/** Thrown when compaction could not complete; the bracket was closed with `error`. */
export class CompactionError extends ForklineError {
  constructor(
    message: string,
    readonly failure?: LlmFailure,
  ) {
    super('COMPACTION_FAILED', message);
    this.name = 'CompactionError';
  }
}

/**
 * Runs one compaction transaction over `session` for the owning `turn` (null = manual, between
 * turns). The summary request reuses the latest logged system prompt and tools so the provider's
 * prefix cache keeps hitting.
 * @returns undefined when there is nothing to compact (nothing is written then).
 * @throws CompactionError when the summary failed or did not shrink (the bracket is closed with error).
 */
export async function compactSession(options: {
  readonly session: Session;
  readonly model: ModelClient;
  readonly turn: number | null;
  readonly retainTokens: number;
  readonly maxTokens: number;
  readonly signal: AbortSignal;
  readonly newId: () => string;
  /** Skip (write nothing) when the range is smaller than this many tokens: a summary would not pay off. */
  readonly minShadowedTokens?: number;
  /**
   * The most the summary request may hold (tokens, estimated). When the shadowed messages are
   * larger, they are sent as one plain transcript cut to fit (oldest text dropped first, long tool
   * outputs cut in the middle), so the summary request itself cannot overflow the window.
   */
  readonly maxInputTokens?: number;
  /**
   * Called right before the summary request is sent (the price log and budget check, docs/providers.md "Prices, overrides and budgets"); what
   * it throws ends the compaction (logged in `compaction/end`, a {@link BudgetStop}'s facts as `budget`) and is rethrown as it is.
   */
  readonly beforeRequest?: (request: { readonly compactionId: string; readonly header: RequestHeader; readonly messages: readonly Message[] }) => void;
}): Promise<CompactionOutcome | undefined> {
  const { session, model, signal, newId } = options;
  const range = selectCompactableRange(session, options.retainTokens);
  if (!range || range.shadowedTokens < (options.minShadowedTokens ?? 0)) return undefined;
  const header = session.requestHeader();
  if (!header) return undefined;
  const compactionId = newId();
  const tokensBefore = measureRequestTokens(session);
  const start = session.append({
    type: 'compaction/start',
    data: {
      compactionId,
      turn: options.turn,
      shadowedRange: { start: range.startSeq, end: range.endSeq },
      shadowedSeqs: range.shadowedSeqs,
      shadowedTokenCount: range.shadowedTokens,
      tokensBefore,
      maxTokens: options.maxTokens,
      instruction: COMPACTION_INSTRUCTION,
      ...(options.maxInputTokens !== undefined ? { maxInputTokens: options.maxInputTokens } : {}),
    },
  });
  const generation = session.replaceGeneration;
  const requestMessages = summaryRequestMessages(
    range.shadowedSeqs.map((seq) => session.eventAt(seq)!),
    COMPACTION_INSTRUCTION,
    compactionId,
    options.maxInputTokens !== undefined ? { header, maxInputTokens: options.maxInputTokens } : undefined,
  );
  const assembler = new BlockAssembler();
  const fail = (message: string, failure?: LlmFailure, rejected?: readonly TextBlock[]): never => {
    // What the provider billed is logged even when the summary is not used.
    const billed = assembler.result().usage;
    session.append({
      type: 'compaction/end',
      data: {
        compactionId,
        turn: options.turn,
        error: message,
        ...(failure ? { failure } : {}),
        ...(rejected && rejected.length > 0 ? { rejectedSummary: rejected } : {}),
        ...(billed ? { usage: billed } : {}),
      },
    });
    throw new CompactionError(message, failure);
  };
  const summaryHeader: RequestHeader = { ...header, config: { ...header.config, maxTokens: options.maxTokens } };
  try {
    options.beforeRequest?.({ compactionId, header: summaryHeader, messages: requestMessages });
  } catch (error) {
    session.append({
      type: 'compaction/end',
      data: {
        compactionId,
        turn: options.turn,
        error: `the summary request was not sent: ${error instanceof Error ? error.message : String(error)}`,
        ...(error instanceof BudgetStop ? { budget: error.facts } : {}),
      },
    });
    throw error;
  }
  try {
    for await (const chunk of model.stream({ header: summaryHeader, messages: requestMessages }, signal)) {
      assembler.push(chunk);
    }
  } catch (error) {
    fail(`the summary request failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (signal.aborted) fail('cancelled');
  const result = assembler.result();
  if (result.finish.kind === 'error' || result.finish.kind === 'aborted') fail(`the summary request failed: ${result.finish.failure.code}: ${result.finish.failure.message}`, result.finish.failure);
  const summary: TextBlock[] = result.blocks.filter((b): b is TextBlock => b.type === 'text' && b.text.trim() !== '');
  if (summary.length === 0) fail('the summary was empty');
  const text = summary.map((b) => b.text).join('');
  const replacement: UserMessage = {
    id: newId(),
    role: 'user',
    content: [{ type: 'text', text: `${CHECKPOINT_PREAMBLE}\n\n<compacted-summary>\n${text}\n</compacted-summary>` }],
    source: { kind: 'compaction', compactionId },
  };
  const replacementTokens = estimateMessageTokens(replacement);
  if (replacementTokens >= range.shadowedTokens) fail('the summary is not smaller than what it would replace', undefined, summary);
  if (session.replaceGeneration !== generation || range.shadowedSeqs.some((seq) => !session.surface.includes(seq))) fail('the conversation changed while it was being summarised', undefined, summary);
  const summaryEvent = session.append({
    type: 'compaction/summary',
    data: {
      compactionId,
      summary,
      shadowedRange: { start: range.startSeq, end: range.endSeq },
      shadowedSeqs: range.shadowedSeqs,
      shadowedTokenCount: range.shadowedTokens,
      provider: header.config.provider,
      model: header.config.model,
      maxTokens: options.maxTokens,
      ...(result.usage ? { usage: result.usage } : {}),
      tokensAfter: Math.max(0, tokensBefore - range.shadowedTokens + replacementTokens),
    },
  });
  const replaced = session.append({
    type: 'user/message',
    data: replacement,
    surfaceOp: { op: 'replace', start: range.startSeq, end: range.endSeq },
    sourceEventSeqs: [start.seq, summaryEvent.seq, ...range.shadowedSeqs],
  });
  session.append({ type: 'compaction/end', data: { compactionId, turn: options.turn } });
  return { compactionId, shadowedSeqs: range.shadowedSeqs, replacementSeq: replaced.seq };
}

/**
 * The shadowed messages as one plain transcript of at most `budgetChars` characters: each message
 * as `[role] text`, tool calls as `[tool call name] arguments`, tool outputs longer than 2,000
 * characters cut in the middle; when still too long, the oldest text is dropped with a note.
 */
export function transcriptOf(messages: readonly Message[], budgetChars: number): string {
  const parts: string[] = [];
  for (const message of messages) {
    for (const block of message.content) {
      switch (block.type) {
        case 'text':
          parts.push(`[${message.role === 'assistant' ? 'assistant' : message.source.kind === 'compaction' ? 'earlier summary' : 'user'}] ${block.text}`);
          break;
        case 'reasoning':
          break;
        case 'tool-call':
          parts.push(`[tool call ${block.name}] ${block.arguments}`);
          break;
        case 'tool-result': {
          const text = block.content.map((t) => t.text).join('');
          parts.push(`[tool result${block.isError ? ', error' : ''}] ${text.length > 2000 ? `${text.slice(0, 1000)}\n…[${text.length - 2000} characters cut]…\n${text.slice(-1000)}` : text}`);
          break;
        }
      }
    }
  }
  let text = parts.join('\n\n');
  if (text.length > budgetChars) {
    const cut = text.length - budgetChars + 80;
    text = `[the oldest ${cut} characters of the conversation are left out here]\n${text.slice(cut)}`;
  }
  return `The conversation so far (as a transcript):\n\n${text}`;
}
