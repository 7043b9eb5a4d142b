/**
 * On a step row: how many request-playground runs were made from this step's requests (scratch
 * records, never in the log), as a link that opens them in the request inspector's "Edit and send"
 * tab (issue 23, item 5).
 */
import { useEffect, type ReactNode } from 'react';
import { useStore } from 'zustand';
import { loadPlaygroundRuns, playgroundRunsStore } from '../../state/playground-runs.js';
import { requestInspectorTab } from '../../state/replay-store.js';
import { useApp, useClient, useSession } from '../context.js';

export function StepPlaygroundRuns({ turn, step }: { readonly turn: number; readonly step: number }): ReactNode {
  const sessionId = useSession((s) => s.sessionId);
  const client = useClient();
  const inspect = useApp((s) => s.inspectRequest);
  const count = useStore(playgroundRunsStore, (s) => s.bySession[sessionId]?.filter((r) => r.turn === turn && r.step === step).length ?? 0);
  useEffect(() => void loadPlaygroundRuns(client, sessionId), [client, sessionId]);
  if (count === 0) return null;
  return (
    <button
      type="button"
      className="link-button"
      data-testid="step-playground-runs"
      data-count={count}
      title="Runs of this step's request in the request playground (scratch records beside the log)"
      onClick={(e) => {
        e.stopPropagation();
        inspect({ turn, step });
        requestInspectorTab('playground');
      }}
    >
      {count} playground run{count === 1 ? '' : 's'}
    </button>
  );
}
