/**
 * One tool call: folded to a single line (state dot, tool name, argument summary, duration,
 * error and crash badges, parallel lane); expanded to arguments (pretty JSON) and the result in a
 * terminal view (shell tools, with exit code and live output while running), a diff view (file
 * edits with `{path, oldText, newText}` meta) or plain text.
 */
import { memo, useMemo, type CSSProperties, type ReactNode } from 'react';
import type { ToolRow } from '../../../shared/timeline.js';
import { fileDiffs, parseToolArgs, prettyArgs, summarizeToolArgs, terminalFacts, toolPresentation } from '../../../shared/tool-view.js';
import { readTodos } from '../../../shared/event-read.js';
import { formatDuration } from '../../../shared/format.js';
import type { TodoItem } from '../../../shared/events.js';
import { useSession } from '../context.js';
import { DiffView } from './DiffView.js';
import { Badge, CrashBadges } from './badges.js';
import { FoldToggle } from './FoldToggle.js';
import { TodoChecklist } from './TodoChecklist.js';
import { approvalLabel, toolDurationLabel } from './trust-labels.js';

/** The todo list a `todo_write` call writes (undefined for other tools or unreadable arguments). */
function todosOf(name: string, args: string): TodoItem[] | undefined {
  if (name !== 'todo_write') return undefined;
  const parsed = parseToolArgs(args);
  return parsed && Array.isArray(parsed['todos']) ? readTodos(parsed['todos']) : undefined;
}

export interface ToolRowProps {
  readonly row: ToolRow;
  readonly expanded: boolean;
  readonly onToggle: () => void;
}

const STATE_LABEL: Record<ToolRow['state'], string> = {
  streaming: 'arguments streaming',
  pending: 'not started yet',
  running: 'running',
  done: 'done',
  error: 'error',
  dropped: 'dropped (never run)',
};

function LiveOutput({ callId, full }: { readonly callId: string; readonly full: boolean }): ReactNode {
  const text = useSession((s) => s.toolOutput[callId]);
  if (!text) return null;
  if (!full) {
    const lines = text.trimEnd().split('\n');
    return (
      <div className="tool-live-tail mono" data-testid="tool-output-live">
        {lines[lines.length - 1]}
      </div>
    );
  }
  return (
    <pre className="terminal" data-testid="tool-output-live" tabIndex={0}>
      {text}
    </pre>
  );
}

function ToolResult({ row }: { readonly row: ToolRow }): ReactNode {
  const presentation = toolPresentation(row.name, row.meta);
  const diffs = useMemo(() => fileDiffs(row.meta), [row.meta]);
  if (row.resultSeq === undefined) {
    if (row.state === 'running') {
      return (
        <div className="tool-result" data-testid="tool-result" data-pending="true">
          <LiveOutput callId={row.callId} full />
          <div className="muted">running…</div>
        </div>
      );
    }
    return (
      <div className="tool-result muted" data-testid="tool-result" data-pending="true">
        {STATE_LABEL[row.state]}
      </div>
    );
  }
  const text = row.resultText ?? '';
  if (presentation === 'terminal') {
    const facts = terminalFacts(row.meta);
    return (
      <div className="tool-result" data-testid="tool-result" data-view="terminal">
        <pre className="terminal" data-testid="tool-terminal" tabIndex={0}>
          {text || <span className="muted">(no output)</span>}
        </pre>
        <div className="terminal-status">
          {facts.exitCode !== undefined && (
            <span className={facts.exitCode === 0 ? 'exit ok' : 'exit bad'} data-testid="tool-exit-code">
              exit {facts.exitCode}
            </span>
          )}
          {facts.signal && <span className="exit bad">signal {facts.signal}</span>}
          {facts.timedOut && <Badge tone="warn">timed out</Badge>}
          {facts.truncated && <Badge tone="muted">output truncated</Badge>}
        </div>
      </div>
    );
  }
  if (presentation === 'diff' && diffs.length > 0) {
    return (
      <div className="tool-result" data-testid="tool-result" data-view="diff">
        {diffs.map((d, i) => (
          <DiffView key={`${d.path}:${i}`} diff={d} />
        ))}
        {text && (
          <pre className="plain muted" tabIndex={0}>
            {text}
          </pre>
        )}
      </div>
    );
  }
  return (
    <div className="tool-result" data-testid="tool-result" data-view="plain">
      <pre className="plain" tabIndex={0}>
        {text || <span className="muted">(empty result)</span>}
      </pre>
    </div>
  );
}

