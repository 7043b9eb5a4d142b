/**
 * The session store alone, for commands that only read sessions (`ls`, `show`, `export`): the
 * SQLite store and the repository (with the same crash recovery on load as everywhere else), but
 * none of the agent, model client, tools or MCP code — so these commands start at once.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { prepareDataFolder } from '../host/data-folder.js';
import type { InvariantMode } from '../session/session.js';
import { SessionRepository } from '../store/session-repository.js';
import { SqliteSessionStore } from '../store/sqlite-session-store.js';

export interface StoredSessions {
  readonly repository: SessionRepository;
  /** Persists what loading repaired and closes the store. */
  close(): Promise<void>;
}

/**
 * Opens `<dataDir>/sessions.db` (creating the folder, user-only), as `createRuntime` does.
 * @throws ForklineError DATA_DIR_UNSAFE; StoreError STORE_UNREADABLE / SCHEMA_UNSUPPORTED for a bad `sessions.db`.
 */
export function openStoredSessions(dataDir: string, env: { readonly [name: string]: string | undefined } = process.env): StoredSessions {
  prepareDataFolder(dataDir);
  const store = new SqliteSessionStore(join(dataDir, 'sessions.db'));
  const invariants: InvariantMode = env['FORKLINE_INVARIANTS'] === 'off' ? 'off' : 'enforce';
  const repository = new SessionRepository(store, { newId: randomUUID, invariants, illFormedText: env['FORKLINE_INVARIANTS'] === 'enforce' ? 'reject' : 'repair' });
  return {
    repository,
    close: async () => {
      await repository.releaseAll();
      repository.dispose();
      store.close();
    },
  };
}
