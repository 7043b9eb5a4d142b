/**
 * The N-way board (README "Fan-out, apply, rewind"): up to eight branches side by side, live while a fan-out runs. Per
 * branch its rank, variant, status, check result, changed lines, tokens, time and end reason (from
 * `rankBranches`, asked again when a branch changes, at most every 700 ms), the ranking's reasons,
 * its transcript from the fork point (live projections, one per column, capped like the compare
 * view's), and its actions: open, Apply to my folder (three-way; conflicts listed, nothing
 * written), Discard (removes its own folder only). "Cancel all" cancels every running branch.
 * The two-way compare view stays for two branches without a fan-out.
 */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { ApplyBranchResult, SessionSummary } from '../../../shared/api.js';
import type { RankedReport } from '../../../shared/branch-ranking.js';
import { displayTitle } from '../../../shared/session-tree.js';
import { describeError } from '../../host/host-client.js';
import { byTestId, focusAfterRender } from '../../keyboard/focus-after-render.js';
import { mainTarget, regionTarget } from '../../keyboard/focus-regions.js';
import { BranchesToggle } from '../branches/BranchPicker.js';
import { SessionScope, useApp, useClient, useOpenSession } from '../context.js';
import { useFocusInside } from '../common/use-focus-inside.js';
import { ROW_LIMIT, TranscriptRows } from './CompareTranscript.js';

type Ranked = RankedReport['branches'][number];

/** A branch's figures as short words for its column. */
function checkLabel(b: Ranked | undefined): string {
  if (!b?.check) return 'not run';
  const counts = b.check.counts ? ` (${b.check.counts.passed} passed, ${b.check.counts.failed} failed)` : '';
  return `${b.check.timedOut ? 'timed out' : b.check.passed ? 'passed' : `failed, exit ${b.check.exitCode ?? '?'}`}${counts}`;
}

