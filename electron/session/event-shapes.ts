/**
 * The payload shape of every known event type, checked when a log is read from a file (docs/security.md):
 * a file may put any JSON in any field, and the code that shows, compares, forks and continues a
 * session reads these fields as `shared/events.ts` types them. An event whose fields a reader relies
 * on have the wrong type (a number where text is, a missing `reason`, a turn of 1e21) is a damaged
 * line, so the file is refused or cut where its damage starts (jsonl.ts rules) instead of crashing
 * whoever reads it later.
 *
 * Only fields our code reads are checked; unknown extra fields are kept (foreign logs carry more).
 * Integers are safe integers, so no turn, step, seq or range from a file is beyond 2^53.
 */
import { z } from 'zod';
import type { SessionEvent, SessionEventType } from '../../shared/events.js';

const int = z.int();
const count = z.int().min(0);
const text = z.string();

const textBlock = z.looseObject({ type: z.literal('text'), text });
const reasoningBlock = z.looseObject({ type: z.literal('reasoning'), text });
const toolCallBlock = z.looseObject({ type: z.literal('tool-call'), id: text, name: text, arguments: text });
const assistantBlock = z.discriminatedUnion('type', [textBlock, reasoningBlock, toolCallBlock]);
const toolResultBlock = z.looseObject({ type: z.literal('tool-result'), toolCallId: text.nullable(), content: z.array(textBlock), isError: z.boolean() });

const source = z.looseObject({ kind: text });
const userMessage = z.looseObject({ id: text, role: z.literal('user'), content: z.array(textBlock), source });
const usage = z.looseObject({
  inputTokens: z.number().optional(),
  outputTokens: z.number().optional(),
  cacheReadTokens: z.number().optional(),
  cacheWriteTokens: z.number().optional(),
  reasoningTokens: z.number().optional(),
});
const failure = z.looseObject({ message: text, code: text });
const range = z.looseObject({ start: int, end: int });

const chunk = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('block-start'), index: int }),
  z.looseObject({ type: z.literal('text-delta'), index: int, text }),
  z.looseObject({ type: z.literal('reasoning-delta'), index: int, text }),
  z.looseObject({ type: z.literal('tool-call-delta'), index: int, id: text.optional(), name: text.optional(), argumentsDelta: text }),
  z.looseObject({ type: z.literal('block-end'), index: int, block: assistantBlock }),
  z.looseObject({ type: z.literal('usage'), usage }),
  z.looseObject({ type: z.literal('finish'), reason: z.looseObject({ kind: text }) }),
]);

const turnEndReason = z.discriminatedUnion('kind', [
  z.looseObject({ kind: z.literal('completed') }),
  z.looseObject({ kind: z.literal('max-tokens') }),
  z.looseObject({ kind: z.literal('blocked') }),
  z.looseObject({ kind: z.literal('interrupted') }),
  z.looseObject({ kind: z.literal('source-ended') }),
  z.looseObject({ kind: z.literal('aborted'), cause: z.looseObject({ kind: text }) }),
  z.looseObject({ kind: z.literal('error'), failure }),
  z.looseObject({
    kind: z.literal('budget'),
    limit: z.enum(['usd', 'tokens']),
    scope: z.enum(['session', 'turn']),
    budget: z.number(),
    spent: z.number(),
    worstCase: z.number().optional(),
    message: text,
  }),
]);

const turnStep = { turn: int, step: int };

