/**
 * Pending approvals: for each tool call waiting on the person, the tool, what it will do (the
 * shell command or file path from its arguments) and the reason, with Allow once / Reject.
 */
import { useState, type ReactNode } from 'react';
import type { ApprovalRequest } from '../../../shared/api.js';
import { parseToolArgs, prettyArgs, summarizeToolArgs } from '../../../shared/tool-view.js';
import { useClient, useRuntime, useSession } from '../context.js';

function ApprovalItem({ approval, sessionId, readOnly }: { readonly approval: ApprovalRequest; readonly sessionId: string; readonly readOnly: boolean }): ReactNode {
  const client = useClient();
  const runtime = useRuntime();
  const [busy, setBusy] = useState(false);
  const decide = async (decision: 'allow-once' | 'reject'): Promise<void> => {
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
  return (
    <div className="approval-item" data-testid="approval-item" data-approval-id={approval.id} data-call-id={approval.callId}>
      <div className="approval-head">
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
      <pre className="approval-args mono" data-testid="approval-args">
        {headline || prettyArgs(approval.arguments)}
      </pre>
      {args && Object.keys(args).length > 1 && (
        <details>
          <summary>all arguments</summary>
          <pre className="json">{prettyArgs(approval.arguments)}</pre>
        </details>
      )}
      <div className="approval-buttons">
        <button type="button" className="primary" data-testid="approval-allow" disabled={busy || readOnly} onClick={() => void decide('allow-once')}>
          Allow once
        </button>
        <button type="button" className="danger" data-testid="approval-reject" disabled={busy || readOnly} onClick={() => void decide('reject')}>
          Reject
        </button>
      </div>
    </div>
  );
}

export function ApprovalPanel(): ReactNode {
  const approvals = useSession((s) => s.approvals);
  const sessionId = useSession((s) => s.sessionId);
  const readOnly = useSession((s) => s.readOnly);
  if (approvals.length === 0) return null;
  return (
    <div className="approval-panel" data-testid="approval-panel" role="alertdialog" aria-label="Approval needed">
      {approvals.map((a) => (
        <ApprovalItem key={a.id} approval={a} sessionId={sessionId} readOnly={readOnly} />
      ))}
    </div>
  );
}
