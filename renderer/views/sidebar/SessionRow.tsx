/**
 * One row of the session sidebar: the open button (status dot, title, cost, badges) and the row's
 * actions (rename, fork, export JSONL, export bundle, delete), the inline rename field and the
 * delete confirmation. A click anywhere on the row opens it. A long title ends in an ellipsis
 * beside the row's compact badges; the whole title is the first line of the row's tooltip.
 */
import { memo, useEffect, useRef, useState, type ReactNode } from 'react';
import type { SessionTreeRow } from '../../../shared/session-tree.js';
import { bySelector, focusAfterRender } from '../../keyboard/focus-after-render.js';
import { useApp, useClient, useRuntime } from '../context.js';
import { ConfirmDialog } from '../Dialog.js';
import { download } from '../download.js';
import { BundleIcon, DeleteIcon, ExportIcon, ForkIcon, RenameIcon } from '../icons.js';
import { SessionCost } from './SessionCost.js';
import { importedBadgeLabel, sessionRowTooltip } from './session-row-text.js';
import { SessionActivityBadge } from './SessionActivityBadge.js';
import { TeamPendingMarker, teamOwnerOf } from '../team/TeamSection.js';

export interface RowProps {
  readonly item: SessionTreeRow;
  readonly selected: boolean;
  /** This row holds the list's Tab stop. */
  readonly active: boolean;
  readonly title: string;
  /** The folder, shown under the title when another row's title reads the same (see `folderHints`). */
  readonly folder?: string;
}

