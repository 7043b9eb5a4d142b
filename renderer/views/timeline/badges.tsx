/** Small status badges, including the crash badges e2e tests look for. */
import type { ReactNode } from 'react';
import type { CrashBadge } from '../../../shared/timeline.js';
import { CRASH_LABEL } from './row-text.js';

export type BadgeTone = 'ok' | 'bad' | 'warn' | 'muted' | 'info';

export function Badge({ tone = 'muted', children, testId, title }: { readonly tone?: BadgeTone; readonly children: ReactNode; readonly testId?: string; readonly title?: string }): ReactNode {
  return (
    <span className={`badge badge-${tone}`} data-testid={testId} title={title}>
      {children}
    </span>
  );
}

const CRASH: Record<CrashBadge, { testId: string; label: string; title: string }> = {
  'not-started': { testId: 'badge-not-started', label: CRASH_LABEL['not-started'], title: 'Crash recovery: this call never started (TOOL_NOT_STARTED)' },
  'outcome-unknown': { testId: 'badge-outcome-unknown', label: CRASH_LABEL['outcome-unknown'], title: 'Crash recovery: the call started but its result was lost (TOOL_OUTCOME_UNKNOWN)' },
  interrupted: { testId: 'badge-interrupted', label: CRASH_LABEL.interrupted, title: 'Crash recovery closed this turn (turn/end interrupted)' },
};

export function CrashBadges({ crash }: { readonly crash: CrashBadge | undefined }): ReactNode {
  if (!crash) return null;
  const c = CRASH[crash];
  return (
    <Badge tone="bad" testId={c.testId} title={c.title}>
      {c.label}
    </Badge>
  );
}
