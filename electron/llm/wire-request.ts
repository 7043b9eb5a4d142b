/**
 * The HTTP request a logged model request went out as, rebuilt from the log alone (the request
 * inspector): URL, headers with the API key redacted, and the exact JSON body — the same
 * serializer the client uses (`serializeChatRequest`), configured from what the log recorded (the
 * route in `request/context`, the envelope in `request/header`) instead of the current settings.
 *
 * Headers: the `openai` client (https://github.com/openai/openai-node, `src/client.ts`
 * `buildHeaders`) sends `Accept` and `Content-Type: application/json`, `User-Agent: OpenAI/JS
 * <version>` and `Authorization: Bearer <key>`, plus `X-Stainless-*` telemetry headers (OS, arch,
 * runtime) that describe the sending machine and are not logged, so they are not shown.
 */
import { VERSION } from 'openai/version';
import type { ModelRequest } from './model-client.js';
import { defaultReasoningEffort, dialectOf, providerPreset } from './providers.js';
import { serializeChatRequest, type SerializeOptions } from './request-serializer.js';

/** The endpoint a request went to, as logged (`request/context`); `baseUrl` is absent in older logs. */
export interface LoggedRoute {
  readonly provider: string;
  readonly model?: string;
  readonly baseUrl?: string;
}

/** One request header. `redacted` headers never carry their real value. */
export interface WireHeader {
  readonly name: string;
  readonly value: string;
  readonly redacted?: true;
}

export interface WireRequest {
  readonly method: 'POST';
  /** `{baseUrl}/chat/completions`; absent when the log does not name the endpoint. */
  readonly url?: string;
  readonly headers: readonly WireHeader[];
  /** The exact request body (UTF-8 JSON text, as the client sends it). */
  readonly body: string;
  /** Size of `body` in bytes (UTF-8). */
  readonly bodyBytes: number;
}

/** What stands in for the key in shown headers and curl commands. */
export const REDACTED_KEY = '<redacted>';

/**
 * Serializer options for a logged route: the provider's dialect and the defaults the client falls
 * back to when the logged header leaves a field out (model, reasoning effort).
 */
export function loggedSerializeOptions(request: ModelRequest, route: LoggedRoute): SerializeOptions {
  const provider = request.header.config.provider || route.provider;
  const model = request.header.config.model || route.model || '';
  const options: { -readonly [K in keyof SerializeOptions]: SerializeOptions[K] } = { dialect: dialectOf({ provider }) };
  if (route.model !== undefined) options.fallbackModel = route.model;
  const effort = defaultReasoningEffort({ provider, model });
  if (effort !== undefined) options.fallbackReasoningEffort = effort;
  return options;
}

/**
 * The request as it went over the wire.
 * @throws LlmConfigurationError when the logged effort is not one the provider accepts (the client
 *   then sent nothing either).
 */
export function wireRequestFromLog(request: ModelRequest, route: LoggedRoute): WireRequest {
  const body = JSON.stringify(serializeChatRequest(request, loggedSerializeOptions(request, route)));
  const bodyBytes = new TextEncoder().encode(body).length;
  const url = route.baseUrl !== undefined && route.baseUrl !== '' ? `${route.baseUrl.replace(/\/+$/, '')}/chat/completions` : undefined;
  return {
    method: 'POST',
    ...(url !== undefined ? { url } : {}),
    headers: [
      { name: 'Authorization', value: `Bearer ${REDACTED_KEY}`, redacted: true },
      { name: 'Content-Type', value: 'application/json' },
      { name: 'Accept', value: 'application/json' },
      { name: 'User-Agent', value: `OpenAI/JS ${VERSION}` },
      { name: 'Content-Length', value: String(bodyBytes) },
    ],
    body,
    bodyBytes,
  };
}

/** Single-quotes a string for a POSIX shell. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * A curl command that sends the same request, reading the key from the provider's environment
 * variable (`$DEEPSEEK_API_KEY`, …, else `$API_KEY`) so no key is ever in the text. The body is
 * passed on stdin through a quoted heredoc (no expansion; JSON text has no raw newline, so no line
 * can end it early); the heredoc adds one trailing newline, which JSON ignores.
 */
export function curlCommand(wire: WireRequest, provider: string): string {
  const keyEnv = providerPreset(provider).apiKeyEnv ?? 'API_KEY';
  const url = wire.url ?? '$BASE_URL/chat/completions';
  const lines = [
    `curl -sS -N ${wire.url !== undefined ? shellQuote(url) : `"${url}"`}`,
    `  -H "Authorization: Bearer $${keyEnv}"`,
    `  -H 'Content-Type: application/json'`,
    `  -H 'Accept: application/json'`,
    `  --data-binary @- <<'FORKLINE_REQUEST_BODY'`,
  ];
  return `${lines.join(' \\\n')}\n${wire.body}\nFORKLINE_REQUEST_BODY\n`;
}
