/**
 * Session ownership with real processes and a real SQLite file (docs/architecture.md §7; issue 10):
 * - an owner identity a recycled pid cannot fake (pid + process start time + host);
 * - the schema-2 → 3 migration of a real v2 file, whose bare pid marks stay judged sensibly;
 * - a session whose owner record names a live *unrelated* process resumes without --take-over,
 *   and the takeover is logged;
 * - a live owner gives SESSION_LIVE saying where it runs; a forced take-over works, and the old
 *   owner's next append fails with STALE_APPEND instead of interleaving;
 * - 100 claims of one session by two processes at the same instant never both succeed.
 */
import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ForklineError } from '../../../shared/errors.js';
import { eventsOfType, type SessionEvent } from '../../../shared/events.js';
import { currentProcessIdentity, processStart, processStartedAtMs } from '../../../electron/platform/process-identity.js';
import { Session } from '../../../electron/session/session.js';
import { SessionRepository } from '../../../electron/store/session-repository.js';
import { ownerState } from '../../../electron/store/session-ownership.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../../electron/store/migrations/index.js';
import { APPLICATION_ID } from '../../../electron/store/sql.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { spawnTsx, waitForLine } from '../../support/crash-harness.js';
import { AgentLogWriter, header, serializeAll, steppingClock, tempDir } from '../../support/store-fixtures.js';

const tmp = tempDir('forkline-owner-');
afterAll(() => tmp.dispose());

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** An unrelated live process (not a Forkline): `sleep`. */
async function unrelatedProcess(): Promise<ChildProcess> {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  started.push(child);
  while (processStart(child.pid!) === undefined) await new Promise((r) => setTimeout(r, 5));
  return child;
}

/** A stored session with one completed turn. */
function storedSession(store: SqliteSessionStore, id: string): SessionEvent[] {
  const s = new Session({ header: header(id), now: steppingClock() });
  new AgentLogWriter(s).completedTurn('first', 3);
  store.createSession(s.header, s.events);
  return [...s.events];
}

describe('owner identity', () => {
  const self = currentProcessIdentity();

  it('names this process by pid, start time and host, and a pid alone never passes for a process that started later', async () => {
    expect(self.pid).toBe(process.pid);
    expect(self.host).toBe(hostname());
    expect(self.start).toMatch(/^linux:[0-9a-f-]+:\d+$/);
    const sleeper = await unrelatedProcess();
    const pid = sleeper.pid!;
    const start = processStart(pid)!;
    const since = Date.now();
    // The record of the process itself: live.
    expect(ownerState({ pid, start, host: self.host, since, token: 't' }, self).kind).toBe('live');
    // Same pid, another start time (the pid was handed to another process): dead, pid reused.
    expect(ownerState({ pid, start: `${start}0`, host: self.host, since, token: 't' }, self)).toMatchObject({ kind: 'dead', reason: 'pid-reused' });
    // A schema-2 mark (no start) claimed before the process started: that process cannot be its owner.
    const processStartedAt = processStartedAtMs(pid)!;
    expect(ownerState({ pid, since: processStartedAt - 60_000 }, self)).toMatchObject({ kind: 'dead', reason: 'pid-reused' });
    // …claimed after it started: it may be the owner, so it counts as live.
    expect(ownerState({ pid, since: processStartedAt + 60_000 }, self).kind).toBe('live');
    // Another host cannot be checked from here: live.
    expect(ownerState({ pid: 1, start: 'x', host: `${self.host}-other`, since, token: 't' }, self).kind).toBe('live');
    // This very process: self. An earlier process with our pid but another start: dead.
    expect(ownerState({ ...self, since, token: 't' }, self).kind).toBe('self');
    expect(ownerState({ ...self, start: 'linux:old-boot:1', since, token: 't' }, self)).toMatchObject({ kind: 'dead', reason: 'pid-reused' });
    sleeper.kill('SIGKILL');
    await new Promise((r) => sleeper.once('exit', r));
    expect(ownerState({ pid, start, host: self.host, since, token: 't' }, self)).toMatchObject({ kind: 'dead', reason: 'exited' });
  });
});

