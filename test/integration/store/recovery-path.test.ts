/**
 * One recovery path (docs/architecture.md §8; issue 10): right after a crash (a real child process SIGKILLed
 * inside a tool body, real SQLite file), whatever reads the session first — show (load), export,
 * fork, compare, resume, the UI's subscribe, or an import of the unrepaired log — closes it the
 * same way, once: the stored log is byte-identical whichever path came first, and reading it again
 * through any other path adds nothing. Crash recovery also ends a process the crashed tool left
 * running when it is provably the logged one (pid + start time), and leaves a reused pid alone.
 */
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../shared/events.js';
import { createRuntime, type Runtime } from '../../../electron/host/runtime.js';
import { isPidAlive, processStart } from '../../../electron/platform/process-identity.js';
import { exportJsonl } from '../../../electron/session/jsonl.js';
import { Session } from '../../../electron/session/session.js';
import { SessionRepository } from '../../../electron/store/session-repository.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { killHard, spawnTsx, waitForFile } from '../../support/crash-harness.js';
import { AgentLogWriter, header, serializeAll, steppingClock, tempDir } from '../../support/store-fixtures.js';
import { importJsonl } from '../../../electron/host/services/session-imports.js';

const tmp = tempDir('forkline-recovery-path-');
afterAll(() => tmp.dispose());

const ID = 'crashed';
let crashedDb: string;
let storedAtCrash: number;
/** The log as the first-ever load recovered it (reference). */
let reference: readonly SessionEvent[];

beforeAll(async () => {
  crashedDb = tmp.file('crashed.db');
  const marker = tmp.file('crashed.marker');
  const child = spawnTsx('test/support/crash-child.ts', [crashedDb, ID, 'mixed', marker]);
  await waitForFile(marker, child);
  await killHard(child);
  // Fold the WAL into the file so a plain copy holds everything committed.
  const raw = new Database(crashedDb);
  raw.pragma('wal_checkpoint(TRUNCATE)');
  raw.close();
  const copy = fresh('reference');
  const store = new SqliteSessionStore(copy);
  storedAtCrash = store.get(ID)!.eventCount;
  reference = new SessionRepository(store, { newId: () => 'x' }).load(ID).events;
  store.close();
  expect(reference.length).toBe(storedAtCrash + 4);
}, 60_000);

/** A fresh copy of the crashed file in its own data folder. */
function fresh(name: string): string {
  const dir = tmp.file(name);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'sessions.db');
  copyFileSync(crashedDb, file);
  return file;
}

function runtimeOn(file: string): Runtime {
  return createRuntime({ dataDir: join(file, '..'), env: { FORKLINE_CHECKPOINTS: 'off' } });
}

/** After the first reader, the store holds exactly the reference log, and any later read adds nothing. */
function expectRecoveredOnce(file: string): void {
  const store = new SqliteSessionStore(file);
  try {
    expect(serializeAll(store.readAll(ID))).toEqual(serializeAll(reference));
    const repository = new SessionRepository(store, { newId: () => 'y' });
    expect(repository.load(ID).repaired).toBe(0);
    expect(repository.exportJsonl(ID)).toBe(exportJsonl(store.get(ID)!.header, reference));
    expect(store.get(ID)!.eventCount).toBe(reference.length);
  } finally {
    store.close();
  }
}

