/**
 * The raw event inspector: the event(s) behind the selected timeline row — seq, type, time (ISO
 * and epoch ms), surfaceOp, sourceEventSeqs (click to jump) and the full payload as JSON.
 */
import { useMemo, useState, type ReactNode } from 'react';
import type { SessionEvent } from '../../../shared/events.js';
import { isoTime } from '../../../shared/format.js';
import { rowEventSeqs, rowIndexOfKey, rowIndexOfSeq } from '../../../shared/timeline.js';
import { useApp, useSession, useTimeline } from '../context.js';

const PAGE = 50;
const SOURCE_SEQ_LIMIT = 200;

function SourceSeqs({ seqs }: { readonly seqs: readonly number[] }): ReactNode {
  const jumpTo = useApp((s) => s.jumpTo);
  const [all, setAll] = useState(false);
  const shown = all ? seqs : seqs.slice(0, SOURCE_SEQ_LIMIT);
  return (
    <span className="seq-list">
      {shown.map((seq) => (
        <button key={seq} type="button" className="seq-link" data-testid="raw-event-source-seq" data-seq={seq} onClick={() => jumpTo(seq)}>
          #{seq}
        </button>
      ))}
      {!all && seqs.length > SOURCE_SEQ_LIMIT && (
        <button type="button" className="link-button" onClick={() => setAll(true)}>
          +{seqs.length - SOURCE_SEQ_LIMIT} more
        </button>
      )}
    </span>
  );
}

function EventCard({ event, focused }: { readonly event: SessionEvent; readonly focused: boolean }): ReactNode {
  const payload = useMemo(() => JSON.stringify(event.data, null, 2), [event]);
  return (
    <div className={`raw-event${focused ? ' focused' : ''}`} data-testid="raw-event" data-seq={event.seq} data-type={event.type}>
      <div className="raw-event-head">
        <span className="mono">#{event.seq}</span>
        <span className="mono event-type">{event.type}</span>
        {event.ignorable && <span className="badge badge-muted">ignorable</span>}
      </div>
      <dl className="raw-fields">
        <dt>time</dt>
        <dd className="mono">{isoTime(event.time)}</dd>
        {event.surfaceOp !== undefined && (
          <>
            <dt>surfaceOp</dt>
            <dd className="mono" data-testid="raw-event-surface-op">
              {typeof event.surfaceOp === 'string' ? event.surfaceOp : JSON.stringify(event.surfaceOp)}
            </dd>
          </>
        )}
        {event.sourceEventSeqs !== undefined && (
          <>
            <dt>sourceEventSeqs</dt>
            <dd>
              <SourceSeqs seqs={event.sourceEventSeqs} />
            </dd>
          </>
        )}
      </dl>
      <pre className="json" data-testid="raw-event-payload" tabIndex={0}>
        {payload}
      </pre>
    </div>
  );
}

export function RawInspector(): ReactNode {
  const target = useApp((s) => s.inspector);
  const inspect = useApp((s) => s.inspect);
  const timeline = useTimeline();
  const events = useSession((s) => s.events);
  const [pages, setPages] = useState(1);
  if (!target) return null;
  const rowIndex = target.kind === 'row' ? rowIndexOfKey(timeline, target.rowKey) : rowIndexOfSeq(timeline, target.seq);
  const focusSeq = target.seq;
  const row = rowIndex >= 0 ? timeline.rows[rowIndex] : undefined;
  const { seqs, total } = rowIndex >= 0 ? rowEventSeqs(timeline, rowIndex, PAGE * pages) : { seqs: focusSeq !== undefined ? [focusSeq] : [], total: 1 };
  return (
    <aside className="side-panel raw-inspector" data-testid="raw-inspector" aria-label="Raw events">
      <header className="panel-head">
        <span className="panel-title">Events</span>
        {row && (
          <span className="muted mono">
            {row.kind} · {total} event{total === 1 ? '' : 's'}
          </span>
        )}
        <span className="spacer" />
        <button type="button" className="icon-button" data-testid="raw-inspector-close" aria-label="Close" onClick={() => inspect(undefined)}>
          ✕
        </button>
      </header>
      <div className="panel-body">
        {seqs.length === 0 && <div className="muted">This row has no events.</div>}
        {seqs.map((seq) => {
          const event = events.bySeq(seq);
          return event ? <EventCard key={seq} event={event} focused={seq === focusSeq} /> : null;
        })}
        {total > seqs.length && (
          <button type="button" className="link-button" data-testid="raw-inspector-more" onClick={() => setPages((p) => p + 1)}>
            show {Math.min(PAGE, total - seqs.length)} more of {total - seqs.length}
          </button>
        )}
      </div>
    </aside>
  );
}
