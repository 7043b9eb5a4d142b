/**
 * Script position per conversation: the step for a chat request is the number of assistant
 * messages the request already carries — the model replies that came before it in that
 * conversation. So any number of sessions can share one server, a `resume` continues where its
 * session stopped, and a fork continues where it was cut, each getting the reply meant for its
 * own next step, whatever order the requests arrive in. A retried request (after an error) carries
 * the same messages and gets the same step again.
 *
 * Steps are model replies here: error steps (`http-error`, cut streams) belong in a queue
 * (`enqueue`), where each request takes the next step in arrival order.
 */
import type { RecordedRequest, ScriptHandler } from './server.js';
import type { ScriptStep } from './script.js';

/** The 0-based script position of a request: how many assistant messages it carries. */
export function conversationPosition(request: RecordedRequest): number {
  const messages: unknown = request.body?.messages;
  if (!Array.isArray(messages)) return 0;
  return messages.filter((m) => (m as { role?: unknown } | null)?.role === 'assistant').length;
}

/**
 * A handler that answers each request with `steps[position]`; past the end, with `loop` it starts
 * over (`position % steps.length`), without it there is no answer (the server says so with HTTP 500).
 */
export function stepsByConversation(steps: readonly ScriptStep[], loop: boolean): ScriptHandler {
  return (request) => {
    const position = conversationPosition(request);
    if (position < steps.length) return steps[position]!;
    if (loop && steps.length > 0) return steps[position % steps.length]!;
    return undefined;
  };
}