export const ToolRowView = memo(function ToolRowView({ row, expanded, onToggle }: ToolRowProps): ReactNode {
  const todos = useMemo(() => todosOf(row.name, row.arguments), [row.name, row.arguments]);
  const summary = useMemo(() => {
    if (!todos) return summarizeToolArgs(row.name, row.arguments);
    const current = todos.find((t) => t.status === 'in_progress');
    return `${todos.filter((t) => t.status === 'completed').length}/${todos.length} done${current ? ` · now: ${current.content}` : ''}`;
  }, [row.name, row.arguments, todos]);
  const presentation = toolPresentation(row.name, row.meta);
  const parallel = row.parallel;
  const approval = row.approval ? approvalLabel(row.approval.outcome) : undefined;
  const duration = toolDurationLabel(row);
  return (
    <div
      className={`row row-tool state-${row.state}${parallel ? ' parallel' : ''}${row.shadowedBy !== undefined ? ' shadowed' : ''}`}
      data-testid="tool-row"
      data-call-id={row.callId}
      data-state={row.state}
      data-tool-name={row.name}
      data-parallel-group={parallel ? String(parallel.group) : undefined}
      data-parallel-lane={parallel ? String(parallel.lane) : undefined}
      style={parallel ? ({ '--lane': parallel.lane, '--lanes': parallel.lanes } as CSSProperties) : undefined}
    >
      <div className="tool-line">
        <FoldToggle testId="tool-toggle" expanded={expanded} onToggle={onToggle} label="tool call" />
        <span className={`dot dot-${row.state}`} title={STATE_LABEL[row.state]} />
        <span className="tool-name">{row.name || '(tool)'}</span>
        <span className="tool-summary mono" data-testid="tool-summary" title={summary}>
          {summary}
        </span>
        <span className="spacer" />
        {parallel && (
          <span className="parallel-badge" data-testid="parallel-badge" title={`ran in parallel with ${parallel.size - 1} other call(s); lane ${parallel.lane + 1} of ${parallel.lanes}`}>
            ∥{parallel.size}
          </span>
        )}
        {approval && (
          <Badge tone={approval.tone} testId="tool-approval" {...(approval.title ? { title: approval.title } : {})}>
            {approval.text}
          </Badge>
        )}
        {row.allowedByRule !== undefined && (
          <Badge tone="ok" testId="tool-allowed-by-rule" title={`Ran without asking: you allowed ${row.allowedByRule} for this session`}>
            allowed by session rule
          </Badge>
        )}
        {row.prunedBy !== undefined && <Badge tone="muted">pruned</Badge>}
        {row.state === 'dropped' && <Badge tone="muted">dropped</Badge>}
        <CrashBadges crash={row.crash} />
        {row.isError && !row.crash && (
          <span className="badge badge-bad" data-testid="tool-error-badge" title={row.errorName}>
            {row.errorCode ?? 'error'}
          </span>
        )}
        {row.approvalWaitMs !== undefined && row.approvalWaitMs >= 1000 && (
          <span className="muted approval-wait" data-testid="tool-approval-wait" title="Time this call waited for your approval decision (not counted in its run time)">
            waited {formatDuration(row.approvalWaitMs)} for approval
          </span>
        )}
        <span className="duration" data-testid="tool-duration" title={duration.title}>
          {duration.text}
        </span>
      </div>
      {!expanded && row.state === 'running' && presentation === 'terminal' && <LiveOutput callId={row.callId} full={false} />}
      {expanded && (
        <div className="tool-body" data-testid="tool-body" onClick={(e) => e.stopPropagation()}>
          {todos ? (
            <>
              <div className="section-label">todo list</div>
              <TodoChecklist todos={todos} />
              <details className="meta">
                <summary>arguments</summary>
                <pre className="json" data-testid="tool-args" tabIndex={0}>
                  {prettyArgs(row.arguments)}
                </pre>
              </details>
            </>
          ) : (
            <>
              <div className="section-label">arguments</div>
              <pre className="json" data-testid="tool-args" tabIndex={0}>
                {prettyArgs(row.arguments)}
              </pre>
            </>
          )}
          <div className="section-label">result{row.isError ? ' (error)' : ''}</div>
          <ToolResult row={row} />
          {row.meta !== undefined && presentation !== 'diff' && (
            <details className="meta">
              <summary>meta</summary>
              <pre className="json" tabIndex={0}>
                {JSON.stringify(row.meta, null, 2)}
              </pre>
            </details>
          )}
        </div>
      )}
    </div>
  );
});
