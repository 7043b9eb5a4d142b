/**
 * A failed model call in words a person can act on: what failed, what to do, and which action to
 * offer (open Settings for a key or endpoint problem, retry for a passing one). Decided by the
 * failure's stable `code` (and HTTP status), never by its message; the provider's own message is
 * kept as the detail. Pure.
 */
import type { LlmFailure } from './chunks.js';

export interface FailureAdvice {
  /** What failed, in one sentence. */
  readonly what: string;
  /** What to do about it. */
  readonly todo: string;
  /** `settings`: the fix is in Settings (key, endpoint, model); `retry`: trying again may work. */
  readonly action: 'settings' | 'retry';
}

/** `127.0.0.1:37475` out of a Node socket error (`connect ECONNREFUSED 127.0.0.1:37475`), if any. */
function address(message: string): string | undefined {
  return /\b(?:ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN)\s+(\S+)/.exec(message)?.[1];
}

/**
 * Advice for `failure`; `endpoint` is the base URL in use, named when the server could not be
 * reached; `attempts` is how many times the step's request was sent (1 + its retries, default 1):
 * after several, "retry in a moment" is no longer the advice — the todo says how often it was tried
 * and, for a server error, to read what the provider said (a cause that retrying will not fix, such
 * as a server with nothing to answer, shows there).
 */
export function failureAdvice(failure: Pick<LlmFailure, 'code' | 'message' | 'status'>, endpoint?: string, attempts = 1): FailureAdvice {
  const advice = adviceFor(failure, endpoint);
  if (attempts <= 1 || advice.action !== 'retry') return advice;
  if (failure.code === 'SERVER' || failure.code === 'INSUFFICIENT_SYSTEM_RESOURCE')
    return { ...advice, todo: `Tried ${attempts} times. If the provider's message says why, fix that; otherwise retry later or pick another model in Settings.` };
  return { ...advice, todo: `Tried ${attempts} times. ${advice.todo}` };
}

function adviceFor(failure: Pick<LlmFailure, 'code' | 'message' | 'status'>, endpoint: string | undefined): FailureAdvice {
  const where = address(failure.message) ?? endpoint;
  switch (failure.code) {
    case 'AUTH':
      return { what: `The provider refused the API key${failure.status ? ` (HTTP ${failure.status})` : ''}.`, todo: 'Check or replace the key in Settings, then retry.', action: 'settings' };
    case 'MISSING_CREDENTIAL':
      return { what: 'No API key is set for this provider.', todo: 'Add the key in Settings, then retry.', action: 'settings' };
    case 'QUOTA':
      return { what: 'The provider says the account has no credit or quota left.', todo: 'Top up the account or pick another provider in Settings.', action: 'settings' };
    case 'RATE_LIMIT':
      return { what: 'The provider is limiting requests (too many in a short time).', todo: 'Wait a moment and retry.', action: 'retry' };
    case 'TRANSPORT':
      if (/ECONNREFUSED/.test(failure.message))
        return {
          what: `Nothing answered at ${where ?? 'the model endpoint'} (connection refused).`,
          todo: 'Start the model server, or check the endpoint URL in Settings, then retry.',
          action: 'retry',
        };
      if (/ENOTFOUND|EAI_AGAIN/.test(failure.message))
        return { what: `The endpoint's host name could not be found${where ? ` (${where})` : ''}.`, todo: 'Check the network and the endpoint URL in Settings, then retry.', action: 'retry' };
      return { what: `The connection to ${where ?? 'the model endpoint'} failed.`, todo: 'Check the network or the server, then retry.', action: 'retry' };
    case 'TIMEOUT':
      return { what: 'The model stopped sending data and the request timed out.', todo: 'Retry; if it keeps happening, the provider may be overloaded.', action: 'retry' };
    case 'STREAM_CLOSED':
      return { what: 'The connection closed before the answer was complete.', todo: 'Retry.', action: 'retry' };
    case 'SERVER':
    case 'INSUFFICIENT_SYSTEM_RESOURCE':
      return { what: `The provider had a server error${failure.status ? ` (HTTP ${failure.status})` : ''}.`, todo: 'Retry in a moment.', action: 'retry' };
    case 'EMPTY_RESPONSE':
    case 'MALFORMED_RESPONSE':
      return { what: 'The provider sent an answer that could not be read.', todo: 'Retry; if it keeps happening, try another model in Settings.', action: 'retry' };
    case 'CONTEXT_WINDOW_EXCEEDED':
      return { what: "The conversation is longer than the model's context window.", todo: 'Compact the session (Compact, above) or pick a model with a larger window, then retry.', action: 'retry' };
    case 'INVALID_REQUEST':
      // 404 on the chat path: a base URL that does not lead to the API (a missing or extra path part), or a model the endpoint does not know.
      if (failure.status === 404) return notFound(endpoint);
      return {
        what: `The provider rejected the request${failure.status ? ` (HTTP ${failure.status})` : ''}.`,
        todo: 'Check the model name and options in Settings; the detail below says what the provider objected to.',
        action: 'settings',
      };
    case 'UNSUPPORTED_REASONING_EFFORT':
      return { what: 'This model does not accept the reasoning effort that is set.', todo: 'Change the reasoning effort in Settings, then retry.', action: 'settings' };
    case 'CONTENT_FILTER':
      return { what: "The provider's content filter stopped the answer.", todo: 'Rephrase the request and send it again.', action: 'retry' };
    default:
      if (failure.status === 404) return notFound(endpoint);
      return { what: `The model call failed (${failure.code}).`, todo: 'Retry; the detail below is what the provider said.', action: 'retry' };
  }
}

/** HTTP 404: the URL or the model is not there. The base URL first: it is the more common slip (a missing `/v1`). */
function notFound(endpoint: string | undefined): FailureAdvice {
  return {
    what: `Nothing was found at ${endpoint ? `${endpoint.replace(/\/+$/, '')}/chat/completions` : "the endpoint's chat path"}, or the endpoint does not know this model (HTTP 404).`,
    todo: 'Check the Base URL in Settings (an OpenAI-compatible API usually ends in /v1; Test connection checks it), then the model name.',
    action: 'settings',
  };
}
