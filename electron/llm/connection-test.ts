/**
 * "Test connection": one tiny request to an endpoint, reporting the exact error when there is one
 * (the Settings dialog and first-run card call it through HostApi `testConnection`).
 */
import type { ModelClient } from './model-client.js';

/** What a connection test found. `latencyMs` = time to the end of the reply (ms). */
export type ConnectionTestResult = { readonly ok: true; readonly model: string; readonly latencyMs: number } | { readonly ok: false; readonly code: string; readonly message: string };

/**
 * Sends "Reply with the word OK." with a small output cap (16 tokens) and no tools, through the same
 * client every session uses. A reply of any kind — even one cut at the cap — means the endpoint,
 * key and model work; an error finish gives its code and the provider's message unchanged
 * (e.g. `AUTH` / `401 Incorrect API key provided…`, `INVALID_REQUEST` / `404 The model … does not exist`).
 * Times out after `timeoutMs` (default 20 s) with code TIMEOUT. Never throws.
 */
export async function testConnection(
  client: ModelClient,
  options: { readonly provider: string; readonly model: string; readonly timeoutMs?: number; readonly now?: () => number },
): Promise<ConnectionTestResult> {
  const now = options.now ?? Date.now;
  const started = now();
  const signal = AbortSignal.timeout(options.timeoutMs ?? 20_000);
  try {
    let finish: { kind: string; failure?: { code: string; message: string } } | undefined;
    for await (const chunk of client.stream(
      {
        header: { config: { provider: options.provider, model: options.model, maxTokens: 16 } },
        messages: [{ id: 'connection-test', role: 'user', content: [{ type: 'text', text: 'Reply with the word OK.' }], source: { kind: 'user' } }],
      },
      signal,
    )) {
      if (chunk.type === 'finish') finish = chunk.reason;
    }
    if (finish === undefined) return { ok: false, code: 'STREAM_CLOSED', message: 'the stream ended without a finish' };
    if (finish.kind === 'aborted') return { ok: false, code: 'TIMEOUT', message: `no complete reply within ${options.timeoutMs ?? 20_000} ms` };
    if (finish.kind === 'error' && finish.failure) {
      // An empty reply still proves the endpoint, key and model answer.
      if (finish.failure.code === 'EMPTY_RESPONSE') return { ok: true, model: options.model, latencyMs: Math.max(0, now() - started) };
      return { ok: false, code: finish.failure.code, message: finish.failure.message };
    }
    return { ok: true, model: options.model, latencyMs: Math.max(0, now() - started) };
  } catch (error) {
    return { ok: false, code: 'UNKNOWN', message: error instanceof Error ? error.message : String(error) };
  }
}
