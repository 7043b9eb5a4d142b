/**
 * The session's relational invariant (reference runtime `packages/core/session/src/invariant.ts`):
 * turn and step nesting and numbering, tool results answering a call of the same step, and nothing
 * after `turn/end` but between-turn events. Each event is validated against a small trace first and
 * committed only when valid, so a rejected append changes nothing.
 */
import { SessionError } from '../../shared/errors.js';
import type { SessionEvent } from '../../shared/events.js';

/** Event types that may appear between turns (after a `turn/end`, before the next `turn/start`). */
const BETWEEN_TURN_TYPES: ReadonlySet<string> = new Set([
  'agent/inbox/spliced',
  'session/end-seed',
  'session/takeover',
  'session/title',
  'compaction/start',
  'compaction/summary',
  'compaction/end',
  'compaction/prune',
  'workspace/checkpoint',
  'check/result',
  'workspace/apply',
  'workspace/rewind',
  'approval/policy',
  'approval/rule',
  'import/elided',
  'import/foreign',
]);

/** Types that must name the open turn and step. */
const STEP_SCOPED_TYPES: ReadonlySet<string> = new Set(['assistant/chunk', 'assistant/message', 'tool/call', 'tool/process', 'llm/retry', 'llm/warning', 'request/price']);

/** Types that need an open turn (step optional). */
const TURN_SCOPED_TYPES: ReadonlySet<string> = new Set(['request/header', 'request/context', 'todo/write', 'approval/asked', 'approval/decided']);

/** A read-only view of the trace: what is open right now. */
export interface InvariantState {
  readonly lastTurn: number;
  readonly openTurn: number | undefined;
  readonly openStep: number | undefined;
  /** Call ids logged by `tool/call` in the open step and not yet answered. */
  readonly pendingCalls: ReadonlySet<string>;
}

export class InvariantChecker implements InvariantState {
  lastTurn = 0;
  openTurn: number | undefined;
  openStep: number | undefined;
  /** Highest step number started in the current (or last) turn. */
  lastStep = 0;
  private lastSeq = -1;
  /** The compaction whose `compaction/start` has no `compaction/end` yet (what a between-turn `request/price` may name). */
  private openCompaction: string | undefined;
  readonly pendingCalls = new Set<string>();

  /**
   * Validates then commits `event`.
   * @throws SessionError INVARIANT_VIOLATION naming the seq and the rule; the trace is unchanged.
   */
  accept(event: SessionEvent): void {
    this.validate(event);
    this.commit(event);
  }

