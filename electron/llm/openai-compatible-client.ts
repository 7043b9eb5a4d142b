/**
 * {@link ModelClient} over the `openai` npm client for any OpenAI-compatible Chat Completions
 * endpoint (DeepSeek, OpenAI, OpenRouter, Ollama, vLLM, llama.cpp, …). docs/architecture.md §5.
 *
 * One `stream()` call = exactly one HTTP attempt (`maxRetries: 0`); the agent loop's retry policy
 * (`retry-policy.ts`) decides about another, so every attempt is logged. The `openai` client's traps
 * (STACK.md §4) are handled here:
 * - an abort makes its `for await` end silently → after the loop we check our own flags;
 * - its request timeout stops at the headers → an idle watchdog, reset by every received byte
 *   (keep-alive comments included, seen through a wrapped `fetch`), aborts a stalled body → TIMEOUT;
 *   between the headers and the first body byte the shorter first-byte timeout applies (a server
 *   that sends headers and then nothing ends within `firstByteTimeoutMs`, docs/providers.md "Silence"), and the
 *   failure names the silence and its length (`timeoutMs`);
 * - a stream that ends without `[DONE]` and without finish_reason ends quietly → STREAM_CLOSED;
 * - a dropped socket is a bare `TypeError: terminated` → TRANSPORT;
 * - `reasoning_content` is untyped and the `.stream()` helper truncates it → we read raw chunks
 *   with `create({stream: true})` and cast the delta (see wire-types.ts).
 * `stream()` never throws for provider, transport or stream failures: it ends with `finish{error}`.
 */
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type { FinishReason, LlmFailure, StreamChunk } from '../../shared/chunks.js';
import { failureFromError, llmFailure, timeoutFailure } from './failure.js';
import type { ModelClient, ModelRequest } from './model-client.js';
import { monitoredFetch, type FetchLike } from './monitored-fetch.js';
import { DEFAULT_FIRST_BYTE_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS, defaultReasoningEffort, dialectOf, providerPreset, type ProviderSettings } from './providers.js';
import { LlmConfigurationError } from './reasoning-effort.js';
import { serializeChatRequest, type ChatCompletionBody, type SerializeOptions } from './request-serializer.js';
import { IdleWatchdog } from './idle-watchdog.js';
import { StreamTranslator } from './stream-translator.js';
import type { WireChunk } from './wire-types.js';

/** Test and embedding hooks. `fetch` replaces `globalThis.fetch` underneath the `openai` client. */
export interface OpenAiCompatibleClientOptions {
  readonly fetch?: FetchLike;
}

/** Per-attempt facts gathered outside the `openai` iterator. */
interface AttemptState {
  requestId: string | undefined;
  errorBody?: string;
  sawDone: boolean;
  timedOut: boolean;
  /** Headers arrived and no body byte yet: the first-byte timeout is in force. */
  phase: 'request' | 'first-byte' | 'body';
  /** The silence that fired the watchdog, ms. */
  timeoutMs?: number;
  timeoutPhase?: 'idle' | 'first-byte';
}

/** The provider adapter. Stateless between calls; safe to share across sessions. */
export class OpenAiCompatibleClient implements ModelClient {
  private readonly fetchImpl: FetchLike;
  private readonly idleTimeoutMs: number;
  private readonly firstByteTimeoutMs: number;
  private readonly serializeOptions: SerializeOptions;

  /**
   * `settings.apiKey` must already be resolved (see `resolveApiKey`): this class reads no environment
   * variable itself (the `openai` package still honours its own `OPENAI_CUSTOM_HEADERS`).
   */
  constructor(
    readonly settings: ProviderSettings,
    options: OpenAiCompatibleClientOptions = {},
  ) {
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.idleTimeoutMs = settings.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.firstByteTimeoutMs = Math.min(settings.firstByteTimeoutMs ?? DEFAULT_FIRST_BYTE_TIMEOUT_MS, this.idleTimeoutMs);
    const serializeOptions: { -readonly [K in keyof SerializeOptions]: SerializeOptions[K] } = {
      dialect: dialectOf(settings),
      fallbackModel: settings.model,
    };
    const effort = settings.reasoningEffort ?? defaultReasoningEffort(settings);
    if (effort !== undefined) serializeOptions.fallbackReasoningEffort = effort;
    if (settings.maxOutputTokens !== undefined) serializeOptions.fallbackMaxTokens = settings.maxOutputTokens;
    this.serializeOptions = serializeOptions;
  }

  /** The request body this client would send for `request` (what the provider sees, byte for byte under JSON.stringify). */
  requestBody(request: ModelRequest): ChatCompletionBody {
    return serializeChatRequest(request, this.serializeOptions);
  }

  /**
   * One attempt: validates the configuration (before any I/O), sends the request, and yields the
   * normalised chunks — deltas as they arrive, then block-ends, usage and exactly one finish (see
   * {@link ModelClient}). Ends with `finish{error}` / `finish{aborted}` instead of throwing; only a
   * bug in our own code can throw. Stopping the iteration early releases the connection.
   */
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<StreamChunk> {
    return this.run(request, signal);
  }

