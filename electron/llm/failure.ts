/**
 * Maps every way a model call can fail onto an {@link LlmFailure} with a stable code (docs/architecture.md §5,
 * reference runtime `packages/llm/llm-deepseek` HTTP error map, digest §5.5).
 *
 * Sources of the status meanings: DeepSeek error codes (https://api-docs.deepseek.com/quick_start/error_codes:
 * 400 invalid format, 401 authentication, 402 insufficient balance, 422 invalid parameters,
 * 429 rate limit, 500 server error, 503 overloaded) and OpenAI's error codes
 * (https://platform.openai.com/docs/guides/error-codes; 429 `insufficient_quota` is a quota error).
 * The shapes of the `openai` client's errors are described in STACK.md §4.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { ContextOverflowFacts, LlmErrorCode, LlmFailure } from '../../shared/chunks.js';
import { errorChain } from '../../shared/errors.js';
import { isContextOverflowText, parseContextOverflow } from './context-overflow.js';

/** Optional facts attached to a failure. Absent facts are omitted (never `undefined` keys). */
export interface LlmFailureExtras {
  readonly status?: number | undefined;
  readonly retryAfterMs?: number | undefined;
  readonly requestId?: string | undefined;
  readonly overflow?: ContextOverflowFacts | undefined;
}

/** Builds a frozen, JSON-safe failure record (no `undefined` values, so it can be logged as is). */
export function llmFailure(code: LlmErrorCode, message: string, extras: LlmFailureExtras = {}): LlmFailure {
  const failure: { -readonly [K in keyof LlmFailure]: LlmFailure[K] } = { message, code };
  if (extras.status !== undefined) failure.status = extras.status;
  if (extras.retryAfterMs !== undefined) failure.retryAfterMs = extras.retryAfterMs;
  if (extras.requestId !== undefined && extras.requestId !== '') failure.requestId = extras.requestId;
  if (extras.overflow !== undefined) failure.overflow = { ...extras.overflow };
  return Object.freeze(failure);
}

/** Anything with a case-insensitive `get(name)` (a fetch `Headers`). */
export interface HeaderReader {
  get(name: string): string | null;
}

/**
 * The provider's requested wait in ms, from `retry-after-ms` (OpenAI) or `retry-after` in either
 * RFC 9110 form: delay-seconds (`"1"`, `"2.5"`) or an HTTP-date (relative to `nowMs`, clamped at
 * 0). `undefined` when absent or unparsable.
 */
export function parseRetryAfter(headers: HeaderReader | undefined, nowMs: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return Math.round(value);
  }
  const raw = headers.get('retry-after');
  if (raw === null || raw.trim() === '') return undefined;
  const trimmed = raw.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

const QUOTA = /insufficient[_ ]?(balance|quota|credits?|funds)|exceeded your current quota|out of credits|billing|payment required|balance is insufficient/i;

export { isContextOverflowText };

/** True when a provider error text says the account is out of balance, credits or quota. */
export function isQuotaText(text: string): boolean {
  return QUOTA.test(text);
}

/**
 * The code for an HTTP error response (`text` = the error message and body, used only to pick
 * QUOTA and CONTEXT_WINDOW_EXCEEDED, which share statuses with other errors):
 * 401/403 AUTH; 402 or a quota/balance text QUOTA; other 429 RATE_LIMIT (token-per-minute limits
 * mention tokens too); then any other 4xx/5xx whose text is a context overflow (see the table in
 * context-overflow.ts: llama.cpp and gateways use 400, 500 and 502 for it) CONTEXT_WINDOW_EXCEEDED;
 * 408 TIMEOUT; 400/404/413/422 INVALID_REQUEST (404 covers an unknown model); 5xx SERVER; anything
 * else `HTTP_<status>`.
 */