export const SessionRow = memo(function SessionRow({ item, selected, active, title, folder }: RowProps): ReactNode {
  const { session, depth } = item;
  const client = useClient();
  const runtime = useRuntime();
  const select = useApp((s) => s.select);
  const edit = useApp((s) => (s.sessionEdit?.sessionId === session.id ? s.sessionEdit.kind : undefined));
  const editSession = useApp((s) => s.editSession);
  const [draft, setDraft] = useState('');
  const openRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (edit === 'rename') setDraft(session.title ?? title);
    // Only when a rename starts: a title that changes while the user types must not overwrite the draft.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- see above
  }, [edit]);

  const endEdit = (): void => {
    editSession(undefined);
    // The rename field gives way to the row's button again.
    focusAfterRender(() => openRef.current);
  };
  const rename = async (): Promise<void> => {
    const t = draft.trim();
    endEdit();
    if (!t || t === session.title) return;
    try {
      await client.renameSession({ sessionId: session.id, title: t });
      await runtime.refreshSessions();
    } catch (error) {
      runtime.reportError('Rename', error);
    }
  };
  const remove = async (): Promise<void> => {
    editSession(undefined);
    try {
      await client.deleteSession({ sessionId: session.id });
      if (runtime.app.getState().selectedId === session.id) select(undefined);
      await runtime.refreshSessions();
    } catch (error) {
      runtime.reportError('Delete', error);
    }
    // The row is gone: the list's Tab stop (another session), else New session.
    focusAfterRender(bySelector('[data-testid="session-open"][data-focus-default]', '[data-testid="new-session-button"]'));
  };
  const tab = active ? 0 : -1;

  return (
    <li
      className={`session-row${selected ? ' selected' : ''}${item.contextOnly ? ' context-only' : ''}`}
      data-testid="session-row"
      data-session-id={session.id}
      data-status={session.status}
      data-depth={depth}
      data-selected={selected ? 'true' : 'false'}
      style={{ paddingLeft: 6 + depth * 14 }}
      // A click anywhere on the row opens it, also between the title and the actions that appear
      // on hover (they narrow the open button under the pointer); the buttons handle their own.
      onClick={(e) => {
        if (edit !== 'rename' && !(e.target as HTMLElement).closest('button, input, [role="dialog"]')) select(session.id, { focusSession: true });
      }}
    >
      {edit === 'rename' ? (
        <input
          className="rename-input"
          data-testid="session-rename-input"
          aria-label={`New title for ${title}`}
          autoFocus
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onBlur={() => void rename()}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              void rename();
            }
            if (e.key === 'Escape') {
              e.preventDefault();
              endEdit();
            }
          }}
        />
      ) : (
        <button
          ref={openRef}
          type="button"
          className="session-open"
          data-testid="session-open"
          data-session-id={session.id}
          tabIndex={tab}
          aria-current={selected ? 'true' : undefined}
          {...(active ? { 'data-focus-default': '' } : {})}
          title={sessionRowTooltip(title, session)}
          onClick={() => select(session.id, { focusSession: true })}
        >
          {depth > 0 && (
            <span className="lineage" aria-hidden="true">
              └
            </span>
          )}
          <span className={`status-dot ${session.status}`} data-testid="session-status-dot" aria-hidden="true" />
          <span className="session-text">
            <span className="session-title" data-testid="session-title">
              {title}
            </span>
            {folder !== undefined && (
              <span className="session-folder muted" data-testid="session-folder">
                in {folder}
              </span>
            )}
            <SessionCost session={session} />
          </span>
          {session.status === 'running' && <span className="sr-only"> (running)</span>}
          <SessionActivityBadge session={session} />
          <TeamPendingMarker sessionId={session.id} />
          {session.ownedElsewhere && <span className="badge badge-muted session-badge">read-only</span>}
          {session.origin?.kind === 'imported' && (
            <span className="badge badge-muted session-badge" data-testid="session-imported" title={`imported from ${session.origin.format}: read-only; open it to continue it in Forkline`}>
              {teamOwnerOf(session.origin.file) !== undefined ? `team: ${teamOwnerOf(session.origin.file)}` : importedBadgeLabel(session.origin.format)}
            </span>
          )}
        </button>
      )}
      <span className="row-actions">
        <button
          type="button"
          className="icon-button"
          data-testid="session-rename-button"
          tabIndex={tab}
          title="Rename (F2)"
          aria-label={`Rename ${title}`}
          onClick={() => editSession({ sessionId: session.id, kind: 'rename' })}
        >
          <RenameIcon />
        </button>
        {session.origin?.kind !== 'imported' && (
          <button
            type="button"
            className="icon-button"
            data-testid="session-fork-button"
            tabIndex={tab}
            title="Fork at the last closed turn"
            aria-label={`Fork ${title}`}
            onClick={() => void runtime.actions.fork(session.id)}
          >
            <ForkIcon />
          </button>
        )}
        <button
          type="button"
          className="icon-button"
          data-testid="session-export-button"
          tabIndex={tab}
          title="Export JSONL"
          aria-label={`Export ${title} as JSONL`}
          onClick={() => void runtime.actions.exportSession(session.id, download)}
        >
          <ExportIcon />
        </button>
        <button
          type="button"
          className="icon-button"
          data-testid="session-bundle-button"
          tabIndex={tab}
          title="Export bundle… (with its forks)"
          aria-label={`Export ${title} as a bundle`}
          onClick={() => editSession({ sessionId: session.id, kind: 'bundle' })}
        >
          <BundleIcon />
        </button>
        <button
          type="button"
          className="icon-button danger"
          data-testid="session-delete-button"
          tabIndex={tab}
          title="Delete (Del)"
          aria-label={`Delete ${title}`}
          onClick={() => editSession({ sessionId: session.id, kind: 'delete' })}
        >
          <DeleteIcon />
        </button>
      </span>
      {edit === 'delete' && (
        <ConfirmDialog
          title="Delete session"
          message={
            <>
              Delete <b>{title}</b> and its {session.eventCount} events? This cannot be undone.
            </>
          }
          confirmLabel="Delete"
          onConfirm={() => void remove()}
          onCancel={() => editSession(undefined)}
        />
      )}
    </li>
  );
});

/** Focuses the open-button of the row for `sessionId` inside `list`. */
export function focusRow(list: HTMLElement | null, sessionId: string): void {
  list?.querySelector<HTMLElement>(`[data-testid="session-open"][data-session-id="${CSS.escape(sessionId)}"]`)?.focus();
}
