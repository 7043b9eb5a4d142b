/**
 * What the session list says about a session at a glance: running, waiting for an approval,
 * crashed (its last turn never ended, or crash recovery closed it), failed (its last turn ended
 * with an error), or idle. Read from the session list's facts only (no event reads).
 *
 * Pure: no Node, no DOM.
 */
import type { SessionSummary } from './api.js';

export type SessionActivity = 'running' | 'waiting-approval' | 'crashed' | 'failed' | 'idle';

export function sessionActivity(summary: Pick<SessionSummary, 'status' | 'lastTurn' | 'waitingApproval' | 'ownedElsewhere'>): SessionActivity {
  if (summary.waitingApproval) return 'waiting-approval';
  if (summary.status === 'running') return 'running';
  // Another live Forkline runs its open turn: that is running, not a crash.
  if (summary.lastTurn === 'open') return summary.ownedElsewhere ? 'running' : 'crashed';
  if (summary.lastTurn === 'interrupted') return 'crashed';
  if (summary.lastTurn === 'error') return 'failed';
  return 'idle';
}

/** Short label and tooltip of an activity. */
export const ACTIVITY_TEXT: Readonly<Record<SessionActivity, { readonly label: string; readonly title: string }>> = {
  running: { label: 'running', title: 'The agent is working on this session' },
  'waiting-approval': { label: 'approval', title: 'Waiting for you to allow or reject a tool call' },
  crashed: { label: 'crashed', title: 'The app stopped during a turn; opening the session closes the turn honestly (nothing is re-run)' },
  failed: { label: 'failed', title: 'The last turn ended with an error' },
  idle: { label: 'idle', title: 'Idle' },
};