describe('one recovery path', () => {
  const firstReaders: Record<string, (file: string) => Promise<void>> = {
    'show (load)': async (file) => {
      const store = new SqliteSessionStore(file);
      expect(new SessionRepository(store, { newId: () => 'x' }).load(ID).repaired).toBe(4);
      store.close();
    },
    export: async (file) => {
      const store = new SqliteSessionStore(file);
      const text = new SessionRepository(store, { newId: () => 'x' }).exportJsonl(ID);
      // The export itself carries the closers (it never writes an open turn).
      expect(text).toBe(exportJsonl(store.get(ID)!.header, reference));
      store.close();
    },
    'fork (repository)': async (file) => {
      const store = new SqliteSessionStore(file);
      const child = await new SessionRepository(store, { newId: () => 'child' }).fork(ID);
      expect(child.header.seedLength).toBe(reference.length);
      store.close();
    },
    'fork (host API)': async (file) => {
      const runtime = runtimeOn(file);
      const connection = runtime.host.connect(() => undefined);
      const child = await connection.forkSession({ sessionId: ID });
      expect(child.seedLength).toBe(reference.length);
      await runtime.close();
    },
    'compare (host API)': async (file) => {
      const runtime = runtimeOn(file);
      const result = await runtime.host.connect(() => undefined).compareSessions({ a: ID, b: ID, files: false });
      expect(result.commonLength).toBe(reference.length);
      await runtime.close();
    },
    'open in the UI (subscribe)': async (file) => {
      const runtime = runtimeOn(file);
      const view = runtime.host.connect(() => undefined).subscribeSession({ sessionId: ID, fromSeq: 0 });
      expect(serializeAll(view.events)).toEqual(serializeAll(reference));
      expect(view.notices.join(' ')).toContain('4 closing event(s) were added');
      await runtime.close();
    },
    resume: async (file) => {
      const store = new SqliteSessionStore(file);
      const repository = new SessionRepository(store, { newId: () => 'x' });
      const live = repository.resume(ID);
      expect(serializeAll(live.session.events.slice(0, reference.length))).toEqual(serializeAll(reference));
      await live.release();
      store.close();
    },
  };

  for (const [path, read] of Object.entries(firstReaders)) {
    it(`${path} first: closed once, exactly like every other path`, async () => {
      const file = fresh(path.replace(/\W+/g, '-'));
      await read(file);
      if (path === 'resume') {
        const store = new SqliteSessionStore(file);
        // Resume adds its own lifecycle events after the same closers.
        expect(serializeAll(store.readAll(ID).slice(0, reference.length))).toEqual(serializeAll(reference));
        expect(new SessionRepository(store, { newId: () => 'y' }).load(ID).repaired).toBe(0);
        store.close();
      } else {
        expectRecoveredOnce(file);
      }
    });
  }

  it('import of the unrepaired log closes it the same way, once', () => {
    const source = new SqliteSessionStore(fresh('import-source'));
    const raw = exportJsonl(source.get(ID)!.header, source.readAll(ID));
    expect(source.get(ID)!.eventCount).toBe(storedAtCrash);
    source.close();
    const store = new SqliteSessionStore(tmp.file('imported.db'));
    try {
      const repository = new SessionRepository(store, { newId: () => 'imported' });
      const result = importJsonl(repository, raw, 'crashed.jsonl');
      expect(result.warnings.join('\n')).toContain('closed it as interrupted (4 closing events)');
      const imported = store.readAll(result.id);
      expect(serializeAll(imported)).toEqual(serializeAll(reference));
      expect(repository.load(result.id).repaired).toBe(0);
    } finally {
      store.close();
    }
  });
});

describe('processes a crashed tool left behind', () => {
  it('are ended when provably the logged process (pid + start time); a reused pid is left alone', async () => {
    const ours = spawn('sleep', ['60'], { stdio: 'ignore', detached: true });
    const stranger = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      while (processStart(ours.pid!) === undefined || processStart(stranger.pid!) === undefined) await new Promise((r) => setTimeout(r, 5));
      const s = new Session({ header: header('left'), now: steppingClock() });
      const w = new AgentLogWriter(s);
      w.inboxInsert('go');
      w.turnStart();
      w.claim();
      w.stepStart();
      w.user('go');
      w.assistantMessage(
        w.stream({
          toolCalls: [
            { id: 'c1', name: 'bash', args: ['{}'] },
            { id: 'c2', name: 'bash', args: ['{}'] },
          ],
        }),
      );
      w.toolCall('c1', 'bash', '{}');
      s.append({ type: 'tool/process', data: { turn: 1, step: 1, callId: 'c1', pid: ours.pid!, pgid: ours.pid!, start: processStart(ours.pid!)! } });
      w.toolCall('c2', 'bash', '{}');
      // c2's record names the stranger's pid with another start time: the pid was reused.
      s.append({ type: 'tool/process', data: { turn: 1, step: 1, callId: 'c2', pid: stranger.pid!, start: 'linux:an-earlier-boot:1' } });
      const store = new SqliteSessionStore(tmp.file('left.db'));
      store.createSession(s.header, s.events);
      const repository = new SessionRepository(store, { newId: () => 'x' });
      const loaded = repository.load('left');
      expect(loaded.leftovers).toEqual([{ callId: 'c1', pid: ours.pid, pgid: ours.pid, start: processStart(ours.pid!) ?? expect.any(String), outcome: 'ended' }]);
      await new Promise((r) => ours.once('exit', r));
      expect(isPidAlive(ours.pid!)).toBe(false);
      expect(isPidAlive(stranger.pid!)).toBe(true);
      // Once closed, nothing more happens on later loads.
      expect(repository.load('left')).toMatchObject({ repaired: 0, leftovers: [] });
      store.close();
    } finally {
      ours.kill('SIGKILL');
      stranger.kill('SIGKILL');
    }
  });
});
