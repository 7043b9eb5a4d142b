/**
 * Under a turn that a budget stopped (docs/providers.md "Prices, overrides and budgets"): why, in words (the limit, what was spent, the
 * next request's worst case), and — on the session's last turn, while idle — "Raise budget and
 * continue": the budget field opens pre-filled with enough for the next request, and setting it
 * sends "Continue." as the next turn. Escape closes the field.
 */
import { useMemo, useState, type ReactNode } from 'react';
import { formatTokens } from '../../../shared/format.js';
import { formatUsd } from '../../../shared/pricing.js';
import type { TurnEndRow } from '../../../shared/timeline.js';
import { useApp, useRuntime, useSession, useTimeline } from '../context.js';
import { BudgetEditor } from '../session/SessionMeter.js';

/** What a continuation after a budget stop sends. */
export const CONTINUE_TEXT = 'Continue where you stopped.';

/** A raised limit that leaves room for the stopped request: twice the old one, or spent + 2 × its worst case. */
export function raisedBudget(b: NonNullable<TurnEndRow['end']['budget']>): number {
  return Math.max(b.budget * 2, b.spent + 2 * (b.worstCase ?? 0));
}

/** The stop in the app's words (the logged message names the command-line flags). */
export function stopSentence(b: NonNullable<TurnEndRow['end']['budget']>): string {
  const show = (n: number): string => (b.limit === 'usd' ? formatUsd(n) : `${formatTokens(n)} tokens`);
  const worst = b.worstCase !== undefined ? `the next request could cost up to ${show(b.worstCase)}` : 'the next request could not be bounded';
  return `Stopped by the ${b.scope} budget before anything was sent: ${worst}, and the ${b.scope} has spent ${show(b.spent)} of its ${show(b.budget)}.`;
}

export function BudgetStopHelp({ row, sessionId }: { readonly row: TurnEndRow; readonly sessionId: string }): ReactNode {
  const runtime = useRuntime();
  const running = useSession((s) => s.status === 'running');
  const readOnly = useSession((s) => s.readOnly);
  const summary = useApp((s) => s.sessions.find((x) => x.id === sessionId));
  const timeline = useTimeline();
  const [raising, setRaising] = useState(false);
  const last = useMemo(() => !timeline.rows.some((r) => r.kind === 'turn' && r.turn > row.turn), [timeline, row]);
  const facts = row.end.budget;
  return (
    <div className="turn-end-budget" data-testid="budget-stop" onClick={(e) => e.stopPropagation()}>
      <span data-testid="budget-stop-message">{facts ? stopSentence(facts) : `Stopped by the budget: ${row.end.message ?? ''}`}</span>
      {last && !running && !readOnly && !raising && (
        <button type="button" className="small primary" data-testid="budget-raise" onClick={() => setRaising(true)}>
          Raise budget and continue
        </button>
      )}
      {raising && (
        <BudgetEditor
          sessionId={sessionId}
          {...(summary?.budget ? { budget: summary.budget } : {})}
          {...(facts ? { initial: { unit: facts.limit, amount: raisedBudget(facts) } } : {})}
          onDone={(set) => {
            setRaising(false);
            if (set) void runtime.actions.send(sessionId, CONTINUE_TEXT, 'followup');
          }}
        />
      )}
    </div>
  );
}
