/**
 * Pending approvals: for each tool call waiting on the person, what it will change (DESIGN §6,
 * issue 11): the unified diff of a file write or edit, or the exact command and the folder it runs
 * in; with Allow once / Allow for this session / Reject. For bash, "for this session" allows
 * commands starting with a prefix the person can edit (the host refuses one that does not cover
 * the command, and a rule never covers compound commands). Invisible characters in a command or
 * path are shown as escapes.
 *
 * Focus and keyboard keys of this panel belong to the keyboard work (issue 14); this file owns
 * what it shows and the decisions it sends.
 */
import { useMemo, useState, type ReactNode } from 'react';
import type { ApprovalDecisionName, ApprovalRequest } from '../../../shared/api.js';
import type { ApprovalPreview } from '../../../shared/approval.js';
import { parseToolArgs, prettyArgs, summarizeToolArgs } from '../../../shared/tool-view.js';
import { visible } from '../../../shared/visible-text.js';
import { useClient, useRuntime, useSession } from '../context.js';
import { DiffTable } from '../timeline/DiffView.js';
import { patchLines } from '../timeline/unified-diff.js';

function DiffPreview({ preview }: { readonly preview: Extract<ApprovalPreview, { kind: 'diff' }> }): ReactNode {
  const lines = useMemo(() => patchLines(preview.patch), [preview.patch]);
  return (
    <div className="diff approval-diff" data-testid="approval-diff" data-path={preview.path}>
      <div className="diff-head mono">
        <span>
          {visible(preview.path)}
          {preview.created && <span className="muted"> (new file)</span>}
        </span>
        <span className="diff-stat">
          <span className="add">+{preview.added}</span> <span className="del">−{preview.removed}</span>
        </span>
      </div>
      {preview.note && (
        <div className="muted diff-note" data-testid="approval-diff-note">
          {preview.note}
        </div>
      )}
      {lines.length === 0 ? <div className="muted diff-empty">no diff to show</div> : <DiffTable lines={lines.map((l) => ({ ...l, text: visible(l.text) }))} />}
    </div>
  );
}

function CommandPreview({ preview }: { readonly preview: Extract<ApprovalPreview, { kind: 'command' }> }): ReactNode {
  return (
    <div className="approval-command-box">
      <pre className="approval-args mono" data-testid="approval-command">
        <span className="muted">$ </span>
        {visible(preview.command, true)}
      </pre>
      <div className="muted mono" data-testid="approval-cwd">
        in {visible(preview.cwd)}
      </div>
    </div>
  );
}

function ApprovalItem({ approval, sessionId, readOnly }: { readonly approval: ApprovalRequest; readonly sessionId: string; readonly readOnly: boolean }): ReactNode {
  const client = useClient();
  const runtime = useRuntime();
  const [busy, setBusy] = useState(false);
  const preview = approval.preview;
  const [prefix, setPrefix] = useState(preview?.kind === 'command' ? preview.suggestedPrefix : '');
  const decide = async (decision: ApprovalDecisionName): Promise<void> => {
    setBusy(true);
    try {
      await client.decideApproval({ sessionId, approvalId: approval.id, decision, ...(decision === 'allow-session' && preview?.kind === 'command' ? { commandPrefix: prefix.trim() } : {}) });
    } catch (error) {
      runtime.reportError('Approval', error);
      setBusy(false);
    }
  };
  const args = parseToolArgs(approval.arguments);
  const headline = summarizeToolArgs(approval.toolName, approval.arguments, 400);
  const isCommand = preview?.kind === 'command';
  const sessionDisabled = isCommand && (preview.suggestedPrefix === '' || prefix.trim() === '');
  const sessionTitle = isCommand
    ? preview.suggestedPrefix === ''
      ? 'This is not a single simple command (it has ;, &&, |, redirections or substitutions), so it cannot be allowed for the session.'
      : `Run commands starting with “${prefix.trim()}” without asking for the rest of this session (single simple commands only).`
    : `Run ${approval.toolName} without asking for the rest of this session.`;
  return (
    <div className="approval-item" data-testid="approval-item" data-approval-id={approval.id} data-call-id={approval.callId} data-preview={preview?.kind ?? 'none'}>
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
      {preview?.kind === 'diff' ? (
        <DiffPreview preview={preview} />
      ) : preview?.kind === 'command' ? (
        <CommandPreview preview={preview} />
      ) : (
        <pre className="approval-args mono" data-testid="approval-args">
          {visible(headline || prettyArgs(approval.arguments), true)}
        </pre>
      )}
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
        {isCommand && (
          <label className="approval-prefix">
            <span className="muted">commands starting with</span>
            <input
              type="text"
              className="mono"
              data-testid="approval-prefix"
              aria-label="Command prefix to allow for this session"
              value={prefix}
              disabled={busy || readOnly || preview.suggestedPrefix === ''}
              onChange={(e) => setPrefix(e.target.value)}
            />
          </label>
        )}
        <button type="button" data-testid="approval-allow-session" disabled={busy || readOnly || sessionDisabled} title={sessionTitle} onClick={() => void decide('allow-session')}>
          {isCommand ? 'Allow for this session' : `Allow ${approval.toolName} for this session`}
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
