import { APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { codeForHttpStatus, codeForStreamError, failureFromError, llmFailure, parseRetryAfter, timeoutFailure } from '../../../electron/llm/failure.js';

const headers = (entries: Record<string, string>) => new Headers(entries);
const ctx = { timedOut: false, callerAborted: false, idleTimeoutMs: 1000 };

describe('parseRetryAfter', () => {
  it('reads seconds, fractional seconds, HTTP-dates and retry-after-ms', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter(headers({ 'retry-after': '3' }), now)).toBe(3000);
    expect(parseRetryAfter(headers({ 'retry-after': '1.5' }), now)).toBe(1500);
    expect(parseRetryAfter(headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:07 GMT' }), now)).toBe(7000);
    expect(parseRetryAfter(headers({ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }), now)).toBe(0);
    expect(parseRetryAfter(headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(parseRetryAfter(headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfter(headers({}), now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe('codeForHttpStatus', () => {
  it('maps statuses, using the text only for quota and context overflow', () => {
    const table: Array<[number, string, string]> = [
      [401, '', 'AUTH'],
      [403, '', 'AUTH'],
      [402, 'Insufficient Balance', 'QUOTA'],
      [429, 'You exceeded your current quota', 'QUOTA'],
      [429, 'Rate Limit Reached', 'RATE_LIMIT'],
      [400, "This model's maximum context length is 65536 tokens", 'CONTEXT_WINDOW_EXCEEDED'],
      [400, '{"code":"context_length_exceeded"}', 'CONTEXT_WINDOW_EXCEEDED'],
      [413, 'prompt is too long', 'CONTEXT_WINDOW_EXCEEDED'],
      [400, 'Invalid Format', 'INVALID_REQUEST'],
      [404, 'model_not_found', 'INVALID_REQUEST'],
      [413, 'Payload Too Large', 'INVALID_REQUEST'],
      [422, 'Invalid Parameters', 'INVALID_REQUEST'],
      [408, '', 'TIMEOUT'],
      [500, '', 'SERVER'],
      [503, 'Server Overloaded', 'SERVER'],
      [409, '', 'HTTP_409'],
    ];
    for (const [status, text, code] of table) expect([status, text, codeForHttpStatus(status, text)]).toEqual([status, text, code]);
  });
});

describe('codeForStreamError', () => {
  it('uses a stated status first, then the type/code text', () => {
    expect(codeForStreamError({ type: 'invalid_request_error', code: 'tool_use_failed', status_code: 400, message: 'x' })).toEqual({ code: 'INVALID_REQUEST', status: 400 });
    expect(codeForStreamError({ code: 502, message: 'upstream' })).toEqual({ code: 'SERVER', status: 502 });
    expect(codeForStreamError({ code: 'server_error', message: 'Provider disconnected' })).toEqual({ code: 'SERVER' });
    expect(codeForStreamError({ type: 'rate_limit_exceeded' })).toEqual({ code: 'RATE_LIMIT' });
    expect(codeForStreamError({ message: 'context_length_exceeded' })).toEqual({ code: 'CONTEXT_WINDOW_EXCEEDED' });
    expect(codeForStreamError({ message: 'weird' })).toEqual({ code: 'UNKNOWN' });
    expect(codeForStreamError('not an object')).toEqual({ code: 'UNKNOWN' });
  });
});

describe('failureFromError', () => {
  it('lets the watchdog and the caller abort win over the error they caused', () => {
    const cause = new DOMException('aborted', 'AbortError');
    expect(failureFromError(cause, { ...ctx, timedOut: true, requestId: 'r1' })).toEqual({
      code: 'TIMEOUT',
      message: 'no data from the provider for 1 s (idle timeout)',
      requestId: 'r1',
      timeoutMs: 1000,
    });
    expect(timeoutFailure(45_000, undefined, 'first-byte')).toEqual({
      code: 'TIMEOUT',
      message: 'the provider sent its response headers and then nothing for 45 s (first-byte timeout)',
      timeoutMs: 45_000,
    });
    expect(failureFromError(cause, { ...ctx, callerAborted: true }).code).toBe('ABORTED');
  });

  it('maps the bare errors the openai client lets through', () => {
    const terminated = new TypeError('terminated', { cause: Object.assign(new Error('other side closed'), { name: 'SocketError', code: 'UND_ERR_SOCKET' }) });
    expect(failureFromError(terminated, ctx)).toMatchObject({ code: 'TRANSPORT', message: 'TypeError: terminated <- SocketError: other side closed' });
    const bodyTimeout = new TypeError('terminated', { cause: Object.assign(new Error('Body Timeout Error'), { code: 'UND_ERR_BODY_TIMEOUT' }) });
    expect(failureFromError(bodyTimeout, ctx).code).toBe('TIMEOUT');
    expect(failureFromError(new SyntaxError('Error reading response: malformed server-sent event JSON.'), ctx).code).toBe('MALFORMED_RESPONSE');
    expect(failureFromError(new Error('something else'), ctx)).toMatchObject({ code: 'UNKNOWN', message: 'Error: something else' });
  });

  it('maps APIError by status with Retry-After and request id, and in-stream errors by content', () => {
    const http = APIError.generate(429, { error: { message: 'slow down' } }, undefined, headers({ 'retry-after': '2', 'x-request-id': 'req_9' }));
    expect(failureFromError(http, ctx)).toEqual({ code: 'RATE_LIMIT', message: '429 slow down', status: 429, retryAfterMs: 2000, requestId: 'req_9' });
    const inStream = new APIError(undefined, { message: 'bad tool', type: 'invalid_request_error', status_code: 400 }, undefined, headers({}));
    expect(failureFromError(inStream, { ...ctx, requestId: 'req_s' })).toEqual({ code: 'INVALID_REQUEST', message: 'stream error: bad tool', status: 400, requestId: 'req_s' });
  });

  it('builds frozen records without undefined keys', () => {
    const failure = llmFailure('SERVER', 'x', { status: undefined, requestId: '' });
    expect(Object.keys(failure)).toEqual(['message', 'code']);
    expect(Object.isFrozen(failure)).toBe(true);
  });
});
