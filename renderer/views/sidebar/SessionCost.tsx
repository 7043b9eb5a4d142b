/**
 * The cost part of a sidebar row (docs/providers.md "Prices, overrides and budgets"): what the session cost so far (from the host's
 * incremental per-session summary) and, while a turn runs, the turn's elapsed time ticking once a
 * second. The tooltip says what the tokens count (total input with its cached part, output with
 * its reasoning part).
 */
import { useEffect, useState, type ReactNode } from 'react';
import type { SessionSummary } from '../../../shared/api.js';
import { formatTokens } from '../../../shared/format.js';
import { costLabel, costTokensTitle } from '../../../shared/session-cost.js';

/** `7 s`, `1 m 05 s`: whole seconds, for a clock that ticks. */
export function tickSeconds(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} m ${String(s % 60).padStart(2, '0')} s`;
}

/** A clock that re-renders every second while `on`. */
export function useNow(on: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!on) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [on]);
  return now;
}

/** Cost so far, and the running turn's elapsed time, of one session row. */
export function SessionCost({ session }: { readonly session: SessionSummary }): ReactNode {
  const running = session.status === 'running' && session.turnStartedAt !== undefined;
  const now = useNow(running);
  const label = costLabel(session.cost, { compact: true });
  if (!label && !running) return null;
  return (
    <span
      className="session-cost muted mono"
      data-testid="session-cost"
      title={session.cost ? `cost so far: ${costLabel(session.cost) || 'nothing billed yet'}\n${costTokensTitle(session.cost)}` : undefined}
    >
      {running && (
        <span data-testid="session-elapsed" title="Time since the running turn started">
          {tickSeconds(now - session.turnStartedAt!)}
        </span>
      )}
      {running && label && ' · '}
      {label && <span data-testid="session-cost-usd">{label}</span>}
      {session.cost && session.cost.tokens > 0 && session.cost.usd !== undefined && <span> · {formatTokens(session.cost.tokens)} tok</span>}
    </span>
  );
}
