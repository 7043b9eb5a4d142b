/**
 * One compaction, as a row of the timeline: state, how many events it replaced, the request size
 * before → after and its share of the context window; expanded, the summary rendered as Markdown
 * beside the shadowed originals rendered as the messages they were (each links to its row). A
 * failed attempt shows its error and any summary it rejected instead of a summary.
 */
import { memo, useMemo, useRef, useState, type ReactNode } from 'react';
import { eventMessage } from '../../../shared/event-message.js';
import { formatDuration, formatTokens } from '../../../shared/format.js';
import type { Message } from '../../../shared/messages.js';
import type { CompactionRow } from '../../../shared/timeline.js';
import { focusAfterRender, onceGone } from '../../keyboard/focus-after-render.js';
import { useApp, useRequiredSession, useSession } from '../context.js';
import { Markdown } from '../markdown/Markdown.js';
import { MessageCard, toolNamesOf } from '../messages/MessageCard.js';
import { Badge } from './badges.js';
import { FoldToggle } from './FoldToggle.js';

/** Originals shown at first (more on request). */
const ORIGINALS_PAGE = 30;

function share(tokens: number | undefined, window: number | undefined): string {
  return tokens !== undefined && window ? ` (${((tokens / window) * 100).toFixed(1)}% of ${formatTokens(window)})` : '';
}

/** Before → after, as one line. */
export function compactionTokensLabel(row: CompactionRow): string {
  if (row.tokensBefore !== undefined && row.tokensAfter !== undefined) {
    return `~${formatTokens(row.tokensBefore)}${share(row.tokensBefore, row.contextWindow)} → ~${formatTokens(row.tokensAfter)}${share(row.tokensAfter, row.contextWindow)} tokens`;
  }
  if (row.tokensBefore !== undefined) return `~${formatTokens(row.tokensBefore)} tokens before${share(row.tokensBefore, row.contextWindow)}`;
  return row.shadowedTokenCount !== undefined ? `~${formatTokens(row.shadowedTokenCount)} tokens replaced` : '';
}

function Originals({ row }: { readonly row: CompactionRow }): ReactNode {
  const events = useSession((s) => s.events);
  const startSeq = useSession((s) => s.startSeq);
  const session = useRequiredSession();
  const jumpTo = useApp((s) => s.jumpTo);
  const [shown, setShown] = useState(ORIGINALS_PAGE);
  const listRef = useRef<HTMLDivElement>(null);
  /** The seq link of original `seq` (each card's first control). */
  const seqLink = (seq?: number) => (): HTMLElement | null | undefined =>
    listRef.current?.querySelector<HTMLElement>(seq === undefined ? '[data-testid="compaction-shadowed-seq"]' : `[data-testid="compaction-shadowed-seq"][data-seq="${seq}"]`);
  const originals = useMemo(() => {
    const out: { seq: number; message: Message }[] = [];
    for (const seq of row.shadowedSeqs) {
      const event = events.bySeq(seq);
      const message = event ? eventMessage(event) : undefined;
      if (message) out.push({ seq, message });
    }
    return out;
  }, [row.shadowedSeqs, events]);
  const names = useMemo(() => toolNamesOf(originals.map((o) => o.message)), [originals]);
  const missing = row.shadowedSeqs.filter((s) => s < startSeq).length;
  if (row.shadowedSeqs.length === 0) return <div className="muted">This compaction did not record which events it would replace.</div>;
  return (
    <div ref={listRef} className="compaction-originals" data-testid="compaction-originals">
      {missing > 0 && (
        <div className="banner info">
          {missing} of them are before the loaded part of this session.{' '}
          <button
            type="button"
            className="link-button"
            data-testid="compaction-load-originals"
            onClick={(e) => {
              const from = e.currentTarget;
              // The banner goes away once they are loaded: the first original takes focus.
              session.controller.loadEarlier(Math.min(...row.shadowedSeqs)).then(
                () => focusAfterRender(onceGone(from, seqLink()), { from }),
                () => undefined,
              );
            }}
          >
            load them
          </button>
        </div>
      )}
      {originals.slice(0, shown).map(({ seq, message }) => (
        <MessageCard
          key={seq}
          message={message}
          toolNames={names}
          aside={
            <button type="button" className="seq-link" data-testid="compaction-shadowed-seq" data-seq={seq} title="Show this event's row" onClick={() => jumpTo(seq)}>
              #{seq}
            </button>
          }
        />
      ))}
      {originals.length > shown && (
        <button
          type="button"
          className="link-button"
          data-testid="compaction-originals-more"
          onClick={(e) => {
            const first = originals[shown]!.seq;
            setShown((n) => n + ORIGINALS_PAGE);
            // The first original it adds takes focus (the button goes away after the last page).
            focusAfterRender(seqLink(first), { from: e.currentTarget });
          }}
        >
          show {Math.min(ORIGINALS_PAGE, originals.length - shown)} more of {originals.length - shown}
        </button>
      )}
    </div>
  );
}

