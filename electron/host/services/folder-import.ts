/**
 * What `forkline import PATH` reads (docs/importing.md): a session log file as it is, or a session
 * kept as a folder of JSON files, turned into the folder-entry lines of
 * `electron/import/folder-entry.ts` so it goes through the same streaming import as any file.
 *
 * The folder formats are read by `shared/folder-sessions.ts` (the window uses the same reader):
 * - **Cline / Roo Code task folder** (`…/tasks/<taskId>/`, cline/cline
 *   `apps/vscode/src/core/storage/disk.ts`): the folder, or any of its `api_conversation_history.json`,
 *   `ui_messages.json`, `task_metadata.json`. Lines: `task_metadata.json`, `ui_messages.json`,
 *   `api_conversation_history.json` (those present; the history is required).
 * - **opencode storage folder** (`~/.local/share/opencode/storage`, or the folder holding it):
 *   every `session/<projectID>/<sessionID>.json` is one import; a session file imports that session.
 *   Lines: the session, then each `message/<sessionID>/*.json` by name (opencode's ids sort by time)
 *   followed by its `part/<messageID>/*.json` by name.
 *
 * Each file is size-checked before it is read and parsed whole (one file is one record).
 * @throws UnsupportedFormatError for a folder that is neither; SessionCorruptionError naming a file
 * that is not JSON; ImportLimitError for a file above the size cap.
 */
import { createReadStream, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { UnsupportedFormatError } from '../../../shared/errors.js';
import { CLINE_FILES, clineTaskSource, folderSessionSources, isOpencodeRoot, opencodeSessionSource, type FolderTree } from '../../../shared/folder-sessions.js';
import { checkFileSize } from '../../session/import-limits.js';

/** One import: the name recorded as the source file, and its text in chunks. */
export interface ImportSource {
  readonly fileName: string;
  chunks(): AsyncIterable<string> | Iterable<string>;
}

/** The imports `path` holds: one for a file, one per session for a folder. */
export function importSources(path: string): ImportSource[] {
  const stat = statSync(path);
  if (stat.isFile()) {
    const task = dirname(path);
    if ((CLINE_FILES as readonly string[]).includes(basename(path)) && existsSync(join(task, 'api_conversation_history.json'))) return [clineTaskSource(nodeTree(task), '')];
    const root = dirname(dirname(dirname(path)));
    if (path.endsWith('.json') && basename(dirname(dirname(path))) === 'session') {
      const tree = nodeTree(root);
      if (isOpencodeRoot(tree, '')) return [opencodeSessionSource(tree, '', relative(root, path).split(sep).join('/'))];
    }
    checkFileSize(stat.size);
    return [{ fileName: path, chunks: () => createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 }) as AsyncIterable<string> }];
  }
  if (!stat.isDirectory()) throw new UnsupportedFormatError(`${path} is neither a regular file nor a folder`, []);
  return folderSessionSources(nodeTree(path));
}

/** The folder `root` on disk as a {@link FolderTree}; each file is size-checked before it is read. */
function nodeTree(root: string): FolderTree {
  const full = (path: string): string => (path === '' ? root : join(root, ...path.split('/')));
  return {
    name: basename(root),
    exists: (path) => existsSync(full(path)),
    isFolder: (path) => existsSync(full(path)) && statSync(full(path)).isDirectory(),
    list: (path) => (existsSync(full(path)) && statSync(full(path)).isDirectory() ? readdirSync(full(path)) : []),
    readText: (path) => {
      checkFileSize(statSync(full(path)).size);
      return readFileSync(full(path), 'utf8');
    },
    describe: full,
  };
}
