/**
 * Choosing a workspace folder in browser mode (no native dialog): recent workspaces first (one
 * Enter starts a session there), then the host's `listFolders` listing, starting at its default
 * folder (home) with its visible entries; hidden (dot) folders stay behind a toggle.
 *
 * Keyboard: Enter in the path field lists the typed folder, and Enter again on an unchanged,
 * listed path uses it; ↓ from the field goes to the listing, where ↑ ↓ Home End move (↑ on the
 * first entry goes back to the field); every entry is also a button in the Tab order.
 *
 * "Use this folder" only ever uses the folder that is listed *and* typed: after a failed listing
 * ("…/does-not-exist is not a folder") or while the field holds another path, it is disabled and a
 * line beside it says why (it once started the session in the previous listing, the home folder).
 */
import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { FolderListing } from '../../../shared/api.js';
import { recentWorkspaces } from '../../../shared/recent-workspaces.js';
import { describeError } from '../../host/host-client.js';
import { byTestId, bySelector, firstOf, focusAfterRender } from '../../keyboard/focus-after-render.js';
import { useApp, useClient } from '../context.js';
import { Dialog } from '../Dialog.js';

function join(base: string, name: string): string {
  return base.endsWith('/') || base.endsWith('\\') ? `${base}${name}` : `${base}${base.includes('\\') && !base.includes('/') ? '\\' : '/'}${name}`;
}

/** The recent workspaces of the listed sessions (forks' own folders in the data folder left out). */
export function useRecentWorkspaces(limit?: number): string[] {
  const sessions = useApp((s) => s.sessions);
  const dataDir = useApp((s) => s.settings?.dataDir);
  return useMemo(() => recentWorkspaces(sessions, { ...(dataDir ? { excludeUnder: dataDir } : {}), ...(limit !== undefined ? { limit } : {}) }), [sessions, dataDir, limit]);
}

