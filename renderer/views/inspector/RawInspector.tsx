/**
 * The raw event inspector: the events behind the selected timeline row, or every loaded event of
 * the session — filtered by event type, searched by text or seq (`#123` jumps to that event), with
 * runs of streamed chunks folded into one expandable line. Every event links back to its row in the
 * timeline; clicking a row (or a seq link anywhere) opens its events here.
 */
import { useMemo, useRef, useState, type ReactNode } from 'react';
import type { SessionEvent } from '../../../shared/events.js';
import { filterEvents, seqQuery, typeCounts } from '../../../shared/event-runs.js';
import { rowEventSeqs, rowIndexOfKey, rowIndexOfSeq } from '../../../shared/timeline.js';
import { byTestId, firstOf, focusAfterRender } from '../../keyboard/focus-after-render.js';
import { useApp, useRequiredSession, useSession, useTimeline } from '../context.js';
import { EventList, eventItemControl } from './EventList.js';

/** Events listed at a time (more on request). */
const PAGE = 200;
/** Most events of one row gathered for the row scope. */
const ROW_LIMIT = 20_000;

type Scope = 'row' | 'all';

export function RawInspector(): ReactNode {
  const target = useApp((s) => s.inspector);
  const inspect = useApp((s) => s.inspect);
  const jumpTo = useApp((s) => s.jumpTo);
  const timeline = useTimeline();
  const events = useSession((s) => s.events);
  const startSeq = useSession((s) => s.startSeq);
  const session = useRequiredSession();
  const [scope, setScope] = useState<Scope>('row');
  const [types, setTypes] = useState<ReadonlySet<string>>(new Set());
  const [text, setText] = useState('');
  const [shown, setShown] = useState(PAGE);
  const bodyRef = useRef<HTMLDivElement>(null);

  const rowIndex = target ? (target.kind === 'row' ? rowIndexOfKey(timeline, target.rowKey) : rowIndexOfSeq(timeline, target.seq)) : -1;
  const row = rowIndex >= 0 ? timeline.rows[rowIndex] : undefined;
  const seqSearch = seqQuery(text);
  const focusSeq = seqSearch ?? target?.seq;

  const scoped: readonly SessionEvent[] = useMemo(() => {
    if (scope === 'all') return events.slice(0);
    if (rowIndex < 0) {
      const only = target?.seq !== undefined ? events.bySeq(target.seq) : undefined;
      return only ? [only] : [];
    }
    return rowEventSeqs(timeline, rowIndex, ROW_LIMIT)
      .seqs.map((s) => events.bySeq(s))
      .filter((e): e is SessionEvent => e !== undefined);
  }, [scope, events, timeline, rowIndex, target?.seq]);
  const counts = useMemo(() => typeCounts(scoped), [scoped]);
  const filtered = useMemo(() => (seqSearch !== undefined ? scoped.filter((e) => e.seq === seqSearch) : filterEvents(scoped, { types, text })), [scoped, types, text, seqSearch]);

  if (!target) return null;
  const notLoaded = focusSeq !== undefined && focusSeq < startSeq;
  const toggleType = (type: string): void => {
    const next = new Set(types);
    if (next.has(type)) next.delete(type);
    else next.add(type);
    setTypes(next);
    setShown(PAGE);
  };
  return (
    <aside className="side-panel raw-inspector" data-testid="raw-inspector" aria-label="Raw events">
      <header className="panel-head">
        <span className="panel-title">Events</span>
        <span className="segmented" role="group" aria-label="Which events">
          <button type="button" className={scope === 'row' ? 'active' : ''} aria-pressed={scope === 'row'} data-testid="raw-scope-row" onClick={() => setScope('row')}>
            this row
          </button>
          <button type="button" className={scope === 'all' ? 'active' : ''} aria-pressed={scope === 'all'} data-testid="raw-scope-all" onClick={() => setScope('all')}>
            whole log
          </button>
        </span>
        <span className="spacer" />
        <button type="button" className="icon-button" data-testid="raw-inspector-close" aria-label="Close" onClick={() => inspect(undefined)}>
          ✕
        </button>
      </header>
      <div className="raw-tools">
        <input
          type="search"
          className="search"
          data-testid="raw-search"
          placeholder="Search text, or #seq"
          aria-label="Search events by text or seq"
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            setShown(PAGE);
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && seqSearch !== undefined) {
              if (seqSearch < startSeq) void session.controller.loadEarlier(seqSearch);
              setScope('all');
              jumpTo(seqSearch);
            }
          }}
        />
        {row && scope === 'row' && (
          <button type="button" className="link-button" data-testid="raw-show-row" title="Scroll the timeline to this row" onClick={() => jumpTo(row.seq)}>
            {row.kind} row #{row.seq}
          </button>
        )}
      </div>
      <div className="type-chips" data-testid="raw-type-filter" role="group" aria-label="Filter by event type">
        {counts.map(({ type, count }) => (
          <button
            key={type}
            type="button"
            className={`chip${types.has(type) ? ' active' : ''}`}
            aria-pressed={types.has(type)}
            data-testid="raw-type-chip"
            data-type={type}
            onClick={() => toggleType(type)}
          >
            {type} <span className="muted">{count}</span>
          </button>
        ))}
      </div>
      <div ref={bodyRef} className="panel-body">
        {notLoaded && (
          <div className="banner info" data-testid="raw-not-loaded">
            #{focusSeq} is before the loaded part of this session.
            <button
              type="button"
              className="link-button"
              data-testid="raw-load-it"
              onClick={() => {
                // The banner goes away once it is loaded: the sought event takes focus.
                session.controller.loadEarlier(focusSeq).then(
                  () => focusAfterRender(firstOf(() => eventItemControl(bodyRef.current, focusSeq), byTestId('raw-search'))),
                  () => undefined,
                );
              }}
            >
              load it
            </button>
          </div>
        )}
        <div className="muted raw-count" data-testid="raw-count">
          {filtered.length === scoped.length ? `${scoped.length} event${scoped.length === 1 ? '' : 's'}` : `${filtered.length} of ${scoped.length} events`}
          {scope === 'all' && startSeq > 0 ? ` (loaded from #${startSeq})` : ''}
        </div>
        {filtered.length === 0 ? <div className="muted">No event matches.</div> : <EventList events={filtered.slice(0, shown)} {...(focusSeq !== undefined ? { focusSeq } : {})} />}
        {filtered.length > shown && (
          <button
            type="button"
            className="link-button"
            data-testid="raw-inspector-more"
            onClick={(e) => {
              const first = filtered[shown]!.seq;
              setShown((n) => n + PAGE);
              // The first event it adds takes focus (the button goes away after the last page).
              focusAfterRender(() => eventItemControl(bodyRef.current, first), { from: e.currentTarget });
            }}
          >
            show {Math.min(PAGE, filtered.length - shown)} more of {filtered.length - shown}
          </button>
        )}
      </div>
    </aside>
  );
}
