/**
 * The session timeline: a virtual list (@tanstack/react-virtual, dynamic row heights) over the
 * rows of `shared/timeline.ts`. Follows the tail while new rows stream in unless the person
 * scrolled up ("jump to latest", End, or sending a message brings it back). Clicking a row opens the raw event inspector;
 * "jump to seq" requests (from inspectors, compaction rows, the outline, search hits) scroll to
 * the row of that seq, loading earlier events first when the session was opened at its tail. The
 * find bar searches every row (rendered or not) and scrolls to each match; a match folded away
 * (a tool's output, a thought, a long prompt) opens its row, and the text is scrolled to and marked
 * (find/find-mark.ts) — as is a search hit's term when a hit opens the session.
 *
 * Keyboard: the timeline is one Tab stop (an F6 area); the active row holds focus (roving
 * tabindex, a visible ring). ↑/↓ move by a row, PageUp/PageDown by ten, Home/End to the ends,
 * →/← expand/fold a foldable row, Enter opens the raw inspector, Tab reaches the row's buttons.
 *
 * Size: about 600 lines because scrolling, following the tail, jump-to-seq, find, "to the latest"
 * after a send and panels opening in rows (timeline-view.ts) all move the same virtualizer and must
 * agree on the active row and on following; rows themselves render in TimelineRowView.tsx.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode, type WheelEvent } from 'react';
import { findRows } from '../../../shared/timeline-find.js';
import { rowSearchText } from './row-text.js';
import { rowIndexOfSeq, type TimelineRow } from '../../../shared/timeline.js';
import { EARLIER_PAGE_EVENTS } from '../../state/session-controller.js';
import { useApp, useRequiredSession, useSession, useTimeline } from '../context.js';
import { firstOf, byTestId, focusAfterRender, focusLost } from '../../keyboard/focus-after-render.js';
import { regionTarget } from '../../keyboard/focus-regions.js';
import { FindBar } from '../find/FindBar.js';
import { clearMarks, findTextRanges, markedRange, markRanges, scrollRangeIntoView } from '../find/find-mark.js';
import { visibleRows } from './row-filter.js';
import { TimelineRowView } from './TimelineRowView.js';
import { revealDelta, TimelineViewContext, type TimelineView } from './timeline-view.js';

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
  readonly count: number;
  readonly start: number;
  readonly sessionId: string;
  readonly live: boolean;
  readonly selected: boolean;
  /** `hit`: a find match; `current`: the current find match. */
  readonly find?: 'hit' | 'current';
  readonly modelView: boolean;
  /** The keyboard's active row (the Tab stop). */
  readonly active: boolean;
  readonly measure: (element: HTMLElement | null) => void;
}

/** Rows →/← expand and fold. */
function foldable(row: TimelineRow): boolean {
  return row.kind === 'tool' || row.kind === 'reasoning' || row.kind === 'compaction' || row.kind === 'user' || (row.kind === 'event' && (row.todos?.length ?? 0) > 0);
}

