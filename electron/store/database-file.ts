/**
 * The SQLite file before it is opened (docs/security.md): created user-only (0600) — SQLite gives its `-wal`
 * and `-shm` files the database file's permissions — and an existing file (from an older build,
 * or copied in) restricted the same way. A file that is not an SQLite database is refused before
 * SQLite touches it, so it is never overwritten or converted.
 */
import { chmodSync, closeSync, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import { StoreError } from '../../shared/errors.js';

/** The 16-byte header every SQLite 3 database file starts with (https://www.sqlite.org/fileformat.html §1.3). */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/** Files SQLite keeps beside the database. */
const COMPANION_SUFFIXES = ['-wal', '-shm', '-journal'] as const;

/**
 * Creates `file` empty with mode 0600 when it is missing, restricts it (and its companions) to
 * 0600 when it exists, and checks that a non-empty file is an SQLite database.
 * @throws StoreError STORE_UNREADABLE when the file is not an SQLite database (it is left as it is).
 */
export function prepareDatabaseFile(file: string): void {
  if (file === ':memory:' || file === '' || file.startsWith('file:')) return;
  // O_RDWR|O_APPEND|O_CREAT: creates the file if missing, never truncates or writes an existing one.
  const fd = openSync(file, 'a+', 0o600);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new StoreError('STORE_UNREADABLE', `${file} is not a regular file`);
    if (stat.size > 0) {
      const head = Buffer.alloc(SQLITE_HEADER.length);
      const read = readSync(fd, head, 0, head.length, 0);
      if (read < head.length || !head.equals(SQLITE_HEADER)) {
        throw new StoreError(
          'STORE_UNREADABLE',
          `${file} is not an SQLite database (its first bytes are not "SQLite format 3"); it was left untouched. Move it aside (e.g. rename it to sessions.db.broken) to start with an empty store, or point --data-dir elsewhere.`,
        );
      }
    }
    if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) chmodSync(file, 0o600);
  } finally {
    closeSync(fd);
  }
  if (process.platform === 'win32') return;
  for (const suffix of COMPANION_SUFFIXES) {
    try {
      const stat = lstatSync(file + suffix);
      if (stat.isFile() && (stat.mode & 0o077) !== 0) chmodSync(file + suffix, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}
