/**
 * The history a compare view's or board's branches share (everything before their fork point),
 * shown once above the columns, folded to one line — "shared history: 3 turns up to turn 3" — that
 * opens (a button: Enter / Space) to the shared transcript; the columns start at the fork point.
 * Must be rendered inside a `SessionScope` of a session that holds the shared history (any of them).
 */
import { useId, useMemo, useState, type ReactNode } from 'react';
import { sharedHistoryLabel } from '../../../shared/branch-compare.js';
import { useOpenSession, useTimeline } from '../context.js';
import { ROW_LIMIT, TranscriptRows } from './CompareTranscript.js';

function Label({ length }: { readonly length: number }): ReactNode {
  const timeline = useTimeline();
  const label = useMemo(() => sharedHistoryLabel(timeline.rows, length), [timeline.rows, length]);
  return <>{label}</>;
}

export function SharedHistory({ length }: { readonly length: number }): ReactNode {
  const session = useOpenSession();
  const [open, setOpen] = useState(false);
  const [all, setAll] = useState(false);
  const bodyId = useId();
  if (length <= 0) return null;
  return (
    <div className="shared-history" data-testid="shared-history" data-length={length} data-expanded={open}>
      <button type="button" className="link-button shared-history-toggle" data-testid="shared-history-toggle" aria-expanded={open} aria-controls={bodyId} onClick={() => setOpen(!open)}>
        <span aria-hidden="true">{open ? '▾' : '▸'}</span> {session ? <Label length={length} /> : `shared history: ${length} events`}
        <span className="muted"> · the same in every branch{open ? '' : ', folded'}</span>
      </button>
      {open && (
        <div id={bodyId} className="compare-column-body shared-history-body" data-testid="shared-history-body" tabIndex={0} role="region" aria-label="Shared history">
          {session ? <TranscriptRows fromSeq={0} toSeq={length} limit={all ? Number.POSITIVE_INFINITY : ROW_LIMIT} onShowAll={() => setAll(true)} /> : null}
        </div>
      )}
    </div>
  );
}
