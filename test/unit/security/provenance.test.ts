/**
 * Provenance (issue 8): only events this installation recorded are used to act. The trusted tail
 * of a log along its fork lineage, on a real SQLite store.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { exportJsonl } from '../../../electron/session/jsonl.js';
import { SessionRepository } from '../../../electron/store/session-repository.js';
import { recordedHereFrom } from '../../../electron/store/session-provenance.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { buildSession, tempDir } from '../../support/store-fixtures.js';
import { importJsonl } from '../../../electron/host/services/session-imports.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

function repository(): SessionRepository {
  const tmp = tempDir('forkline-prov-');
  const store = new SqliteSessionStore(tmp.file('sessions.db'));
  let n = 0;
  const repo = new SessionRepository(store, { newId: () => `id${++n}` });
  cleanup = () => {
    repo.dispose();
    store.close();
    tmp.dispose();
  };
  return repo;
}

describe('recordedHereFrom', () => {
  it('native: all; imported: none; a fork: its own events plus what its parent recorded here', async () => {
    const repo = repository();
    const native = buildSession('native', 2, 2, { cwd: '/w' });
    repo.store.createSession(native.header, native.events);
    const shared = buildSession('shared', 2, 2, { cwd: '/elsewhere' });
    const imported = importJsonl(repo, exportJsonl(shared.header, shared.events)).id;
    expect(recordedHereFrom(repo, 'native')).toBe(0);
    expect(recordedHereFrom(repo, imported)).toBe(Number.POSITIVE_INFINITY);
    expect(recordedHereFrom(repo, 'missing')).toBe(Number.POSITIVE_INFINITY);

    const nativeChild = await repo.fork('native');
    expect(recordedHereFrom(repo, nativeChild.header.id)).toBe(0);
    const importedChild = await repo.fork(imported);
    const seed = importedChild.header.seedLength!;
    expect(recordedHereFrom(repo, importedChild.header.id)).toBe(seed);
    // A grandchild forked inside the inherited prefix trusts nothing of it.
    const grandchild = await repo.fork(importedChild.header.id, seed - 1);
    expect(recordedHereFrom(repo, grandchild.header.id)).toBe(seed);
    // The imported folder is never inherited; a named one is.
    expect(importedChild.header.cwd).toBeUndefined();
    expect(nativeChild.header.cwd).toBe('/w');
    expect((await repo.fork(imported, undefined, 'chosen', { cwd: '/mine' })).header.cwd).toBe('/mine');
  });

  it('a parent that no longer exists counts as untrusted', async () => {
    const repo = repository();
    const native = buildSession('p', 1, 2, { cwd: '/w' });
    repo.store.createSession(native.header, native.events);
    const child = await repo.fork('p');
    repo.delete('p');
    expect(recordedHereFrom(repo, child.header.id)).toBe(child.header.seedLength);
  });
});
