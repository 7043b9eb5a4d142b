/**
 * One branch's transcript in the compare view: what it added after the common history (turns,
 * prompts, assistant text rendered as Markdown like the timeline, tool calls), from the session's
 * own timeline projection. Read-only:
 * the session is opened through the shared session controller, and rows offer no fork or request
 * actions. Tool rows reuse the timeline's tool row (expand for arguments, result, diff).
 */
import { memo, useCallback, useMemo, useRef, useState, type ReactNode } from 'react';
import type { CompareBranch } from '../../../shared/api.js';
import { transcriptAfter } from '../../../shared/branch-compare.js';
import { clockTime, formatDuration, usageLabel } from '../../../shared/format.js';
import type { TimelineRow, ToolRow } from '../../../shared/timeline.js';
import { firstFocusableAfter, firstOf, focusAfterRender } from '../../keyboard/focus-after-render.js';
import { useApp, useOpenSession, useSession, useTimeline } from '../context.js';
import { Markdown } from '../markdown/Markdown.js';
import { ToolRowView } from '../timeline/ToolRowView.js';

/** Rows shown per column before "show all". */
export const ROW_LIMIT = 300;

const ToolItem = memo(function ToolItem({ row, sessionId }: { readonly row: ToolRow; readonly sessionId: string }): ReactNode {
  const key = `${sessionId}:${row.key}`;
  const expanded = useApp((s) => s.expanded[key] === true);
  const toggleExpanded = useApp((s) => s.toggleExpanded);
  const onToggle = useCallback(() => toggleExpanded(key), [toggleExpanded, key]);
  return <ToolRowView row={row} expanded={expanded} onToggle={onToggle} />;
});

const CompareRow = memo(function CompareRow({ row, sessionId, live }: { readonly row: TimelineRow; readonly sessionId: string; readonly live: boolean }): ReactNode {
  switch (row.kind) {
    case 'turn':
      return (
        <div className="row row-turn" data-testid="compare-turn" data-turn={row.turn}>
          <span className="turn-label">Turn {row.turn}</span>
          <span className="muted">{clockTime(row.time)}</span>
          {!row.ended && <span className="running-label">{live ? 'running…' : 'open'}</span>}
          <span className="rule" />
        </div>
      );
    case 'user':
      return (
        <div className={`row row-user source-${row.sourceKind}`} data-testid="compare-user" data-source={row.sourceKind}>
          <div className="row-head">
            <span className="who">{row.sourceKind === 'user' ? 'You' : row.sourceKind === 'steer' ? 'steering' : row.sourceKind}</span>
          </div>
          <div className="compare-message" tabIndex={0}>
            {row.sourceKind === 'compaction' ? <Markdown text={row.text} className="message-text" /> : <div className="message-text">{row.text}</div>}
          </div>
        </div>
      );
    case 'text':
      return (
        <div className="row row-text" data-testid="compare-text">
          <div className="row-head">
            <span className="who">Assistant</span>
            {row.interrupted && <span className="badge badge-warn">interrupted</span>}
          </div>
          <div className="compare-message" tabIndex={0}>
            <Markdown text={row.text} className="message-text" testId="compare-markdown" />
          </div>
        </div>
      );
    case 'tool':
      return <ToolItem row={row} sessionId={sessionId} />;
    case 'turn-end': {
      const tone = row.end.kind === 'completed' ? 'ok' : row.end.kind === 'max-tokens' || row.end.kind === 'blocked' || row.end.kind === 'source-ended' || row.end.kind === 'budget' ? 'warn' : 'bad';
      return (
        <div className={`row row-turn-end tone-${tone}`} data-testid="compare-turn-end" data-turn={row.turn} data-reason={row.end.kind}>
          <span className="turn-end-label">
            turn {row.turn} ended: <b>{row.label}</b>
          </span>
          {row.durationMs !== undefined && <span className="muted">{formatDuration(row.durationMs)}</span>}
          {row.usage && <span className="muted clip">{usageLabel(row.usage)}</span>}
        </div>
      );
    }
    default:
      return null;
  }
});

