/**
 * A list of raw events as the inspectors show them: one card per event (seq, type, time,
 * surfaceOp, provenance links, payload JSON), with runs of streamed chunks folded into one
 * expandable line. Each card can jump to its row in the timeline.
 */
import { memo, useMemo, useRef, useState, type ReactNode } from 'react';
import type { SessionEvent } from '../../../shared/events.js';
import { eventTypeLabel, foldChunkRuns, type EventItem } from '../../../shared/event-runs.js';
import { isoTime } from '../../../shared/format.js';
import { firstFocusableIn, focusAfterRender } from '../../keyboard/focus-after-render.js';
import { useApp } from '../context.js';

const SOURCE_SEQ_LIMIT = 200;

function SourceSeqs({ seqs }: { readonly seqs: readonly number[] }): ReactNode {
  const jumpTo = useApp((s) => s.jumpTo);
  const [all, setAll] = useState(false);
  const shown = all ? seqs : seqs.slice(0, SOURCE_SEQ_LIMIT);
  const listRef = useRef<HTMLSpanElement>(null);
  return (
    <span ref={listRef} className="seq-list">
      {shown.map((seq) => (
        <button key={seq} type="button" className="seq-link" data-testid="raw-event-source-seq" data-seq={seq} onClick={() => jumpTo(seq)}>
          #{seq}
        </button>
      ))}
      {!all && seqs.length > SOURCE_SEQ_LIMIT && (
        <button
          type="button"
          className="link-button"
          onClick={(e) => {
            setAll(true);
            // The button goes away: the first seq it revealed takes focus.
            focusAfterRender(() => listRef.current?.querySelectorAll<HTMLElement>('[data-testid="raw-event-source-seq"]')[SOURCE_SEQ_LIMIT], { from: e.currentTarget });
          }}
        >
          +{seqs.length - SOURCE_SEQ_LIMIT} more
        </button>
      )}
    </span>
  );
}

export const EventCard = memo(function EventCard({ event, focused }: { readonly event: SessionEvent; readonly focused?: boolean }): ReactNode {
  const payload = useMemo(() => JSON.stringify(event.data, null, 2), [event]);
  const jumpTo = useApp((s) => s.jumpTo);
  return (
    <div className={`raw-event${focused ? ' focused' : ''}`} data-testid="raw-event" data-seq={event.seq} data-type={event.type}>
      <div className="raw-event-head">
        <span className="mono">#{event.seq}</span>
        <span className="mono event-type">{eventTypeLabel(event)}</span>
        {event.ignorable && <span className="badge badge-muted">ignorable</span>}
        <span className="spacer" />
        <button type="button" className="link-button" data-testid="raw-event-show-in-timeline" title="Scroll the timeline to this event's row" onClick={() => jumpTo(event.seq)}>
          show in timeline
        </button>
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
      <pre tabIndex={0} className="json" data-testid="raw-event-payload">
        {payload}
      </pre>
    </div>
  );
});

function RunItem({ item, focusSeq }: { readonly item: Extract<EventItem, { kind: 'run' }>; readonly focusSeq?: number }): ReactNode {
  const inside = focusSeq !== undefined && focusSeq >= item.first && focusSeq <= item.last;
  const [open, setOpen] = useState(false);
  return (
    <div className={`raw-run${inside ? ' focused' : ''}`} data-testid="raw-run" data-first={item.first} data-last={item.last} data-count={item.events.length}>
      <button type="button" className="raw-run-head" aria-expanded={open} data-testid="raw-run-toggle" onClick={() => setOpen((o) => !o)}>
        <span className="fold-caret" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
        <span className="mono">
          {item.events.length} × {item.chunkType}
        </span>
        <span className="mono muted">
          #{item.first}–#{item.last}
        </span>
        <span className="raw-run-preview clip">{item.preview}</span>
      </button>
      {open && (
        <div className="raw-run-body">
          {item.events.map((e) => (
            <EventCard key={e.seq} event={e} focused={e.seq === focusSeq} />
          ))}
        </div>
      )}
    </div>
  );
}

/**
 * The first control of the item showing event `seq` inside `root` (its card, or the toggle of the
 * folded run holding it), for handing focus to an event that was just listed.
 */
export function eventItemControl(root: Element | null | undefined, seq: number): HTMLElement | undefined {
  if (!root) return undefined;
  const card = root.querySelector(`[data-testid="raw-event"][data-seq="${seq}"]`);
  if (card) return firstFocusableIn(card);
  const run = [...root.querySelectorAll<HTMLElement>('[data-testid="raw-run"]')].find((r) => Number(r.dataset['first']) <= seq && seq <= Number(r.dataset['last']));
  return run ? firstFocusableIn(run) : undefined;
}

/** `events` (ascending) with chunk runs folded. */
export function EventList({ events, focusSeq }: { readonly events: readonly SessionEvent[]; readonly focusSeq?: number }): ReactNode {
  const items = useMemo(() => foldChunkRuns(events), [events]);
  return (
    <div className="event-list" data-testid="event-list">
      {items.map((item) =>
        item.kind === 'run' ? (
          <RunItem key={`run:${item.first}`} item={item} {...(focusSeq !== undefined ? { focusSeq } : {})} />
        ) : (
          <EventCard key={item.event.seq} event={item.event} focused={item.event.seq === focusSeq} />
        ),
      )}
    </div>
  );
}
