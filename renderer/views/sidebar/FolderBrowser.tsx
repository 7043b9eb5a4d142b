/**
 * Choosing a workspace folder in browser mode (no native dialog): lists folders through the
 * host's `listFolders`, starting at its default folder; the person walks down/up and chooses.
 */
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import type { FolderListing } from '../../../shared/api.js';
import { describeError } from '../../host/host-client.js';
import { useClient } from '../context.js';
import { Dialog } from '../Dialog.js';

function join(base: string, name: string): string {
  return base.endsWith('/') || base.endsWith('\\') ? `${base}${name}` : `${base}${base.includes('\\') && !base.includes('/') ? '\\' : '/'}${name}`;
}

export function FolderBrowser({ onChoose, onCancel }: { readonly onChoose: (path: string) => void; readonly onCancel: () => void }): ReactNode {
  const client = useClient();
  const [listing, setListing] = useState<FolderListing | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [loading, setLoading] = useState(true);
  const [typed, setTyped] = useState('');

  const load = useCallback(
    async (path?: string) => {
      setLoading(true);
      setError(undefined);
      try {
        const result = await client.listFolders(path === undefined ? {} : { path });
        setListing(result);
        setTyped(result.path);
      } catch (e) {
        setError(describeError(e));
      } finally {
        setLoading(false);
      }
    },
    [client],
  );

  useEffect(() => {
    void load();
  }, [load]);

  return (
    <Dialog title="Choose a workspace folder" testId="folder-browser" onClose={onCancel} wide>
      <form
        className="folder-path-row"
        onSubmit={(e) => {
          e.preventDefault();
          void load(typed);
        }}
      >
        <input className="mono" data-testid="folder-path" value={typed} onChange={(e) => setTyped(e.target.value)} aria-label="Folder path" spellCheck={false} />
        <button type="submit">Go</button>
      </form>
      {error && (
        <div className="error-text" data-testid="folder-error">
          {error}
        </div>
      )}
      <ul className="folder-list" data-testid="folder-list" aria-busy={loading}>
        {listing?.parent !== undefined && (
          <li>
            <button type="button" className="folder-entry up" data-testid="folder-up" onClick={() => void load(listing.parent)}>
              ↑ ..
            </button>
          </li>
        )}
        {loading && !listing && <li className="muted">Loading…</li>}
        {listing && listing.folders.length === 0 && !loading && <li className="muted">No subfolders.</li>}
        {listing?.folders.map((name) => {
          const path = join(listing.path, name);
          return (
            <li key={name}>
              <button type="button" className="folder-entry" data-testid="folder-entry" data-path={path} onClick={() => void load(path)}>
                {name}/
              </button>
            </li>
          );
        })}
      </ul>
      <div className="dialog-buttons">
        <span className="muted mono clip">{listing?.path}</span>
        <span className="spacer" />
        <button type="button" data-testid="folder-cancel" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="primary" data-testid="folder-choose" disabled={!listing} onClick={() => listing && onChoose(listing.path)}>
          Use this folder
        </button>
      </div>
    </Dialog>
  );
}
