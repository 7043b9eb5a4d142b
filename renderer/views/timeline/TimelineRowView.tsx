/**
 * One timeline row, by kind. Rows are memoised on their (immutable) row object, so a streaming
 * update re-renders only the rows that changed.
 *
 * Size: over 500 lines because it is one switch over the row kinds with a small component per
 * kind, all sharing the row frame (selection, find marks, focus); a kind that grows past a screen
 * moves to its own file, as the tool row (ToolRowView.tsx) and the compaction view did.
 */
import { memo, useState, type ReactNode } from 'react';
import { clockTime, formatDuration, formatTokens, usageLabel } from '../../../shared/format.js';
import { formatUsd, usageCost } from '../../../shared/pricing.js';
import { headPreview, lastLine, tailPreview } from '../../../shared/preview.js';
import type {
  ApprovalRow,
  BlockRowBase,
  ElidedRow,
  InstructionsRow,
  EndSeedRow,
  EventRow,
  RetryRow,
  StepRow,
  TimelineRow,
  TurnEndRow,
  TurnRow,
  UserRow,
  WarningRow,
} from '../../../shared/timeline.js';
import { useApp, useClient, useRuntime, useSession } from '../context.js';
import { ReplayStepMarker } from '../replay/ReplayViews.js';
import { StepPlaygroundRuns } from '../playground/StepPlaygroundRuns.js';
import { Markdown } from '../markdown/Markdown.js';
import { Badge, CrashBadges } from './badges.js';
import { CompactionView } from './CompactionView.js';
import { ContextMeter } from './ContextMeter.js';
import { TodoChecklist } from './TodoChecklist.js';
import { ToolRowView } from './ToolRowView.js';
import { FoldToggle } from './FoldToggle.js';
import { cutTail } from '../../../shared/text-cut.js';
import { visible } from '../../../shared/visible-text.js';
import { FailedTurnHelp } from './FailedTurnHelp.js';
import { failureAdvice } from '../../../shared/failure-advice.js';
import { BudgetStopHelp } from './BudgetStopHelp.js';
import { FanoutForm } from '../compare/FanoutForm.js';
import { describeError } from '../../host/host-client.js';
import { byTestId, focusAfterRender } from '../../keyboard/focus-after-render.js';
import { ConfirmDialog } from '../Dialog.js';
import { approvalLabel, measured, showsTtft, stepFinishLabel, turnDurationLabel } from './trust-labels.js';
import {
  elidedLabel,
  endSeedLabel,
  instructionsWhere,
  isForkBoundary,
  NO_INSTRUCTIONS,
  SCOPE_LABEL,
  sourceLabel,
  stepsLabel,
  turnEndCost,
  turnEndReason,
  turnRuleEnd,
  warningHintLabel,
} from './row-text.js';

export interface RowViewProps {
  readonly row: TimelineRow;
  readonly sessionId: string;
  /** The agent is running (streaming rows are live). */
  readonly live: boolean;
  readonly expanded: boolean;
  readonly onToggle: () => void;
  /** The timeline shows "what the model sees" (compaction rows show their summary). */
  readonly modelView?: boolean;
}

function TurnRule({ row }: { readonly row: TurnRow }): ReactNode {
  return (
    <div className={`row row-turn${row.ended ? '' : ' open'}`} data-testid="turn-rule" data-turn={row.turn}>
      <span className="turn-label">Turn {row.turn}</span>
      <span className="muted">{clockTime(row.time)}</span>
      <span className="muted">{stepsLabel(row.steps)}</span>
      <span className={row.ended ? 'muted' : 'running-label'}>{turnRuleEnd(row)}</span>
      <span className="rule" />
    </div>
  );
}

