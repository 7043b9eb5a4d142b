/**
 * Pending approvals: for each tool call waiting on the person, the tool, what it will do (the
 * shell command or file path from its arguments) and the reason, with a labelled key per decision.
 *
 * Keyboard: when an approval arrives the panel takes focus (unless the person is typing in a text
 * field that holds text, or a dialog is open — then F6 or the palette reach it); on a focused
 * approval, A allows it once and R rejects it (key repeats are ignored, so a held key cannot
 * decide). After a decision focus moves to the next approval, else back where it was.
 */
import { useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import type { ApprovalRequest, HostMethods } from '../../../shared/api.js';
import { parseToolArgs, prettyArgs, summarizeToolArgs } from '../../../shared/tool-view.js';
import { useClient, useRuntime, useSession } from '../context.js';

type Decision = Parameters<HostMethods['decideApproval']>[0]['decision'];

/** Each decision with its key and label, in button order. */
const DECISIONS: readonly { readonly decision: Decision; readonly key: string; readonly label: string; readonly testId: string; readonly className: string }[] = [
  { decision: 'allow-once', key: 'a', label: 'Allow once', testId: 'approval-allow', className: 'primary' },
  { decision: 'reject', key: 'r', label: 'Reject', testId: 'approval-reject', className: 'danger' },
];

function ApprovalItem({ approval, sessionId, readOnly, first }: { readonly approval: ApprovalRequest; readonly sessionId: string; readonly readOnly: boolean; readonly first: boolean }): ReactNode {
  const client = useClient();
  const runtime = useRuntime();
  const [busy, setBusy] = useState(false);
  const decide = async (decision: Decision): Promise<void> => {
    if (busy || readOnly) return;
    setBusy(true);
    try {
      await client.decideApproval({ sessionId, approvalId: approval.id, decision });
    } catch (error) {
      runtime.reportError('Approval', error);
      setBusy(false);
    }
  };
  const args = parseToolArgs(approval.arguments);
  const headline = summarizeToolArgs(approval.toolName, approval.arguments, 400);
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    if (e.repeat || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    if (e.target !== e.currentTarget && !(e.target instanceof HTMLButtonElement)) return;
    const choice = DECISIONS.find((d) => d.key === e.key.toLowerCase());
    if (!choice) return;
    e.preventDefault();
    void decide(choice.decision);
  };
  const labelId = `approval-title-${approval.id}`;
  return (
    <div
      className="approval-item"
      data-testid="approval-item"
      data-approval-id={approval.id}
      data-call-id={approval.callId}
      role="group"
      aria-labelledby={labelId}
      aria-describedby={`approval-keys-${approval.id}`}
      tabIndex={first ? 0 : -1}
      {...(first ? { 'data-focus-default': '' } : {})}
      onKeyDown={onKeyDown}
    >
      <div className="approval-head" id={labelId}>
        <span className="approval-title">Allow</span>
        <span className="tool-name" data-testid="approval-tool">
          {approval.toolName}
        </span>
        {approval.reason && (
          <span className="muted" data-testid="approval-reason">
            {approval.reason}
          </span>
        )}
      </div>
      <pre className="approval-args mono" data-testid="approval-args" tabIndex={0}>
        {headline || prettyArgs(approval.arguments)}
      </pre>
      {args && Object.keys(args).length > 1 && (
        <details>
          <summary>all arguments</summary>
          <pre className="json" tabIndex={0}>
            {prettyArgs(approval.arguments)}
          </pre>
        </details>
      )}
      <div className="approval-buttons">
        {DECISIONS.map((d) => (
          <button key={d.decision} type="button" className={d.className} data-testid={d.testId} disabled={busy || readOnly} aria-keyshortcuts={d.key.toUpperCase()} onClick={() => void decide(d.decision)}>
            {d.label} <kbd className="kbd">{d.key.toUpperCase()}</kbd>
          </button>
        ))}
        <span className="muted approval-keys" id={`approval-keys-${approval.id}`}>
          {DECISIONS.map((d) => `${d.key.toUpperCase()} ${d.label.toLowerCase()}`).join(' · ')}
        </span>
      </div>
    </div>
  );
}

/** True when focus is where taking it away would eat typed keys (a text field with text) or a dialog is open. */
function focusIsBusy(): boolean {
  const active = document.activeElement;
  if (active?.closest('[role="dialog"]')) return true;
  return (active instanceof HTMLTextAreaElement || active instanceof HTMLInputElement) && active.value.trim() !== '';
}

export function ApprovalPanel(): ReactNode {
  const approvals = useSession((s) => s.approvals);
  const sessionId = useSession((s) => s.sessionId);
  const readOnly = useSession((s) => s.readOnly);
  const panelRef = useRef<HTMLDivElement>(null);
  const returnTo = useRef<HTMLElement | null>(null);
  const firstId = approvals[0]?.id;

  useEffect(() => {
    if (firstId === undefined) {
      // The last approval was decided: give focus back (if it was ours and is now lost).
      const back = returnTo.current;
      returnTo.current = null;
      if (back?.isConnected && (document.activeElement === document.body || document.activeElement === null)) back.focus();
      return;
    }
    const inPanel = panelRef.current?.contains(document.activeElement) ?? false;
    if (!inPanel && focusIsBusy()) return;
    if (!inPanel && returnTo.current === null && document.activeElement instanceof HTMLElement && document.activeElement !== document.body) returnTo.current = document.activeElement;
    panelRef.current?.querySelector<HTMLElement>('[data-focus-default]')?.focus();
  }, [firstId]);

  if (approvals.length === 0) return null;
  return (
    <div className="approval-panel" data-testid="approval-panel" data-region="approvals" role="region" aria-label={approvals.length === 1 ? 'Approval needed' : `${approvals.length} approvals needed`} ref={panelRef}>
      {approvals.map((a, i) => (
        <ApprovalItem key={a.id} approval={a} sessionId={sessionId} readOnly={readOnly} first={i === 0} />
      ))}
    </div>
  );
}