export function codeForHttpStatus(status: number, text: string): LlmErrorCode {
  if (status === 401 || status === 403) return 'AUTH';
  if (status === 402 || (status >= 400 && status < 500 && isQuotaText(text))) return 'QUOTA';
  if (status === 429) return 'RATE_LIMIT';
  if (status >= 400 && status <= 599 && isContextOverflowText(text)) return 'CONTEXT_WINDOW_EXCEEDED';
  if (status === 408) return 'TIMEOUT';
  if (status === 400 || status === 404 || status === 413 || status === 422) return 'INVALID_REQUEST';
  if (status >= 500 && status <= 599) return 'SERVER';
  return `HTTP_${status}`;
}

/**
 * The code for an error object a provider sent inside a 200 stream (`event: error` or
 * `data: {"error": …}`): by its stated status (`status_code`, `status`, numeric `code`) when it
 * has one, else by its `type`/`code` text; `UNKNOWN` when neither says anything we know.
 */
export function codeForStreamError(error: unknown): { code: LlmErrorCode; status?: number } {
  const record = typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : {};
  const text = `${String(record['message'] ?? '')} ${JSON.stringify(record)}`;
  const statusCandidate = [record['status_code'], record['status'], record['code']].find((value) => typeof value === 'number' && Number.isInteger(value) && value >= 400 && value <= 599) as
    number | undefined;
  if (statusCandidate !== undefined) return { code: codeForHttpStatus(statusCandidate, text), status: statusCandidate };
  const kind = `${String(record['type'] ?? '')} ${String(record['code'] ?? '')}`.toLowerCase();
  if (isContextOverflowText(text)) return { code: 'CONTEXT_WINDOW_EXCEEDED' };
  if (isQuotaText(text) || kind.includes('quota')) return { code: 'QUOTA' };
  if (kind.includes('rate_limit')) return { code: 'RATE_LIMIT' };
  if (kind.includes('authentication') || kind.includes('permission')) return { code: 'AUTH' };
  if (kind.includes('invalid_request')) return { code: 'INVALID_REQUEST' };
  if (kind.includes('server_error') || kind.includes('api_error') || kind.includes('overloaded')) return { code: 'SERVER' };
  return { code: 'UNKNOWN' };
}

/** What the caller knows about the attempt when an error surfaces. */
export interface FailureContext {
  /** Our idle watchdog fired (nothing arrived for `idleTimeoutMs`). */
  readonly timedOut: boolean;
  /** The caller's signal was aborted. */
  readonly callerAborted: boolean;
  /** The idle timeout, for the TIMEOUT message. */
  readonly idleTimeoutMs: number;
  /** `x-request-id` of the response, when headers arrived. */
  readonly requestId?: string | undefined;
  /** Clock for HTTP-date Retry-After values (ms since the epoch). */
  readonly nowMs?: number;
  /** The raw body of a non-2xx answer, when it was read (see monitored-fetch.ts). */
  readonly errorBody?: string;
}

/**
 * The provider's own message from a raw error body the `openai` client could not read (no `error`
 * object): `message`, `detail` or `error` at the top level (older vLLM, FastAPI proxies), else the
 * text itself (cut at 500 characters).
 */
export function messageFromErrorBody(body: string): string {
  try {
    const parsed = JSON.parse(body) as unknown;
    const record = (Array.isArray(parsed) ? parsed[0] : parsed) as Record<string, unknown> | undefined;
    if (record && typeof record === 'object') {
      for (const key of ['message', 'detail', 'error']) {
        const value = record[key];
        if (typeof value === 'string' && value.trim() !== '') return value;
        if (value && typeof value === 'object' && typeof (value as { message?: unknown }).message === 'string') return (value as { message: string }).message;
      }
    }
  } catch {
    // not JSON
  }
  return body.trim().slice(0, 500);
}

/** The cause chain of an error as a list (at most 8 deep). */
function causes(error: unknown): unknown[] {
  const out: unknown[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 8; depth++) {
    out.push(current);
    current = current instanceof Error ? current.cause : undefined;
  }
  return out;
}