function TurnEnd({ row, sessionId }: { readonly row: TurnEndRow; readonly sessionId: string }): ReactNode {
  const runtime = useRuntime();
  const tone = row.end.kind === 'completed' ? 'ok' : row.end.kind === 'max-tokens' || row.end.kind === 'blocked' || row.end.kind === 'source-ended' || row.end.kind === 'budget' ? 'warn' : 'bad';
  const duration = turnDurationLabel(row);
  const [forking, setForking] = useState(false);
  // An imported session is continued through its banner ("Continue in Forkline", which asks for a folder).
  const imported = useSession((s) => s.imported !== undefined);
  const client = useClient();
  const select = useApp((s) => s.select);
  const toast = useApp((s) => s.toast);
  const [fanningOut, setFanningOut] = useState(false);
  // Rewind restores the folder in place: asked first (the files as they are now are kept, and said so).
  const [confirmingRewind, setConfirmingRewind] = useState(false);
  const rewind = async (): Promise<void> => {
    setConfirmingRewind(false);
    setForking(true);
    try {
      const r = await client.rewindSession({ sessionId, toSeq: row.seq });
      toast(`Rewound ${r.folder} to turn ${r.turn}; the abandoned line stays as its own session`, 'info');
      select(r.sessionId, { focusSession: true });
    } catch (error) {
      toast(`Rewind failed: ${describeError(error)}`, 'error');
    } finally {
      setForking(false);
    }
  };
  const fork = async (worktree: boolean): Promise<void> => {
    setForking(true);
    try {
      await runtime.actions.fork(sessionId, { atSeq: row.seq, worktree });
    } finally {
      setForking(false);
    }
  };
  return (
    <div className={`row row-turn-end tone-${tone}${fanningOut ? ' with-form' : ''}`} data-testid="turn-end" data-turn={row.turn} data-reason={row.end.kind}>
      <span className="turn-end-label">
        turn {row.turn} ended: {row.crash ? <CrashBadges crash={row.crash} /> : <b>{turnEndReason(row)}</b>}
      </span>
      {row.end.failure?.message && (
        <span className="muted clip" data-testid="turn-end-detail" title={row.end.failure.message}>
          {row.end.failure.message}
        </span>
      )}
      {duration && (
        <span className="muted" title={duration.title}>
          {duration.text}
        </span>
      )}
      {row.usage && (
        <span className="muted" data-testid="turn-end-tokens" title="tokens: total input (its cached part), output (its reasoning part)">
          {usageLabel(row.usage)}
        </span>
      )}
      {row.cost && (
        <span className="muted mono" data-testid="turn-end-cost" title="what the turn's steps cost, at the prices logged for their requests">
          {turnEndCost(row.cost)}
        </span>
      )}
      <span className="spacer" />
      {!imported && (
        <>
          <button
            type="button"
            className="link-button"
            data-testid="fork-here-button"
            title="Fork a new session from the end of this turn (it works in the same folder)"
            disabled={forking}
            onClick={(e) => {
              e.stopPropagation();
              void fork(false);
            }}
          >
            fork here
          </button>
          <button
            type="button"
            className="link-button"
            data-testid="fork-here-worktree-button"
            title="Fork into its own folder, restored to the files as they were at the end of this turn"
            disabled={forking}
            onClick={(e) => {
              e.stopPropagation();
              void fork(true);
            }}
          >
            fork in own folder
          </button>
          <button
            type="button"
            className="link-button"
            data-testid="fanout-button"
            title="Fan out: 2–8 branches from this turn, each in its own folder, run at once, on a board"
            disabled={forking}
            aria-expanded={fanningOut}
            onClick={(e) => {
              e.stopPropagation();
              setFanningOut(true);
            }}
          >
            fan out…
          </button>
          {row.end.kind === 'completed' && (
            <button
              type="button"
              className="link-button"
              data-testid="rewind-here-button"
              title="Rewind to here: restore the folder to the end of this turn and continue from it in a new session (the later line stays as its own session)"
              disabled={forking}
              onClick={(e) => {
                e.stopPropagation();
                setConfirmingRewind(true);
              }}
            >
              rewind to here
            </button>
          )}
          {confirmingRewind && (
            <ConfirmDialog
              title={`Rewind to the end of turn ${row.turn}?`}
              message={
                <>
                  The session’s folder goes back to how it was when turn {row.turn} ended, and the conversation continues from there in a new session. The files as they are now and the later turns are
                  kept: they stay in this session, as its own branch.
                </>
              }
              confirmLabel="Rewind"
              onConfirm={() => void rewind()}
              // Focus goes back to "rewind to here" (the dialog returns it where it was).
              onCancel={() => setConfirmingRewind(false)}
            />
          )}
        </>
      )}
      {fanningOut && (
        <FanoutForm
          sessionId={sessionId}
          atSeq={row.seq}
          turn={row.turn}
          onClose={() => {
            setFanningOut(false);
            focusAfterRender(byTestId('fanout-button'));
          }}
        />
      )}
      {row.end.kind === 'error' && row.end.failure && !imported && <FailedTurnHelp row={row} failure={row.end.failure} sessionId={sessionId} />}
      {row.end.kind === 'budget' && !imported && <BudgetStopHelp row={row} sessionId={sessionId} />}
    </div>
  );
}

