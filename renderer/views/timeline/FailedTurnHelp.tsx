/**
 * Under a turn that ended with a model error: what failed in words, what to do, and the action —
 * "Retry" (sends the turn's prompt again as a new turn; only on the session's last turn, while
 * idle) and, when the fix is a key, endpoint or model, "Open Settings"; then the provider's exact
 * message, whole (the turn-end line shows it clipped). After Retry focus goes to the message box
 * (the button goes away with the new turn).
 */
import { useMemo, useState, type ReactNode } from 'react';
import type { LlmFailure } from '../../../shared/chunks.js';
import { failureAdvice } from '../../../shared/failure-advice.js';
import type { TurnEndRow } from '../../../shared/timeline.js';
import { byTestId, focusAfterRender } from '../../keyboard/focus-after-render.js';
import { useApp, useRuntime, useSession, useTimeline } from '../context.js';

export function FailedTurnHelp({ row, failure, sessionId }: { readonly row: TurnEndRow; readonly failure: LlmFailure; readonly sessionId: string }): ReactNode {
  const runtime = useRuntime();
  const running = useSession((s) => s.status === 'running');
  const readOnly = useSession((s) => s.readOnly);
  const endpoint = useApp((s) => s.settings?.active.baseUrl);
  const openSettings = useApp((s) => s.openSettings);
  const timeline = useTimeline();
  const [busy, setBusy] = useState(false);
  // The turn's own prompt, and whether a later turn exists (then Retry is not offered here).
  // …and how many times its last step's request was sent.
  const { prompt, last, attempts } = useMemo(() => {
    let text: string | undefined;
    let later = false;
    let inTurn = false;
    let tries = 1;
    for (const r of timeline.rows) {
      if (r.kind === 'turn') {
        if (r.turn === row.turn) inTurn = true;
        else if (r.turn > row.turn) later = true;
        else inTurn = false;
      } else if (inTurn && text === undefined && r.kind === 'user' && r.sourceKind === 'user') text = r.text;
      else if (inTurn && r.kind === 'step') tries = r.attempts;
      if (r === row) inTurn = false;
    }
    return { prompt: text, last: !later, attempts: tries };
  }, [timeline, row]);
  const advice = failureAdvice(failure, endpoint, attempts);
  // The provider's own words, whole (the turn-end line clips them; a hover title is no use from the keyboard).
  const said = failure.message.trim();
  const retry = async (): Promise<void> => {
    if (prompt === undefined) return;
    // The button goes away with the new turn (the timeline may hand focus to a row meanwhile): the message box takes it.
    const from = document.activeElement?.closest('[data-testid="timeline"]') ?? document.activeElement;
    setBusy(true);
    try {
      await runtime.actions.send(sessionId, prompt, 'followup');
    } finally {
      setBusy(false);
      focusAfterRender(byTestId('composer-input'), { from });
    }
  };
  const canRetry = last && prompt !== undefined && !readOnly;
  return (
    <div className="failed-turn" data-testid="failed-turn" data-code={failure.code} data-action={advice.action} role="alert" onClick={(e) => e.stopPropagation()}>
      <span data-testid="failed-turn-what">
        <b>{advice.what}</b> {advice.todo}
      </span>
      {said && (
        <span className="failed-turn-said" data-testid="failed-turn-said">
          The provider said: <q>{said}</q>
        </span>
      )}
      <span className="failed-turn-actions">
        {canRetry && (
          <button
            type="button"
            className={advice.action === 'retry' ? 'small primary' : 'small'}
            data-testid="failed-turn-retry"
            disabled={busy || running}
            title="Send this turn's message again, as a new turn"
            onClick={() => void retry()}
          >
            Retry
          </button>
        )}
        {(advice.action === 'settings' || failure.code === 'TRANSPORT') && (
          <button type="button" className={advice.action === 'settings' ? 'small primary' : 'small'} data-testid="failed-turn-settings" onClick={() => openSettings(true)}>
            Open Settings
          </button>
        )}
      </span>
    </div>
  );
}
