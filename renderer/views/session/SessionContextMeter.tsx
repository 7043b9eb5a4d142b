/**
 * The session's context meter (issue 25): how much of the model's context window the conversation
 * fills now — the last answered step's prompt plus its answer (what the next request starts from),
 * against the window in effect for that step (`request/context`, Settings' model limits). The
 * per-step meters sit on the step headers (timeline/ContextMeter.tsx); this one is in the session
 * header, so the person sees when a compaction is near without scrolling.
 */
import { useMemo, type ReactNode } from 'react';
import { formatTokens } from '../../../shared/format.js';
import type { StepRow, TimelineRow } from '../../../shared/timeline.js';
import { useTimeline } from '../context.js';
import { promptTokens, windowLabel } from '../timeline/ContextMeter.js';

/** Tokens in use after the last answered step, and the window in effect then (undefined: unknown). */
export function sessionContext(rows: readonly TimelineRow[]): { used: number; window?: number; step: string } | undefined {
  let window: number | undefined;
  for (let i = rows.length - 1; i >= 0; i--) {
    const row = rows[i]!;
    if (row.kind !== 'step') continue;
    const step = row as StepRow;
    window ??= step.contextWindow;
    if (!step.usage) continue;
    for (let k = i - 1; window === undefined && k >= 0; k--) if (rows[k]!.kind === 'step') window = (rows[k] as StepRow).contextWindow;
    return { used: promptTokens(step.usage) + step.usage.outputTokens, ...(window !== undefined && window > 0 ? { window } : {}), step: `${step.turn}.${step.step}` };
  }
  return undefined;
}

export function SessionContextMeter(): ReactNode {
  const timeline = useTimeline();
  const context = useMemo(() => sessionContext(timeline.rows), [timeline.rows]);
  if (!context) return null;
  const { used, window, step } = context;
  if (window === undefined) {
    return (
      <span
        className="session-context unknown"
        data-testid="session-context"
        title={`after step ${step}: ${used.toLocaleString('en-US')} tokens in the conversation (the model's context window is not known: set it in Settings → model limits)`}
      >
        context {formatTokens(used)}
      </span>
    );
  }
  const share = used / window;
  const pct = Math.min(100, Math.round(share * 100));
  const tone = share >= 0.8 ? 'bad' : share >= 0.5 ? 'warn' : 'ok';
  return (
    <span
      className={`session-context context-meter tone-${tone}`}
      data-testid="session-context"
      data-share={share.toFixed(3)}
      role="meter"
      aria-valuemin={0}
      aria-valuemax={window}
      aria-valuenow={used}
      aria-label="context window used by the session"
      title={`after step ${step}: ${used.toLocaleString('en-US')} of ${window.toLocaleString('en-US')} tokens of the model's context window (${(share * 100).toFixed(1)}%); the agent compacts before it is full`}
    >
      <span className="context-meter-bar" aria-hidden="true">
        <span style={{ width: `${Math.max(pct, 1)}%` }} />
      </span>
      context {formatTokens(used)} of {windowLabel(window)} · {pct}%
    </span>
  );
}
