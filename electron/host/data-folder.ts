/**
 * The data folder is private to the user (docs/security.md: other local users): it holds every session
 * log, settings and encrypted keys. It is made user-only (0700) whether it is created now or
 * existed already, and a folder owned by another user is refused (someone could have created it
 * in advance to read or plant our files). POSIX only; on Windows the folder inherits the ACL of
 * the user's profile.
 */
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { ForklineError } from '../../shared/errors.js';

/**
 * Creates `dir` (and parents) if needed and makes it user-only.
 * @throws ForklineError DATA_DIR_UNSAFE when it is not a folder or belongs to another user.
 */
export function prepareDataFolder(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return;
  const stat = statSync(dir);
  if (!stat.isDirectory()) throw new ForklineError('DATA_DIR_UNSAFE', `the data folder ${dir} is not a folder`);
  const uid = process.getuid?.();
  if (uid !== undefined && uid !== 0 && stat.uid !== uid) {
    throw new ForklineError('DATA_DIR_UNSAFE', `the data folder ${dir} belongs to another user (uid ${stat.uid}); choose a folder of your own with --data-dir or FORKLINE_DATA_DIR`);
  }
  if ((stat.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}