function StepMarker({ row, live }: { readonly row: StepRow; readonly live: boolean }): ReactNode {
  const inspectRequest = useApp((s) => s.inspectRequest);
  const finish = stepFinishLabel(row.finish);
  return (
    <div className={`row row-step${row.open ? ' open' : ''}`} data-testid="step-marker" data-turn={row.turn} data-step={row.step}>
      <span className="step-label">
        step {row.turn}.{row.step}
      </span>
      {/* The figures wrap among themselves, so the label and the links keep the first line. */}
      <span className="step-facts">
        {row.model && (
          <span className="muted mono step-model" title={row.model}>
            {row.model}
          </span>
        )}
        <span
          className="muted step-duration"
          data-testid="step-duration"
          title={row.approvalWaitMs ? `${formatDuration(row.durationMs ?? 0)} in all, of which ${formatDuration(row.approvalWaitMs)} waiting for approval (not counted here)` : undefined}
        >
          {row.durationMs !== undefined ? formatDuration(Math.max(0, row.durationMs - (row.approvalWaitMs ?? 0))) : row.open && live ? 'running…' : ''}
        </span>
        {row.approvalWaitMs !== undefined && row.approvalWaitMs >= 1000 && (
          <span className="muted step-approval-wait" data-testid="step-approval-wait" title="Time this step waited for your approval decisions">
            +{formatDuration(row.approvalWaitMs)} approval
          </span>
        )}
        {showsTtft(row) && (
          <span className="muted step-ttft" title="time to the first streamed chunk">
            ttft {measured(row.ttftMs!)}
          </span>
        )}
        <span className="muted" data-testid="step-tokens" title="tokens: total input (its cached part), output (its reasoning part)">
          {usageLabel(row.usage)}
        </span>
        {row.usageUnreported && (
          <span
            className="muted"
            data-testid="step-usage-unreported"
            title="The provider reported no token usage for this response; budgets count it at its worst case (its input estimate plus its output cap)"
          >
            usage not reported
          </span>
        )}
        {row.price && (row.usage || row.price.kind === 'unknown') && (
          <span className="muted mono" data-testid="step-cost" title={row.price.kind === 'known' ? `priced with ${row.price.snapshot} (${row.price.source}: ${row.price.priceId})` : row.price.reason}>
            {row.price.kind === 'known' && row.usage ? formatUsd(usageCost(row.usage, row.price).usd) : 'price unknown'}
          </span>
        )}
        <ContextMeter {...(row.usage ? { usage: row.usage } : {})} {...(row.contextWindow !== undefined ? { window: row.contextWindow } : {})} />
        <ReplayStepMarker turn={row.turn} step={row.step} />
        {row.attempts > 1 && <Badge tone="warn">{row.attempts} attempts</Badge>}
        {finish && <Badge tone={row.finish!.startsWith('error') ? 'bad' : 'warn'}>{finish}</Badge>}
        <span className="muted step-chunks">
          {formatTokens(row.chunkCount)} chunk{row.chunkCount === 1 ? '' : 's'}
        </span>
      </span>
      <StepPlaygroundRuns turn={row.turn} step={row.step} />
      <button
        type="button"
        className="link-button"
        data-testid="request-button"
        title="Show the request the model received in this step"
        onClick={(e) => {
          e.stopPropagation();
          inspectRequest({ turn: row.turn, step: row.step });
        }}
      >
        Request
      </button>
    </div>
  );
}

