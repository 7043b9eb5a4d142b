/**
 * What a replay takes from a session's log (issue 23): the turns of each agent lifecycle (a resume
 * starts a new one at its `session/end-seed`), the user messages that entered each step, every
 * model answer in the order it was requested (its logged chunks; for an imported log, which has no
 * chunks, chunks made from its `assistant/message`), every tool result by call id, the approval
 * answers, and the workspace checkpoints.
 *
 * Requests and their order come from `requestLog` (shared/request-log.ts), the same reading the
 * request inspector uses.
 */
import type { StreamChunk } from '../../shared/chunks.js';
import { isImportedSession, type ApprovalOutcome, type SessionEvent, type SessionHeader, type TurnEndReason } from '../../shared/events.js';
import type { JsonValue } from '../../shared/json.js';
import type { AssistantBlock, UserMessage } from '../../shared/messages.js';
import { requestLog, type RequestRecord } from '../../shared/request-log.js';

/** One model answer of the log. */
export interface LoggedAnswer {
  /** Position among the log's answers (the replay consumes them in this order). */
  readonly index: number;
  readonly kind: 'step' | 'compaction';
  readonly turn: number;
  /** The step the request was made in (a compaction: the step open when it started, else 0). */
  readonly step: number;
  readonly label: string;
  /** The request was built from events with seq < prefixEnd. */
  readonly prefixEnd: number;
  readonly chunks: readonly StreamChunk[];
  /** The answer ended with a `finish` chunk (false: the process died while it streamed). */
  readonly complete: boolean;
  /** The log has the step's `assistant/message` after these chunks (false: the recording stopped first). */
  readonly messageLogged: boolean;
  /** Made from an `assistant/message` (an imported log has no chunks): its request has no logged body. */
  readonly synthesized: boolean;
  /** The inspector's record of the request (absent for synthesized answers). */
  readonly record?: RequestRecord;
}

/** A logged tool result. */
export interface LoggedResult {
  readonly callId: string;
  readonly seq: number;
  readonly text: string;
  readonly isError: boolean;
  readonly error?: { readonly name: string; readonly code: string };
  readonly meta?: JsonValue;
  /** Written by crash recovery (`TOOL_NOT_STARTED` / `TOOL_OUTCOME_UNKNOWN`), not by a tool. */
  readonly recovered: boolean;
  /** Nested project instructions were appended to it (`instructions/loaded{tool-result}` names the call). */
  readonly annotated: boolean;
}

/** One logged turn. */
export interface LoggedTurn {
  readonly turn: number;
  readonly startSeq: number;
  readonly reason?: TurnEndReason;
  /** Steps the turn started. */
  readonly steps: number;
}

/** One agent lifecycle: the first run, or a resume (which starts with `session/end-seed`). */
export interface LoggedLifecycle {
  readonly startsWithEndSeed: boolean;
  readonly turns: readonly LoggedTurn[];
}

export interface ReplayPlan {
  readonly imported: boolean;
  /** Events before this seq are copied, not re-driven (a fork's inherited prefix). */
  readonly startSeq: number;
  readonly lifecycles: readonly LoggedLifecycle[];
  /** `turn/step` → the user messages that entered the step. */
  readonly stepMessages: ReadonlyMap<string, readonly UserMessage[]>;
  readonly answers: readonly LoggedAnswer[];
  readonly results: ReadonlyMap<string, LoggedResult>;
  /** Call id → how its approval was answered. */
  readonly approvals: ReadonlyMap<string, ApprovalOutcome>;
  /** Turn → the checkpoint commit logged after it (turn 0: before the first turn). */
  readonly checkpoints: ReadonlyMap<number, string>;
}

/** `turn/step` key. */
export function stepKey(turn: number, step: number): string {
  return `${turn}/${step}`;
}

/** Chunks that stream `blocks` as a model client would (block deltas, block ends, usage, finish). */
export function chunksOfBlocks(blocks: readonly AssistantBlock[], finish: StreamChunk & { type: 'finish' }, usage?: StreamChunk & { type: 'usage' }): StreamChunk[] {
  const chunks: StreamChunk[] = [];
  blocks.forEach((block, index) => {
    chunks.push({ type: 'block-start', index, blockType: block.type });
    if (block.type === 'text') chunks.push({ type: 'text-delta', index, text: block.text });
    else if (block.type === 'reasoning') chunks.push({ type: 'reasoning-delta', index, text: block.text });
    else chunks.push({ type: 'tool-call-delta', index, id: block.id, name: block.name, argumentsDelta: block.arguments });
  });
  blocks.forEach((block, index) => chunks.push({ type: 'block-end', index, block }));
  if (usage) chunks.push(usage);
  chunks.push(finish);
  return chunks;
}

