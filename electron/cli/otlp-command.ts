/**
 * `forkline export ID --otlp URL|FILE [--otlp-content] [--otlp-timeout S]` (issue 26): the
 * session as an OpenTelemetry trace (GenAI conventions, electron/telemetry/session-spans.ts),
 * sent with the SDK's OTLP/HTTP exporter to URL, or written as OTLP/JSON to FILE. An endpoint that
 * refuses or times out is reported and the command exits 1.
 */
import { visibleInline } from '../../shared/visible-text.js';
import type { SessionRepository } from '../store/session-repository.js';
import { isOtlpUrl, sendOtlp, writeOtlpFile } from '../telemetry/otlp-export.js';
import { sessionTrace } from '../telemetry/session-trace.js';

/** Default wait for the endpoint, ms. */
export const DEFAULT_OTLP_TIMEOUT_MS = 10_000;

/**
 * Exports one session's trace; prints a one-line summary to `err`.
 * @returns 0. @throws ForklineError OTLP_EXPORT_FAILED (exit 1) when the endpoint did not take it.
 */
export async function exportOtlpCommand(
  ctx: { readonly repository: SessionRepository; readonly err: (s: string) => void },
  sessionId: string,
  options: { readonly target: string; readonly includeContent: boolean; readonly timeoutMs?: number },
): Promise<number> {
  const spans = sessionTrace(ctx.repository, sessionId, { includeContent: options.includeContent });
  if (isOtlpUrl(options.target)) await sendOtlp(spans, options.target, options.timeoutMs ?? DEFAULT_OTLP_TIMEOUT_MS);
  else writeOtlpFile(spans, options.target);
  ctx.err(
    `exported ${spans.length} spans of session ${visibleInline(sessionId)} (trace ${spans[0]?.traceId ?? '-'}) to ${visibleInline(options.target)}${options.includeContent ? ' with message content' : ''}\n`,
  );
  return 0;
}
