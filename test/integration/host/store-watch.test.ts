/**
 * Sessions written by another process show up in an open window without a reload: the host looks
 * at the store's data version (SQLite `PRAGMA data_version`) and tells every window to refresh its
 * session list when another connection committed — here a second real connection to the same
 * file, as `forkline import` or `forkline run` beside an open window would be.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostPush } from '../../../shared/api.js';
import type { HostConnection } from '../../../electron/host/host-connection.js';
import { createRuntime, type Runtime } from '../../../electron/host/runtime.js';
import { SessionRepository } from '../../../electron/store/session-repository.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { waitFor } from '../../support/agent-harness.js';
import { AGENT_LOGS } from '../../support/import-fixtures.js';
import { importText } from '../../../electron/host/services/session-imports.js';

let dir: string;
let runtime: Runtime;
let connection: HostConnection;
const pushes: HostPush[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'forkline-store-watch-'));
  runtime = createRuntime({ dataDir: join(dir, 'data'), env: { FORKLINE_CHECKPOINTS: 'off' }, storeWatchMs: 40 });
  connection = runtime.host.connect((push) => pushes.push(push));
});
afterAll(async () => {
  connection.dispose();
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
});

const listChanges = (): number => pushes.filter((p) => p.kind === 'sessions/changed').length;

describe('sessions written by another process', () => {
  it('make the host tell its windows to refresh the list; the list then holds them', async () => {
    // Let the watch take its first look, then nothing changes: no push.
    await new Promise((r) => setTimeout(r, 200));
    const quiet = listChanges();
    await new Promise((r) => setTimeout(r, 200));
    expect(listChanges()).toBe(quiet);
    expect(connection.listSessions()).toEqual([]);
    // Another process imports a log into the same store file.
    const other = new SqliteSessionStore(join(dir, 'data', 'sessions.db'));
    const summary = importText(
      new SessionRepository(other, { newId: () => 'other-1' }),
      readFileSync(join(AGENT_LOGS, 'claude-code', 'cc_hello-world-script.jsonl'), 'utf8'),
      'cc_hello-world-script.jsonl',
    );
    other.close();
    await waitFor(() => listChanges() > quiet, 3_000);
    expect(connection.listSessions().map((s) => s.id)).toEqual([summary.sessionId]);
  });
});