  /** Returns the violation message for `event`, or undefined when it is valid. Never throws. */
  violation(event: SessionEvent): string | undefined {
    try {
      this.validate(event);
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }

  private fail(event: SessionEvent, rule: string): never {
    throw new SessionError('INVARIANT_VIOLATION', `seq ${event.seq} ${event.type}: ${rule}`);
  }

  validate(event: SessionEvent): void {
    if (event.seq !== this.lastSeq + 1) this.fail(event, `seq must follow ${this.lastSeq}`);
    const { type } = event;
    switch (event.type) {
      case 'turn/start':
        if (this.openTurn !== undefined) this.fail(event, `turn ${this.openTurn} is still open`);
        if (event.data.turn !== this.lastTurn + 1) this.fail(event, `turn must be ${this.lastTurn + 1}, got ${event.data.turn}`);
        return;
      case 'turn/end':
        if (this.openTurn === undefined) this.fail(event, 'no turn is open');
        if (event.data.turn !== this.openTurn) this.fail(event, `closes turn ${event.data.turn} but turn ${this.openTurn} is open`);
        if (this.openStep !== undefined) this.fail(event, `step ${this.openStep} is still open`);
        return;
      case 'step/start':
        if (this.openTurn === undefined || event.data.turn !== this.openTurn) this.fail(event, 'must be inside its open turn');
        if (this.openStep !== undefined) this.fail(event, `step ${this.openStep} is still open`);
        if (event.data.step !== this.lastStep + 1) this.fail(event, `step must be ${this.lastStep + 1}, got ${event.data.step}`);
        return;
      case 'step/end':
        if (this.openTurn !== event.data.turn || this.openStep !== event.data.step) this.fail(event, 'must close the open step');
        return;
      case 'tool/result': {
        const isAppend = event.surfaceOp === 'append';
        if (!isAppend) {
          // A content rewrite (pruning) may happen between steps or turns.
          return;
        }
        this.requireStep(event, event.data.turn, event.data.step);
        const callId = event.data.message.content[0]?.toolCallId;
        if (callId === undefined) this.fail(event, 'has no tool-result block');
        const synthetic = event.data.error?.code === 'TOOL_NOT_STARTED';
        if (!synthetic && !this.pendingCalls.has(callId)) this.fail(event, `answers ${callId}, which has no pending tool/call in this step`);
        return;
      }
      case 'user/message':
        // Our loop logs prompts right after step/start; reference-runtime logs may log them after
        // turn/start, before the step (its core leaves user messages unconstrained). Both are
        // inside a turn — a prompt between turns belongs to no request.
        if (this.openTurn === undefined && event.surfaceOp === 'append') {
          this.fail(event, 'an appended user message must be inside a turn');
        }
        return;
      default:
        break;
    }
    if (event.type === 'request/price' && event.data.compactionId !== undefined && this.openTurn === undefined) {
      // A manual compaction's summary request: between turns, inside its own bracket.
      if (this.openCompaction !== event.data.compactionId) this.fail(event, `names compaction ${event.data.compactionId}, which is not open`);
      if (event.data.turn !== 0 || event.data.step !== 0) this.fail(event, 'a summary request between turns must name turn 0 step 0');
      return;
    }
    if (STEP_SCOPED_TYPES.has(type)) {
      const data = event.data as { turn: number; step: number };
      this.requireStep(event, data.turn, data.step);
      return;
    }
    if (TURN_SCOPED_TYPES.has(type)) {
      if (this.openTurn === undefined) this.fail(event, 'must be inside a turn');
      return;
    }
    if (this.openTurn === undefined && !BETWEEN_TURN_TYPES.has(type)) {
      this.fail(event, 'is not allowed between turns');
    }
  }

  private requireStep(event: SessionEvent, turn: number, step: number): void {
    if (this.openTurn === undefined || this.openStep === undefined) this.fail(event, 'must be inside an open step');
    if (turn !== this.openTurn || step !== this.openStep) {
      this.fail(event, `names turn ${turn} step ${step} but turn ${this.openTurn} step ${this.openStep} is open`);
    }
  }

  commit(event: SessionEvent): void {
    this.lastSeq = event.seq;
    switch (event.type) {
      case 'turn/start':
        this.openTurn = event.data.turn;
        this.lastTurn = event.data.turn;
        this.lastStep = 0;
        this.pendingCalls.clear();
        return;
      case 'turn/end':
        this.openTurn = undefined;
        this.pendingCalls.clear();
        return;
      case 'step/start':
        this.openStep = event.data.step;
        this.lastStep = event.data.step;
        this.pendingCalls.clear();
        return;
      case 'step/end':
        this.openStep = undefined;
        this.pendingCalls.clear();
        return;
      case 'tool/call':
        this.pendingCalls.add(event.data.callId);
        return;
      case 'compaction/start':
        this.openCompaction = event.data.compactionId;
        return;
      case 'compaction/end':
        this.openCompaction = undefined;
        return;
      case 'tool/result':
        if (event.surfaceOp === 'append') {
          const callId = event.data.message.content[0]?.toolCallId;
          if (callId !== undefined) this.pendingCalls.delete(callId);
        }
        return;
      default:
        return;
    }
  }

  /**
   * Commits without validating (used to follow a foreign log in report mode). Keeps the trace
   * as close to the log as possible: a `turn/start` always opens, a `turn/end` always closes.
   */
  force(event: SessionEvent): void {
    this.commit(event);
    if (event.type === 'turn/end') this.openStep = undefined;
  }
}
