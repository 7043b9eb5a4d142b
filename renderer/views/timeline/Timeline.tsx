/**
 * The session timeline: a virtual list (@tanstack/react-virtual, dynamic row heights) over the
 * rows of `shared/timeline.ts`. Follows the tail while new rows stream in unless the person
 * scrolled up ("jump to latest" brings it back). Clicking a row opens the raw event inspector;
 * "jump to seq" requests (from inspectors and compaction rows) scroll to the row of that seq.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode, type WheelEvent } from 'react';
import { rowIndexOfSeq, type TimelineRow } from '../../../shared/timeline.js';
import { useApp, useSession, useTimeline } from '../context.js';
import { visibleRows } from './row-filter.js';
import { TimelineRowView } from './TimelineRowView.js';

const ESTIMATES: Record<TimelineRow['kind'], number> = {
  turn: 30,
  'turn-end': 28,
  step: 24,
  user: 56,
  text: 48,
  reasoning: 28,
  tool: 28,
  retry: 24,
  warning: 44,
  approval: 24,
  compaction: 30,
  'end-seed': 26,
  elided: 22,
  instructions: 22,
  event: 20,
};

/** How close to the bottom (px) still counts as "at the tail". */
const TAIL_SLACK = 40;

interface RowItemProps {
  readonly row: TimelineRow;
  readonly index: number;
  readonly start: number;
  readonly sessionId: string;
  readonly live: boolean;
  readonly selected: boolean;
  readonly measure: (element: HTMLElement | null) => void;
}

const RowItem = memo(function RowItem({ row, index, start, sessionId, live, selected, measure }: RowItemProps): ReactNode {
  const expandKey = `${sessionId}:${row.key}`;
  const expanded = useApp((s) => s.expanded[expandKey] === true);
  const toggleExpanded = useApp((s) => s.toggleExpanded);
  const inspect = useApp((s) => s.inspect);
  const onToggle = useCallback(() => toggleExpanded(expandKey), [toggleExpanded, expandKey]);
  return (
    <div
      ref={measure}
      data-index={index}
      data-testid="timeline-row"
      data-kind={row.kind}
      data-seq={row.seq}
      data-key={row.key}
      className={`vrow${selected ? ' selected' : ''}`}
      style={{ transform: `translateY(${start}px)` }}
      onClick={() => inspect({ kind: 'row', rowKey: row.key, seq: row.seq })}
    >
      <TimelineRowView row={row} sessionId={sessionId} live={live} expanded={expanded} onToggle={onToggle} />
    </div>
  );
});

export function Timeline(): ReactNode {
  const timeline = useTimeline();
  const sessionId = useSession((s) => s.sessionId);
  const phase = useSession((s) => s.phase);
  const error = useSession((s) => s.error);
  const live = useSession((s) => s.status === 'running');
  const showLogEvents = useApp((s) => s.showLogEvents);
  const modelView = useApp((s) => s.modelView);
  const inspector = useApp((s) => s.inspector);
  const jump = useApp((s) => s.jump);
  const rows = useMemo(() => visibleRows(timeline.rows, { showLogEvents, modelView }), [timeline.rows, showLogEvents, modelView]);

  const scrollRef = useRef<HTMLDivElement>(null);
  const [follow, setFollow] = useState(true);
  const followRef = useRef(true);
  followRef.current = follow;

  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => ESTIMATES[rows[i]?.kind ?? 'event'],
    getItemKey: (i) => rows[i]?.key ?? i,
    overscan: 8,
  });

  const totalSize = virtualizer.getTotalSize();

  // Follow the tail: after every change of content or size, stick to the bottom.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el || !followRef.current || rows.length === 0) return;
    el.scrollTop = el.scrollHeight;
  }, [rows, totalSize]);

  const onScroll = useCallback(() => {
    const el = scrollRef.current;
    if (!el) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight <= TAIL_SLACK;
    if (atBottom !== followRef.current) setFollow(atBottom);
  }, []);

  const onWheel = useCallback((e: WheelEvent) => {
    if (e.deltaY < 0 && followRef.current) setFollow(false);
  }, []);

  // Scroll to a requested seq.
  useEffect(() => {
    if (!jump) return;
    const full = rowIndexOfSeq(timeline, jump.seq);
    if (full < 0) return;
    const key = timeline.rows[full]!.key;
    const i = rows.findIndex((r) => r.key === key);
    if (i < 0) return;
    setFollow(false);
    virtualizer.scrollToIndex(i, { align: 'center' });
    // Only on a new jump request (its nonce changes), not on every timeline update.
  }, [jump]);

  const selectedKey = useMemo(() => {
    if (!inspector) return undefined;
    if (inspector.kind === 'row') return inspector.rowKey;
    const i = rowIndexOfSeq(timeline, inspector.seq);
    return i >= 0 ? timeline.rows[i]!.key : undefined;
  }, [inspector, timeline]);

  if (phase === 'loading' && rows.length === 0) {
    return (
      <div className="timeline-state" data-testid="timeline-loading">
        Loading session…
      </div>
    );
  }
  if (phase === 'error') {
    return (
      <div className="timeline-state error" data-testid="timeline-error">
        Could not open this session: {error?.message} {error?.code ? `[${error.code}]` : ''}
      </div>
    );
  }
  if (rows.length === 0) {
    return (
      <div className="timeline-state" data-testid="timeline-empty">
        {timeline.rows.length === 0 ? 'No events yet. Send a message to start.' : 'Nothing to show with the current filters.'}
      </div>
    );
  }

  const items = virtualizer.getVirtualItems();
  return (
    <div className="timeline-wrap">
      <div className="timeline" data-testid="timeline" ref={scrollRef} onScroll={onScroll} onWheel={onWheel}>
        <div className="timeline-inner" style={{ height: totalSize }}>
          {items.map((item) => {
            const row = rows[item.index]!;
            return (
              <RowItem
                key={item.key}
                row={row}
                index={item.index}
                start={item.start}
                sessionId={sessionId}
                live={live}
                selected={row.key === selectedKey}
                measure={virtualizer.measureElement}
              />
            );
          })}
        </div>
      </div>
      {!follow && (
        <button
          type="button"
          className="follow-button"
          data-testid="follow-tail-button"
          onClick={() => {
            setFollow(true);
            const el = scrollRef.current;
            if (el) el.scrollTop = el.scrollHeight;
          }}
        >
          ↓ latest
        </button>
      )}
    </div>
  );
}