function hasCode(error: unknown, codes: readonly string[]): boolean {
  return causes(error).some((c) => typeof c === 'object' && c !== null && codes.includes(String((c as { code?: unknown }).code)));
}

/**
 * Maps anything thrown while requesting or reading a stream to a failure. Precedence: our idle
 * watchdog (TIMEOUT) and the caller's abort (ABORTED) win over whatever error the abort caused;
 * then HTTP errors by status; in-stream error frames by their content; the client's connection
 * errors (TRANSPORT, or TIMEOUT for its request timeout); the bare `TypeError: terminated` of a
 * dropped socket (TRANSPORT, or TIMEOUT when undici's body timeout caused it); the client's
 * malformed-SSE `SyntaxError` (MALFORMED_RESPONSE); anything else UNKNOWN with the cause chain.
 */
export function failureFromError(error: unknown, context: FailureContext): LlmFailure {
  const requestId = context.requestId;
  if (context.timedOut) return timeoutFailure(context.idleTimeoutMs, requestId);
  if (context.callerAborted) return llmFailure('ABORTED', 'the request was aborted by the caller', { requestId });
  if (error instanceof APIUserAbortError) return llmFailure('ABORTED', error.message, { requestId });
  if (error instanceof APIConnectionTimeoutError) return llmFailure('TIMEOUT', errorChain(error), { requestId });
  if (error instanceof APIConnectionError) return llmFailure('TRANSPORT', errorChain(error), { requestId });
  if (error instanceof APIError) {
    const id = error.requestID ?? requestId ?? undefined;
    const text = `${error.message} ${safeJson(error.error)} ${context.errorBody ?? ''}`;
    if (error.status !== undefined) {
      const code = codeForHttpStatus(error.status, text);
      // The client found no `error` object in the body: say what the server said instead of "(no body)".
      const message = error.error === undefined && context.errorBody !== undefined && context.errorBody.trim() !== '' ? `${error.status} ${messageFromErrorBody(context.errorBody)}` : error.message;
      return llmFailure(code, message, {
        status: error.status,
        retryAfterMs: parseRetryAfter(error.headers, context.nowMs),
        requestId: id,
        overflow: code === 'CONTEXT_WINDOW_EXCEEDED' ? parseContextOverflow(text) : undefined,
      });
    }
    const { code, status } = codeForStreamError(error.error);
    return llmFailure(code, `stream error: ${error.message}`, {
      status,
      requestId: id,
      overflow: code === 'CONTEXT_WINDOW_EXCEEDED' ? parseContextOverflow(text) : undefined,
    });
  }
  if (hasCode(error, ['UND_ERR_BODY_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT'])) return llmFailure('TIMEOUT', errorChain(error), { requestId });
  if (error instanceof SyntaxError) return llmFailure('MALFORMED_RESPONSE', error.message, { requestId });
  if (error instanceof TypeError) return llmFailure('TRANSPORT', errorChain(error), { requestId });
  if (hasCode(error, ['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'ETIMEDOUT', 'UND_ERR_SOCKET'])) {
    return llmFailure('TRANSPORT', errorChain(error), { requestId });
  }
  return llmFailure('UNKNOWN', errorChain(error), { requestId });
}

/**
 * The failure of an attempt our watchdog ended: `phase` says whether the silence came after the
 * response headers and before any body byte (`first-byte`) or anywhere else (`idle`). The figure is
 * in the message (seconds) and in `timeoutMs`, so the CLI and the UI show it.
 */
export function timeoutFailure(idleTimeoutMs: number, requestId?: string, phase: 'idle' | 'first-byte' = 'idle'): LlmFailure {
  const message =
    phase === 'first-byte'
      ? `the provider sent its response headers and then nothing for ${seconds(idleTimeoutMs)} (first-byte timeout)`
      : `no data from the provider for ${seconds(idleTimeoutMs)} (idle timeout)`;
  return Object.freeze({ ...llmFailure('TIMEOUT', message, { requestId }), timeoutMs: idleTimeoutMs });
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}
