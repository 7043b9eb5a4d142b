/**
 * Sessions kept as a folder of JSON files (a Cline / Roo Code task folder, opencode's storage
 * folder), read through any {@link FolderTree} — the Node file system for `forkline import PATH`
 * (`electron/host/services/folder-import.ts`), a folder the person picked in the window
 * (`renderer/state/folder-import.ts`) — into the folder-entry lines the import pipeline reads
 * (`electron/import/folder-entry.ts`). One reader for both, so the window and the CLI import a folder
 * the same way.
 *
 * - **Cline / Roo Code task folder** (`…/tasks/<taskId>/`, cline/cline
 *   `apps/vscode/src/core/storage/disk.ts`): lines `task_metadata.json`, `ui_messages.json`,
 *   `api_conversation_history.json` (those present; the history is required). A folder whose
 *   subfolders are task folders (Cline's `tasks/`) gives one import per task.
 * - **opencode storage folder** (`~/.local/share/opencode/storage`, or the folder holding it):
 *   every `session/<projectID>/<sessionID>.json` is one import. Lines: the session, then each
 *   `message/<sessionID>/*.json` by name (opencode's ids sort by time) followed by its
 *   `part/<messageID>/*.json` by name. An id a file names is used as a folder name only when it is
 *   a plain name (never `..` or a path); otherwise the file's own name is.
 *
 * Paths here are relative to the tree's root, `/`-separated, `''` being the root itself.
 */
import { SessionCorruptionError, UnsupportedFormatError } from './errors.js';
import type { JsonValue } from './json.js';

/** The `type` of a folder-entry record. */
export const FOLDER_ENTRY_TYPE = 'forkline/folder-entry';

/** The folder formats a folder entry may name. */
export type FolderFormat = 'cline' | 'opencode';

/** One file of a session folder, as a record of the import pipeline. */
export interface FolderEntry {
  readonly type: typeof FOLDER_ENTRY_TYPE;
  readonly format: FolderFormat;
  /** Base name of the imported folder (Cline: the task id; opencode: `storage`). */
  readonly folder: string;
  /** The file's path relative to that folder, `/`-separated (a label, never a path to act on). */
  readonly path: string;
  readonly value: JsonValue;
}

/** The entry as one JSONL line (with its newline). */
export function folderEntryLine(entry: Omit<FolderEntry, 'type'>): string {
  return `${JSON.stringify({ type: FOLDER_ENTRY_TYPE, ...entry })}\n`;
}

/** A folder as the reader sees it. Paths are relative to its root (`''`), `/`-separated. */
export interface FolderTree {
  /** The root folder's own name (the picked folder's, or the last segment of the CLI's path). */
  readonly name: string;
  /** Whether `path` exists, as a file or a folder. */
  exists(path: string): boolean;
  /** Whether `path` is a folder. */
  isFolder(path: string): boolean;
  /** Names directly inside the folder `path` (empty when it is not one), in any order. */
  list(path: string): readonly string[];
  /** The file's text. @throws what the tree's reader refuses (the Node tree: a file over the size cap). */
  readText(path: string): string;
  /** How `path` is named in messages (the Node tree: the full path). */
  describe(path: string): string;
}

/** One import: the name recorded as its source file, and its lines. */
export interface FolderSource {
  readonly fileName: string;
  chunks(): Iterable<string>;
}

/** Cline's task files, in the order the importer reads them. */
export const CLINE_FILES = ['task_metadata.json', 'ui_messages.json', 'api_conversation_history.json'] as const;

/**
 * The imports the tree's root holds.
 * @throws UnsupportedFormatError for a folder that is neither kind (or opencode storage without sessions).
 * The sources' `chunks()` throw SessionCorruptionError naming a file that is not JSON.
 */
