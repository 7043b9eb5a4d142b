/**
 * The one way the window imports files (the file picker and drag-and-drop both use it): each file
 * is streamed to the host with a progress entry (a portable bundle through the bundle import), then summarised in a toast with the same lines the
 * CLI prints, and the imported session is opened with focus in its timeline. Failures name the file and the host's reason
 * (UNSUPPORTED_FORMAT lists the formats we read; SESSION_CORRUPT names the line).
 */
import { useCallback, useRef } from 'react';
import { formatImportSummary, importHeadline } from '../../../shared/import-summary.js';
import { bundleImportLines, importBundleFile, importFile, isBundleFile, type ImportableFile } from '../../state/file-import.js';
import { folderImportFiles, type PickedFile } from '../../state/folder-import.js';
import { useApp, useClient, useRuntime } from '../context.js';

export function useImportFiles(): (files: readonly ImportableFile[]) => Promise<void> {
  const client = useClient();
  const runtime = useRuntime();
  const select = useApp((s) => s.select);
  const toast = useApp((s) => s.toast);
  const setProgress = useApp((s) => s.setImportProgress);
  const counter = useRef(0);
  return useCallback(
    async (files: readonly ImportableFile[]) => {
      let last: string | undefined;
      for (const file of files) {
        const key = ++counter.current;
        setProgress(key, file.name, 0);
        try {
          if (await isBundleFile(file)) {
            // A portable bundle: a tree of sessions, verified and imported whole; the root opens.
            const view = await importBundleFile(client, file, (fraction) => setProgress(key, file.name, fraction));
            last = view.rootId;
            const { headline, details } = bundleImportLines(file.name, view);
            toast(headline, 'info', details);
            continue;
          }
          const summary = await importFile(client, file, (fraction) => setProgress(key, file.name, fraction));
          last = summary.sessionId;
          const lines = formatImportSummary(summary);
          toast(`Imported ${file.name}: ${importHeadline(summary)}`, 'info', lines.slice(1));
        } catch (error) {
          runtime.reportError(`Import of ${file.name}`, error);
        } finally {
          setProgress(key, file.name, undefined);
        }
      }
      if (last !== undefined) {
        await runtime.refreshSessions();
        // The palette or the Import button that started it has gone or kept focus; the session takes it
        // (an imported session is read-only: its timeline), also when another session was open.
        select(last, { focusSession: true });
      }
    },
    [client, runtime, select, toast, setProgress],
  );
}

/**
 * Imports the sessions of a picked folder (Cline / Roo Code task folders, opencode storage) through
 * {@link useImportFiles}; a folder that holds none is reported with the reader's reason.
 */
export function useImportFolder(): (files: readonly PickedFile[]) => Promise<void> {
  const importFiles = useImportFiles();
  const runtime = useRuntime();
  return useCallback(
    async (files: readonly PickedFile[]) => {
      const folder = files[0]?.webkitRelativePath.split('/')[0] ?? 'the folder';
      let sessions: ImportableFile[];
      try {
        sessions = await folderImportFiles(files);
      } catch (error) {
        runtime.reportError(`Import of ${folder}`, error);
        return;
      }
      await importFiles(sessions);
    },
    [importFiles, runtime],
  );
}