describe('schema 2 → 3', () => {
  it('migrates a real v2 file: sessions, events and bare pid marks survive; a mark naming a later-started live process is stale', async () => {
    const file = tmp.file('v2.db');
    const v2 = new Database(file);
    v2.exec(MIGRATIONS[1]!.sql);
    v2.exec(MIGRATIONS[2]!.sql);
    v2.pragma('user_version = 2');
    v2.pragma(`application_id = ${APPLICATION_ID}`);
    v2.close();
    const updatedAt = Date.now() - 120_000;
    const s = new Session({ header: header('old'), now: steppingClock() });
    new AgentLogWriter(s).completedTurn('from the old version', 3);
    const raw = new Database(file);
    raw.prepare('INSERT INTO sessions (id, version, created_at, updated_at, event_count, owner_pid) VALUES (?, 0, 1, ?, ?, ?)').run('old', updatedAt, s.length, null);
    const insert = raw.prepare('INSERT INTO events (session_id, seq, last_seq, type, time, data, surface_op, source_event_seqs) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    for (const e of s.events) {
      insert.run(
        'old',
        e.seq,
        e.seq,
        e.type,
        e.time,
        JSON.stringify(e.data),
        e.surfaceOp === undefined ? null : JSON.stringify(e.surfaceOp),
        e.sourceEventSeqs === undefined ? null : JSON.stringify(e.sourceEventSeqs),
      );
    }
    // Its owner pid now belongs to an unrelated process that started after the mark was written
    // (what a reboot does): the v2 build reported it "held by another running Forkline" forever.
    const sleeper = await unrelatedProcess();
    raw.prepare('UPDATE sessions SET owner_pid = ? WHERE id = ?').run(sleeper.pid, 'old');
    raw.close();

    const store = new SqliteSessionStore(file);
    try {
      const check = new Database(file, { readonly: true });
      expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(3);
      check.close();
      const record = store.get('old')!;
      expect(record.owner).toEqual({ pid: sleeper.pid, since: updatedAt });
      expect(serializeAll(store.readAll('old'))).toEqual(serializeAll(s.events));
      const repository = new SessionRepository(store, { newId: () => 'x' });
      expect(repository.isOwnedElsewhere(record)).toBe(false);
      const live = repository.resume('old');
      const takeover = eventsOfType(live.session.events, 'session/takeover');
      expect(takeover.map((e) => e.data)).toEqual([{ previous: { pid: sleeper.pid, since: updatedAt }, reason: 'pid-reused' }]);
      await live.release();
      expect(store.get('old')!.owner).toBeUndefined();
    } finally {
      store.close();
    }
  });
});