/** The rows of the session in scope from `fromSeq` on (before `toSeq` when given; at most `limit`), live. */
export function TranscriptRows({ fromSeq, toSeq, limit, onShowAll }: { readonly fromSeq: number; readonly toSeq?: number; readonly limit: number; readonly onShowAll: () => void }): ReactNode {
  const timeline = useTimeline();
  const sessionId = useSession((s) => s.sessionId);
  const phase = useSession((s) => s.phase);
  const error = useSession((s) => s.error);
  const live = useSession((s) => s.status === 'running');
  const rows = useMemo(() => transcriptAfter(timeline.rows, fromSeq, toSeq), [timeline.rows, fromSeq, toSeq]);
  const rowsRef = useRef<HTMLDivElement>(null);
  if (phase === 'error') {
    return (
      <div className="compare-state error" data-testid="compare-transcript-error">
        Could not open this session: {error?.message} {error?.code ? `[${error.code}]` : ''}
      </div>
    );
  }
  if (rows.length === 0) {
    return phase === 'loading' ? (
      <div className="compare-state" data-testid="compare-transcript-loading">
        Loading transcript…
      </div>
    ) : (
      <div className="compare-state" data-testid="compare-transcript-empty">
        Nothing after the common history yet.
      </div>
    );
  }
  const shown = rows.length > limit ? rows.slice(0, limit) : rows;
  return (
    <div ref={rowsRef} className="compare-rows" data-testid="compare-rows" data-count={rows.length}>
      {shown.map((row) => (
        <CompareRow key={row.key} row={row} sessionId={sessionId} live={live} />
      ))}
      {shown.length < rows.length && (
        <button
          type="button"
          className="link-button"
          data-testid="compare-transcript-more"
          onClick={(e) => {
            // The button goes away: the first control of the rows it adds (after the last row shown) takes focus, else the column.
            const lastShown = e.currentTarget.previousElementSibling;
            const column = e.currentTarget.closest<HTMLElement>('.compare-column-body');
            onShowAll();
            focusAfterRender(
              firstOf(
                firstFocusableAfter(() => rowsRef.current, lastShown),
                () => column,
              ),
              { from: e.currentTarget },
            );
          }}
        >
          show all {rows.length} rows
        </button>
      )}
    </div>
  );
}

export interface CompareTranscriptProps {
  readonly side: 'a' | 'b';
  readonly branch: CompareBranch;
  readonly title: string;
  /** First seq after the common history. */
  readonly fromSeq: number;
}

/** Must be rendered inside a `SessionScope` for `branch.sessionId`. */
export function CompareTranscript({ side, branch, title, fromSeq }: CompareTranscriptProps): ReactNode {
  const session = useOpenSession();
  const [all, setAll] = useState(false);
  const select = useApp((s) => s.select);
  return (
    <div className={`compare-column side-${side}`} data-testid="compare-transcript" data-side={side} data-session-id={branch.sessionId}>
      <div className="compare-column-head">
        <span className={`side-tag side-${side}`}>{side.toUpperCase()}</span>
        <span className="compare-column-title clip" title={title}>
          {title}
        </span>
        <button type="button" className="link-button" data-testid={`compare-open-${side}`} title="Open this session" onClick={() => select(branch.sessionId, { focusSession: true })}>
          open
        </button>
      </div>
      <div className="compare-column-body" tabIndex={0} role="region" aria-label={`${title}: transcript`}>
        {session ? (
          <TranscriptRows fromSeq={fromSeq} limit={all ? Number.POSITIVE_INFINITY : ROW_LIMIT} onShowAll={() => setAll(true)} />
        ) : (
          <div className="compare-state" data-testid="compare-transcript-loading">
            Loading transcript…
          </div>
        )}
      </div>
    </div>
  );
}
