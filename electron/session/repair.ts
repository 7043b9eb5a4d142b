/**
 * Crash recovery closers (docs/architecture.md §8; reference runtime `interruptedTurnClosers`).
 *
 * Given a log whose last turn is open, returns the events that close it honestly:
 * one synthetic `tool/result` per unanswered tool call of the open step — `TOOL_NOT_STARTED` when no
 * `tool/call` was logged, `TOOL_OUTCOME_UNKNOWN` citing the call when it was — then `step/end` if a
 * step is open, then `turn/end{interrupted}`. A balanced log yields nothing, so applying the
 * closers twice appends nothing the second time. Committed events are never touched.
 */
import type { EventInput, SessionEvent } from '../../shared/events.js';
import { toFrozenJson } from '../../shared/json.js';
import type { CallId, ToolResultMessage } from '../../shared/messages.js';
import { InvariantChecker } from './invariant.js';

/** Text the model sees for a call that never started. */
export const TOOL_NOT_STARTED_TEXT =
  'This tool call never started: the session was interrupted (the app closed or crashed) before it ran. ' + 'Nothing was executed. If the result is still needed, call the tool again.';

/** Text the model sees for a call whose outcome is unknown. */
export const TOOL_OUTCOME_UNKNOWN_TEXT =
  'The outcome of this tool call is unknown: the session was interrupted (the app closed or crashed) while it was running. ' +
  'It may have completed, partially completed, or not run at all. Retry it only if it is read-only or idempotent; ' +
  "otherwise first verify the current state (for example re-read the file or check the command's effect) or ask the user.";

interface PendingCall {
  readonly callId: CallId;
  toolCallSeq?: number;
  answered: boolean;
}

/** What is open at the end of a log. */
export interface OpenState {
  readonly turn: number | undefined;
  readonly step: number | undefined;
  /** Unanswered calls of the open step, in assistant-block order. */
  readonly pending: readonly { readonly callId: CallId; readonly toolCallSeq?: number }[];
}

/**
 * Follows a log event by event and knows, at any point, the open turn and step and the calls of
 * the open step that still lack a result (the state {@link scanOpenState} reports). O(1) per event
 * plus the open step's calls, so a streaming importer can close a log without holding it.
 */
export class OpenStateTracker {
  private turn: number | undefined;
  private step: number | undefined;
  private pending: PendingCall[] = [];

  note(event: SessionEvent): void {
    switch (event.type) {
      case 'turn/start':
        this.turn = event.data.turn;
        this.step = undefined;
        this.pending = [];
        break;
      case 'turn/end':
        this.turn = undefined;
        this.step = undefined;
        this.pending = [];
        break;
      case 'step/start':
        this.step = event.data.step;
        this.pending = [];
        break;
      case 'step/end':
        this.step = undefined;
        this.pending = [];
        break;
      case 'assistant/message':
        if (this.step === undefined) break;
        for (const block of event.data.message.content) {
          if (block.type === 'tool-call') this.pending.push({ callId: block.id, answered: false });
        }
        break;
      case 'tool/call': {
        const entry = this.pending.find((p) => p.callId === event.data.callId && !p.answered);
        if (entry) entry.toolCallSeq = event.seq;
        break;
      }
      case 'tool/result': {
        if (event.surfaceOp !== 'append') break;
        const callId = event.data.message.content[0]?.toolCallId;
        const entry = this.pending.find((p) => p.callId === callId && !p.answered);
        if (entry) entry.answered = true;
        break;
      }
      default:
        break;
    }
  }

  get state(): OpenState {
    return {
      turn: this.turn,
      step: this.step,
      pending: this.pending.filter((p) => !p.answered).map((p) => (p.toolCallSeq === undefined ? { callId: p.callId } : { callId: p.callId, toolCallSeq: p.toolCallSeq })),
    };
  }
}

/** Scans a log and reports the trailing open turn/step and unanswered calls. */
export function scanOpenState(events: readonly SessionEvent[]): OpenState {
  const tracker = new OpenStateTracker();
  for (const event of events) tracker.note(event);
  return tracker.state;
}

/**
 * The closers for a log's trailing open turn, in append order; `[]` when no turn is open.
 * Message ids are deterministic (`interrupted-tool-result-<callId>-<seq>`) so a replay of the same
 * log yields the same closers.
 * @param events the log, or any suffix of it that starts at or before its last `turn/start`
 * @param logLength length of the whole log (default: `events.length`, i.e. `events` is the whole log)
 */
