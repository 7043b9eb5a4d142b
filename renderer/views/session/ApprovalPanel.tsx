/**
/**
 * Pending approvals: for each tool call waiting on the person, what it will change (docs/architecture.md §6,
 * docs/tools.md "Approvals"): the unified diff of a file write or edit, or the exact command and the folder it runs
 * in; with Allow once / Allow for this session / Reject. For bash, "for this session" allows
 * commands starting with a prefix the person can edit (the host refuses one that does not cover
 * the command, and a rule never covers compound commands). Invisible characters in a command or
 * path are shown as escapes.
 *
 * Keyboard (README "Keyboard"): when an approval arrives the panel takes focus (unless the person is typing
 * in a text field that holds text, or a dialog is open — then F6 or the palette reach it); on a
 * focused approval, A allows it once, S allows it for the session and R rejects it (key repeats are
 * ignored, so a held key cannot decide). After a decision focus moves to the next approval, else
 * back where it was.
 */
import { useEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
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

/** The key of each decision on a focused approval. */
const DECISIONS: readonly { readonly decision: ApprovalDecisionName; readonly key: string }[] = [
  { decision: 'allow-once', key: 'a' },
  { decision: 'allow-session', key: 's' },
  { decision: 'reject', key: 'r' },
];

function ApprovalItem({ approval, sessionId, readOnly, first }: { readonly approval: ApprovalRequest; readonly sessionId: string; readonly readOnly: boolean; readonly first: boolean }): ReactNode {
  const client = useClient();
  const runtime = useRuntime();
  const [busy, setBusy] = useState(false);
  const preview = approval.preview;
  const [prefix, setPrefix] = useState(preview?.kind === 'command' ? preview.suggestedPrefix : '');
  const isCommand = preview?.kind === 'command';
  const sessionDisabled = isCommand && (preview.suggestedPrefix === '' || prefix.trim() === '');
  const decide = async (decision: ApprovalDecisionName): Promise<void> => {
    if (busy || readOnly || (decision === 'allow-session' && sessionDisabled)) return;
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
  const sessionTitle = isCommand
    ? preview.suggestedPrefix === ''
      ? 'This is not a single simple command (it has ;, &&, |, redirections or substitutions), so it cannot be allowed for the session.'
      : `Run commands starting with “${prefix.trim()}” without asking for the rest of this session (single simple commands only).`
    : `Run ${approval.toolName} without asking for the rest of this session.`;
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
      data-preview={preview?.kind ?? 'none'}
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
      {preview?.kind === 'diff' ? (
        <DiffPreview preview={preview} />
      ) : preview?.kind === 'command' ? (
        <CommandPreview preview={preview} />
      ) : (
        <pre className="approval-args mono" data-testid="approval-args" tabIndex={0}>
          {visible(headline || prettyArgs(approval.arguments), true)}
        </pre>
      )}
      {args && Object.keys(args).length > 1 && (
        <details>
          <summary>all arguments</summary>
          <pre className="json" tabIndex={0}>
            {prettyArgs(approval.arguments)}
          </pre>
        </details>
      )}
      <div className="approval-buttons">
        <button type="button" className="primary" data-testid="approval-allow" disabled={busy || readOnly} aria-keyshortcuts="A" onClick={() => void decide('allow-once')}>
          Allow once <kbd className="kbd">A</kbd>
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
        <button
          type="button"
          data-testid="approval-allow-session"
          disabled={busy || readOnly || sessionDisabled}
          title={sessionTitle}
          aria-keyshortcuts="S"
          {...(sessionDisabled ? { 'aria-describedby': `approval-session-why-${approval.id}` } : {})}
          onClick={() => void decide('allow-session')}
        >
          {isCommand ? 'Allow for this session' : `Allow ${approval.toolName} for this session`} <kbd className="kbd">S</kbd>
        </button>
        <button type="button" className="danger" data-testid="approval-reject" disabled={busy || readOnly} aria-keyshortcuts="R" onClick={() => void decide('reject')}>
          Reject <kbd className="kbd">R</kbd>
        </button>
        {sessionDisabled && (
          <span className="warn-text approval-session-why" data-testid="approval-session-why" id={`approval-session-why-${approval.id}`}>
            {preview.suggestedPrefix === ''
              ? 'Not for the session: this is not a single simple command (;, &&, |, redirections or substitutions).'
              : 'Not for the session: type the command prefix to allow.'}
          </span>
        )}
        <span className="muted approval-keys" id={`approval-keys-${approval.id}`}>
          {sessionDisabled ? 'A allow once · R reject' : 'A allow once · S allow for this session · R reject'}
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
    <div
      className="approval-panel"
      data-testid="approval-panel"
      data-region="approvals"
      role="region"
      aria-label={approvals.length === 1 ? 'Approval needed' : `${approvals.length} approvals needed`}
      ref={panelRef}
    >
      {approvals.map((a, i) => (
        <ApprovalItem key={a.id} approval={a} sessionId={sessionId} readOnly={readOnly} first={i === 0} />
      ))}
    </div>
  );
}
