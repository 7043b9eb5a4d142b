/**
 * The N-way board (README "Fan-out, apply, rewind"): up to eight branches side by side, live while a fan-out runs. Per
 * branch its rank (provisional, and marked so, while it runs), variant, status, check result, changed
 * lines, tokens, cost, time and end reason (from `rankBranches`, asked again when a branch changes, at
 * most every 700 ms), the ranking's reasons, its files since the fork point (`branchDiff`),
 * its transcript from the fork point (live projections, one per column, capped like the compare
 * view's), and its actions: open, Apply to my folder (three-way; conflicts listed, nothing
 * written), Discard (removes its own folder only). "Cancel all" cancels every running branch.
 * Two branches are the 2-column case; "A/B details" opens the two-way compare view for them.
 */
import { memo, useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { ApplyBranchResult, SessionSummary } from '../../../shared/api.js';
import type { BranchDiff, RankedReport } from '../../../shared/branch-ranking.js';
import { durationFigure } from '../../../shared/figure-text.js';
import { branchCostLabel } from '../../../shared/session-cost.js';
import { distinctNames, fanoutVariantNumber } from '../../../shared/distinct-names.js';
import { displayTitle } from '../../../shared/session-tree.js';
import { describeError } from '../../host/host-client.js';
import { byTestId, focusAfterRender } from '../../keyboard/focus-after-render.js';
import { mainTarget, regionTarget } from '../../keyboard/focus-regions.js';
import { BranchesToggle } from '../branches/BranchPicker.js';
import { SessionScope, useApp, useClient, useOpenSession } from '../context.js';
import { useFocusInside } from '../common/use-focus-inside.js';
import { ROW_LIMIT, TranscriptRows } from './CompareTranscript.js';
import { SharedHistory } from './SharedHistory.js';
import { commonHistoryLength } from '../../../shared/branch-compare.js';
import { PatchFileView } from './CompareFiles.js';
import { parseCompareDiff } from './patch-files.js';

type Ranked = RankedReport['branches'][number];

/** A branch's figures as short words for its column. */
function checkLabel(b: Ranked | undefined): string {
  if (!b?.check) return 'not run';
  const counts = b.check.counts ? ` (${b.check.counts.passed} passed, ${b.check.counts.failed} failed)` : '';
  return `${b.check.timedOut ? 'timed out' : b.check.passed ? 'passed' : `failed, exit ${b.check.exitCode ?? '?'}`}${counts}`;
}

/** A column's name: the fan-out variant's label, else the model it ran since the fork point, else `fallback` (its title). */
function columnLabel(b: Pick<Ranked, 'variant'>, fallback: string): string {
  return b.variant.label ?? b.variant.model ?? fallback;
}

/**
 * The columns' names, each told apart from the others: branches of identical variants (the same
 * model) would read alike, so a name used more than once is followed by the branch's place in its
 * fan-out (`variant 2`, from the title the fan-out gave it), else its short id (distinct-names.ts).
 */
function columnLabels(columns: readonly { readonly id: string; readonly title: string; readonly ranked: Pick<Ranked, 'variant'> | undefined }[]): string[] {
  return distinctNames(
    columns.map((c) => {
      const n = fanoutVariantNumber(c.title);
      return { id: c.id, name: c.ranked ? columnLabel(c.ranked, c.title) : c.title, ...(n !== undefined ? { hint: `variant ${n}` } : {}) };
    }),
  );
}

/** What the cost column's figure means, for its tooltip. */
function costTitle(b: Ranked | undefined): string | undefined {
  if (!b) return undefined;
  if (b.billedResponses === 0) return 'This branch has no steps since its fork point (no steps): nothing was billed';
  if (b.costUsd === undefined) return 'A response of this branch has no known price (see Settings → prices)';
  return 'What the branch cost since its fork point, at the prices logged for its requests';
}

/**
 * A branch's files since its fork point (host `branchDiff`, parsed with the `diff` package): the
 * changed files with their +/− counts in the summary line, each file's diff when opened. Counted
 * from where the history of the board's branches (`board`) ends, as its figures are — a root beside
 * its fork lists no pre-fork change. Asked again when the branch's last checkpoint changes (after
 * each of its turns).
 */
function BranchFiles({ id, board, checkpoint, running }: { readonly id: string; readonly board: readonly string[]; readonly checkpoint: string | undefined; readonly running: boolean }): ReactNode {
  const client = useClient();
  const [result, setResult] = useState<{ readonly diff?: BranchDiff; readonly error?: string }>({});
  useEffect(() => {
    let live = true;
    client.branchDiff({ sessionId: id, comparedWith: board }).then(
      (diff) => live && setResult({ diff }),
      (e: unknown) => live && setResult({ error: describeError(e) }),
    );
    return () => {
      live = false;
    };
  }, [client, id, board, checkpoint, running]);
  const parsed = useMemo(() => (result.diff ? parseCompareDiff(result.diff.diff) : undefined), [result.diff]);
  const files = parsed?.ok ? parsed.files : [];
  const added = files.reduce((n, f) => n + f.added, 0);
  const removed = files.reduce((n, f) => n + f.removed, 0);
  const summary = result.error
    ? `Files: ${result.error}`
    : !result.diff
      ? 'Files: loading…'
      : files.length === 0
        ? `Files: ${result.diff.note ?? 'no changes since the fork point'}`
        : `Files: ${files.length} changed · +${added} −${removed}`;
  return (
    <details className="board-files" data-testid="board-files" data-count={files.length} data-state={result.error ? 'error' : result.diff ? 'ready' : 'loading'}>
      <summary data-testid="board-files-summary">{summary}</summary>
      {result.diff?.note && files.length > 0 && <div className="muted">{result.diff.note}</div>}
      {files.length > 0 && (
        <ul className="compare-file-list">
          {files.map((f) => (
            <li key={f.path} className="compare-file" data-testid="board-file" data-path={f.path}>
              <span className={`file-status status-${f.created ? 'A' : f.deleted ? 'D' : 'M'}`}>{f.created ? 'A' : f.deleted ? 'D' : 'M'}</span>
              <span className="mono clip">{f.path}</span>
              <span className="diff-stat">
                <span className="add">+{f.added}</span> <span className="del">−{f.removed}</span>
              </span>
            </li>
          ))}
        </ul>
      )}
      {files.map((f) => (
        <PatchFileView key={f.path} file={f} />
      ))}
      {parsed && !parsed.ok && (
        <pre className="plain" data-testid="board-diff-raw" tabIndex={0}>
          {parsed.raw}
        </pre>
      )}
    </details>
  );
}

/** What a column shows of its session's summary (plain values, so an unchanged column is not rendered again). */
interface ColumnProps {
  readonly id: string;
  /** Every branch on the board (its files are counted from the history they share). */
  readonly board: readonly string[];
  readonly title: string;
  /** The column's name, told apart from the other columns' (see `columnLabels`). */
  readonly label: string;
  /** The summary's status; undefined while the session list does not have it yet. */
  readonly status: SessionSummary['status'] | undefined;
  readonly hasParent: boolean;
  /** Where the column's transcript starts: the end of the history every branch on the board shares. */
  readonly fromSeq: number;
  readonly ranked: Ranked | undefined;
  readonly onApplied: () => void;
}

/**
 * One branch's column. Memoised on plain props: the session list is refreshed (a new array of new
 * summaries) several times a second while branches stream, and a column whose own figures did
 * not change is not rendered again; its transcript follows its own session's store.
 */
const Column = memo(function Column({ id, board, title, label: labelOverride, status, hasParent, fromSeq, ranked, onApplied }: ColumnProps): ReactNode {
  const client = useClient();
  const select = useApp((s) => s.select);
  const toast = useApp((s) => s.toast);
  const session = useOpenSession();
  const [all, setAll] = useState(false);
  const [busy, setBusy] = useState(false);
  const [apply, setApply] = useState<ApplyBranchResult | undefined>();
  const running = status === 'running';
  const showAll = useCallback(() => setAll(true), []);
  const label = labelOverride ?? (ranked ? columnLabel(ranked, title) : title);
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
        toast(
          result.removed ? `Discarded ${title}: its folder was removed (its final files stay as a checkpoint)` : `Not discarded: ${result.reason ?? 'nothing to remove'}`,
          result.removed ? 'info' : 'error',
        );
      }
    } catch (error) {
      toast(`${what === 'apply' ? 'Apply' : 'Discard'} failed: ${describeError(error)}`, 'error');
    } finally {
      setBusy(false);
    }
  };
  return (
    <section
      className="board-column"
      data-testid="board-column"
      data-session-id={id}
      data-rank={ranked?.rank ?? ''}
      data-provisional={ranked?.provisional === true}
      data-status={status ?? 'unknown'}
      aria-label={`Branch ${label}`}
    >
      <header className="board-column-head">
        <span className="board-rank" data-testid="board-rank" title={ranked?.provisional ? 'Provisional: this branch is still running, ranked on its figures so far' : undefined}>
          #{ranked?.rank ?? '–'}
          {ranked?.provisional && <span className="board-provisional muted"> so far</span>}
        </span>
        <span className="board-variant clip mono" data-testid="board-variant" title={label}>
          {label}
        </span>
        {/* What identifies the column stays visible when the title is cut: the root's marker first, the short id last. */}
        <span className="board-branch muted" data-testid="board-branch" title={`${hasParent ? '' : '(the session forked from) '}${title} · session ${id}`}>
          {!hasParent && (
            <span className="board-branch-root" data-testid="board-branch-root">
              (the session forked from)
            </span>
          )}{' '}
          <span className="board-branch-title clip">{title}</span>{' '}
          <span className="board-branch-id" data-testid="board-branch-id">
            · <span className="mono">{id.slice(0, 8)}</span>
          </span>
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
        <dt>cost</dt>
        <dd data-testid="board-cost" title={costTitle(ranked)}>
          {ranked ? branchCostLabel(ranked) : '–'}
        </dd>
        <dt>time</dt>
        <dd data-testid="board-time">{ranked ? durationFigure(ranked.durationMs) : '–'}</dd>
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
        <button
          type="button"
          className="small"
          data-testid="board-apply"
          disabled={busy || running || !hasParent}
          title="Merge this branch's changes since the fork point into its parent's folder (three-way; on conflicts nothing is written)"
          onClick={() => void act('apply')}
        >
          Apply to my folder
        </button>
        {hasParent && (
          <button
            type="button"
            className="small"
            data-testid="board-discard"
            disabled={busy || running}
            title="Remove this branch's own folder (never yours); its final files stay as a checkpoint"
            onClick={() => void act('discard')}
          >
            Discard
          </button>
        )}
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
      <BranchFiles id={id} board={board} checkpoint={ranked?.lastCheckpoint} running={running} />
      <div className="compare-column-body board-transcript" tabIndex={0} role="region" aria-label={`${label}: transcript from the fork point`} data-testid="board-transcript">
        {session ? <TranscriptRows fromSeq={fromSeq} limit={all ? Number.POSITIVE_INFINITY : ROW_LIMIT} onShowAll={showAll} /> : <div className="compare-state">Loading transcript…</div>}
      </div>
    </section>
  );
});