/** Payload schema per event type (keyed by the union: every type this build knows, see EVENT_TYPES). */
const SHAPES: { readonly [type: string]: z.ZodType } = {
  'turn/start': z.looseObject({ turn: int }),
  'turn/end': z.looseObject({ turn: int, reason: turnEndReason }),
  'step/start': z.looseObject(turnStep),
  'step/end': z.looseObject(turnStep),
  'user/message': userMessage,
  'assistant/chunk': z.looseObject({ ...turnStep, chunk }),
  'assistant/message': z.looseObject({
    ...turnStep,
    message: z.looseObject({ id: text, role: z.literal('assistant'), content: z.array(assistantBlock), source }),
    usage: usage.optional(),
  }),
  'tool/call': z.looseObject({ ...turnStep, callId: text, name: text, arguments: text }),
  'tool/result': z.looseObject({
    ...turnStep,
    message: z.looseObject({ role: text, source, content: z.array(toolResultBlock).min(1) }),
    error: z.looseObject({ code: text }).optional(),
  }),
  'request/header': z.looseObject({
    header: z.looseObject({
      config: z.looseObject({ provider: text, model: text, reasoningEffort: text.optional() }),
      system: text.optional(),
      // Sanitised reference-runtime logs carry a placeholder string ("{{tools}}") here.
      tools: z.union([z.array(z.looseObject({ name: text })), text]).optional(),
    }),
  }),
  'request/context': z.looseObject({ provider: text, model: text, contextWindow: z.number().optional(), baseUrl: text.optional() }),
  'request/price': z.looseObject({
    ...turnStep,
    compactionId: text.optional(),
    provider: text,
    model: text,
    quote: z.looseObject({ kind: z.enum(['known', 'unknown']), snapshot: text }),
    estimatedInputTokens: z.number(),
    outputCap: z.number().optional(),
    worstCaseUsd: z.number().optional(),
  }),
  'llm/retry': z.looseObject({ ...turnStep, attempt: z.number(), delayMs: z.number(), failure }),
  'approval/asked': z.looseObject({ id: text, callId: text, toolName: text, reason: text.optional() }),
  'approval/decided': z.looseObject({ id: text, outcome: text }),
  'approval/policy': z.looseObject({ policy: text }),
  'agent/inbox/spliced': z.looseObject({ target: z.enum(['next-turn', 'next-step']), start: count, removedCount: count.optional(), inserted: z.array(userMessage) }),
  'compaction/start': z.looseObject({ compactionId: text, turn: int.nullable() }),
  'compaction/summary': z.looseObject({
    compactionId: text,
    summary: z.array(textBlock),
    shadowedRange: range,
    shadowedSeqs: z.array(int),
    shadowedTokenCount: z.number(),
    provider: text,
    model: text,
    usage: usage.optional(),
  }),
  'compaction/end': z.looseObject({ compactionId: text, turn: int.nullable(), error: text.optional(), usage: usage.optional() }),
  'compaction/prune': z.looseObject({ shadowedRange: range, shadowedSeqs: z.array(int), shadowedTokenCount: z.number() }),
  'workspace/checkpoint': z.looseObject({ turn: int, commit: text }),
  'check/result': z.looseObject({
    purpose: z.enum(['check', 'setup']),
    turn: int,
    command: text,
    exitCode: int.nullable(),
    timedOut: z.boolean(),
    durationMs: z.number(),
    passed: z.boolean(),
    outputTail: text,
  }),
  'workspace/apply': z.looseObject({ branch: text, base: text, theirs: text, before: text, applied: z.boolean(), files: z.array(z.looseObject({ path: text, status: text })) }),
  'workspace/rewind': z.looseObject({ from: text, atSeq: int, restored: text, abandoned: text }),
  'session/end-seed': z.looseObject({}),
  'session/title': z.looseObject({ title: text }),
  'todo/write': z.looseObject({ todos: z.array(z.looseObject({ content: text, status: text })) }),
  'import/elided': z.looseObject({}),
  'tool/process': z.looseObject({ ...turnStep, callId: text, pid: count, pgid: count.optional(), start: text.optional() }),
  'llm/warning': z.looseObject({ ...turnStep, code: text, message: text, hint: text.optional(), estimatedPromptTokens: z.number().optional() }),
  'approval/rule': z.looseObject({ toolName: text, commandPrefix: text.optional(), approvalId: text.optional() }),
  'session/takeover': z.looseObject({
    previous: z.looseObject({ pid: count, host: text.optional(), start: text.optional(), since: z.number() }),
    reason: z.enum(['exited', 'pid-reused', 'forced']),
  }),
  'instructions/loaded': z.looseObject({
    placement: z.enum(['system', 'tool-result']),
    files: z.array(z.looseObject({ path: text, shownPath: text, scope: text, sha256: text, bytes: count })),
    callId: text.optional(),
  }),
  'import/foreign': z.looseObject({ format: text, type: text, note: text.optional() }),
} satisfies Record<SessionEventType, z.ZodType>;

const surfaceOp = z.union([z.literal('append'), z.looseObject({ op: z.literal('replace'), start: int, end: int })]);

/**
 * Why `event` does not have the shape its type promises, in a few words (first problem only), or
 * undefined when it does. Unknown (ignorable) types are only checked for their envelope.
 */
export function eventShapeProblem(event: SessionEvent): string | undefined {
  const { surfaceOp: op, sourceEventSeqs } = event as { surfaceOp?: unknown; sourceEventSeqs?: unknown };
  if (op !== undefined && !surfaceOp.safeParse(op).success) return 'its surfaceOp is malformed';
  if (sourceEventSeqs !== undefined && !z.array(count).safeParse(sourceEventSeqs).success) return 'its sourceEventSeqs are malformed';
  const shape = SHAPES[event.type];
  if (!shape) return undefined;
  const result = shape.safeParse(event.data);
  if (result.success) return undefined;
  const issue = result.error.issues[0]!;
  const path = issue.path.length > 0 ? `data.${issue.path.join('.')}` : 'data';
  return `${event.type} ${path}: ${issue.message}`;
}
