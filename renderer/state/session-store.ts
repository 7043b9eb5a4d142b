/**
 * One vanilla zustand store per open session (created with `createStore`, provided by React
 * context). It holds only facts received from the host: the event log, header, agent status,
 * inbox, pending approvals, live tool output, notices and the read-only flag. Views (timeline
 * rows, titles) are computed from these facts by pure projections, never stored here.
 *
 * Writes go through the module functions below (`applySubscribeResult`, `applyPushes`), which
 * sequence events (`seq === lastSeq + 1` only, duplicates dropped) and report holes.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { AgentStatus, ApprovalRequest, HostPush, InboxSnapshot, SubscribeResult } from '../../shared/api.js';
import type { ErrorRecord } from '../../shared/errors.js';
import type { SessionHeader } from '../../shared/events.js';
import type { UserMessage } from '../../shared/messages.js';
import { toolResultFacts } from '../../shared/event-read.js';
import type { SessionEvent } from '../../shared/events.js';
import { appendEvents, emptyLog, prependEvents, type EventLog } from './event-log.js';
import { sequenceEvents } from './event-sequencer.js';

export type SessionPhase = 'loading' | 'ready' | 'error';

export interface SessionFacts {
  readonly sessionId: string;
  readonly phase: SessionPhase;
  readonly error?: ErrorRecord;
  readonly header?: SessionHeader;
  readonly events: EventLog;
  /** Seq of the last applied event (−1: none). */
  readonly lastSeq: number;
  /**
   * Seq of the first loaded event: > 0 when the session was opened at its tail (earlier events
   * are read on demand, `prependSessionEvents`).
   */
  readonly startSeq: number;
  /**
   * For a log opened at its tail: the request envelope events in effect at `startSeq` (latest
   * `request/header` / `request/context` before it), folded first so steps know their model and
   * context window.
   */
  readonly prelude: readonly SessionEvent[];
  readonly status: AgentStatus;
  readonly inbox: InboxSnapshot;
  readonly approvals: readonly ApprovalRequest[];
  /** Live output of running tool calls, by call id (tail-capped; dropped when the call's result lands). */
  readonly toolOutput: Readonly<Record<string, string>>;
  readonly notices: readonly string[];
  readonly readOnly: boolean;
  /** Set for a session imported from another agent's log (read-only; continued by a fork). */
  readonly imported?: SubscribeResult['imported'];
  /**
   * Queued messages (follow-ups or steering) a cancel dropped before they were sent (an
   * `agent/inbox/spliced{outcome: canceled}`), newest drop only, with a nonce per drop: the
   * composer gives their text back so nothing typed is lost silently.
   */
  readonly dropped?: { readonly nonce: number; readonly messages: readonly UserMessage[] };
  /** The last inbox snapshot that held messages (what a cancel's splice refers to). */
  readonly queued?: InboxSnapshot;
}

export type SessionStore = StoreApi<SessionFacts>;

export const EMPTY_INBOX: InboxSnapshot = { nextTurn: [], nextStep: [] };

/** Live tool output kept per call (the tail; the full text arrives with the result). */
export const TOOL_OUTPUT_CAP = 256 * 1024;

export function initialSessionFacts(sessionId: string): SessionFacts {
  return { sessionId, phase: 'loading', events: emptyLog(0), lastSeq: -1, startSeq: 0, prelude: [], status: 'idle', inbox: EMPTY_INBOX, approvals: [], toolOutput: {}, notices: [], readOnly: false };
}

export function createSessionStore(sessionId: string): SessionStore {
  return createStore<SessionFacts>()(() => initialSessionFacts(sessionId));
}

export interface ApplyOutcome {
  /** A hole was seen: resubscribe from `lastSeq + 1`. */
  readonly hole: boolean;
  readonly applied: number;
  readonly duplicates: number;
}

/** Applies a subscribe answer (initial or after a hole/reconnect). */
export function applySubscribeResult(store: SessionStore, result: SubscribeResult): ApplyOutcome {
  const state = store.getState();
  // A first subscribe answered with the tail of a long session starts the log there.
  const opensAtTail = state.lastSeq < 0 && state.events.length === 0 && result.startSeq > 0;
  const seq = sequenceEvents(opensAtTail ? result.startSeq - 1 : state.lastSeq, result.events);
  store.setState({
    ...(opensAtTail ? { startSeq: result.startSeq } : {}),
    phase: 'ready',
    error: undefined,
    header: result.header,
    status: result.status,
    inbox: result.inbox,
    approvals: result.approvals,
    notices: result.notices,
    readOnly: result.readOnly,
    imported: result.imported,
    events: appendEvents(state.events, seq.accepted),
    lastSeq: seq.lastSeq,
  });
  return { hole: seq.hole !== undefined, applied: seq.accepted.length, duplicates: seq.duplicates };
}

