/**
 * What `forkline import PATH` reads (docs/importing.md): a session log file as it is, or a session
 * kept as a folder of JSON files, turned into the folder-entry lines of
 * `electron/import/folder-entry.ts` so it goes through the same streaming import as any file.
 *
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
import { basename, dirname, join } from 'node:path';
import { SessionCorruptionError, UnsupportedFormatError } from '../../../shared/errors.js';
import type { JsonValue } from '../../../shared/json.js';
import { folderEntryLine, type FolderFormat } from '../../import/folder-entry.js';
import { isObject } from '../../import/json-read.js';
import { checkFileSize } from '../../session/import-limits.js';

/** One import: the name recorded as the source file, and its text in chunks. */
export interface ImportSource {
  readonly fileName: string;
  chunks(): AsyncIterable<string> | Iterable<string>;
}

/** Cline's task files, in the order the importer reads them. */
const CLINE_FILES = ['task_metadata.json', 'ui_messages.json', 'api_conversation_history.json'] as const;

/** The imports `path` holds: one for a file, one per session for a folder. */
export function importSources(path: string): ImportSource[] {
  const stat = statSync(path);
  if (stat.isFile()) {
    const task = dirname(path);
    if ((CLINE_FILES as readonly string[]).includes(basename(path)) && existsSync(join(task, 'api_conversation_history.json'))) return [clineSource(task)];
    const root = dirname(dirname(dirname(path)));
    if (path.endsWith('.json') && basename(dirname(dirname(path))) === 'session' && isOpencodeRoot(root)) return [opencodeSource(root, path)];
    checkFileSize(stat.size);
    return [{ fileName: path, chunks: () => createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 }) as AsyncIterable<string> }];
  }
  if (!stat.isDirectory()) throw new UnsupportedFormatError(`${path} is neither a regular file nor a folder`, []);
  if (existsSync(join(path, 'api_conversation_history.json'))) return [clineSource(path)];
  const root = isOpencodeRoot(path) ? path : isOpencodeRoot(join(path, 'storage')) ? join(path, 'storage') : undefined;
  if (root !== undefined) {
    const sessions = jsonFiles(join(root, 'session')).flatMap((project) => (statSync(project).isDirectory() ? jsonFiles(project) : []));
    if (sessions.length === 0) throw new UnsupportedFormatError(`${path} is an opencode storage folder with no session files (session/<project>/<id>.json)`, ['opencode']);
    return sessions.map((file) => opencodeSource(root, file));
  }
  throw new UnsupportedFormatError(
    `${path} is a folder, but not a Cline / Roo Code task folder (no api_conversation_history.json) nor an opencode storage folder (no session/ and message/)`,
    ['cline', 'opencode'],
  );
}

/** An id a file names, when it is safe as a folder name (never `..` or a path); else undefined. */
function safeName(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' && /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/.test(value) ? value : undefined;
}

function isOpencodeRoot(dir: string): boolean {
  return existsSync(join(dir, 'session')) && existsSync(join(dir, 'message'));
}

/** Entries of a folder in name order (files ending in .json, or every entry when `all`); none when it does not exist. */
function jsonFiles(dir: string, all = true): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => all || name.endsWith('.json'))
    .sort()
    .map((name) => join(dir, name));
}

function readJson(file: string): JsonValue {
  checkFileSize(statSync(file).size);
  const text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw new SessionCorruptionError('(file)', undefined, `${file} is not JSON (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
}

function entry(format: FolderFormat, folder: string, path: string, file: string): string {
  return folderEntryLine({ format, folder, path, value: readJson(file) });
}

function clineSource(task: string): ImportSource {
  const folder = basename(task);
  return {
    fileName: folder,
    *chunks() {
      for (const name of CLINE_FILES) if (existsSync(join(task, name))) yield entry('cline', folder, name, join(task, name));
    },
  };
}

function opencodeSource(root: string, sessionFile: string): ImportSource {
  const folder = basename(root);
  return {
    fileName: basename(sessionFile),
    *chunks() {
      const session = readJson(sessionFile);
      const id = safeName(isObject(session) ? session['id'] : undefined) ?? basename(sessionFile, '.json');
      yield folderEntryLine({ format: 'opencode', folder, path: `session/${basename(dirname(sessionFile))}/${basename(sessionFile)}`, value: session });
      for (const messageFile of jsonFiles(join(root, 'message', id), false)) {
        const message = readJson(messageFile);
        const messageId = safeName(isObject(message) ? message['id'] : undefined) ?? basename(messageFile, '.json');
        yield folderEntryLine({ format: 'opencode', folder, path: `message/${id}/${basename(messageFile)}`, value: message });
        for (const partFile of jsonFiles(join(root, 'part', messageId), false)) yield entry('opencode', folder, `part/${messageId}/${basename(partFile)}`, partFile);
      }
    },
  };
}
