/**
 * A `fetch` wrapper for the `openai` client that watches the raw response bytes the client's SSE
 * iterator hides from us (STACK.md §4):
 * - every received chunk of bytes counts as activity, including `: keep-alive` comment lines the
 *   iterator swallows (FIELD-NOTES C6) — this feeds the idle watchdog;
 * - whether a `data: [DONE]` line arrived — a stream that ends without it and without a
 *   finish_reason is STREAM_CLOSED (FIELD-NOTES C4), which the iterator reports as a quiet end;
 * - the response status and `x-request-id`.
 * Errors of the underlying body (a dropped socket's `TypeError: terminated`) pass through unchanged.
 */

/** Callbacks of one attempt. All are optional. */
export interface ResponseObserver {
  /** Headers arrived. */
  onResponse?(status: number, headers: Headers): void;
  /** Some bytes arrived (or the request was sent, for the first call). */
  onActivity?(): void;
  /** Bytes of a successful response's body arrived (called before `onActivity` for them). */
  onBodyBytes?(): void;
  /** A `data: [DONE]` line was seen. */
  onDone?(): void;
  /**
   * The body of a non-2xx answer (first 64 KiB, as text), read before the client sees the response:
   * the `openai` client keeps only an `error` object, and some servers (older vLLM, proxies) send
   * their message at the top level instead.
   */
  onErrorBody?(text: string): void;
}

const MAX_ERROR_BODY = 64 * 1024;

/** The `fetch` signature the `openai` client accepts. */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Wraps `baseFetch` so that successful streaming bodies are observed by `observer`. */
export function monitoredFetch(baseFetch: FetchLike, observer: ResponseObserver): FetchLike {
  return async (input, init) => {
    observer.onActivity?.();
    const response = await baseFetch(input, init);
    observer.onResponse?.(response.status, response.headers);
    observer.onActivity?.();
    if (!response.ok && observer.onErrorBody !== undefined) {
      try {
        observer.onErrorBody((await response.clone().text()).slice(0, MAX_ERROR_BODY));
      } catch {
        // an unreadable error body is reported by the client as it is
      }
    }
    if (!response.ok || response.body === null) return response;
    const reader = response.body.getReader();
    const scanner = new DoneLineScanner();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            controller.close();
            return;
          }
          observer.onBodyBytes?.();
          observer.onActivity?.();
          if (scanner.push(value)) observer.onDone?.();
          controller.enqueue(value);
        } catch (error) {
          controller.error(error);
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/**
 * Finds a `data: [DONE]` (or `data:[DONE]`) line in an SSE byte stream split at arbitrary points.
 * Lines end at `\n`, `\r\n` or `\r` (https://html.spec.whatwg.org/multipage/server-sent-events.html).
 */
export class DoneLineScanner {
  private readonly decoder = new TextDecoder();
  private partial = '';
  private seen = false;

  /** True once a `[DONE]` line has been seen (including in this chunk). */
  push(bytes: Uint8Array): boolean {
    if (this.seen) return true;
    const text = this.partial + this.decoder.decode(bytes, { stream: true });
    const lines = text.split(/\r\n|\r|\n/);
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      if (isDoneLine(line)) {
        this.seen = true;
        break;
      }
    }
    // A final `data: [DONE]` with no newline is still a complete line once the body ends; the
    // openai iterator flushes it too, so count it as soon as it is whole.
    if (!this.seen && isDoneLine(this.partial)) this.seen = true;
    // A partial line longer than a DONE line can never become one: keep only a marker.
    if (this.partial.length > MAX_DONE_LINE) this.partial = LONG_LINE;
    return this.seen;
  }

  /** Whether a `[DONE]` line has been seen so far. */
  get sawDone(): boolean {
    return this.seen;
  }
}

const MAX_DONE_LINE = 16;
const LONG_LINE = '\u0000'.repeat(MAX_DONE_LINE + 1);

function isDoneLine(line: string): boolean {
  return line === 'data: [DONE]' || line === 'data:[DONE]';
}