function appendOutput(current: string | undefined, text: string): string {
  const next = (current ?? '') + text;
  return next.length > TOOL_OUTPUT_CAP ? next.slice(next.length - TOOL_OUTPUT_CAP) : next;
}

/**
 * Applies a batch of pushes for this session in one store update. `session/events` pushes must
 * already be filtered to the current subscription. Events after a hole are not applied.
 */
export function applyPushes(store: SessionStore, pushes: readonly HostPush[]): ApplyOutcome {
  const state = store.getState();
  let lastSeq = state.lastSeq;
  let events = state.events;
  let status = state.status;
  let inbox = state.inbox;
  let approvals = state.approvals;
  let toolOutput = state.toolOutput;
  // The last inbox that held messages: a cancel's splice names only how many it dropped.
  let queued = state.queued ?? state.inbox;
  const droppedNow: UserMessage[] = [];
  let hole = false;
  let applied = 0;
  let duplicates = 0;
  for (const push of pushes) {
    switch (push.kind) {
      case 'session/events': {
        if (hole) break;
        const seq = sequenceEvents(lastSeq, push.events);
        events = appendEvents(events, seq.accepted);
        lastSeq = seq.lastSeq;
        applied += seq.accepted.length;
        duplicates += seq.duplicates;
        if (seq.hole) hole = true;
        // A cancel dropped queued messages: keep their text (from the last inbox that held them) for the composer.
        for (const event of seq.accepted) {
          if (event.type !== 'agent/inbox/spliced' || event.data.outcome !== 'canceled') continue;
          const count = event.data.removedCount ?? 0;
          const list = (event.data.target === 'next-step' ? queued.nextStep : queued.nextTurn).slice(event.data.start, event.data.start + count);
          droppedNow.push(...list);
        }
        // A committed result carries the whole output: drop the live buffer (call ids may be reused later).
        for (const event of seq.accepted) {
          if (event.type !== 'tool/result') continue;
          const callId = toolResultFacts(event.data).callId;
          if (callId === undefined || toolOutput[callId] === undefined) continue;
          if (toolOutput === state.toolOutput) toolOutput = { ...toolOutput };
          delete (toolOutput as Record<string, string>)[callId];
        }
        break;
      }
      case 'session/status':
        status = push.status;
        break;
      case 'session/inbox':
        inbox = push.inbox;
        if (inbox.nextTurn.length > 0 || inbox.nextStep.length > 0) queued = inbox;
        break;
      case 'session/approvals':
        approvals = push.approvals;
        break;
      case 'tool/output':
        if (toolOutput === state.toolOutput) toolOutput = { ...toolOutput };
        (toolOutput as Record<string, string>)[push.callId] = appendOutput(toolOutput[push.callId], push.text);
        break;
      default:
        break;
    }
  }
  const patch: { -readonly [K in keyof SessionFacts]?: SessionFacts[K] } = {};
  if (events !== state.events) {
    patch.events = events;
    patch.lastSeq = lastSeq;
  }
  if (status !== state.status) patch.status = status;
  if (inbox !== state.inbox) patch.inbox = inbox;
  if (approvals !== state.approvals) patch.approvals = approvals;
  if (toolOutput !== state.toolOutput) patch.toolOutput = toolOutput;
  if (queued !== (state.queued ?? state.inbox)) patch.queued = queued;
  if (droppedNow.length > 0) patch.dropped = { nonce: (state.dropped?.nonce ?? 0) + 1, messages: droppedNow };
  if (Object.keys(patch).length > 0) store.setState(patch);
  return { hole, applied, duplicates };
}

/**
 * Puts earlier events (read on demand) in front of a log that was opened at its tail. Events that
 * do not end right before the loaded ones are ignored (a stale answer).
 * @returns whether the log changed.
 */
export function prependSessionEvents(store: SessionStore, events: readonly SessionEvent[]): boolean {
  const state = store.getState();
  if (events.length === 0 || state.startSeq === 0 || events[events.length - 1]!.seq !== state.startSeq - 1) return false;
  store.setState({ events: prependEvents(state.events, events), startSeq: events[0]!.seq, prelude: state.prelude.filter((e) => e.seq < events[0]!.seq) });
  return true;
}

/** Sets the envelope events in effect before the loaded part of the log (ignored when they are not before it). */
export function setSessionPrelude(store: SessionStore, events: readonly SessionEvent[]): void {
  const { startSeq } = store.getState();
  store.setState({ prelude: events.filter((e) => e.seq < startSeq) });
}

export function setSessionError(store: SessionStore, error: ErrorRecord): void {
  store.setState({ phase: 'error', error });
}