function resultText(message: { readonly content: readonly { readonly content?: readonly { readonly type: string; readonly text?: string }[] }[] }): string {
  const block = message.content[0];
  return (block?.content ?? []).map((c) => (c.type === 'text' ? (c.text ?? '') : '')).join('');
}

/** Reads the plan of a log (already recovered: an open last turn is closed by crash recovery on load). */
export function readReplayPlan(header: SessionHeader, events: readonly SessionEvent[]): ReplayPlan {
  const imported = isImportedSession(header);
  const startSeq = header.parentSession !== undefined && header.seedLength !== undefined ? Math.min(header.seedLength, events.length) : 0;
  const lifecycles: { startsWithEndSeed: boolean; turns: LoggedTurn[] }[] = [];
  const stepMessages = new Map<string, UserMessage[]>();
  const results = new Map<string, LoggedResult>();
  const approvals = new Map<string, ApprovalOutcome>();
  const askedCall = new Map<string, string>();
  const annotatedCalls = new Set<string>();
  const checkpoints = new Map<number, string>();
  const turns = new Map<number, { turn: number; startSeq: number; reason?: TurnEndReason; steps: number }>();
  let lifecycle: { startsWithEndSeed: boolean; turns: LoggedTurn[] } | undefined;
  let openStep: { turn: number; step: number } | undefined;
  let sawRequestInStep = false;
  const stepWithChunks = new Set<string>();
  const messagesWithoutChunks: SessionEvent<'assistant/message'>[] = [];
  for (let seq = startSeq; seq < events.length; seq++) {
    const event = events[seq]!;
    switch (event.type) {
      case 'session/end-seed':
        lifecycle = { startsWithEndSeed: true, turns: [] };
        lifecycles.push(lifecycle);
        break;
      case 'turn/start': {
        if (!lifecycle) {
          lifecycle = { startsWithEndSeed: false, turns: [] };
          lifecycles.push(lifecycle);
        }
        const turn = { turn: event.data.turn, startSeq: seq, steps: 0 };
        turns.set(turn.turn, turn);
        lifecycle.turns.push(turn);
        break;
      }
      case 'turn/end': {
        const turn = turns.get(event.data.turn);
        if (turn) turn.reason = event.data.reason;
        openStep = undefined;
        break;
      }
      case 'step/start': {
        openStep = { turn: event.data.turn, step: event.data.step };
        sawRequestInStep = false;
        const turn = turns.get(event.data.turn);
        if (turn) turn.steps = Math.max(turn.steps, event.data.step);
        break;
      }
      case 'step/end':
        openStep = undefined;
        break;
      case 'user/message':
        if (openStep && event.surfaceOp === 'append' && !sawRequestInStep) {
          const key = stepKey(openStep.turn, openStep.step);
          const list = stepMessages.get(key) ?? [];
          list.push(event.data);
          stepMessages.set(key, list);
        }
        break;
      case 'assistant/chunk':
        sawRequestInStep = true;
        stepWithChunks.add(stepKey(event.data.turn, event.data.step));
        break;
      case 'assistant/message':
        sawRequestInStep = true;
        if (!stepWithChunks.has(stepKey(event.data.turn, event.data.step))) messagesWithoutChunks.push(event);
        break;
      case 'tool/result': {
        const message = event.data.message;
        const callId = message.content[0]?.toolCallId;
        if (callId === undefined) break;
        results.set(callId, {
          callId,
          seq,
          text: resultText(message),
          isError: message.content[0]?.isError === true,
          ...(event.data.error ? { error: event.data.error } : {}),
          ...(event.data.meta !== undefined ? { meta: event.data.meta } : {}),
          recovered: message.id.startsWith('interrupted-tool-result-'),
          annotated: false,
        });
        break;
      }
      case 'instructions/loaded':
        if (event.data.placement === 'tool-result' && event.data.callId !== undefined) annotatedCalls.add(event.data.callId);
        break;
      case 'approval/asked':
        askedCall.set(event.data.id, event.data.callId);
        break;
      case 'approval/decided': {
        const callId = askedCall.get(event.data.id);
        if (callId !== undefined) approvals.set(callId, event.data.outcome);
        break;
      }
      case 'workspace/checkpoint':
        checkpoints.set(event.data.turn, event.data.commit);
        break;
      default:
        break;
    }
  }
  for (const callId of annotatedCalls) {
    const result = results.get(callId);
    if (result) results.set(callId, { ...result, annotated: true });
  }
  return {
    imported,
    startSeq,
    lifecycles,
    stepMessages,
    answers: readAnswers(events, startSeq, messagesWithoutChunks),
    results,
    approvals,
    checkpoints,
  };
}