function UserMessage({ row, expanded, onToggle }: { readonly row: UserRow; readonly expanded: boolean; readonly onToggle: () => void }): ReactNode {
  const machine = row.sourceKind !== 'user' && row.sourceKind !== 'steer';
  const long = row.text.length > 600 || row.text.split('\n').length > 12;
  const folded = (machine || long) && !expanded;
  // Summaries are Markdown by construction; what a person typed is shown as typed.
  const markdown = row.sourceKind === 'compaction';
  return (
    <div className={`row row-user source-${row.sourceKind}${row.shadowedBy !== undefined ? ' shadowed' : ''}`} data-testid="user-message" data-source={row.sourceKind}>
      <div className="row-head">
        <span className="who">{sourceLabel(row.sourceKind)}</span>
        {row.sourceLabel && <span className="muted mono">{row.sourceLabel}</span>}
        {row.replaces && row.replaces.length > 0 && <Badge tone="info">replaces {row.replaces.length}</Badge>}
        {row.shadowedBy !== undefined && <ShadowBadge by={row.shadowedBy} />}
        {(machine || long) && (
          <button
            type="button"
            className="link-button"
            data-testid="user-message-toggle"
            onClick={(e) => {
              e.stopPropagation();
              onToggle();
            }}
          >
            {expanded ? 'fold' : 'show all'}
          </button>
        )}
      </div>
      {folded ? (
        <div className="message-text folded">{firstLines(row.text, machine ? 1 : 8)}</div>
      ) : markdown ? (
        <Markdown text={row.text} className="message-text" />
      ) : (
        <div className="message-text">{row.text}</div>
      )}
    </div>
  );
}

function firstLines(text: string, n: number): string {
  const lines = text.split('\n');
  return lines.length > n ? `${lines.slice(0, n).join('\n')} …` : headPreview(text, 600);
}

function ShadowBadge({ by }: { readonly by: number }): ReactNode {
  const jumpTo = useApp((s) => s.jumpTo);
  return (
    <button
      type="button"
      className="badge badge-muted"
      data-testid="shadowed-badge"
      title="A compaction or pruning replaced this in what the model sees"
      onClick={(e) => {
        e.stopPropagation();
        jumpTo(by);
      }}
    >
      replaced by #{by}
    </button>
  );
}

function BlockBadges({ row, live }: { readonly row: BlockRowBase<'text' | 'reasoning'>; readonly live: boolean }): ReactNode {
  return (
    <>
      {row.interrupted && (
        <Badge tone="warn" testId="badge-message-interrupted" title="The stream was cancelled; this is the partial message that was kept">
          interrupted
        </Badge>
      )}
      {row.partial && (
        <Badge tone="warn" testId="badge-partial" title="Chunks arrived but no message was committed (interrupted partial)">
          partial
        </Badge>
      )}
      {row.streaming && !live && (
        <Badge tone="muted" testId="badge-incomplete" title="Chunks without a committed message">
          incomplete
        </Badge>
      )}
      {row.failed && (
        <Badge tone="bad" testId="badge-failed-attempt" title={row.failed.message}>
          attempt {row.attempt} failed: {row.failed.code}
        </Badge>
      )}
      {row.shadowedBy !== undefined && <ShadowBadge by={row.shadowedBy} />}
    </>
  );
}

function AssistantText({ row, live }: { readonly row: BlockRowBase<'text'>; readonly live: boolean }): ReactNode {
  const streaming = row.streaming && live;
  return (
    <div className={`row row-text${row.failed ? ' failed' : ''}${row.shadowedBy !== undefined ? ' shadowed' : ''}`} data-testid="assistant-text" data-streaming={streaming ? 'true' : 'false'}>
      <div className="row-head">
        <span className="who">Assistant</span>
        <BlockBadges row={row} live={live} />
      </div>
      {/* While a message streams it stays plain text (cheap per frame); finished, it is Markdown. */}
      {streaming ? (
        <div className="message-text">
          {row.text}
          <span className="caret" />
        </div>
      ) : (
        <Markdown text={row.text} className="message-text" />
      )}
    </div>
  );
}