/** The board for `ids` (2–8 sessions); `fanoutId` while a fan-out started here may still run. */
export function BoardView({ ids, fanoutId, check }: { readonly ids: readonly string[]; readonly fanoutId?: string; readonly check?: string }): ReactNode {
  const client = useClient();
  const sessions = useApp((s) => s.sessions);
  const closeBoard = useApp((s) => s.closeBoard);
  const openCompare = useApp((s) => s.openCompare);
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
    // Running branches are ranked too, on their figures so far (the host marks them provisional).
    const timer = setTimeout(() => {
      client.rankBranches({ sessionIds: ids }).then(
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
    // `signature` says when to ask again (counts and statuses change as branches stream).
  }, [client, ids, signature, nonce]);

  const titleOf = useCallback(
    (id: string): string => {
      const summary = sessions.find((x) => x.id === id);
      return summary ? displayTitle(summary, undefined, sessions) : `session ${id.slice(0, 8)}`;
    },
    [sessions],
  );
  // The columns' titles as one string, so the figures below are recomputed when a title changes, not at every session-list refresh.
  const titleList = ids.map(titleOf).join('\u0000');
  const titles = useMemo(() => new Map(titleList.split('\u0000').map((t, i) => [ids[i]!, t])), [ids, titleList]);
  // The ranking's reasons name branches by short session id; the board names them as its columns do (#rank label).
  const byId = useMemo(() => {
    const names = new Map((ranking?.branches ?? []).map((b) => [b.session.slice(0, 8), `#${b.rank} ${columnLabel(b, titles.get(b.session) ?? b.session.slice(0, 8))}`]));
    const named = (reason: string): string => reason.replace(/\b[0-9a-f]{8}\b/g, (id) => names.get(id) ?? id);
    return new Map(ranking?.branches.map((b) => [b.session, { ...b, reasons: b.reasons.map(named) }]) ?? []);
  }, [ranking, titles]);
  // Columns in rank order once every branch has finished (while they run, in the order chosen, so columns do not jump).
  const order = useMemo(() => (anyRunning || !ranking ? ids : [...ids].sort((a, b) => (byId.get(a)?.rank ?? 99) - (byId.get(b)?.rank ?? 99))), [ids, anyRunning, ranking, byId]);
  // The history every branch shares (a root against its forks: up to the fork point) is shown once, folded.
  const shared = useMemo(() => commonHistoryLength((id) => sessions.find((s) => s.id === id), ids), [sessions, ids]);
  const onApplied = useCallback(() => setNonce((n) => n + 1), []);
  const labels = useMemo(() => {
    const list = columnLabels(ids.map((id) => ({ id, title: titles.get(id) ?? id.slice(0, 8), ranked: byId.get(id) })));
    return new Map(ids.map((id, i) => [id, list[i]!]));
  }, [ids, titles, byId]);
  return (
    <div
      ref={viewRef}
      className="compare-view board-view"
      data-testid="board-view"
      data-region="compare"
      data-count={ids.length}
      data-state={ranking ? 'ready' : error ? 'error' : 'loading'}
      data-running={anyRunning}
    >
      <header className="compare-header">
        <span className="compare-title" data-focus-default tabIndex={-1}>
          Board · {ids.length} branches
        </span>
        {anyRunning && ranking?.branches.some((b) => b.provisional) && (
          <span className="muted" data-testid="board-provisional-note">
            ranking so far: running branches are ranked on their figures until their checks run
          </span>
        )}
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
          {ids.length === 2 && (
            <button
              type="button"
              className="small"
              data-testid="board-pair-compare"
              title="The two branches from their common history: shared turns, figures side by side, and the diff between their files (A − / B +)"
              onClick={() => openCompare(order[0]!, order[1]!)}
            >
              A/B details
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
      {shared > 0 && (
        <SessionScope sessionId={ids[0]!}>
          <SharedHistory length={shared} />
        </SessionScope>
      )}
      <div className="board-columns" data-testid="board-columns" style={{ gridTemplateColumns: `repeat(${ids.length}, minmax(230px, 1fr))` }}>
        {order.map((id) => {
          const summary = summaries[ids.indexOf(id)];
          return (
            <SessionScope key={id} sessionId={id}>
              <Column
                id={id}
                board={ids}
                title={titles.get(id) ?? titleOf(id)}
                label={labels.get(id)!}
                status={summary?.status}
                hasParent={summary?.parentSession !== undefined}
                fromSeq={shared > 0 ? shared : (summary?.seedLength ?? 0)}
                ranked={byId.get(id)}
                onApplied={onApplied}
              />
            </SessionScope>
          );
        })}
      </div>
    </div>
  );
}
