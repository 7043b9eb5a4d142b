/**
 * "Fork with this prompt" (issue 23, item 5) for the HostApi's `forkWithPrompt`: a typed prompt
 * edited in the request playground becomes a real branch — a fork at the end of the turn before
 * the prompt's turn (through the fork service, session-fork.ts, with all its rules), in which the
 * connection then sends the edited text as the branch's first own turn.
 */
import { ForklineError } from '../../../shared/errors.js';
import type { SessionEvent } from '../../../shared/events.js';
import type { SessionRecord } from '../../store/session-store.js';
import { forkSession, type ForkDeps } from './session-fork.js';

/** The seq of the `turn/end` the fork for prompt `messageId` cuts at. */
export function forkPointOfPrompt(events: readonly SessionEvent[], messageId: string): number {
  const at = events.findIndex((e) => e.type === 'user/message' && e.data.id === messageId);
  if (at < 0) throw new ForklineError('PROMPT_NOT_FOUND', `no prompt with id ${messageId} in this session's log`);
  const prompt = events[at] as SessionEvent<'user/message'>;
  if (prompt.data.source.kind !== 'user')
    throw new ForklineError('PROMPT_NOT_FOUND', `message ${messageId} was not typed by a person (it is ${prompt.data.source.kind}); only a typed prompt can start a branch`);
  for (let seq = at - 1; seq >= 0; seq--) if (events[seq]!.type === 'turn/end') return seq;
  throw new ForklineError('NO_TURN_BEFORE', 'this is the session’s first prompt: there is no finished turn before it to fork at; start a new session with the edited prompt instead');
}

/**
 * Makes the fork before the prompt's turn and returns the child's record (the caller sends `text`
 * in it). @throws PROMPT_NOT_FOUND, NO_TURN_BEFORE, and forkSession's errors.
 */
export async function forkBeforePrompt(deps: ForkDeps, params: { readonly sessionId: string; readonly messageId: string }): Promise<SessionRecord> {
  const atSeq = forkPointOfPrompt(deps.reader.events(params.sessionId), params.messageId);
  return forkSession(deps, { sessionId: params.sessionId, atSeq });
}