/** While streaming, an expanded reasoning row shows at most this many trailing characters. */
const STREAMING_EXPANDED_CHARS = 20_000;

function Reasoning({ row, live, expanded, onToggle }: { readonly row: BlockRowBase<'reasoning'>; readonly live: boolean; readonly expanded: boolean; readonly onToggle: () => void }): ReactNode {
  // Thinking ends when the answer (or a tool call) starts streaming, not when the message commits.
  const streaming = row.streaming && live && row.superseded !== true;
  // The folded preview: the end of the last line, starting at a word.
  const preview = tailPreview(lastLine(row.tail), 110, { oneLine: true });
  let body: string | undefined;
  if (expanded) body = streaming && row.text.length > STREAMING_EXPANDED_CHARS ? `… ${cutTail(row.text, STREAMING_EXPANDED_CHARS)}` : row.text;
  return (
    <div className={`row row-reasoning${row.failed ? ' failed' : ''}${row.shadowedBy !== undefined ? ' shadowed' : ''}`} data-testid="reasoning-row" data-streaming={streaming ? 'true' : 'false'}>
      <div className="row-head">
        <FoldToggle testId="reasoning-toggle" expanded={expanded} onToggle={onToggle} />
        <span className="who">{streaming ? 'Thinking…' : 'Thought'}</span>
        <span className="muted" data-testid="reasoning-length">
          {formatTokens(row.text.length)} chars
        </span>
        <BlockBadges row={row} live={live} />
        {!expanded && (
          <span className="reasoning-tail muted clip" data-testid="reasoning-preview">
            {preview}
          </span>
        )}
      </div>
      {expanded && (
        <div className="message-text reasoning-text" tabIndex={0}>
          {body}
        </div>
      )}
    </div>
  );
}

/** A failed attempt that is retried (or several in a row, failing the same way): what failed in words; the provider's message on hover. */
function Retry({ row }: { readonly row: RetryRow }): ReactNode {
  const count = row.attempt - row.firstAttempt + 1;
  return (
    <div className="row row-retry" data-testid="retry-row" data-attempt={row.attempt} data-retries={count} data-code={row.failure.code}>
      <span>
        {count > 1 ? `↻ retried ${count}× (retries ${row.firstAttempt}–${row.attempt}), last after ${formatDuration(row.delayMs)}` : `↻ retry ${row.attempt} in ${formatDuration(row.delayMs)}`}
      </span>
      <Badge tone="bad">{row.failure.code}</Badge>
      <span className="muted clip" title={row.failure.message} data-testid="retry-what">
        {failureAdvice(row.failure).what}
      </span>
    </div>
  );
}

function Warning({ row }: { readonly row: WarningRow }): ReactNode {
  return (
    <div className="row row-warning" role="note" data-testid="warning-row" data-code={row.code}>
      <span aria-hidden="true">⚠</span>
      <Badge tone="warn">{row.code}</Badge>
      <span className="warning-text">
        {row.message}
        {row.hint && <span className="warning-hint">{warningHintLabel(row.hint)}</span>}
      </span>
    </div>
  );
}

function Approval({ row }: { readonly row: ApprovalRow }): ReactNode {
  return (
    <div className="row row-approval" data-testid="approval-row" data-outcome={row.outcome ?? 'pending'}>
      <span>approval asked for</span>
      <span className="tool-name">{row.toolName}</span>
      {row.shown ? (
        <span className="muted clip mono" data-testid="approval-row-shown">
          {visible(row.shown)}
        </span>
      ) : (
        row.reason && <span className="muted clip">{row.reason}</span>
      )}
      <span className="spacer" />
      <Badge tone={approvalLabel(row.outcome).tone}>{approvalLabel(row.outcome).text}</Badge>
    </div>
  );
}