const RowItem = memo(function RowItem({ row, index, count, start, sessionId, live, selected, find, modelView, active, measure }: RowItemProps): ReactNode {
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
      data-find={find}
      role="listitem"
      aria-posinset={index + 1}
      aria-setsize={count}
      tabIndex={active ? 0 : -1}
      {...(active ? { 'data-focus-default': '' } : {})}
      className={`vrow${selected ? ' selected' : ''}${find ? ` find-${find}` : ''}${active ? ' active' : ''}`}
      style={{ transform: `translateY(${start}px)` }}
      onClick={() => inspect({ kind: 'row', rowKey: row.key, seq: row.seq })}
    >
      <TimelineRowView row={row} sessionId={sessionId} live={live} expanded={expanded} onToggle={onToggle} modelView={modelView} />
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
  const find = useApp((s) => s.find);
  const startSeq = useSession((s) => s.startSeq);
  const session = useRequiredSession();
  const rows = useMemo(() => visibleRows(timeline.rows, { showLogEvents, modelView }), [timeline.rows, showLogEvents, modelView]);
  const findQuery = find?.query;
  const seedLength = useSession((s) => s.header?.seedLength);
  const matches = useMemo(() => (findQuery !== undefined ? findRows(rows, findQuery, (row) => rowSearchText(row, seedLength !== undefined ? { seedLength } : {})) : []), [rows, findQuery, seedLength]);
  const current = matches.length > 0 && find ? ((find.index % matches.length) + matches.length) % matches.length : -1;
  const matchKeys = useMemo(() => new Set(matches.map((i) => rows[i]!.key)), [matches, rows]);
  const currentKey = current >= 0 ? rows[matches[current]!]!.key : undefined;

  const scrollRef = useRef<HTMLDivElement>(null);
  const [activeKey, setActiveKey] = useState<string | undefined>();
  const toggleExpanded = useApp((s) => s.toggleExpanded);
  const setExpanded = useApp((s) => s.setExpanded);
  const inspect = useApp((s) => s.inspect);
  const [follow, setFollow] = useState(true);
  /** Text to show and mark inside a row (the current find match, a search hit); `nonce` < 0 for find. */
  const [reveal, setReveal] = useState<{ readonly key: string; readonly query: string; readonly nonce: number } | undefined>();
  const followRef = useRef(true);
  followRef.current = follow;
  /**
   * Stops following the tail now: the ref too, not only at the next render, because a scroll
   * (`scrollToIndex`) measures rows and changes the total size before React re-renders, and the
   * follow effect below would then put the view back at the bottom (the Home key in a long
   * timeline was undone that way, and "↓ latest" never showed).
   */
  const stopFollowing = useCallback(() => {
    followRef.current = false;
    setFollow(false);
  }, []);

  // A panel opening in a row (the fan-out form) takes focus without scrolling; following stops at
  // once (the tail would push the grown row above the view) and the panel is scrolled into sight,
  // again each frame until its row is measured and the view holds still.
  const timelineView = useMemo<TimelineView>(
    () => ({
      focusInPanel: (panel, control) => {
        stopFollowing();
        control.focus({ preventScroll: true });
        let frames = 0;
        let still = 0;
        const step = (): void => {
          const el = scrollRef.current;
          if (!el || !panel.isConnected) return;
          const top = el.getBoundingClientRect().top + el.clientTop;
          const span = (x: HTMLElement): { top: number; bottom: number } => {
            const r = x.getBoundingClientRect();
            return { top: r.top, bottom: r.bottom };
          };
          const delta = Math.round(revealDelta({ top, bottom: top + el.clientHeight }, span(panel), control.isConnected ? span(control) : undefined));
          if (delta !== 0) {
            el.scrollTop += delta;
            still = 0;
          } else still++;
          if (still < 3 && frames++ < 60) requestAnimationFrame(step);
        };
        step();
      },
    }),
    [stopFollowing],
  );

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
  const scrollerShown = rows.length > 0 && phase !== 'error';
  // …and when the view itself gets shorter (a toast's strip opening under it, the approval panel): the
  // last rows stay in view instead of moving below its bottom edge.
  useEffect(() => {
    const el = scrollRef.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    let height = el.clientHeight;
    const observer = new ResizeObserver(() => {
      // Only when it got shorter: taller, the browser keeps a view at the bottom there by itself.
      const shorter = el.clientHeight < height;
      height = el.clientHeight;
      // A row focused in the timeline stays where it is (scrolling could unmount it and drop focus).
      if (shorter && followRef.current && !el.contains(document.activeElement)) el.scrollTop = el.scrollHeight;
    });
    observer.observe(el);
    return () => observer.disconnect();
    // The scroller exists only once there are rows to show (not while loading, empty or failed).
  }, [scrollerShown]);

  // A focused row can be replaced under the person (the rest of a session arriving after its tail,
  // a row's key changing): focus then falls to <body>. Put it back on the active row (or the
  // timeline itself) after such a render, without scrolling.
  const hadFocus = useRef(false);
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    if (el.contains(document.activeElement)) {
      hadFocus.current = true;
      return;
    }
    // Only focus that fell out with a row (to <body>) comes back; never into a modal dialog's way.
    if (hadFocus.current && focusLost() && !document.querySelector('[role="dialog"][aria-modal="true"]')) {
      (el.querySelector<HTMLElement>('[data-focus-default]') ?? el).focus({ preventScroll: true });
    } else hadFocus.current = false;
  });

  // Following stops only when the view moved up (the person scrolled, a jump or a keyboard move),
  // never because content grew below it: a row measured taller, or new rows, can fire a scroll
  // event before the layout effect above has caught up, and that must not lose the tail.
  // Nor because content got shorter (a row measured smaller, live output folded into its result):
  // the browser then lowers the scroll position by itself, which is not the person moving up.
  // Nor because the view itself got taller (the activity line going away at a turn's end): the
  // browser clamps the scroll position of a view at the bottom then too.
  const lastScrollTop = useRef(0);
  const lastScrollHeight = useRef(0);
  const lastClientHeight = useRef(0);
  const onScroll = useCallback(() => {
    const el = scrollRef.current;
    if (!el) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight <= TAIL_SLACK;
    const resized = el.scrollHeight < lastScrollHeight.current - 1 || el.clientHeight > lastClientHeight.current + 1;
    const movedUp = !resized && el.scrollTop < lastScrollTop.current - 1;
    lastScrollTop.current = el.scrollTop;
    lastScrollHeight.current = el.scrollHeight;
    lastClientHeight.current = el.clientHeight;
    if (atBottom) {
      if (!followRef.current) setFollow(true);
    } else if (movedUp && followRef.current) setFollow(false);
  }, []);

  const onWheel = useCallback((e: WheelEvent) => {
    if (e.deltaY < 0 && followRef.current) setFollow(false);
  }, []);

  // A message the person sent (AppActions.send): the newest row, and following the tail again. A
  // request made before this timeline mounted is not this view's (a new view follows the tail anyway).
  const toLatest = useApp((s) => (s.toLatest?.sessionId === sessionId ? s.toLatest.nonce : undefined));
  const handledToLatest = useRef(toLatest);
  useLayoutEffect(() => {
    if (toLatest === undefined || handledToLatest.current === toLatest) return;
    handledToLatest.current = toLatest;
    followRef.current = true;
    setFollow(true);
    // The Tab stop goes back to the newest row too (a later Shift+Tab from the composer lands there).
    setActiveKey(undefined);
    const el = scrollRef.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [toLatest]);

  // Scroll to a requested seq: load earlier events first when it is before the loaded part; the
  // request stays pending (by its nonce) until its row exists.
  const handledJump = useRef(0);
  useEffect(() => {
    if (!jump || handledJump.current === jump.nonce) return;
    if (jump.seq < startSeq) {
      void session.controller.loadEarlier(jump.seq);
      return;
    }
    const full = rowIndexOfSeq(timeline, jump.seq);
    if (full < 0) return;
    // Rows the filters hide: scroll to the nearest shown row before it.
    let i = -1;
    for (let k = full; k >= 0 && i < 0; k--) {
      const key = timeline.rows[k]!.key;
      i = rows.findIndex((r) => r.key === key);
    }
    if (i < 0) return;
    handledJump.current = jump.nonce;
    stopFollowing();
    setActiveKey(rows[i]!.key);
    virtualizer.scrollToIndex(i, { align: 'center' });
    if (jump.text !== undefined) setReveal({ key: rows[i]!.key, query: jump.text, nonce: jump.nonce });
  }, [jump, timeline, rows, startSeq, session.controller, virtualizer, stopFollowing]);

  // Scroll to the current find match, then show the text in its row.
  useEffect(() => {
    if (current < 0 || findQuery === undefined) return;
    stopFollowing();
    virtualizer.scrollToIndex(matches[current]!, { align: 'center' });
    setReveal({ key: rows[matches[current]!]!.key, query: findQuery, nonce: -current - 1 });
  }, [current, matches, findQuery, virtualizer, rows, stopFollowing]);
  // Find closed (or no match): the marks go.
  useEffect(() => {
    if (current < 0) {
      clearMarks();
      setReveal((r) => (r && r.nonce < 0 ? undefined : r));
    }
  }, [current]);
  useEffect(() => () => clearMarks(), []);

  // Show `reveal.query` inside row `reveal.key`: open the row when the text is in its folded part,
  // mark the text and scroll it into view (inside the row's own scrolling output too). Rows
  // re-measure after opening and the virtual list corrects its scroll, so this checks again for a
  // few frames before it lets the view be.
  useEffect(() => {
    if (!reveal) return;
    const row = rows.find((r) => r.key === reveal.key);
    if (!row) return;
    let frame = 0;
    let tries = 0;
    let opened = false;
    let steady = 0;
    const step = (): void => {
      const outer = scrollRef.current;
      const el = outer?.querySelector(`[data-testid="timeline-row"][data-key="${CSS.escape(row.key)}"]`);
      if (outer && el) {
        const ranges = findTextRanges(el, reveal.query);
        if (ranges.length === 0 && !opened && foldable(row)) {
          opened = true;
          setExpanded(`${sessionId}:${row.key}`, true);
        } else if (ranges.length > 0) {
          markRanges(ranges[0], ranges.slice(1));
          if (scrollRangeIntoView(ranges[0]!, outer) && ++steady >= 4) return;
        }
      }
      if (tries++ < 90) frame = requestAnimationFrame(step);
    };
    frame = requestAnimationFrame(step);
    return () => cancelAnimationFrame(frame);
    // Once per request: later renders re-mark (below) but do not scroll the person's view back.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- see above
  }, [reveal]);

  // The marked row was re-rendered (streaming, scrolled out of the virtual list and back): mark it again.
  useLayoutEffect(() => {
    if (!reveal) return;
    const mark = markedRange();
    if (mark && mark.startContainer.isConnected) return;
    const el = scrollRef.current?.querySelector(`[data-testid="timeline-row"][data-key="${CSS.escape(reveal.key)}"]`);
    if (!el) return;
    const ranges = findTextRanges(el, reveal.query);
    if (ranges.length > 0) markRanges(ranges[0], ranges.slice(1));
  });

  // The Tab stop: the row last moved to, else the last row (the newest).
  const activeIndex = useMemo(() => {
    const i = activeKey !== undefined ? rows.findIndex((r) => r.key === activeKey) : -1;
    return i >= 0 ? i : rows.length - 1;
  }, [rows, activeKey]);

  /** Whether row `index` is rendered and wholly inside the scrolled viewport. */
  const whollyInView = useCallback(
    (index: number): boolean => {
      const el = scrollRef.current;
      const item = virtualizer.getVirtualItems().find((v) => v.index === index);
      return !!el && !!item && item.start >= el.scrollTop && item.end <= el.scrollTop + el.clientHeight;
    },
    [virtualizer],
  );

  const moveTo = useCallback(
    (index: number) => {
      const row = rows[index];
      if (!row) return;
      setActiveKey(row.key);
      // A move up to a row out of view stops following at once (the scroll below moves the view
      // up); a move to a row already wholly in view scrolls nothing, so following goes on. Decided
      // now, from the row's laid-out place, not a frame later: on a loaded machine the virtualizer's
      // scroll can land after that frame, and a later check saw "still at the bottom" and resumed.
      const movingUp = index < rows.length - 1 && index < activeIndex;
      if (movingUp && followRef.current && !whollyInView(index)) stopFollowing();
      virtualizer.scrollToIndex(index, { align: 'auto' });
      // Focus now when the row is rendered (the usual case: a neighbour), else once the scroll brings it in.
      let tries = 0;
      const focus = (): boolean => {
        const el = scrollRef.current?.querySelector<HTMLElement>(`[data-testid="timeline-row"][data-key="${CSS.escape(row.key)}"]`);
        el?.focus({ preventScroll: true });
        return el !== null && el !== undefined;
      };
      const retry = (): void => {
        if (!focus() && tries++ < 8) requestAnimationFrame(retry);
      };
      if (!focus()) requestAnimationFrame(retry);
    },
    [rows, virtualizer, activeIndex, stopFollowing, whollyInView],
  );

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    const target = e.target as HTMLElement;
    const onRow = target === scrollRef.current || target.dataset['testid'] === 'timeline-row';
    if (!onRow || e.altKey || e.ctrlKey || e.metaKey) return;
    const row = rows[activeIndex];
    let next: number | undefined;
    switch (e.key) {
      case 'ArrowDown':
        next = Math.min(rows.length - 1, activeIndex + 1);
        break;
      case 'ArrowUp':
        next = Math.max(0, activeIndex - 1);
        break;
      case 'PageDown':
        next = Math.min(rows.length - 1, activeIndex + 10);
        break;
      case 'PageUp':
        next = Math.max(0, activeIndex - 10);
        break;
      case 'Home':
        next = 0;
        break;
      case 'End':
        next = rows.length - 1;
        setFollow(true);
        break;
      case 'ArrowRight':
      case 'ArrowLeft':
        if (row && foldable(row)) {
          e.preventDefault();
          setExpanded(`${sessionId}:${row.key}`, e.key === 'ArrowRight');
        }
        return;
      case ' ':
        if (row && foldable(row)) {
          e.preventDefault();
          toggleExpanded(`${sessionId}:${row.key}`);
        }
        return;
      case 'Enter':
        if (row) {
          e.preventDefault();
          inspect({ kind: 'row', rowKey: row.key, seq: row.seq });
        }
        return;
      default:
        return;
    }
    e.preventDefault();
    // A move up stops following the tail (moveTo); a move that ends at the bottom resumes it.
    moveTo(next);
  };

  const selectedKey = useMemo(() => {
    const seq = inspector ? (inspector.kind === 'row' ? undefined : inspector.seq) : jump?.seq;
    if (inspector?.kind === 'row') return inspector.rowKey;
    if (seq === undefined) return undefined;
    const i = rowIndexOfSeq(timeline, seq);
    return i >= 0 ? timeline.rows[i]!.key : undefined;
  }, [inspector, jump, timeline]);

  // The bar goes away once everything is loaded: the timeline takes focus.
  const loadEarlier = async (fromSeq?: number): Promise<void> => {
    await session.controller.loadEarlier(fromSeq);
    focusAfterRender(firstOf(byTestId(fromSeq === 0 ? 'load-all' : 'load-earlier'), regionTarget('timeline')));
  };
  const earlier =
    startSeq > 0 ? (
      <div className="earlier-bar" data-testid="earlier-bar">
        <span>
          ⋯ {startSeq.toLocaleString('en-US')} earlier event{startSeq === 1 ? '' : 's'} not loaded (the newest are shown first)
        </span>
        <button type="button" className="small" data-testid="load-earlier" onClick={() => void loadEarlier()}>
          Load {Math.min(startSeq, EARLIER_PAGE_EVENTS).toLocaleString('en-US')} more
        </button>
        <button type="button" className="link-button" data-testid="load-all" onClick={() => void loadEarlier(0)}>
          load all
        </button>
      </div>
    ) : null;
  const findBar = find ? <FindBar matches={matches.length} current={Math.max(current, 0)} /> : null;

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
      <div className="timeline-wrap">
        {findBar}
        {earlier}
        <div className="timeline-state" data-testid="timeline-empty">
          {timeline.rows.length === 0 ? 'No events yet. Send a message to start.' : 'Nothing to show with the current filters.'}
        </div>
      </div>
    );
  }

  const items = virtualizer.getVirtualItems();
  return (
    <div className="timeline-wrap">
      {findBar}
      {earlier}
      {modelView && (
        <div className="model-view-note" data-testid="model-view-note">
          What the model sees next{startSeq > 0 ? ' (of the loaded events)' : ''}: the summary in force first, then the messages after it.
        </div>
      )}
      <div
        className="timeline"
        data-testid="timeline"
        data-region="timeline"
        data-start-seq={startSeq}
        ref={scrollRef}
        role="region"
        aria-label="Timeline"
        aria-describedby="timeline-keys"
        tabIndex={items.some((item) => item.index === activeIndex) ? -1 : 0}
        onScroll={onScroll}
        onWheel={onWheel}
        onKeyDown={onKeyDown}
        onFocus={(e) => {
          const key = (e.target as HTMLElement).closest<HTMLElement>('[data-testid="timeline-row"]')?.dataset['key'];
          if (key !== undefined && key !== activeKey) setActiveKey(key);
        }}
        onBlur={(e) => {
          // Focus moved on to something outside the timeline (a palette, a dialog, the composer): it
          // was not lost with a row, so a later render must not take it back (a button elsewhere that
          // disables itself while busy drops focus to <body> too, and that focus is not ours).
          const next = e.relatedTarget;
          if (next instanceof Node && !e.currentTarget.contains(next)) hadFocus.current = false;
        }}
      >
        <p className="sr-only" id="timeline-keys">
          Up and Down arrows move between rows, Right and Left expand and fold, Enter shows the raw events.
        </p>
        <div className="timeline-inner" role="list" aria-label="Timeline rows" style={{ height: totalSize }}>
          <TimelineViewContext.Provider value={timelineView}>
            {items.map((item) => {
              const row = rows[item.index]!;
              return (
                <RowItem
                  key={item.key}
                  row={row}
                  index={item.index}
                  count={rows.length}
                  start={item.start}
                  sessionId={sessionId}
                  live={live}
                  selected={row.key === selectedKey}
                  {...(row.key === currentKey ? { find: 'current' as const } : matchKeys.has(row.key) ? { find: 'hit' as const } : {})}
                  modelView={modelView}
                  active={item.index === activeIndex}
                  measure={virtualizer.measureElement}
                />
              );
            })}
          </TimelineViewContext.Provider>
        </div>
      </div>
      {!follow && (
        <div className="follow-bar">
          <button
            type="button"
            className="follow-button small"
            data-testid="follow-tail-button"
            title="Scroll to the newest row and follow new ones (End in the timeline)"
            onClick={(e) => {
              setFollow(true);
              const el = scrollRef.current;
              if (el) el.scrollTop = el.scrollHeight;
              // The button goes away: the newest row (the timeline's Tab stop) takes focus.
              const newest = rows[rows.length - 1]?.key;
              // The timeline holds focus until that row is rendered at the bottom.
              if (el && e.currentTarget === document.activeElement && newest !== undefined) {
                setActiveKey(undefined);
                el.focus({ preventScroll: true });
                focusAfterRender(() => el.querySelector<HTMLElement>(`[data-testid="timeline-row"][data-key="${CSS.escape(newest)}"]`), { from: el });
              }
            }}
          >
            ↓ latest
          </button>
        </div>
      )}
    </div>
  );
}
