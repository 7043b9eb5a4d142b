/**
 * The narrow seam between the agent loop and a model provider (docs/architecture.md §5). The loop depends on
 * {@link ModelClient} only; `openai-compatible-client.ts` implements it over the `openai` npm client.
 * Loop tests may use any implementation that honours the same contract.
 */
import type { StreamChunk } from '../../shared/chunks.js';
import type { RequestHeader } from '../../shared/events.js';
import type { Message } from '../../shared/messages.js';

/** Everything one model request contains: the logged envelope plus the derived messages. */
export interface ModelRequest {
  readonly header: RequestHeader;
  readonly messages: readonly Message[];
}

/**
 * One provider attempt per `stream()` call (no library retries: the loop's retry policy decides,
 * so every attempt is logged).
 *
 * Contract:
 * - yields normalised chunks; block deltas, then every `block-end`, then at most one `usage`, then
 *   exactly one `finish` as the last chunk;
 * - never throws for provider, transport or stream failures: they end the stream with
 *   `finish{kind:'error', failure}` carrying a code (AUTH, QUOTA, RATE_LIMIT, …, see `LlmErrorCode`);
 * - an abort through `signal` ends it with `finish{kind:'aborted', failure:{code:'ABORTED'}}`;
 * - a stream that delivers nothing for `idleTimeoutMs` (keep-alive comments count as activity)
 *   ends with `finish{error, TIMEOUT}`;
 * - a completed `stop` with no content ends with `finish{error, EMPTY_RESPONSE}`;
 * - a `max-tokens` finish carries no tool-call blocks (a truncated call is unsafe to run).
 * - invalid configuration (unknown reasoning effort, missing key) is reported before any I/O as
 *   `finish{error, UNSUPPORTED_REASONING_EFFORT | MISSING_CREDENTIAL}`.
 */
export interface ModelClient {
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<StreamChunk>;
}
