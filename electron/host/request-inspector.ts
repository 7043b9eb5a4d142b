/**
 * The request inspector's projection: what the model was sent at (turn, step), rebuilt from the log
 * prefix alone ("model-visible means logged", DESIGN §3): messages from the surface folded up to the
 * step's request, envelope from the last `request/header` before it.
 */
import type { RequestSnapshot } from '../../shared/api.js';
import { ForklineError } from '../../shared/errors.js';
import type { SessionEvent, SessionHeader } from '../../shared/events.js';
import { Session } from '../session/session.js';

/**
 * Rebuilds every request made in `(turn, step)` — one per attempt (retries included) — and returns
 * the last one. The prefix for an attempt ends just before its first `assistant/chunk`.
 * @throws ForklineError STEP_NOT_FOUND when the log has no such step or it made no request.
 */
export function inspectRequest(header: SessionHeader, events: readonly SessionEvent[], turn: number, step: number): RequestSnapshot {
  let stepStart = -1;
  let atSeq = -1;
  for (const event of events) {
    if (event.type === 'step/start' && event.data.turn === turn && event.data.step === step) stepStart = event.seq;
    if (stepStart >= 0 && event.type === 'assistant/chunk' && event.data.turn === turn && event.data.step === step) {
      // Remember the first chunk of the last attempt: an attempt starts after a retry record or at the first chunk.
      const previous = events[event.seq - 1];
      if (atSeq < 0 || previous?.type === 'llm/retry' || previous?.type === 'request/header' || previous?.type === 'request/context') atSeq = event.seq;
    }
    if (stepStart >= 0 && event.type === 'step/end' && event.data.turn === turn && event.data.step === step) {
      if (atSeq < 0) atSeq = event.seq;
      break;
    }
  }
  if (stepStart < 0) throw new ForklineError('STEP_NOT_FOUND', `turn ${turn} step ${step} is not in this session`);
  if (atSeq < 0) atSeq = events.length;
  const prefix = new Session({ header, seed: events.slice(0, atSeq), invariants: 'off' });
  return { turn, step, atSeq, header: prefix.requestHeader(), messages: prefix.deriveMessages() };
}