function EndSeed({ row }: { readonly row: EndSeedRow }): ReactNode {
  const seedLength = useSession((s) => s.header?.seedLength);
  const fork = isForkBoundary(row.seq, seedLength !== undefined ? { seedLength } : {});
  return (
    <div className="row row-end-seed" data-testid="end-seed-row" data-fork={fork ? 'true' : 'false'}>
      <span className="rule" />
      <span>{endSeedLabel(fork)}</span>
      <span className="rule" />
    </div>
  );
}

function Elided({ row }: { readonly row: ElidedRow }): ReactNode {
  return (
    <div className="row row-elided" data-testid="elided-row" data-from={row.fromSeq} data-to={row.toSeq}>
      {elidedLabel(row)}
    </div>
  );
}

/** Which project-instruction files (AGENTS.md …) the model sees from here on. */
function Instructions({ row }: { readonly row: InstructionsRow }): ReactNode {
  const where = instructionsWhere(row);
  return (
    <div className="row row-instructions" data-testid="instructions-row" data-placement={row.placement}>
      <span className="mono event-type">instructions</span>
      {row.files.length === 0 ? (
        <span>{NO_INSTRUCTIONS}</span>
      ) : (
        <span className="instruction-files">
          {row.files.map((f) => (
            <span
              key={f.path}
              className="instruction-file"
              data-testid="instruction-file"
              title={`${f.path}\nsha256 ${f.sha256}${f.bytes !== undefined ? `\n${f.bytes} bytes` : ''}${f.truncated ? '\ncut at 32 KiB' : ''}`}
            >
              <span className="mono">{f.shownPath}</span> <Badge tone="muted">{SCOPE_LABEL[f.scope] ?? f.scope}</Badge>
              {f.truncated ? <Badge tone="warn">cut</Badge> : null}
            </span>
          ))}
          <span className="muted"> — {where}</span>
        </span>
      )}
    </div>
  );
}

function LogEvent({ row, expanded, onToggle }: { readonly row: EventRow; readonly expanded: boolean; readonly onToggle: () => void }): ReactNode {
  const foldable = row.todos !== undefined && row.todos.length > 0;
  return (
    <div className={`row row-event${foldable ? ' foldable' : ''}`} data-testid="event-row" data-type={row.type}>
      <div className="row-event-line">
        {foldable && <FoldToggle testId="event-toggle" expanded={expanded} onToggle={onToggle} label="todo list" />}
        <span className="mono event-type">{row.type}</span>
        <span className="clip">{row.label}</span>
        {row.preview !== undefined && (
          <span className="mono muted clip event-preview" data-testid="event-preview" title={row.preview}>
            {row.preview}
          </span>
        )}
      </div>
      {foldable && expanded && <TodoChecklist todos={row.todos!} />}
    </div>
  );
}

export const TimelineRowView = memo(function TimelineRowView({ row, sessionId, live, expanded, onToggle, modelView = false }: RowViewProps): ReactNode {
  switch (row.kind) {
    case 'turn':
      return <TurnRule row={row} />;
    case 'turn-end':
      return <TurnEnd row={row} sessionId={sessionId} />;
    case 'step':
      return <StepMarker row={row} live={live} />;
    case 'user':
      return <UserMessage row={row} expanded={expanded} onToggle={onToggle} />;
    case 'text':
      return <AssistantText row={row} live={live} />;
    case 'reasoning':
      return <Reasoning row={row} live={live} expanded={expanded} onToggle={onToggle} />;
    case 'tool':
      return <ToolRowView row={row} expanded={expanded} onToggle={onToggle} />;
    case 'retry':
      return <Retry row={row} />;
    case 'warning':
      return <Warning row={row} />;
    case 'approval':
      return <Approval row={row} />;
    case 'compaction':
      return <CompactionView row={row} expanded={expanded} onToggle={onToggle} modelView={modelView} />;
    case 'end-seed':
      return <EndSeed row={row} />;
    case 'elided':
      return <Elided row={row} />;
    case 'instructions':
      return <Instructions row={row} />;
    case 'event':
      return <LogEvent row={row} expanded={expanded} onToggle={onToggle} />;
    default: {
      const unknown: never = row;
      return <div className="row">{String((unknown as TimelineRow).kind)}</div>;
    }
  }
});
