/**
 * The line above the composer while a turn runs: what the agent is doing now (waiting for the
 * model, thinking, writing the answer, running a tool, waiting for an approval, retrying), the
 * turn's elapsed time, roughly how many tokens the model has streamed in this turn, and — when
 * the model has sent nothing for more than 15 s — a visible "stalled" cue with how long it has
 * been silent and what can be done (Esc cancels). It ticks once a second while shown.
 *
 * The seconds are not announced (aria-live off); a separate polite region announces the phase and
 * the stall when they change.
 */
import { useEffect, useState, type ReactNode } from 'react';
import { formatDuration, formatTokens } from '../../../shared/format.js';
import { turnMeter } from '../../../shared/live-cost.js';
import { formatUsd } from '../../../shared/pricing.js';
import { STALL_MS, activityLabel, isStalled, turnActivity } from '../../../shared/turn-activity.js';
import { useSession, useTimeline } from '../context.js';

/** `7 s`, `1 m 05 s`: whole seconds, for a clock that ticks. */
function seconds(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} m ${String(s % 60).padStart(2, '0')} s`;
}

/** A clock that re-renders every second while `on`. */
function useNow(on: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!on) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [on]);
  return now;
}

export function ActivityLine(): ReactNode {
  const running = useSession((s) => s.status === 'running');
  const approvals = useSession((s) => s.approvals.length);
  const lastEventAt = useSession((s) => s.events.bySeq(s.lastSeq)?.time);
  const timeline = useTimeline();
  const activity = running ? turnActivity(timeline.rows, approvals) : undefined;
  const now = useNow(activity !== undefined);
  if (!activity) return null;
  const stalled = isStalled(activity.phase, lastEventAt, now);
  const label = activityLabel(activity);
  const streamedTokens = Math.round(activity.streamedChars / 4);
  const tokens = activity.reportedTokens > 0 || streamedTokens > 0 ? `≈${formatTokens(Math.max(streamedTokens, activity.reportedTokens))} tokens out` : undefined;
  const silent = lastEventAt !== undefined ? seconds(now - lastEventAt) : '';
  // The live meter: the turn's cost and billed tokens so far, and its approval wait shown apart.
  const meter = turnMeter(timeline.rows, activity.turn);
  const waitMs = meter.approvalWaitMs + (meter.waitingSince !== undefined ? Math.max(0, now - meter.waitingSince) : 0);
  const cost =
    meter.billedSteps === 0 && meter.unknownCount === 0 ? undefined : meter.unknownCount === 0 ? formatUsd(meter.knownUsd) : meter.knownUsd > 0 ? `≥ ${formatUsd(meter.knownUsd)}` : 'price unknown';
  return (
    <div className={`activity-line${stalled ? ' stalled' : ''}`} data-testid="activity-line" data-phase={activity.phase} data-stalled={stalled ? 'true' : 'false'}>
      <span className="activity-dot" aria-hidden="true" />
      <b className="activity-phase" data-testid="activity-phase">
        {label}
      </b>
      {activity.step !== undefined && (
        <span className="muted" data-testid="activity-step">
          step {activity.turn}.{activity.step}
        </span>
      )}
      <span className="muted mono" data-testid="activity-elapsed" title="Time since the turn started">
        {seconds(now - activity.startedAt)}
      </span>
      {tokens && (
        <span
          className="muted mono"
          data-testid="activity-tokens"
          title="Estimated from the characters streamed in this turn (about 4 per token); the provider's exact count shows on each step when it ends"
        >
          {tokens}
        </span>
      )}
      {cost !== undefined && (
        <span
          className="muted mono"
          data-testid="activity-cost"
          title={`this turn so far: ${formatTokens(meter.tokens)} billed tokens (total input + output) over ${meter.billedSteps} finished step(s)${meter.unknownCount ? `; ${meter.unknownCount} without a known price` : ''}`}
        >
          {cost}
          {meter.tokens > 0 ? ` · ${formatTokens(meter.tokens)} tokens` : ''}
        </span>
      )}
      {waitMs >= 1000 && (
        <span className="muted mono" data-testid="activity-approval-wait" title="Time this turn spent waiting for your approval decisions (not counted as tool time)">
          approval wait {meter.waitingSince !== undefined ? seconds(waitMs) : formatDuration(waitMs)}
        </span>
      )}
      {stalled && (
        <span className="activity-stall" data-testid="activity-stalled">
          no data from the model for {silent} — it may be stuck; Esc cancels the turn
        </span>
      )}
      <span className="sr-only" aria-live="polite">
        {stalled ? `${label}: no data from the model for over ${STALL_MS / 1000} seconds` : label}
      </span>
    </div>
  );
}
