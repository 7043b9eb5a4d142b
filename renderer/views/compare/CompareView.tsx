/**
 * The compare view (docs/architecture.md §10): two sessions from their common boundary — how long the shared
 * history is, each branch's figures (turns, steps, tool calls, tokens, time, how the last turn
 * ended, first prompt), the transcripts after the boundary side by side, and the diff between the
 * files each branch ended with. Figures and files come from `compareSessions`, asked again when
 * either session changes; transcripts are live projections of the two sessions' logs.
 */
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { CompareResult, SessionSummary } from '../../../shared/api.js';
import { commonHistoryLabel, compareFigures, turnsBefore } from '../../../shared/branch-compare.js';
import { branchTree } from '../../../shared/branch-tree.js';
import { distinctNames } from '../../../shared/distinct-names.js';
import { displayTitle } from '../../../shared/session-tree.js';
import { describeError } from '../../host/host-client.js';
import { byTestId, firstOf, focusAfterRender } from '../../keyboard/focus-after-render.js';
import { mainTarget, regionTarget } from '../../keyboard/focus-regions.js';
import { BranchesToggle } from '../branches/BranchPicker.js';
import { SessionScope, useApp, useClient, useOpenSession, useTimeline } from '../context.js';
import { useFocusInside } from '../common/use-focus-inside.js';
import { CompareFiles } from './CompareFiles.js';
import { CompareTranscript } from './CompareTranscript.js';
import { SharedHistory } from './SharedHistory.js';

interface LoadState {
  readonly loading: boolean;
  readonly result?: CompareResult;
  readonly error?: string;
}

function signature(s: SessionSummary | undefined): string {
  return s ? `${s.eventCount}:${s.status}:${s.updatedAt}` : '-';
}

/**
 * Session picker for one side: the other side's lineage (indented), plus both current sessions. Its
 * visible label and accessible name say which side it is ("Branch A"); options of one title read
 * apart by a folder or short-id hint (distinct-names.ts).
 */
