/**
 * The session store alone, for commands that only read sessions (`ls`, `show`, `export`): the
 * SQLite store and the repository (with the same crash recovery on load as everywhere else), but
 * none of the agent, model client, tools or MCP code — so these commands start at once.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { InvariantMode } from '../session/session.js';
import { SessionRepository } from '../store/session-repository.js';
import { SqliteSessionStore } from '../store/sqlite-session-store.js';

export interface StoredSessions {
  readonly repository: SessionRepository;
  /** Persists what loading repaired and closes the store. */
  close(): Promise<void>;
}

/** Opens `<dataDir>/sessions.db` (creating the folder), as `createRuntime` does. */
export function openStoredSessions(dataDir: string, env: { readonly [name: string]: string | undefined } = process.env): StoredSessions {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const store = new SqliteSessionStore(join(dataDir, 'sessions.db'));
  const invariants: InvariantMode = env['FORKLINE_INVARIANTS'] === 'off' ? 'off' : 'enforce';
  const repository = new SessionRepository(store, { newId: randomUUID, invariants });
  return {
    repository,
    close: async () => {
      await repository.releaseAll();
      repository.dispose();
      store.close();
    },
  };
}
