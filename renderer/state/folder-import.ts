/**
 * A session folder the person picked in the window (`<input type="file" webkitdirectory>`): a Cline /
 * Roo Code task folder, Cline's `tasks/` folder, or opencode's storage folder. Its JSON files are read
 * into memory, handed to the same reader the CLI uses (`shared/folder-sessions.ts`), and each session
 * becomes one {@link ImportableFile} of folder-entry lines, so the usual streamed import
 * (`state/file-import.ts`) takes it from there.
 */
import { ForklineError, UnsupportedFormatError } from '../../shared/errors.js';
import { folderSessionSources, type FolderTree } from '../../shared/folder-sessions.js';
import type { ImportableFile } from './file-import.js';

/** What the import needs of a picked file: its path inside the picked folder (starting with the folder's name) and its text. */
export interface PickedFile {
  /** `File.webkitRelativePath`: `<picked folder>/<path inside it>`, `/`-separated. */
  readonly webkitRelativePath: string;
  readonly size: number;
  text(): Promise<string>;
}

/** Most bytes of JSON read from one picked folder (the CLI's per-file cap is 256 MiB; a folder's files are held at once here). */
export const MAX_FOLDER_BYTES = 256 * 1024 * 1024;

/**
 * The sessions in a picked folder, each as a file of folder-entry lines named like the CLI names it.
 * Only `.json` files are read.
 * @throws UnsupportedFormatError when the files are not one picked folder or hold no session of a folder
 *   format; a ForklineError IMPORT_LIMIT_EXCEEDED above {@link MAX_FOLDER_BYTES}; SessionCorruptionError naming a file that is not JSON.
 */
export async function folderImportFiles(files: readonly PickedFile[]): Promise<ImportableFile[]> {
  const roots = new Set(files.map((f) => f.webkitRelativePath.split('/')[0] ?? ''));
  if (files.length === 0 || roots.size !== 1 || roots.has('')) {
    throw new UnsupportedFormatError("pick one folder: a Cline / Roo Code task folder, Cline's tasks folder, or opencode's storage folder", ['cline', 'opencode']);
  }
  const name = [...roots][0]!;
  const json = files.filter((f) => f.webkitRelativePath.endsWith('.json'));
  const bytes = json.reduce((sum, f) => sum + f.size, 0);
  if (bytes > MAX_FOLDER_BYTES) {
    throw new ForklineError(
      'IMPORT_LIMIT_EXCEEDED',
      `the folder's JSON files are ${Math.round(bytes / 1024 / 1024)} MiB; a folder picked in the window may hold at most ${MAX_FOLDER_BYTES / 1024 / 1024} MiB (import larger ones with forkline import FOLDER)`,
    );
  }
  const texts = new Map<string, string>();
  await Promise.all(json.map(async (f) => texts.set(f.webkitRelativePath.slice(name.length + 1), await f.text())));
  const tree = pickedTree(
    name,
    files.map((f) => f.webkitRelativePath.slice(name.length + 1)),
    texts,
  );
  return folderSessionSources(tree).map((source) => {
    const blob = new Blob([...source.chunks()], { type: 'application/x-ndjson' });
    return { name: source.fileName, size: blob.size, slice: (start: number, end: number) => blob.slice(start, end) };
  });
}

/** The picked files as a {@link FolderTree}: folders are the prefixes of the files' paths. */
function pickedTree(name: string, paths: readonly string[], texts: ReadonlyMap<string, string>): FolderTree {
  const children = new Map<string, Set<string>>();
  const filesSet = new Set(paths);
  for (const path of paths) {
    const parts = path.split('/');
    for (let i = 0; i < parts.length; i++) {
      const parent = parts.slice(0, i).join('/');
      let set = children.get(parent);
      if (!set) children.set(parent, (set = new Set()));
      set.add(parts[i]!);
    }
  }
  return {
    name,
    exists: (path) => filesSet.has(path) || children.has(path),
    isFolder: (path) => children.has(path),
    list: (path) => [...(children.get(path) ?? [])],
    readText: (path) => {
      const text = texts.get(path);
      if (text === undefined) throw new UnsupportedFormatError(`${name}/${path} could not be read`, []);
      return text;
    },
    describe: (path) => (path === '' ? name : `${name}/${path}`),
  };
}