export const CompactionView = memo(function CompactionView({
  row,
  expanded,
  onToggle,
  modelView,
}: {
  readonly row: CompactionRow;
  readonly expanded: boolean;
  readonly onToggle: () => void;
  readonly modelView?: boolean;
}): ReactNode {
  const tokens = compactionTokensLabel(row);
  const duration = row.endTime !== undefined ? row.endTime - row.time : undefined;
  if (modelView) {
    // What the model sees in place of the originals: the replacement message itself.
    return (
      <div className="row row-compaction model-view" data-testid="compaction-row" data-state={row.state} data-model-view="true">
        <div className="row-head">
          <span className="who">Compaction summary</span>
          <Badge tone="info">replaces {row.shadowedSeqs.length} events</Badge>
          {tokens && <span className="muted">{tokens}</span>}
        </div>
        <Markdown text={row.summary ?? row.replacementText ?? ''} testId="compaction-summary" />
      </div>
    );
  }
  return (
    <div className={`row row-compaction state-${row.state}`} data-testid="compaction-row" data-state={row.state}>
      <div className="row-head">
        <FoldToggle testId="compaction-toggle" expanded={expanded} onToggle={onToggle} label="compaction" />
        <span className="who">Compaction</span>
        <Badge tone={row.state === 'done' ? 'ok' : row.state === 'running' ? 'info' : 'bad'}>{row.state}</Badge>
        <span className="muted">
          {row.state === 'done' ? 'replaced' : 'would replace'} {row.shadowedSeqs.length} event{row.shadowedSeqs.length === 1 ? '' : 's'}
        </span>
        {tokens && (
          <span className="muted" data-testid="compaction-tokens">
            {tokens}
          </span>
        )}
        {row.model && <span className="muted mono">{row.model}</span>}
        {duration !== undefined && <span className="muted">{formatDuration(duration)}</span>}
        {row.error && (
          <span className="error-text clip" data-testid="compaction-error-line">
            {row.error}
          </span>
        )}
      </div>
      {expanded && (
        <div className="compaction-body" data-testid="compaction-view" onClick={(e) => e.stopPropagation()}>
          <section className="compaction-summary-col">
            {row.state === 'failed' || row.state === 'stale' ? (
              <>
                <div className="section-label">why it failed</div>
                <div className="compaction-failure" data-testid="compaction-failure">
                  {row.state === 'stale' ? 'The app stopped before this compaction finished; the history was left as it was.' : row.error}
                  {row.failure && (
                    <div className="mono">
                      {row.failure.code}
                      {row.failure.status !== undefined ? ` (HTTP ${row.failure.status})` : ''}: {row.failure.message}
                    </div>
                  )}
                  <div className="muted">Nothing was replaced: the model still sees the originals.</div>
                </div>
                {row.rejectedSummary !== undefined && (
                  <>
                    <div className="section-label">the summary it rejected</div>
                    <Markdown text={row.rejectedSummary} testId="compaction-rejected-summary" className="rejected" />
                  </>
                )}
              </>
            ) : row.summary !== undefined ? (
              <>
                <div className="section-label">summary — what the model sees instead</div>
                <Markdown text={row.summary} testId="compaction-summary" />
                {row.replacementText !== undefined && (
                  <details className="compaction-replacement">
                    <summary>the replacement message as sent (#{row.replacementSeq})</summary>
                    <pre className="plain">{row.replacementText}</pre>
                  </details>
                )}
              </>
            ) : (
              <div className="muted">The summary is being written…</div>
            )}
          </section>
          <section className="compaction-originals-col">
            <div className="section-label">
              {row.state === 'done' ? 'originals the model no longer sees' : 'what it would have replaced'} ({row.shadowedSeqs.length})
            </div>
            <Originals row={row} />
          </section>
        </div>
      )}
    </div>
  );
});