/** The model answers in request order: logged chunks where there are any, else made from the message. */
function readAnswers(events: readonly SessionEvent[], startSeq: number, messagesWithoutChunks: readonly SessionEvent<'assistant/message'>[]): LoggedAnswer[] {
  type Draft = Omit<LoggedAnswer, 'index'>;
  const drafts: Draft[] = [];
  for (const record of requestLog(events)) {
    if (record.prefixEnd < startSeq) continue;
    // An imported step's answer-only record (no request was logged): its answer is synthesized below from its message.
    if (record.answerOnly) continue;
    if (record.ref.kind === 'step') {
      const { turn, step } = record.ref;
      const chunks: StreamChunk[] = [];
      for (let seq = record.response.firstChunkSeq ?? 0; seq <= (record.response.lastChunkSeq ?? -1); seq++) {
        const e = events[seq];
        if (e?.type === 'assistant/chunk' && e.data.turn === turn && e.data.step === step) chunks.push(e.data.chunk);
      }
      let messageLogged = false;
      for (let seq = (record.response.lastChunkSeq ?? record.prefixEnd) + 1; seq < events.length; seq++) {
        const e = events[seq]!;
        if (e.type === 'assistant/message' && e.data.turn === turn && e.data.step === step) messageLogged = true;
        if (messageLogged || e.type === 'step/end' || e.type === 'turn/end' || e.type === 'llm/retry' || e.type === 'assistant/chunk') break;
      }
      drafts.push({ kind: 'step', turn, step, label: record.label, prefixEnd: record.prefixEnd, chunks, complete: chunks.at(-1)?.type === 'finish', messageLogged, synthesized: false, record });
    } else {
      drafts.push({ ...compactionAnswer(events, record), record });
    }
  }
  for (const message of messagesWithoutChunks) {
    const { turn, step } = message.data;
    const blocks = message.data.message.content;
    const finish: StreamChunk & { type: 'finish' } = { type: 'finish', reason: blocks.some((b) => b.type === 'tool-call') ? { kind: 'tool-calls' } : { kind: 'stop' } };
    const usage: (StreamChunk & { type: 'usage' }) | undefined = message.data.usage ? { type: 'usage', usage: message.data.usage } : undefined;
    drafts.push({
      kind: 'step',
      turn,
      step,
      label: `step ${turn}.${step}`,
      prefixEnd: message.seq,
      chunks: chunksOfBlocks(blocks, finish, usage),
      complete: true,
      messageLogged: true,
      synthesized: true,
    });
  }
  drafts.sort((a, b) => a.prefixEnd - b.prefixEnd);
  return drafts.map((d, index) => ({ ...d, index }));
}

/** A compaction's answer: its summary (or rejected summary) as text chunks, or its failure. */
function compactionAnswer(events: readonly SessionEvent[], record: RequestRecord): Omit<LoggedAnswer, 'index' | 'record'> {
  const id = record.ref.kind === 'compaction' ? record.ref.compactionId : '';
  let turn = 0;
  let step = 0;
  for (let seq = record.prefixEnd - 1; seq >= 0; seq--) {
    const e = events[seq]!;
    if (e.type === 'step/start') {
      turn = e.data.turn;
      step = e.data.step;
      break;
    }
    if (e.type === 'step/end' || e.type === 'turn/end') {
      turn = record.ref.kind === 'compaction' ? (record.ref.turn ?? 0) : 0;
      break;
    }
  }
  let chunks: StreamChunk[] | undefined;
  for (let seq = record.prefixEnd + 1; seq < events.length && chunks === undefined; seq++) {
    const e = events[seq]!;
    if (e.type === 'compaction/summary' && e.data.compactionId === id) {
      chunks = chunksOfBlocks(e.data.summary, { type: 'finish', reason: { kind: 'stop' } }, e.data.usage ? { type: 'usage', usage: e.data.usage } : undefined);
    } else if (e.type === 'compaction/end' && e.data.compactionId === id) {
      if (e.data.failure) chunks = [{ type: 'finish', reason: { kind: 'error', failure: e.data.failure } }];
      else if (e.data.rejectedSummary) chunks = chunksOfBlocks(e.data.rejectedSummary, { type: 'finish', reason: { kind: 'stop' } });
      else chunks = [];
    }
  }
  return {
    kind: 'compaction',
    turn,
    step,
    label: record.label,
    prefixEnd: record.prefixEnd,
    chunks: chunks ?? [],
    complete: chunks !== undefined && chunks.length > 0,
    messageLogged: true,
    synthesized: false,
  };
}