export function interruptedTurnClosers(events: readonly SessionEvent[], logLength: number = events.length): EventInput[] {
  return closersFor(scanOpenState(events), logLength);
}

/**
 * The closers for an open state at the end of a log of `length` events (see
 * {@link interruptedTurnClosers}); `[]` when no turn is open.
 */
export function closersFor(state: OpenState, length: number): EventInput[] {
  if (state.turn === undefined) return [];
  const closers: EventInput[] = [];
  let nextSeq = length;
  if (state.step !== undefined) {
    for (const call of state.pending) {
      const started = call.toolCallSeq !== undefined;
      const message: ToolResultMessage = {
        id: `interrupted-tool-result-${call.callId}-${nextSeq}`,
        role: 'user',
        source: { kind: 'tool', callId: call.callId },
        content: [
          {
            type: 'tool-result',
            toolCallId: call.callId,
            content: [{ type: 'text', text: started ? TOOL_OUTCOME_UNKNOWN_TEXT : TOOL_NOT_STARTED_TEXT }],
            isError: true,
          },
        ],
      };
      closers.push({
        type: 'tool/result',
        data: {
          turn: state.turn,
          step: state.step,
          message,
          error: started ? { name: 'ToolOutcomeUnknownError', code: 'TOOL_OUTCOME_UNKNOWN' } : { name: 'ToolNotStartedError', code: 'TOOL_NOT_STARTED' },
        },
        surfaceOp: 'append',
        ...(started ? { sourceEventSeqs: [call.toolCallSeq!] } : {}),
      });
      nextSeq++;
    }
    closers.push({ type: 'step/end', data: { turn: state.turn, step: state.step } });
  }
  closers.push({ type: 'turn/end', data: { turn: state.turn, reason: { kind: 'interrupted' } } });
  return closers;
}

/**
 * The closers of {@link interruptedTurnClosers} as committed-ready events: seqs continue the log
 * (`logLength`, `logLength + 1`, …), every one gets `time`, and each is checked against the
 * relational invariant of the log's tail (a closer that the log would refuse is a bug, thrown
 * here rather than stored).
 * @param tail a suffix of the log that starts at or before its last `turn/start` (or the whole log)
 * @throws SessionError INVARIANT_VIOLATION
 */
export function closeInterruptedTurn(tail: readonly SessionEvent[], logLength: number, time: number): SessionEvent[] {
  const inputs = interruptedTurnClosers(tail, logLength);
  if (inputs.length === 0) return [];
  const checker = new InvariantChecker();
  for (const event of tail) checker.force(event);
  return inputs.map((input, i) => {
    const envelope: Record<string, unknown> = { seq: logLength + i, type: input.type, time, data: toFrozenJson(input.data, input.type, ['data']) };
    if (input.surfaceOp !== undefined) envelope['surfaceOp'] = toFrozenJson(input.surfaceOp, input.type, ['surfaceOp']);
    if (input.sourceEventSeqs !== undefined) envelope['sourceEventSeqs'] = toFrozenJson(input.sourceEventSeqs, input.type, ['sourceEventSeqs']);
    const event = Object.freeze(envelope) as unknown as SessionEvent;
    checker.accept(event);
    return event;
  });
}

/** A process that a tool of the open turn started and that has no result yet (from `tool/process` events). */
export interface UnansweredToolProcess {
  readonly callId: CallId;
  readonly pid: number;
  readonly pgid?: number;
  readonly start?: string;
}

/**
 * The processes logged by tool calls of the log's trailing open turn that have no `tool/result`
 * (what a crash may have left running). `[]` when no turn is open.
 * @param tail a suffix of the log that starts at or before its last `turn/start`
 */
export function unansweredToolProcesses(tail: readonly SessionEvent[]): UnansweredToolProcess[] {
  let open = false;
  let processes: UnansweredToolProcess[] = [];
  const answered = new Set<string>();
  for (const event of tail) {
    if (event.type === 'turn/start') {
      open = true;
      processes = [];
      answered.clear();
    } else if (event.type === 'turn/end') {
      open = false;
      processes = [];
    } else if (event.type === 'tool/process') {
      const { callId, pid, pgid, start } = event.data;
      processes.push({ callId, pid, ...(pgid !== undefined ? { pgid } : {}), ...(start !== undefined ? { start } : {}) });
    } else if (event.type === 'tool/result' && event.surfaceOp === 'append') {
      const callId = event.data.message.content[0]?.toolCallId;
      if (callId !== undefined) answered.add(callId);
    }
  }
  return open ? processes.filter((p) => !answered.has(p.callId)) : [];
}
