/**
 * sessions.db (issue 8): created user-only, an existing loose file restricted, and a file that is
 * not an SQLite database refused before SQLite touches it — its bytes never change.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreError } from '../../../shared/errors.js';
import { prepareDataFolder } from '../../../electron/host/data-folder.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';

const dir = mkdtempSync(join(tmpdir(), 'forkline-dbfile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sessions.db and the data folder', () => {
  it('are user-only whether new or existing', () => {
    const folder = join(dir, 'data');
    prepareDataFolder(folder);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    chmodSync(folder, 0o755);
    prepareDataFolder(folder);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    const fresh = join(folder, 'fresh.db');
    new SqliteSessionStore(fresh).close();
    expect(statSync(fresh).mode & 0o777).toBe(0o600);
    chmodSync(fresh, 0o644);
    new SqliteSessionStore(fresh).close();
    expect(statSync(fresh).mode & 0o777).toBe(0o600);
  });

  it('a file that is not SQLite, or a damaged one, is refused with STORE_UNREADABLE and left as it is', () => {
    const samples = [Buffer.from('{"sessions": []}\n'), Buffer.from('SQLite'), Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), Buffer.alloc(4080, 0xab)])];
    for (const [i, bytes] of samples.entries()) {
      const file = join(dir, `bad-${i}.db`);
      writeFileSync(file, bytes);
      let error: unknown;
      try {
        new SqliteSessionStore(file).close();
      } catch (e) {
        error = e;
      }
      expect(error, `sample ${i}`).toBeInstanceOf(StoreError);
      expect((error as StoreError).code).toBe('STORE_UNREADABLE');
      expect(readFileSync(file).equals(bytes)).toBe(true);
    }
  });
});
