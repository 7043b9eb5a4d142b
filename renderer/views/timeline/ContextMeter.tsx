/**
 * A step's context meter: how much of the model's context window its request used (the prompt
 * tokens the provider reported — uncached + cache reads + cache writes — against the window in
 * effect from `request/context`). Without a known window it shows the prompt size alone.
 */
import type { ReactNode } from 'react';
import type { TokenUsage } from '../../../shared/chunks.js';
import { formatTokens } from '../../../shared/format.js';

/** Prompt tokens of a response's usage (what the request occupied in the window). */
export function promptTokens(usage: TokenUsage): number {
  return usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0);
}

/** A window size as people say it: `128k`, `1M`, `8,192`. */
export function windowLabel(tokens: number): string {
  if (tokens >= 1_000_000 && tokens % 1_000 === 0) return `${+(tokens / 1_000_000).toFixed(2)}M`;
  if (tokens >= 10_000) return `${Math.round(tokens / 1_000)}k`;
  return tokens.toLocaleString('en-US');
}

export function ContextMeter({ usage, window }: { readonly usage?: TokenUsage; readonly window?: number }): ReactNode {
  if (!usage) return null;
  const used = promptTokens(usage);
  if (window === undefined || window <= 0) {
    return (
      <span className="context-meter unknown" data-testid="context-meter" title={`request: ${used.toLocaleString('en-US')} tokens (context window unknown)`}>
        ctx {formatTokens(used)}
      </span>
    );
  }
  const share = used / window;
  const pct = Math.min(100, Math.round(share * 100));
  const tone = share >= 0.8 ? 'bad' : share >= 0.5 ? 'warn' : 'ok';
  return (
    <span
      className={`context-meter tone-${tone}`}
      data-testid="context-meter"
      data-share={share.toFixed(3)}
      role="meter"
      aria-valuemin={0}
      aria-valuemax={window}
      aria-valuenow={used}
      aria-label="context window used by this request"
      title={`request: ${used.toLocaleString('en-US')} of ${window.toLocaleString('en-US')} tokens (${(share * 100).toFixed(1)}% of the context window)`}
    >
      <span className="context-meter-bar" aria-hidden="true">
        <span style={{ width: `${Math.max(pct, 1)}%` }} />
      </span>
      {pct}% of {windowLabel(window)}
    </span>
  );
}
