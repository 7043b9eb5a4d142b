/**
 * "Export bundle…" (issue 26; the palette and the session row's action): asks whether the
 * workspace files of the checkpoints should go in too (`--with-files`), then has the host write the
 * portable bundle (the session, the forks under it, their provenance; secrets redacted) and saves
 * it as a download (read from the host in chunks; the button shows how far). Keyboard: the dialog opens on its Export button; Space toggles the checkbox,
 * Enter exports, Escape cancels.
 */
import { useState, type ReactNode } from 'react';
import { Dialog } from '../Dialog.js';
import { useApp, useRuntime } from '../context.js';
import { download } from '../download.js';

export function ExportBundleDialog(): ReactNode {
  const runtime = useRuntime();
  const edit = useApp((s) => (s.sessionEdit?.kind === 'bundle' ? s.sessionEdit : undefined));
  const editSession = useApp((s) => s.editSession);
  const session = useApp((s) => (edit ? s.sessions.find((x) => x.id === edit.sessionId) : undefined));
  const [withFiles, setWithFiles] = useState(false);
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState<{ read: number; total: number }>();
  if (!edit) return null;
  const close = (): void => {
    setWithFiles(false);
    editSession(undefined);
  };
  const title = session?.title ?? edit.sessionId.slice(0, 8);
  const run = async (): Promise<void> => {
    setBusy(true);
    const ok = await runtime.actions.exportBundle(
      edit.sessionId,
      withFiles,
      (name, file) => download(name, file),
      (read, total) => setProgress({ read, total }),
    );
    setBusy(false);
    setProgress(undefined);
    if (ok) close();
  };
  return (
    <Dialog title="Export bundle" testId="export-bundle-dialog" onClose={close}>
      <div className="confirm-message">
        One file with <b>{title}</b>, the forks under it and their provenance; configured API keys and secret-looking environment values are redacted. Import it with{' '}
        <span className="mono">forkline import FILE</span>.
      </div>
      <label className="field checkbox-field">
        <input type="checkbox" data-testid="export-bundle-with-files" checked={withFiles} onChange={(e) => setWithFiles(e.target.checked)} />
        <span>Include the workspace files of its checkpoints</span>
      </label>
      <div className="dialog-buttons">
        <button type="button" data-testid="export-bundle-cancel" onClick={close}>
          Cancel
        </button>
        <button type="button" className="primary" data-testid="export-bundle-ok" autoFocus disabled={busy} onClick={() => void run()}>
          {busy ? (progress && progress.total > 0 ? `Exporting… ${Math.floor((100 * progress.read) / progress.total)}%` : 'Exporting…') : 'Export bundle'}
        </button>
      </div>
    </Dialog>
  );
}