describe('claims', () => {
  it('a session whose owner record names a live unrelated process resumes without --take-over, logging the takeover', async () => {
    const store = new SqliteSessionStore(tmp.file('unrelated.db'));
    try {
      const before = storedSession(store, 'stale');
      const sleeper = await unrelatedProcess();
      // The record names the pid with the start time its Forkline had: not the sleep's.
      store.setOwner('stale', { pid: sleeper.pid!, start: 'linux:an-earlier-boot:4242', host: hostname(), since: 1_700_000_000_000, token: 'old' });
      const repository = new SessionRepository(store, { newId: () => 'x' });
      expect(repository.isOwnedElsewhere(store.get('stale')!)).toBe(false);
      const live = repository.resume('stale');
      expect(live.session.events.slice(before.length).map((e) => e.type)).toEqual(['session/end-seed', 'session/takeover']);
      expect(live.session.events[before.length + 1]!.data).toEqual({
        previous: { pid: sleeper.pid, start: 'linux:an-earlier-boot:4242', host: hostname(), since: 1_700_000_000_000 },
        reason: 'pid-reused',
      });
      const owner = store.get('stale')!.owner!;
      expect(owner).toMatchObject({ pid: process.pid, start: currentProcessIdentity().start, host: hostname() });
      expect(owner.token).toMatch(/^[0-9a-f-]{36}$/);
      await live.release();
      expect(serializeAll(store.readAll('stale').slice(before.length))).toEqual(serializeAll(live.session.events.slice(before.length)));
      expect(store.get('stale')!.owner).toBeUndefined();
    } finally {
      store.close();
    }
  });

  it('a live owner elsewhere gives SESSION_LIVE saying where it runs; take-over works and the old owner then gets STALE_APPEND', async () => {
    const file = tmp.file('takeover.db');
    const control = tmp.file('takeover-control');
    (await import('node:fs')).mkdirSync(control);
    const store = new SqliteSessionStore(file);
    const before = storedSession(store, 'held');
    const owner = spawnTsx('test/support/owner-child.ts', [file, 'held', control]);
    started.push(owner.child);
    try {
      const holding = JSON.parse((await waitForLine(owner, /^holding/)).slice('holding '.length)) as { pid: number };
      expect(holding.pid).toBe(owner.child.pid);
      const repository = new SessionRepository(store, { newId: () => 'x' });
      expect(repository.isOwnedElsewhere(store.get('held')!)).toBe(true);
      let refused: unknown;
      try {
        repository.resume('held');
      } catch (error) {
        refused = error;
      }
      expect((refused as ForklineError).code).toBe('SESSION_LIVE');
      const message = (refused as Error).message;
      expect(message).toContain(`pid ${holding.pid}`);
      expect(message).toContain(`on ${hostname()}`);
      expect(message).toMatch(/since \d{4}-\d\d-\d\dT/);
      expect(message).toContain('--take-over');
      // Reading the session while it is held repairs nothing and writes nothing.
      const heldLength = store.get('held')!.eventCount;
      expect(repository.load('held')).toMatchObject({ ownedElsewhere: true, repaired: 0 });
      expect(store.get('held')!.eventCount).toBe(heldLength);

      const live = repository.resume('held', { takeOver: true });
      const note = eventsOfType(live.session.events, 'session/takeover');
      expect(note.map((e) => e.data)).toEqual([{ previous: expect.objectContaining({ pid: holding.pid, host: hostname() }), reason: 'forced' }]);
      await live.flush();
      const afterTakeover = store.get('held')!.eventCount;

      writeFileSync(join(control, 'append'), '1');
      const append = JSON.parse((await waitForLine(owner, /^append/)).slice('append '.length)) as { code: string };
      expect(append.code).toBe('STALE_APPEND');
      expect(await owner.exited).toEqual({ code: 0, signal: null });
      // Nothing of the old owner was interleaved, and its release did not clear our claim.
      expect(store.get('held')!.eventCount).toBe(afterTakeover);
      expect(store.readAll('held').some((e) => e.type === 'session/title')).toBe(false);
      expect(store.get('held')!.owner?.pid).toBe(process.pid);
      new AgentLogWriter(live.session).completedTurn('after the take-over', 2);
      await live.release();
      const final = store.readAll('held');
      expect(final.map((e) => e.seq)).toEqual(final.map((_, i) => i));
      expect(final.length).toBeGreaterThan(before.length);
    } finally {
      store.close();
    }
  }, 30_000);

  it('100 claims of one session by two processes at the same instant never both succeed', async () => {
    const file = tmp.file('race.db');
    const count = 100;
    const store = new SqliteSessionStore(file);
    for (let i = 0; i < count; i++) storedSession(store, `race-${i}`);
    store.close();
    const quit = tmp.file('race-quit');
    const at = Date.now() + 2500; // after both children have loaded
    const children = ['a', 'b'].map((name) => spawnTsx('test/support/claim-child.ts', [file, name, String(at), String(count), quit]));
    for (const c of children) started.push(c.child);
    const reports = (await Promise.all(children.map((c) => waitForLine(c, /^claims/, 60_000)))).map(
      (line) => JSON.parse(line.slice('claims '.length)) as { won: number[]; live: number[]; other: string[] },
    );
    writeFileSync(quit, '1');
    await Promise.all(children.map((c) => c.exited));
    for (const r of reports) expect(r.other).toEqual([]);
    const [a, b] = reports as [(typeof reports)[0], (typeof reports)[0]];
    for (let i = 0; i < count; i++) {
      const winners = Number(a.won.includes(i)) + Number(b.won.includes(i));
      expect(winners, `session race-${i}`).toBe(1);
      // The loser saw the winner as a live owner.
      expect(a.live.includes(i) || b.live.includes(i), `race-${i} loser`).toBe(true);
    }
    console.log(`claim race: a won ${a.won.length}, b won ${b.won.length}`);
    expect(existsSync(file)).toBe(true);
  }, 90_000);
});
