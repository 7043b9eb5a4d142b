/**
 * Folder listing for the browser-mode workspace picker (the desktop app uses a native dialog).
 */
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { FolderListing } from '../../shared/api.js';
import { ForklineError } from '../../shared/errors.js';

/**
 * Lists the sub-folders of `path` (default: the home folder), sorted, hidden ones last.
 * @throws ForklineError NOT_A_FOLDER when the path does not exist or is not a folder.
 */
export function listFolders(path: string | undefined): FolderListing {
  let real: string;
  try {
    real = realpathSync(path && path.trim() !== '' ? path : homedir());
    if (!statSync(real).isDirectory()) throw new Error('not a folder');
  } catch {
    throw new ForklineError('NOT_A_FOLDER', `${path} is not a folder`);
  }
  let names: string[] = [];
  try {
    names = readdirSync(real, { withFileTypes: true })
      .filter((d) => d.isDirectory() || (d.isSymbolicLink() && isDir(join(real, d.name))))
      .map((d) => d.name)
      .sort((a, b) => Number(a.startsWith('.')) - Number(b.startsWith('.')) || a.localeCompare(b));
  } catch {
    // Unreadable folder: list nothing, the picker still shows where we are.
  }
  const parent = dirname(real);
  return { path: real, ...(parent !== real ? { parent } : {}), folders: names };
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
