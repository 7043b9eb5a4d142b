/** A session list row's activity badge: running, waiting for approval, crashed or failed (idle shows nothing). */
import type { ReactNode } from 'react';
import type { SessionSummary } from '../../../shared/api.js';
import { ACTIVITY_TEXT, sessionActivity } from '../../../shared/session-activity.js';

export function SessionActivityBadge({ session }: { readonly session: SessionSummary }): ReactNode {
  const activity = sessionActivity(session);
  if (activity === 'idle') return null;
  const text = ACTIVITY_TEXT[activity];
  return (
    <span className={`activity-badge activity-${activity}`} data-testid="session-activity" data-activity={activity} title={text.title}>
      {text.label}
    </span>
  );
}