function Column({ id, summary, ranked, sessions, onApplied }: { readonly id: string; readonly summary: SessionSummary | undefined; readonly ranked: Ranked | undefined; readonly sessions: readonly SessionSummary[]; readonly onApplied: () => void }): ReactNode {
  const client = useClient();
  const select = useApp((s) => s.select);
  const toast = useApp((s) => s.toast);
  const session = useOpenSession();
  const [all, setAll] = useState(false);
  const [busy, setBusy] = useState(false);
  const [apply, setApply] = useState<ApplyBranchResult | undefined>();
  const title = summary ? displayTitle(summary, undefined, sessions) : `session ${id.slice(0, 8)}`;
  const running = summary?.status === 'running';
  const label = ranked?.variant.label ?? ranked?.variant.model ?? title;
  const act = async (what: 'apply' | 'discard'): Promise<void> => {
    setBusy(true);
    try {
      if (what === 'apply') {
        const result = await client.applyBranch({ sessionId: id });
        setApply(result);
        onApplied();
        focusAfterRender(byTestId('board-apply-result'));
      } else {
        const result = await client.discardBranch({ sessionId: id });
        toast(result.removed ? `Discarded ${title}: its folder was removed (its final files stay as a checkpoint)` : `Not discarded: ${result.reason ?? 'nothing to remove'}`, result.removed ? 'info' : 'error');
      }
    } catch (error) {
      toast(`${what === 'apply' ? 'Apply' : 'Discard'} failed: ${describeError(error)}`, 'error');
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="board-column" data-testid="board-column" data-session-id={id} data-rank={ranked?.rank ?? ''} data-status={summary?.status ?? 'unknown'} aria-label={`Branch ${label}`}>
      <header className="board-column-head">
        <span className="board-rank" data-testid="board-rank">
          #{ranked?.rank ?? '–'}
        </span>
        <span className="board-variant clip mono" data-testid="board-variant" title={label}>
          {label}
        </span>
      </header>
      <dl className="board-figures" data-testid="board-figures">
        <dt>status</dt>
        <dd data-testid="board-status">{running ? 'running…' : 'idle'}</dd>
        <dt>check</dt>
        <dd data-testid="board-check" className={ranked?.check ? (ranked.check.passed ? 'ok' : 'bad') : 'muted'}>
          {checkLabel(ranked)}
        </dd>
        <dt>diff</dt>
        <dd data-testid="board-diff">{ranked ? `${ranked.diffLines} changed lines` : '–'}</dd>
        <dt>tokens</dt>
        <dd data-testid="board-tokens">{ranked ? ranked.tokens.toLocaleString('en-US') : '–'}</dd>
        <dt>time</dt>
        <dd data-testid="board-time">{ranked ? `${(ranked.durationMs / 1000).toFixed(1)} s` : '–'}</dd>
        <dt>end</dt>
        <dd data-testid="board-end" className="clip" title={ranked?.turnEndDetail ?? ''}>
          {ranked?.turnEnd ?? (running ? '…' : '–')}
          {ranked?.turnEndDetail ? ` — ${ranked.turnEndDetail}` : ''}
        </dd>
      </dl>
      {ranked && ranked.reasons.length > 0 && (
        <ul className="board-reasons muted" data-testid="board-reasons">
          {ranked.reasons.map((r) => (
            <li key={r}>{r}</li>
          ))}
        </ul>
      )}
      <div className="board-actions">
        <button type="button" className="small" data-testid="board-open" onClick={() => select(id, { focusSession: true })}>
          Open
        </button>
        <button type="button" className="small" data-testid="board-apply" disabled={busy || running || summary?.parentSession === undefined} title="Merge this branch's changes since the fork point into its parent's folder (three-way; on conflicts nothing is written)" onClick={() => void act('apply')}>
          Apply to my folder
        </button>
        <button type="button" className="small" data-testid="board-discard" disabled={busy || running} title="Remove this branch's own folder (never yours); its final files stay as a checkpoint" onClick={() => void act('discard')}>
          Discard
        </button>
      </div>
      {apply && (
        <div className={`board-apply-result ${apply.applied ? 'ok' : 'bad'}`} data-testid="board-apply-result" data-applied={apply.applied} tabIndex={-1} role="status">
          {apply.applied
            ? apply.files.length === 0
              ? 'Nothing to apply: the branch changed no files.'
              : `Applied ${apply.files.filter((f) => f.how !== 'same').length} file(s) into ${apply.folder}: ${apply.files.map((f) => `${f.status} ${f.path}`).join(', ')}`
            : `Not applied: ${apply.conflicts.length} file(s) changed on both sides; nothing was written.`}
          {apply.conflicts.map((c) => (
            <pre key={c.path} className="board-conflict mono" data-testid="board-conflict">
              {c.path}
              {'\n'}
              {c.hunks.join('')}
            </pre>
          ))}
        </div>
      )}
      <div className="compare-column-body board-transcript" tabIndex={0} role="region" aria-label={`${label}: transcript from the fork point`} data-testid="board-transcript">
        {session ? (
          <TranscriptRows fromSeq={summary?.seedLength ?? 0} limit={all ? Number.POSITIVE_INFINITY : ROW_LIMIT} onShowAll={() => setAll(true)} />
        ) : (
          <div className="compare-state">Loading transcript…</div>
        )}
      </div>
    </section>
  );
}

/** The board for `ids` (2–8 sessions); `fanoutId` while a fan-out started here may still run. */
export function BoardView({ ids, fanoutId, check }: { readonly ids: readonly string[]; readonly fanoutId?: string; readonly check?: string }): ReactNode {
  const client = useClient();
  const sessions = useApp((s) => s.sessions);
  const closeBoard = useApp((s) => s.closeBoard);
  const toast = useApp((s) => s.toast);
  const summaries = ids.map((id) => sessions.find((s) => s.id === id));
  const signature = summaries.map((s) => (s ? `${s.eventCount}:${s.status}` : '-')).join('|');
  const anyRunning = summaries.some((s) => s?.status === 'running');
  const [ranking, setRanking] = useState<RankedReport | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [nonce, setNonce] = useState(0);

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

  // Figures: asked again when a branch changes, at most every 700 ms (streaming changes the signature often).
  useEffect(() => {
    let live = true;
    // A running branch's log is still being written: it is ranked once its turn is over.
    const idle = ids.filter((_id, i) => summaries[i]?.status !== 'running');
    if (idle.length === 0) return;
    const timer = setTimeout(() => {
      client.rankBranches({ sessionIds: idle }).then(
        (r) => {
          if (live) {
            setRanking(r);
            setError(undefined);
          }
        },
        (e: unknown) => {
          if (live) setError(describeError(e));
        },
      );
    }, 700);
    return () => {
      live = false;
      clearTimeout(timer);
    };
    // `signature` stands for `summaries` (a new array every render; only counts and statuses matter).
    // eslint-disable-next-line react-hooks/exhaustive-deps -- see above
  }, [client, ids, signature, nonce]);

  const byId = new Map(ranking?.branches.map((b) => [b.session, b]) ?? []);
  return (
    <div ref={viewRef} className="compare-view board-view" data-testid="board-view" data-region="compare" data-count={ids.length} data-state={ranking ? 'ready' : error ? 'error' : 'loading'} data-running={anyRunning}>
      <header className="compare-header">
        <span className="compare-title" data-focus-default tabIndex={-1}>
          Board · {ids.length} branches
        </span>
        {check && (
          <span className="muted mono clip" data-testid="board-check-command" title={check}>
            check: {check}
          </span>
        )}
        <span className="compare-actions">
          {fanoutId && anyRunning && (
            <button
              type="button"
              className="small danger"
              data-testid="board-cancel-all"
              onClick={() => {
                void client.cancelFanout({ fanoutId }).then(
                  (r) => toast(r.cancelled ? 'Cancelled every branch' : 'The fan-out had already finished', 'info'),
                  (e: unknown) => toast(`Cancel failed: ${describeError(e)}`, 'error'),
                );
              }}
            >
              Cancel all
            </button>
          )}
          <BranchesToggle />
          <button type="button" className="small" data-testid="board-refresh" onClick={() => setNonce((n) => n + 1)}>
            Refresh
          </button>
          <button type="button" className="small" data-testid="board-close" title="Back to the open session" onClick={closeBoard}>
            Close
          </button>
        </span>
      </header>
      {error && (
        <div className="banner error" data-testid="board-error">
          Could not rank these branches: {error}
        </div>
      )}
      <div className="board-columns" data-testid="board-columns" style={{ gridTemplateColumns: `repeat(${ids.length}, minmax(260px, 1fr))` }}>
        {ids.map((id, i) => (
          <SessionScope key={id} sessionId={id}>
            <Column id={id} summary={summaries[i]} ranked={byId.get(id)} sessions={sessions} onApplied={() => setNonce((n) => n + 1)} />
          </SessionScope>
        ))}
      </div>
    </div>
  );
}