function SidePicker({ side, value, other, sessions }: { readonly side: 'a' | 'b'; readonly value: string; readonly other: string; readonly sessions: readonly SessionSummary[] }): ReactNode {
  const openCompare = useApp((s) => s.openCompare);
  const options = useMemo(() => {
    const nodes = branchTree(sessions, other);
    // Tree order; fork titles already name their fork, and a native select cannot draw the tree.
    const list: { id: string; label: string; cwd?: string | undefined }[] = nodes.map((n) => ({ id: n.session.id, label: n.title, cwd: n.session.cwd }));
    for (const id of [value, other]) {
      if (list.some((o) => o.id === id)) continue;
      const s = sessions.find((x) => x.id === id);
      list.push({ id, label: s ? displayTitle(s, undefined, sessions) : `session ${id.slice(0, 8)}`, cwd: s?.cwd });
    }
    const names = distinctNames(list.map((o) => ({ id: o.id, name: o.label, ...(o.cwd !== undefined ? { cwd: o.cwd } : {}) })));
    return list.map((o, i) => ({ id: o.id, label: names[i]! }));
  }, [sessions, value, other]);
  return (
    <label className="compare-pick">
      <span className={`side-tag side-${side}`} data-testid={`compare-pick-${side}-label`}>
        Branch {side.toUpperCase()}
      </span>
      <select
        data-testid={`compare-pick-${side}`}
        value={value}
        aria-label={`Branch ${side.toUpperCase()}`}
        title={`Branch ${side.toUpperCase()}: ${options.find((o) => o.id === value)?.label ?? value}`}
        onChange={(e) => {
          const next = e.target.value;
          if (next === other) openCompare(side === 'a' ? other : value, side === 'a' ? value : other);
          else if (side === 'a') openCompare(next, other);
          else openCompare(other, next);
          // A new pair is a new view: the same picker in it keeps focus.
          focusAfterRender(byTestId(`compare-pick-${side}`));
        }}
      >
        {options.map((o) => (
          <option key={o.id} value={o.id} disabled={o.id === other}>
            {o.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** "N shared events (K turns)", counted on branch A's timeline; inside A's session scope. */
function CommonHistoryTurns({ commonLength }: { readonly commonLength: number }): ReactNode {
  const timeline = useTimeline();
  const turns = useMemo(() => turnsBefore(timeline.rows, commonLength), [timeline.rows, commonLength]);
  return <>{commonHistoryLabel(commonLength, turns)}</>;
}

function CommonHistory({ commonLength }: { readonly commonLength: number }): ReactNode {
  const session = useOpenSession();
  return (
    <div className="compare-common" data-testid="compare-common" data-common-length={commonLength}>
      <span className="compare-common-label">Common history</span>
      <span>{session && commonLength > 0 ? <CommonHistoryTurns commonLength={commonLength} /> : commonHistoryLabel(commonLength)}</span>
      {commonLength > 0 && <span className="muted">· the branches differ from event #{commonLength} on</span>}
    </div>
  );
}

function Figures({ result, titleA, titleB }: { readonly result: CompareResult; readonly titleA: string; readonly titleB: string }): ReactNode {
  const rows = useMemo(() => compareFigures(result), [result]);
  return (
    <table className="compare-figures" data-testid="compare-figures">
      <thead>
        <tr>
          <th />
          <th data-testid="compare-branch-a" data-session-id={result.a.sessionId}>
            <span className="side-tag side-a">A</span> <span className="compare-branch-title">{titleA}</span>
            {result.a.cwd && <div className="muted mono clip compare-cwd">{result.a.cwd}</div>}
          </th>
          <th data-testid="compare-branch-b" data-session-id={result.b.sessionId}>
            <span className="side-tag side-b">B</span> <span className="compare-branch-title">{titleB}</span>
            {result.b.cwd && <div className="muted mono clip compare-cwd">{result.b.cwd}</div>}
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.key} data-testid="compare-figure" data-figure={r.key} className={`${r.differs ? 'differs' : ''}${r.numeric ? ' numeric' : ''}`}>
            <th scope="row">{r.label}</th>
            <td data-testid="compare-figure-a">{r.a}</td>
            <td data-testid="compare-figure-b">{r.b}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function CompareView({ a, b }: { readonly a: string; readonly b: string }): ReactNode {
  const client = useClient();
  const sessions = useApp((s) => s.sessions);
  const openCompare = useApp((s) => s.openCompare);
  const closeCompare = useApp((s) => s.closeCompare);
  const summaryA = sessions.find((s) => s.id === a);
  const summaryB = sessions.find((s) => s.id === b);
  const sigA = signature(summaryA);
  const sigB = signature(summaryB);
  const [nonce, setNonce] = useState(0);
  const [load, setLoad] = useState<LoadState>({ loading: true });

  // The view replaces the session view (whose control may have held focus) and, closed with focus in it, is replaced by it.
  const viewRef = useRef<HTMLDivElement>(null);
  const focusInside = useFocusInside(viewRef);
  useEffect(() => {
    const cancel = focusAfterRender(regionTarget('compare'));
    return () => {
      cancel();
      // Where focus is when the view closes (not when it opened) decides: the ref's latest value is the point.
      // eslint-disable-next-line react-hooks/exhaustive-deps -- see above
      if (focusInside.current) focusAfterRender(mainTarget);
    };
  }, [focusInside]);

  useEffect(() => {
    let live = true;
    setLoad((prev) => ({ ...prev, loading: true }));
    client.compareSessions({ a, b }).then(
      (result) => {
        if (live) setLoad({ loading: false, result });
      },
      (error: unknown) => {
        if (live) setLoad((prev) => ({ loading: false, error: describeError(error), ...(prev.result ? { result: prev.result } : {}) }));
      },
    );
    return () => {
      live = false;
    };
  }, [client, a, b, sigA, sigB, nonce]);

  const { result, error, loading } = load;
  const plainA = displayTitle(summaryA ?? { id: a, ...(result?.a.title !== undefined ? { title: result.a.title } : {}) }, undefined, sessions);
  const plainB = displayTitle(summaryB ?? { id: b, ...(result?.b.title !== undefined ? { title: result.b.title } : {}) }, undefined, sessions);
  // Two branches of one title read apart (a folder or short-id hint), in the figures, transcripts and files.
  const [titleA, titleB] = distinctNames([
    { id: a, name: plainA, ...(summaryA?.cwd !== undefined ? { cwd: summaryA.cwd } : {}) },
    { id: b, name: plainB, ...(summaryB?.cwd !== undefined ? { cwd: summaryB.cwd } : {}) },
  ]) as [string, string];

  return (
    <div ref={viewRef} className="compare-view" data-testid="compare-view" data-region="compare" data-a={a} data-b={b} data-state={result ? 'ready' : error ? 'error' : 'loading'}>
      <header className="compare-header">
        <span className="compare-title">Compare</span>
        <SidePicker side="a" value={a} other={b} sessions={sessions} />
        <button
          type="button"
          className="icon-button"
          data-testid="compare-swap"
          title="Swap A and B"
          aria-label="Swap A and B"
          onClick={() => {
            openCompare(b, a);
            // A new pair is a new view: the swap button in it keeps focus.
            focusAfterRender(byTestId('compare-swap'));
          }}
        >
          ⇄
        </button>
        <SidePicker side="b" value={b} other={a} sessions={sessions} />
        <span className="compare-actions">
          {loading && result && <span className="muted">refreshing…</span>}
          <BranchesToggle />
          <button
            type="button"
            className="small"
            data-testid="compare-refresh"
            disabled={loading}
            onClick={() => {
              setNonce((n) => n + 1);
              // Disabled until the answer is in.
              focusAfterRender(byTestId('compare-refresh'), { timeoutMs: 30_000 });
            }}
          >
            Refresh
          </button>
          <button type="button" className="small" data-testid="compare-close" title="Back to the open session" onClick={closeCompare}>
            Close
          </button>
        </span>
      </header>
      {error && (
        <div className="banner error" data-testid="compare-error">
          <span>Could not compare these sessions: {error}</span>
          <button
            type="button"
            className="small"
            data-testid="compare-retry"
            onClick={(e) => {
              setNonce((n) => n + 1);
              // Answered, the error (and this button) goes away: the view's content takes focus. Failing again, the button stays.
              const content = firstOf(byTestId('compare-body'), regionTarget('compare'));
              focusAfterRender(() => (document.querySelector('[data-testid="compare-error"]') ? undefined : content()), { from: e.currentTarget, timeoutMs: 30_000 });
            }}
          >
            Retry
          </button>
        </div>
      )}
      <div className="compare-body" data-testid="compare-body" tabIndex={-1}>
        {!result ? (
          !error && (
            <div className="timeline-state" data-testid="compare-loading">
              Comparing branches…
            </div>
          )
        ) : (
          <>
            <section className="compare-section">
              <SessionScope sessionId={result.a.sessionId}>
                <CommonHistory commonLength={result.commonLength} />
              </SessionScope>
              <Figures result={result} titleA={titleA} titleB={titleB} />
            </section>
            <section className="compare-section">
              <div className="compare-section-title">
                Transcripts <span className="muted">after the common history</span>
              </div>
              <SessionScope sessionId={result.a.sessionId}>
                <SharedHistory length={result.commonLength} />
              </SessionScope>
              <div className="compare-columns">
                <SessionScope sessionId={result.a.sessionId}>
                  <CompareTranscript side="a" branch={result.a} title={titleA} fromSeq={result.commonLength} />
                </SessionScope>
                <SessionScope sessionId={result.b.sessionId}>
                  <CompareTranscript side="b" branch={result.b} title={titleB} fromSeq={result.commonLength} />
                </SessionScope>
              </div>
            </section>
            <CompareFiles result={result} titleA={titleA} titleB={titleB} />
          </>
        )}
      </div>
    </div>
  );
}