export function FolderBrowser({ onChoose, onCancel }: { readonly onChoose: (path: string) => void; readonly onCancel: () => void }): ReactNode {
  const client = useClient();
  const recent = useRecentWorkspaces();
  const [listing, setListing] = useState<FolderListing | undefined>();
  const [error, setError] = useState<{ readonly path: string; readonly message: string } | undefined>();
  const [loading, setLoading] = useState(true);
  const [typed, setTyped] = useState('');
  const [showHidden, setShowHidden] = useState(false);

  const load = useCallback(
    async (path?: string) => {
      setLoading(true);
      setError(undefined);
      try {
        const result = await client.listFolders(path === undefined ? {} : { path });
        setListing(result);
        setTyped(result.path);
      } catch (e) {
        setError({ path: (path ?? '').trim(), message: describeError(e) });
      } finally {
        setLoading(false);
        // The entry (or "up") that was pressed is gone with the old listing: the new one's first entry.
        focusAfterRender(firstOf(bySelector('[data-testid="folder-list"] [data-testid="folder-entry"]'), byTestId('folder-up', 'folder-path')));
      }
    },
    [client],
  );

  useEffect(() => {
    void load();
  }, [load]);

  // The folder "Use this folder" would use: the listed one, only while the field still names it.
  const chosen = listing && !loading && error === undefined && typed.trim() === listing.path ? listing.path : undefined;
  const blocked =
    chosen !== undefined || !listing
      ? undefined
      : loading
        ? 'Listing…'
        : error !== undefined && error.path === typed.trim()
          ? `Nothing is chosen: choose a folder that exists (the list below still shows ${listing.path}).`
          : `Press Enter to list ${typed.trim() || 'the typed folder'} first`;
  const visible = listing?.folders.filter((name) => !name.startsWith('.')) ?? [];
  const hidden = listing?.folders.filter((name) => name.startsWith('.')) ?? [];
  const shown = showHidden ? [...visible, ...hidden] : visible;

  return (
    <Dialog title="Choose a workspace folder" testId="folder-browser" onClose={onCancel} wide>
      {recent.length > 0 && (
        <section className="folder-recent" aria-labelledby="folder-recent-title">
          <div className="section-label" id="folder-recent-title">
            Recent workspaces
          </div>
          <ul
            className="folder-list recent"
            data-testid="folder-recent-list"
            onKeyDown={(e) => {
              // Typing on a recent workspace means a path: it goes to the field (replacing its text), so Enter lists the typed folder, not the recent one.
              if (e.key.length !== 1 || e.key === ' ' || e.ctrlKey || e.metaKey || e.altKey) return;
              const field = document.querySelector<HTMLInputElement>('[data-testid="folder-path"]');
              if (!field) return;
              field.focus();
              field.select();
            }}
          >
            {recent.map((path, i) => (
              <li key={path}>
                <button type="button" className="folder-entry" data-testid="folder-recent" data-path={path} autoFocus={i === 0} title={`Start a session in ${path}`} onClick={() => onChoose(path)}>
                  {path}
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
      <form
        className="folder-path-row"
        onSubmit={(e) => {
          e.preventDefault();
          if (chosen !== undefined) onChoose(chosen);
          else void load(typed);
        }}
      >
        <input
          className="mono"
          data-testid="folder-path"
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          aria-label="Folder path"
          aria-describedby="folder-path-hint"
          spellCheck={false}
          autoFocus={recent.length === 0}
          onKeyDown={(e) => {
            // ↓ goes on to the listing (its first entry), as from a search field to its results.
            if (e.key !== 'ArrowDown') return;
            const first = document.querySelector<HTMLElement>('[data-testid="folder-list"] .folder-entry');
            if (first) {
              e.preventDefault();
              first.focus();
            }
          }}
        />
        <button type="submit">Go</button>
      </form>
      <div className="hint" id="folder-path-hint">
        Enter lists the typed folder; Enter again chooses it.
      </div>
      {error && (
        <div className="error-text" data-testid="folder-error" role="alert">
          {error.message}
        </div>
      )}
      <ul
        className="folder-list"
        data-testid="folder-list"
        aria-busy={loading}
        aria-label={listing ? `Folders in ${listing.path}` : 'Folders'}
        onKeyDown={(e) => {
          // ↑ ↓ Home End move between the entries; ↑ on the first goes back to the path field.
          if (!['ArrowDown', 'ArrowUp', 'Home', 'End'].includes(e.key)) return;
          const entries = [...e.currentTarget.querySelectorAll<HTMLElement>('.folder-entry')];
          const at = entries.indexOf(e.target as HTMLElement);
          if (at < 0) return;
          e.preventDefault();
          if (e.key === 'ArrowUp' && at === 0) {
            document.querySelector<HTMLElement>('[data-testid="folder-path"]')?.focus();
            return;
          }
          const next = e.key === 'Home' ? 0 : e.key === 'End' ? entries.length - 1 : Math.min(entries.length - 1, Math.max(0, at + (e.key === 'ArrowDown' ? 1 : -1)));
          entries[next]?.focus();
        }}
      >
        {listing?.parent !== undefined && (
          <li>
            <button type="button" className="folder-entry up" data-testid="folder-up" aria-label="Parent folder" onClick={() => void load(listing.parent)}>
              ↑ ..
            </button>
          </li>
        )}
        {loading && !listing && <li className="muted">Loading…</li>}
        {listing && shown.length === 0 && !loading && <li className="muted">{hidden.length > 0 ? 'Only hidden folders here.' : 'No subfolders.'}</li>}
        {listing &&
          shown.map((name) => {
            const path = join(listing.path, name);
            return (
              <li key={name}>
                <button type="button" className={`folder-entry${name.startsWith('.') ? ' hidden-folder' : ''}`} data-testid="folder-entry" data-path={path} onClick={() => void load(path)}>
                  {name}/
                </button>
              </li>
            );
          })}
      </ul>
      {hidden.length > 0 && (
        <label className="toggle-label folder-hidden-toggle">
          <input type="checkbox" data-testid="folder-show-hidden" checked={showHidden} onChange={(e) => setShowHidden(e.target.checked)} /> show {hidden.length} hidden folder
          {hidden.length === 1 ? '' : 's'}
        </label>
      )}
      {blocked && (
        <div className="warn-text folder-choose-blocked" data-testid="folder-choose-blocked" id="folder-choose-blocked">
          {blocked}
        </div>
      )}
      <div className="dialog-buttons">
        {!blocked && <span className="muted mono clip">{listing?.path}</span>}
        <span className="spacer" />
        <button type="button" data-testid="folder-cancel" onClick={onCancel}>
          Cancel
        </button>
        <button
          type="button"
          className="primary"
          data-testid="folder-choose"
          disabled={chosen === undefined}
          aria-describedby={blocked ? 'folder-choose-blocked' : undefined}
          onClick={() => chosen !== undefined && onChoose(chosen)}
        >
          Use this folder
        </button>
      </div>
    </Dialog>
  );
}