  private async *run(request: ModelRequest, signal: AbortSignal): AsyncGenerator<StreamChunk, void, undefined> {
    const translator = new StreamTranslator();
    if (signal.aborted) {
      yield* translator.fail(aborted(llmFailure('ABORTED', 'the request was aborted before it was sent')));
      return;
    }
    // Configuration checks, before any I/O.
    let body: ChatCompletionBody;
    try {
      body = this.requestBody(request);
    } catch (error) {
      if (error instanceof LlmConfigurationError) {
        yield* translator.fail(failed(llmFailure(error.code as LlmFailure['code'], error.message)));
        return;
      }
      throw error;
    }
    const preset = providerPreset(this.settings.provider);
    const apiKey = this.settings.apiKey !== undefined && this.settings.apiKey !== '' ? this.settings.apiKey : undefined;
    if (preset.requiresApiKey && apiKey === undefined) {
      const where = preset.apiKeyEnv === undefined ? '' : ` (set ${preset.apiKeyEnv} or store a key in settings)`;
      yield* translator.fail(failed(llmFailure('MISSING_CREDENTIAL', `no API key for ${preset.label}${where}`)));
      return;
    }
    if (this.settings.baseUrl === '') {
      yield* translator.fail(failed(llmFailure('INVALID_REQUEST', 'no base URL configured for this provider')));
      return;
    }

    const state: AttemptState = { requestId: undefined, sawDone: false, timedOut: false, phase: 'request' };
    const controller = new AbortController();
    const watchdog = new IdleWatchdog(this.idleTimeoutMs, () => {
      state.timedOut = true;
      state.timeoutMs = watchdog.currentTimeoutMs;
      state.timeoutPhase = state.phase === 'first-byte' ? 'first-byte' : 'idle';
      controller.abort(new Error(`${state.timeoutPhase} timeout after ${state.timeoutMs} ms`));
    });
    const onCallerAbort = (): void => controller.abort(signal.reason);
    signal.addEventListener('abort', onCallerAbort, { once: true });
    const client = new OpenAI({
      apiKey: apiKey ?? 'not-needed',
      baseURL: this.settings.baseUrl,
      maxRetries: 0,
      // Covers waiting for headers only; the watchdog below covers the body (and fires first).
      timeout: this.idleTimeoutMs + 1_000,
      fetch: monitoredFetch(this.fetchImpl, {
        onResponse: (status, headers) => {
          state.requestId = headers.get('x-request-id') ?? undefined;
          // Headers and then silence (docs/providers.md "Silence"): the body must start within the first-byte timeout.
          if (status >= 200 && status < 300 && state.phase === 'request') {
            state.phase = 'first-byte';
            watchdog.setTimeoutMs(this.firstByteTimeoutMs);
          }
        },
        onBodyBytes: () => {
          if (state.phase !== 'first-byte') return;
          state.phase = 'body';
          watchdog.setTimeoutMs(this.idleTimeoutMs);
        },
        onActivity: () => watchdog.touch(),
        onDone: () => {
          state.sawDone = true;
        },
        onErrorBody: (text) => {
          state.errorBody = text;
        },
      }),
      logLevel: 'off',
      // Keep OPENAI_* environment variables from leaking into other providers' requests.
      organization: null,
      project: null,
      adminAPIKey: null,
      webhookSecret: null,
      ...(this.settings.extraHeaders === undefined ? {} : { defaultHeaders: { ...this.settings.extraHeaders } }),
    });

    let thrown: { error: unknown } | undefined;
    let streamEnded = false;
    watchdog.start();
    try {
      const stream = await client.chat.completions.create(body as unknown as ChatCompletionCreateParamsStreaming, { signal: controller.signal });
      for await (const wire of stream) {
        const out = translator.push(wire as WireChunk);
        if (out.length === 0) continue;
        watchdog.pause(); // the consumer's time is not provider silence
        for (const chunk of out) yield chunk;
        watchdog.resume();
      }
      streamEnded = true;
    } catch (error) {
      thrown = { error };
    } finally {
      watchdog.dispose();
      signal.removeEventListener('abort', onCallerAbort);
      // Releases the socket when the consumer stopped early or the stream failed. Not after a clean
      // end: there it has nothing to release, and an abort builds a DOMException with its stack
      // (~1% of a step's main thread in the fan-out bench).
      if (!streamEnded) controller.abort();
    }

    if (state.timedOut) {
      yield* translator.fail(failed(timeoutFailure(state.timeoutMs ?? this.idleTimeoutMs, state.requestId, state.timeoutPhase)));
    } else if (signal.aborted) {
      yield* translator.fail(aborted(llmFailure('ABORTED', 'the request was aborted by the caller', { requestId: state.requestId })));
    } else if (thrown !== undefined) {
      const failure = failureFromError(thrown.error, {
        timedOut: false,
        callerAborted: false,
        idleTimeoutMs: this.idleTimeoutMs,
        requestId: state.requestId,
        ...(state.errorBody !== undefined ? { errorBody: state.errorBody } : {}),
      });
      yield* translator.fail(failure.code === 'ABORTED' ? aborted(failure) : failed(failure));
    } else if (translator.finishReason === undefined && !state.sawDone) {
      yield* translator.fail(failed(llmFailure('STREAM_CLOSED', 'the stream ended without [DONE] and without a finish_reason', { requestId: state.requestId })));
    } else {
      yield* translator.complete();
    }
  }
}

function failed(failure: LlmFailure): FinishReason {
  return { kind: 'error', failure };
}

function aborted(failure: LlmFailure): FinishReason {
  return { kind: 'aborted', failure };
}