export function folderSessionSources(tree: FolderTree): FolderSource[] {
  if (tree.exists('api_conversation_history.json')) return [clineTaskSource(tree, '')];
  const root = isOpencodeRoot(tree, '') ? '' : isOpencodeRoot(tree, 'storage') ? 'storage' : undefined;
  if (root !== undefined) {
    const sessionDir = join(root, 'session');
    const sessions = sorted(tree.list(sessionDir))
      .map((project) => join(sessionDir, project))
      .flatMap((project) => (tree.isFolder(project) ? sorted(tree.list(project)).map((name) => join(project, name)) : []));
    if (sessions.length === 0) throw new UnsupportedFormatError(`${tree.describe('')} is an opencode storage folder with no session files (session/<project>/<id>.json)`, ['opencode']);
    return sessions.map((file) => opencodeSessionSource(tree, root, file));
  }
  const tasks = sorted(tree.list('')).filter((name) => tree.isFolder(name) && tree.exists(join(name, 'api_conversation_history.json')));
  if (tasks.length > 0) return tasks.map((task) => clineTaskSource(tree, task));
  throw new UnsupportedFormatError(
    `${tree.describe('')} is a folder, but not a Cline / Roo Code task folder (no api_conversation_history.json) nor an opencode storage folder (no session/ and message/)`,
    ['cline', 'opencode'],
  );
}

/** The Cline / Roo Code task in folder `task` of the tree. */
export function clineTaskSource(tree: FolderTree, task: string): FolderSource {
  const folder = task === '' ? tree.name : baseName(task);
  return {
    fileName: folder,
    *chunks() {
      for (const name of CLINE_FILES) {
        const file = join(task, name);
        if (tree.exists(file)) yield folderEntryLine({ format: 'cline', folder, path: name, value: readJson(tree, file) });
      }
    },
  };
}

/** The opencode session stored in `sessionFile` under the storage folder `root`. */
export function opencodeSessionSource(tree: FolderTree, root: string, sessionFile: string): FolderSource {
  const folder = root === '' ? tree.name : baseName(root);
  return {
    fileName: baseName(sessionFile),
    *chunks() {
      const session = readJson(tree, sessionFile);
      const id = safeName(idOf(session)) ?? baseName(sessionFile, '.json');
      const project = baseName(parentOf(sessionFile));
      yield folderEntryLine({ format: 'opencode', folder, path: `session/${project}/${baseName(sessionFile)}`, value: session });
      const messageDir = join(root, 'message', id);
      for (const messageName of sorted(tree.list(messageDir)).filter((n) => n.endsWith('.json'))) {
        const message = readJson(tree, join(messageDir, messageName));
        const messageId = safeName(idOf(message)) ?? baseName(messageName, '.json');
        yield folderEntryLine({ format: 'opencode', folder, path: `message/${id}/${messageName}`, value: message });
        const partDir = join(root, 'part', messageId);
        for (const partName of sorted(tree.list(partDir)).filter((n) => n.endsWith('.json'))) {
          yield folderEntryLine({ format: 'opencode', folder, path: `part/${messageId}/${partName}`, value: readJson(tree, join(partDir, partName)) });
        }
      }
    },
  };
}

/** Whether `dir` looks like opencode's storage folder (it has `session/` and `message/`). */
export function isOpencodeRoot(tree: FolderTree, dir: string): boolean {
  return tree.isFolder(join(dir, 'session')) && tree.isFolder(join(dir, 'message'));
}

/** An id a file names, when it is safe as a folder name (never `..` or a path); else undefined. */
function safeName(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' && /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/.test(value) ? value : undefined;
}

function idOf(value: JsonValue): JsonValue | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return (value as { readonly [key: string]: JsonValue })['id'];
}

function readJson(tree: FolderTree, file: string): JsonValue {
  const text = tree.readText(file).replace(/^\uFEFF/, '');
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw new SessionCorruptionError('(file)', undefined, `${tree.describe(file)} is not JSON (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
}

/** `a` and `b` joined with `/` (either may be `''`). */
function join(...parts: string[]): string {
  return parts.filter((p) => p !== '').join('/');
}

function baseName(path: string, suffix?: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return suffix !== undefined && name.endsWith(suffix) ? name.slice(0, -suffix.length) : name;
}

function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

/** Names in code-unit order (as Node's `sort()` gave before; opencode's ids sort by time this way). */
function sorted(names: readonly string[]): string[] {
  return [...names].sort();
}
