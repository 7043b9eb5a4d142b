/**
 * The session store contract (STYLE D5; reference runtime `runPersistenceContract`): one suite run
 * against every {@link SessionStore} implementation — the in-memory reference and SQLite on real
 * files. It covers the store itself, and the repository + write-behind + session stack over it
 * (append validation, batching, flush barriers, failures, fork, delete, resume, crash repair).
 *
 * Backends that can reach their own storage (SQLite) pass {@link RawStorage} so the suite can damage
 * committed rows with raw SQL and prove the damage is reported, never hidden.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SessionCorruptionError, SessionError, SessionForkError, StoreError } from '../../shared/errors.js';
import { KNOWN_EVENT_TYPES, type SessionEvent } from '../../shared/events.js';
import { Session } from '../../electron/session/session.js';
import { SessionRepository, type LiveSession } from '../../electron/store/session-repository.js';
import type { AppendOptions, SessionOwner, SessionStore } from '../../electron/store/session-store.js';
import { hostname } from 'node:os';
import type { ProcessProbe } from '../../electron/store/session-ownership.js';
import { AgentLogWriter, buildSession, everyEventTypeLog, header, serializeAll, steppingClock, withIgnorableUnknown } from './store-fixtures.js';

/** Direct access to a backend's storage, for damage and layout tests. */
export interface RawStorage {
  /** Number of stored rows of a session (packed runs count once). */
  rowCount(sessionId: string): number;
  /** Overwrites the stored data of the row that holds `seq` with text that is not JSON; returns the row's first seq. */
  corruptData(sessionId: string, seq: number): number;
  /** Deletes the row that holds `seq`. */
  deleteRow(sessionId: string, seq: number): void;
  /** Removes the event storage entirely (listing must not need it). */
  dropEvents(): void;
}

export interface StoreUnderTest {
  readonly store: SessionStore;
  readonly raw?: RawStorage;
  /** Closes the backend and opens the same storage again (a process restart); absent for memory. */
  reopen?(): SessionStore;
  dispose(): void;
}

/** A store decorator that counts append calls (each call is one transaction) and can fail on demand. */
export class InstrumentedStore implements SessionStore {
  appendCalls: number[] = [];
  /** Number of upcoming append calls that throw before reaching the real store. */
  failNext = 0;
  constructor(readonly inner: SessionStore) {}
  createSession(...args: Parameters<SessionStore['createSession']>): void {
    this.inner.createSession(...args);
  }
  append(sessionId: string, events: readonly SessionEvent[], options?: AppendOptions): void {
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error(`disk full (injected) while appending ${events.length} events`);
    }
    this.appendCalls.push(events.length);
    this.inner.append(sessionId, events, options);
  }
  readAll(id: string) {
    return this.inner.readAll(id);
  }
  readFrom(id: string, from: number) {
    return this.inner.readFrom(id, from);
  }
  readRange(id: string, from: number, to: number) {
    return this.inner.readRange(id, from, to);
  }
  get(id: string) {
    return this.inner.get(id);
  }
  list() {
    return this.inner.list();
  }
  children(id: string) {
    return this.inner.children(id);
  }
  setTitle(id: string, title: string | undefined): void {
    this.inner.setTitle(id, title);
  }
  setOwner(id: string, owner: SessionOwner | undefined): void {
    this.inner.setOwner(id, owner);
  }
  atomically<T>(fn: () => T): T {
    return this.inner.atomically(fn);
  }
  delete(id: string): void {
    this.inner.delete(id);
  }
  lastEventOfType(id: string, type: string, before: number) {
    return this.inner.lastEventOfType(id, type, before);
  }
  indexPendingSearch(maxEvents: number): boolean {
    return this.inner.indexPendingSearch(maxEvents);
  }
  externalVersion(): number {
    return this.inner.externalVersion();
  }
  search(query: Parameters<SessionStore['search']>[0]) {
    return this.inner.search(query);
  }
  close(): void {
    this.inner.close();
  }
}

function expectCode(fn: () => unknown, code: string): void {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `expected an error with code ${code}`).toBeDefined();
  expect((thrown as { code?: string }).code).toBe(code);
}

async function expectRejectCode(promise: Promise<unknown>, code: string): Promise<void> {
  let thrown: unknown;
  try {
    await promise;
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `expected a rejection with code ${code}`).toBeDefined();
  expect((thrown as { code?: string }).code).toBe(code);
}

function isDeepFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (!Object.isFrozen(value)) return false;
  return Object.values(value).every(isDeepFrozen);
}

/** Replays inbox splices from `fromSeq` and returns the ids still pending (agent inbox rule). */
export function pendingInbox(events: readonly SessionEvent[], fromSeq: number): string[] {
  const lists: Record<string, string[]> = { 'next-turn': [], 'next-step': [] };
  for (const event of events.slice(fromSeq)) {
    if (event.type !== 'agent/inbox/spliced') continue;
    const list = lists[event.data.target]!;
    list.splice(event.data.start, event.data.removedCount ?? 0, ...event.data.inserted.map((m) => m.id));
  }
  return [...lists['next-turn']!, ...lists['next-step']!];
}

export function runStoreContract(name: string, make: () => StoreUnderTest): void {
  const hasRaw = backendHasRaw(make);
  describe(`SessionStore contract: ${name}`, () => {
    let sut: StoreUnderTest;
    let store: SessionStore;
    let ids = 0;
    const newId = () => `s${++ids}`;
    const repo = (s: SessionStore = store, extra: Partial<ConstructorParameters<typeof SessionRepository>[1]> = {}) =>
      new SessionRepository(s, { newId, now: steppingClock(1_790_000_000_000, 1), ...extra });

    beforeEach(() => {
      sut = make();
      store = sut.store;
      ids = 0;
    });
    afterEach(() => {
      vi.useRealTimers();
      sut.dispose();
    });

    describe('round trip', () => {
      it('returns every event type byte-identical, including packed and unpacked chunk runs', () => {
        const session = everyEventTypeLog();
        const events = withIgnorableUnknown(session.events);
        const types = new Set(events.map((e) => e.type));
        for (const type of KNOWN_EVENT_TYPES) expect(types, `the log must contain ${type}`).toContain(type);
        store.createSession(header('every'), events);
        expect(serializeAll(store.readAll('every'))).toEqual(serializeAll(events));
        expect(store.readAll('every')).toEqual(events);
        expect(store.get('every')?.eventCount).toBe(events.length);
      });

      it('keeps fractional, negative and huge times exact inside chunk runs', () => {
        const times = [0.1, 0.3, 0.7, -5, 2 ** 53 - 1, 1.5, 1.25, 1.125, 3];
        let i = 0;
        const session = new Session({ header: header('times'), now: () => times[i++ % times.length]! });
        const w = new AgentLogWriter(session);
        w.turnStart();
        w.stepStart();
        w.stream({ text: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'] });
        store.createSession(header('times'), session.events);
        expect(serializeAll(store.readAll('times'))).toEqual(serializeAll(session.events));
      });

      it('appends in batches and reads back the same log', () => {
        const session = buildSession('batches', 3, 12);
        const events = session.events;
        store.createSession(header('batches'), events.slice(0, 5));
        for (let from = 5; from < events.length; from += 17) store.append('batches', events.slice(from, Math.min(from + 17, events.length)));
        expect(serializeAll(store.readAll('batches'))).toEqual(serializeAll(events));
      });

      it('readFrom and readRange return exact suffixes and ranges, also starting inside a packed run', () => {
        const events = buildSession('ranges', 2, 10).events;
        store.createSession(header('ranges'), events);
        const all = serializeAll(events);
        for (let from = 0; from <= events.length + 2; from++) {
          expect(serializeAll(store.readFrom('ranges', from)), `readFrom ${from}`).toEqual(all.slice(from));
        }
        for (let from = 0; from <= events.length; from += 3) {
          for (let to = from; to <= events.length + 1; to += 2) {
            expect(serializeAll(store.readRange('ranges', from, to)), `readRange ${from}..${to}`).toEqual(all.slice(from, to));
          }
        }
        // Reads never change the log.
        expect(serializeAll(store.readAll('ranges'))).toEqual(all);
      });
    });

    describe('append checks', () => {
      it('rejects a stale first seq, a skipped seq and a gap inside the batch, storing nothing', () => {
        const events = buildSession('stale', 1, 4).events;
        store.createSession(header('stale'), events.slice(0, 10));
        const before = serializeAll(store.readAll('stale'));
        expectCode(() => store.append('stale', events.slice(9, 12)), 'STALE_APPEND');
        expectCode(() => store.append('stale', events.slice(11, 13)), 'STALE_APPEND');
        expectCode(() => store.append('stale', [events[10]!, events[12]!]), 'STALE_APPEND');
        expect(serializeAll(store.readAll('stale'))).toEqual(before);
        expect(store.get('stale')?.eventCount).toBe(10);
        store.append('stale', events.slice(10));
        expect(serializeAll(store.readAll('stale'))).toEqual(serializeAll(events));
      });

      it('rejects a duplicate id, a bad first seq on create and an unknown session', () => {
        const events = buildSession('dup', 1, 3).events;
        store.createSession(header('dup'), events);
        expectCode(() => store.createSession(header('dup'), []), 'SESSION_ALREADY_EXISTS');
        expectCode(() => store.createSession(header('late'), events.slice(1)), 'STALE_APPEND');
        expect(store.get('late')).toBeUndefined();
        expectCode(() => store.append('nope', events.slice(0, 1)), 'SESSION_NOT_FOUND');
        expectCode(() => store.readAll('nope'), 'SESSION_NOT_FOUND');
        store.append('dup', []);
        expect(store.get('dup')?.eventCount).toBe(events.length);
      });

      it('Session.append rejects non-JSON data naming the event type, freezes what it accepts, and the store never sees a rejected event', async () => {
        const repository = repo();
        const live = repository.create();
        const s = live.session;
        s.append({ type: 'turn/start', data: { turn: 1 } });
        const cyclic: Record<string, unknown> = { a: 1 };
        cyclic['self'] = cyclic;
        const bad: [string, unknown][] = [
          ['undefined', { turn: 1, reason: { kind: 'completed' }, extra: undefined }],
          ['NaN', { turn: Number.NaN, reason: { kind: 'completed' } }],
          ['-0', { turn: -0, reason: { kind: 'completed' } }],
          ['BigInt', { turn: 1n, reason: { kind: 'completed' } }],
          ['cycle', { turn: 1, reason: cyclic }],
          ['Date', { turn: 1, reason: { kind: 'completed', at: new Date(0) } }],
          ['Map', { turn: 1, reason: new Map() }],
          ['Infinity', { turn: Number.POSITIVE_INFINITY, reason: { kind: 'completed' } }],
        ];
        for (const [what, data] of bad) {
          let thrown: unknown;
          try {
            s.append({ type: 'turn/end', data: data as never });
          } catch (error) {
            thrown = error;
          }
          expect(thrown, what).toBeInstanceOf(SessionError);
          expect((thrown as SessionError).code, what).toBe('NON_JSON_DATA');
          expect((thrown as Error).message, what).toContain('turn/end');
          expect((thrown as Error).message, what).toContain(what === 'Date' || what === 'Map' ? `class instance ${what}` : what);
          expect(s.length, what).toBe(1);
        }
        const input = { turn: 1, reason: { kind: 'completed' as const } };
        const ok = s.append({ type: 'turn/end', data: input });
        expect(isDeepFrozen(ok)).toBe(true);
        expect(ok.data).not.toBe(input);
        expect(() => {
          (ok.data as { turn: number }).turn = 9;
        }).toThrow();
        await live.flush();
        expect(serializeAll(store.readAll(s.id))).toEqual(serializeAll(s.events));
        expect(store.readAll(s.id).map((e) => e.type)).toEqual(['turn/start', 'turn/end']);
        await live.release();
      });
    });

    describe('write-behind', () => {
      it('lands a burst of appends in ONE store transaction after the window', async () => {
        vi.useFakeTimers();
        const counting = new InstrumentedStore(store);
        const repository = repo(counting, { writeWindowMs: 200 });
        const live = repository.create();
        new AgentLogWriter(live.session).completedTurn('burst', 60);
        const n = live.session.length;
        expect(n).toBeGreaterThan(150);
        await vi.advanceTimersByTimeAsync(199);
        expect(counting.appendCalls).toEqual([]);
        expect(store.get(live.session.id)?.eventCount).toBe(0);
        await vi.advanceTimersByTimeAsync(1);
        expect(counting.appendCalls).toEqual([n]);
        expect(serializeAll(store.readAll(live.session.id))).toEqual(serializeAll(live.session.events));
        vi.useRealTimers();
        await live.release();
      });

      it('shares one flush barrier between concurrent callers and drains events admitted meanwhile', async () => {
        const counting = new InstrumentedStore(store);
        const repository = repo(counting, { writeWindowMs: 10_000 });
        const live = repository.create();
        const w = new AgentLogWriter(live.session);
        w.completedTurn('one', 5);
        const a = live.flush();
        const b = live.flush();
        expect(a).toBe(b);
        w.completedTurn('two', 5); // admitted while the barrier is pending
        const c = live.flush();
        expect(c).toBe(a);
        await Promise.all([a, b, c]);
        expect(store.get(live.session.id)?.eventCount).toBe(live.session.length);
        expect(counting.appendCalls.length).toBeLessThanOrEqual(2);
        expect(counting.appendCalls.reduce((x, y) => x + y, 0)).toBe(live.session.length);
        // A quiescent flush writes nothing.
        await live.flush();
        expect(counting.appendCalls.reduce((x, y) => x + y, 0)).toBe(live.session.length);
        await live.release();
      });

      it('retries a failed background write, reports it, keeps order and drops nothing', async () => {
        vi.useFakeTimers();
        const failing = new InstrumentedStore(store);
        const repository = repo(failing, { writeWindowMs: 50 });
        const live = repository.create();
        const failures: number[] = [];
        live.onDidFailWrite((f) => failures.push(f.pending));
        const w = new AgentLogWriter(live.session);
        failing.failNext = 2;
        w.completedTurn('first', 4);
        const firstBatch = live.session.length;
        await vi.advanceTimersByTimeAsync(50);
        expect(failures).toEqual([firstBatch]);
        expect(store.get(live.session.id)?.eventCount).toBe(0);
        // Automatic retries pause until the next event arrives…
        await vi.advanceTimersByTimeAsync(500);
        expect(failures).toEqual([firstBatch]);
        // …which re-arms the window; the retry fails once more, then succeeds with order kept.
        w.inboxInsert('later');
        await vi.advanceTimersByTimeAsync(50);
        expect(failures).toEqual([firstBatch, firstBatch + 1]);
        w.inboxInsert('later again');
        await vi.advanceTimersByTimeAsync(50);
        expect(failures).toHaveLength(2);
        expect(serializeAll(store.readAll(live.session.id))).toEqual(serializeAll(live.session.events));
        expect(failing.appendCalls).toEqual([live.session.length]);
        vi.useRealTimers();
        await live.release();
      });

      it('an explicit flush retries at once, rejects while the store keeps failing, then succeeds', async () => {
        const failing = new InstrumentedStore(store);
        const repository = repo(failing, { writeWindowMs: 10_000 });
        const live = repository.create();
        new AgentLogWriter(live.session).completedTurn('x', 3);
        failing.failNext = 1;
        await expect(live.flush()).rejects.toThrow(/disk full/);
        expect(store.get(live.session.id)?.eventCount).toBe(0);
        await live.flush();
        expect(serializeAll(store.readAll(live.session.id))).toEqual(serializeAll(live.session.events));
        await live.release();
      });
    });

    describe('damage', () => {
      it.runIf(hasRaw)('listing reads only the session table', () => {
        const raw = sut.raw!;
        store.createSession(header('a', { title: 'A' }), buildSession('a', 1, 3).events);
        store.createSession(header('b'), buildSession('b', 2, 3).events);
        const before = store.list();
        raw.dropEvents();
        const after = store.list();
        expect(after).toEqual(before);
        expect(after.map((r) => [r.header.id, r.eventCount]).sort()).toEqual([
          ['a', buildSession('a', 1, 3).length],
          ['b', buildSession('b', 2, 3).length],
        ]);
        expect(store.get('a')?.header.title).toBe('A');
      });

      it.runIf(hasRaw)('a corrupted scalar row is a SessionCorruptionError naming the session and seq', () => {
        const session = buildSession('dmg', 2, 6);
        store.createSession(header('dmg'), session.events);
        const target = session.events.find((e) => e.type === 'tool/call')!.seq;
        sut.raw!.corruptData('dmg', target);
        const error = catchError(() => store.readAll('dmg'));
        expect(error).toBeInstanceOf(SessionCorruptionError);
        expect((error as SessionCorruptionError).sessionId).toBe('dmg');
        expect((error as SessionCorruptionError).seq).toBe(target);
        expect((error as Error).message).toContain(`session dmg seq ${target}`);
        // The repository refuses to load it too: no silent truncation, no repair.
        expect(catchError(() => repo().load('dmg'))).toBeInstanceOf(SessionCorruptionError);
        expect(store.get('dmg')?.eventCount).toBe(session.length);
      });

      it.runIf(hasRaw)('a corrupted packed row and a deleted row are reported at their seq', () => {
        const session = buildSession('dmg2', 2, 12);
        store.createSession(header('dmg2'), session.events);
        const deltas = session.events.filter((e) => e.type === 'assistant/chunk' && e.data.chunk.type === 'reasoning-delta');
        const insideRun = deltas[3]!.seq;
        const rowStart = sut.raw!.corruptData('dmg2', insideRun);
        // Packed: the row starts at the first delta of the run; unpacked: the row is the delta.
        expect([deltas[0]!.seq, insideRun]).toContain(rowStart);
        const packed = catchError(() => store.readAll('dmg2')) as SessionCorruptionError;
        expect(packed).toBeInstanceOf(SessionCorruptionError);
        expect(packed.seq).toBe(rowStart);

        store.createSession(header('gap'), session.events);
        const mid = session.events.find((e) => e.type === 'step/end')!.seq;
        sut.raw!.deleteRow('gap', mid);
        const gap = catchError(() => store.readAll('gap')) as SessionCorruptionError;
        expect(gap).toBeInstanceOf(SessionCorruptionError);
        expect(gap.seq).toBe(mid);
        expect(gap.message).toContain('session gap');

        store.createSession(header('tail'), session.events);
        sut.raw!.deleteRow('tail', session.length - 1);
        const tail = catchError(() => store.readAll('tail')) as SessionCorruptionError;
        expect(tail).toBeInstanceOf(SessionCorruptionError);
        expect(tail.seq).toBe(session.length - 1);
        expect(catchError(() => repo().load('tail'))).toBeInstanceOf(SessionCorruptionError);
      });
    });

    describe('fork', () => {
      it('forks by reference: the child reads the parent prefix and stores only its own events', async () => {
        const repository = repo();
        const parent = buildSession('parent', 3, 6);
        store.createSession(parent.header, parent.events);
        const turnEnds = parent.events.filter((e) => e.type === 'turn/end').map((e) => e.seq);
        const child = await repository.fork('parent', turnEnds[1], 'child');
        expect(child.header).toMatchObject({ id: 'child', parentSession: 'parent', seedLength: turnEnds[1]! + 1 });
        expect(child.prefixFrom).toBe('parent');
        const events = store.readAll('child');
        expect(serializeAll(events.slice(0, turnEnds[1]! + 1))).toEqual(serializeAll(parent.events.slice(0, turnEnds[1]! + 1)));
        expect(events.slice(turnEnds[1]! + 1).map((e) => [e.seq, e.type])).toEqual([[turnEnds[1]! + 1, 'session/end-seed']]);
        if (sut.raw) expect(sut.raw.rowCount('child')).toBe(1);
        // The child resumes with turn numbers continuing after the seed.
        const live = repository.resume('child');
        expect(live.session.length).toBe(turnEnds[1]! + 2);
        const w = new AgentLogWriter(live.session);
        w.completedTurn('branch', 2);
        expect(live.session.events.filter((e) => e.type === 'turn/start').map((e) => (e as SessionEvent<'turn/start'>).data.turn)).toEqual([1, 2, 3]);
        await live.release();
        expect(serializeAll(store.readAll('child'))).toEqual(serializeAll(live.session.events));
        // The parent is untouched.
        expect(serializeAll(store.readAll('parent'))).toEqual(serializeAll(parent.events));
      });

      it('fork at seq 100 and at seq 100,000 both store no copy', async () => {
        const repository = repo();
        const parent = new Session({ header: header('big'), now: steppingClock() });
        const w = new AgentLogWriter(parent);
        while (parent.length < 100_050) w.completedTurn('more', 300);
        store.createSession(parent.header, parent.events);
        const ends = parent.events.filter((e) => e.type === 'turn/end').map((e) => e.seq);
        const early = ends.find((s) => s >= 100)!;
        const late = ends.find((s) => s >= 100_000)!;
        const a = await repository.fork('big', early, 'early');
        const b = await repository.fork('big', late, 'late');
        expect(a.header.seedLength).toBe(early + 1);
        expect(b.header.seedLength).toBe(late + 1);
        if (sut.raw) {
          expect(sut.raw.rowCount('early')).toBe(1);
          expect(sut.raw.rowCount('late')).toBe(1);
        }
        expect(store.readFrom('late', late - 2).map((e) => e.seq)).toEqual([late - 2, late - 1, late, late + 1]);
        expect(store.readAll('late').length).toBe(late + 2);
      }, 60_000);

      it('refuses with exact codes and creates no child', async () => {
        // The source runs in another live process, so its open turn is not repaired on read.
        const repository = repo(store, { probe: probeAlive(424242) });
        const parent = new Session({ header: header('p'), now: steppingClock() });
        const w = new AgentLogWriter(parent);
        w.completedTurn('closed', 3);
        const closedEnd = parent.length - 1;
        w.inboxInsert('open');
        const turnStart = w.turnStart().seq;
        w.claim();
        const stepStart = w.stepStart().seq;
        const user = w.user('open').seq;
        w.requestHeader('change');
        const r = w.stream({ text: ['a', 'b', 'c'], toolCalls: [{ id: 'c1', name: 'bash', args: ['{}'] }] });
        const assistant = w.assistantMessage(r).seq;
        const toolCall = w.toolCall('c1', 'bash', '{}').seq;
        store.createSession(parent.header, parent.events);
        store.setOwner('p', otherOwner(424242));
        store.createSession(header('taken'), []);
        const count = () => store.list().length;
        const n = count();
        for (const seq of [turnStart, stepStart, user, assistant, toolCall, parent.length - 1]) {
          await expectRejectCode(repository.fork('p', seq, `c${seq}`), 'OPEN_TURN');
        }
        await expectRejectCode(repository.fork('p', undefined, 'c-default'), 'OPEN_TURN');
        for (const seq of [-1, 1.5, parent.length, parent.length + 10, Number.NaN]) {
          await expectRejectCode(repository.fork('p', seq, `bad${seq}`), 'INVALID_BOUNDARY');
        }
        await expectRejectCode(repository.fork('missing', 0, 'c-missing'), 'SESSION_NOT_FOUND');
        // SESSION_ALREADY_EXISTS is checked before anything else.
        await expectRejectCode(repository.fork('missing', -1, 'taken'), 'SESSION_ALREADY_EXISTS');
        await expectRejectCode(repository.fork('p', turnStart, 'p'), 'SESSION_ALREADY_EXISTS');
        expect(count()).toBe(n);
        // A boundary before the open turn is still legal, also on a live source.
        const ok = await repository.fork('p', closedEnd, 'ok');
        expect(ok.header.seedLength).toBe(closedEnd + 1);
        const live = repository.create({ id: 'livep' });
        new AgentLogWriter(live.session).completedTurn('x', 3);
        const lw = new AgentLogWriter(live.session);
        lw.inboxInsert('y');
        const liveOpen = lw.turnStart().seq;
        await expectRejectCode(repository.fork('livep', liveOpen, 'lc'), 'OPEN_TURN');
        await repository.fork('livep', liveOpen - 1, 'lc');
        expect(serializeAll(store.readAll('lc').slice(0, liveOpen))).toEqual(serializeAll(live.session.events.slice(0, liveOpen)));
        await live.release();
        expect(catchError(() => store.readAll('nothing'))).toBeInstanceOf(StoreError);
        expect(SessionForkError).toBeDefined();
      });

      it('the child has no inherited pending inbox: its events after seedLength carry no splice', async () => {
        const repository = repo();
        const parent = new Session({ header: header('inboxp'), now: steppingClock() });
        const w = new AgentLogWriter(parent);
        w.completedTurn('done', 3);
        w.inboxInsert('queued follow-up'); // pending in the parent, between turns: a legal boundary
        store.createSession(parent.header, parent.events);
        const child = await repository.fork('inboxp', parent.length - 1, 'inboxc');
        const events = store.readAll('inboxc');
        const seedLength = child.header.seedLength!;
        expect(pendingInbox(events, 0)).toHaveLength(1); // what a replay from 0 would wrongly inherit
        // The agent replays the inbox from header.seedLength: nothing is pending in the child.
        expect(events.slice(seedLength).some((e) => e.type === 'agent/inbox/spliced')).toBe(false);
        expect(pendingInbox(events, seedLength)).toEqual([]);
        expect(pendingInbox(parent.events, 0)).toHaveLength(1);
      });

      it('deleting a parent materialises every child prefix first (grandchildren too)', async () => {
        const repository = repo();
        const parent = buildSession('root', 3, 5);
        store.createSession(parent.header, parent.events);
        const ends = parent.events.filter((e) => e.type === 'turn/end').map((e) => e.seq);
        await repository.fork('root', ends[0], 'kid1');
        await repository.fork('root', ends[2], 'kid2');
        const live = repository.resume('kid2');
        new AgentLogWriter(live.session).completedTurn('kid2 turn', 4);
        await live.release();
        await repository.fork('kid2', store.get('kid2')!.eventCount - 1, 'grandkid');
        const before = Object.fromEntries(['kid1', 'kid2', 'grandkid'].map((id) => [id, serializeAll(store.readAll(id))]));
        expect(
          store
            .children('root')
            .map((r) => r.header.id)
            .sort(),
        ).toEqual(['kid1', 'kid2']);
        repository.delete('root');
        expect(store.get('root')).toBeUndefined();
        for (const id of ['kid1', 'kid2', 'grandkid']) expect(serializeAll(store.readAll(id)), id).toEqual(before[id]);
        expect(store.get('kid1')?.prefixFrom).toBeUndefined();
        expect(store.get('kid1')?.header.parentSession).toBe('root');
        if (sut.raw) expect(sut.raw.rowCount('kid1')).toBeGreaterThan(1);
        repository.delete('kid2');
        expect(serializeAll(store.readAll('grandkid'))).toEqual(before['grandkid']);
        expectCode(() => repository.delete('kid2'), 'SESSION_NOT_FOUND');
      });

      it('deleting the middle of a fork chain first keeps the grandchild intact (its prefix spans both)', async () => {
        const repository = repo();
        const root = buildSession('root2', 2, 4);
        store.createSession(root.header, root.events);
        await repository.fork('root2', root.length - 1, 'mid');
        const live = repository.resume('mid');
        new AgentLogWriter(live.session).completedTurn('mid turn', 3);
        await live.release();
        await repository.fork('mid', store.get('mid')!.eventCount - 1, 'leaf');
        const leaf = serializeAll(store.readAll('leaf'));
        expect(leaf.length).toBeGreaterThan(root.length + 1);
        repository.delete('mid');
        expect(serializeAll(store.readAll('leaf'))).toEqual(leaf);
        repository.delete('root2');
        expect(serializeAll(store.readAll('leaf'))).toEqual(leaf);
        expect(store.list().map((r) => r.header.id)).toEqual(['leaf']);
      });
    });

    describe('full-text search and last-turn state (kept by the write path)', () => {
      const hits = (terms: string[], extra: { sessionId?: string; limit?: number } = {}) =>
        store.search({ terms, limit: extra.limit ?? 50, ...(extra.sessionId !== undefined ? { sessionId: extra.sessionId } : {}) }).map((h) => `${h.sessionId}#${h.seq}:${h.kind}`);

      it('finds tool output, prompts and answers case-insensitively as they are appended, newest first; chunks are not indexed', () => {
        const session = new Session({ header: header('find'), now: steppingClock() });
        const w = new AgentLogWriter(session);
        w.turnStart();
        w.stepStart();
        const prompt = w.user('Why does parse() throw?');
        const r = w.stream({ text: ['Running', ' the tests'], toolCalls: [{ id: 'c1', name: 'bash', args: ['{"command":"npm test"}'] }] });
        const answer = w.assistantMessage(r);
        store.createSession(header('find'), session.events);
        expect(hits(['typeerror'])).toEqual([]);
        const call = w.toolCall('c1', 'bash', '{"command":"npm test"}');
        const result = w.toolResult(call, "TypeError: Cannot read properties of undefined (reading 'length')", true);
        store.append('find', session.events.slice(store.get('find')!.eventCount));
        expect(hits(['TypeError'])).toEqual([`find#${result.seq}:tool`]);
        expect(hits(['typeerror', 'LENGTH'])).toEqual([`find#${result.seq}:tool`]);
        expect(hits(['typeerror', 'nowhere'])).toEqual([]);
        expect(hits(['parse()'])).toEqual([`find#${prompt.seq}:user`]);
        // The assistant message holds the streamed text and the call's arguments once; its chunks are not documents.
        expect(hits(['Running the tests'])).toEqual([`find#${answer.seq}:assistant`]);
        expect(hits(['npm test'])).toEqual([`find#${answer.seq}:assistant`]);
        expect(store.search({ terms: ['TypeError'], limit: 5 })[0]!.text).toContain("reading 'length'");
      });

      it('filters by session, honours the limit, forgets a deleted session and indexes a child that gets its own copy of the prefix', async () => {
        const repository = repo();
        const a = buildSession('alpha', 3, 4);
        store.createSession(a.header, a.events);
        const b = buildSession('beta', 1, 4);
        store.createSession(b.header, b.events);
        expect(hits(['contents of src/'])).toHaveLength(4);
        expect(hits(['contents of src/'], { limit: 2 })).toHaveLength(2);
        expect(hits(['contents of src/'], { sessionId: 'beta' })).toEqual(hits(['contents of src/']).filter((h) => h.startsWith('beta#')));
        // Newest first: beta was written after alpha.
        expect(hits(['contents of src/'])[0]).toMatch(/^beta#/);
        const ends = a.events.filter((e) => e.type === 'turn/end').map((e) => e.seq);
        await repository.fork('alpha', ends[1], 'alpha-kid');
        expect(hits(['contents of src/2'])).toEqual(hits(['contents of src/2'], { sessionId: 'alpha' }));
        repository.delete('alpha');
        expect(hits(['contents of src/3'])).toEqual([]);
        expect(hits(['contents of src/2']).map((h) => h.split('#')[0])).toEqual(['alpha-kid']);
        expect(hits(['contents of src/1'], { sessionId: 'beta' })).toHaveLength(1);
      });

      it('finds the events of a session written with deferred documents (imports): a search writes what is pending first', () => {
        const a = buildSession('deferred', 3, 4);
        store.createSession(a.header, a.events.slice(0, 5), { deferSearch: true });
        store.append('deferred', a.events.slice(5));
        const live = buildSession('inline', 1, 4);
        store.createSession(live.header, live.events);
        expect(hits(['contents of src/'], { sessionId: 'deferred' })).toHaveLength(3);
        expect(hits(['contents of src/'])).toHaveLength(4);
        // Nothing is left pending after a search, and nothing is indexed twice.
        expect(store.indexPendingSearch(1_000)).toBe(false);
        expect(hits(['contents of src/'])).toHaveLength(4);
      });

      it('finds the latest event of a type before a seq, through a fork prefix', async () => {
        const parent = buildSession('env', 3, 3);
        store.createSession(parent.header, parent.events);
        const headers = parent.events.filter((e) => e.type === 'request/header').map((e) => e.seq);
        expect(store.lastEventOfType('env', 'request/header', parent.length)?.seq).toBe(headers.at(-1));
        expect(store.lastEventOfType('env', 'request/header', headers[1]!)?.seq).toBe(headers[0]);
        expect(store.lastEventOfType('env', 'request/header', headers[0]!)).toBeUndefined();
        const ends = parent.events.filter((e) => e.type === 'turn/end').map((e) => e.seq);
        await repo().fork('env', ends[1], 'env-kid');
        const kidLength = store.get('env-kid')!.eventCount;
        expect(store.lastEventOfType('env-kid', 'request/header', kidLength)).toEqual(parent.events[headers[1]!]);
      });

      it('records the last turn: open after turn/start, the reason kind after turn/end', () => {
        const session = new Session({ header: header('turns'), now: steppingClock() });
        const w = new AgentLogWriter(session);
        store.createSession(header('turns'), []);
        expect(store.get('turns')!.lastTurn).toBeUndefined();
        w.turnStart();
        store.append('turns', session.events.slice(0));
        expect(store.get('turns')!.lastTurn).toBe('open');
        w.turnEnd({ kind: 'error', failure: { code: 'RATE_LIMIT', message: '429' } });
        w.turnStart();
        w.turnEnd({ kind: 'interrupted' });
        store.append('turns', session.events.slice(1));
        expect(store.get('turns')!.lastTurn).toBe('interrupted');
        session.append({ type: 'session/title', data: { title: 'x' } });
        store.append('turns', session.events.slice(5));
        expect(store.list().find((r) => r.header.id === 'turns')!.lastTurn).toBe('interrupted');
      });
    });

    describe('resume and repair', () => {
      it('resume keeps the id, appends session/end-seed once, continues seqs and turns, re-runs nothing', async () => {
        const repository = repo();
        const live = repository.create({ cwd: '/work/x', title: 'T' });
        const id = live.session.id;
        new AgentLogWriter(live.session).completedTurn('one', 4);
        await live.release();
        const stored = serializeAll(store.readAll(id));
        const reopened = sut.reopen ? sut.reopen() : store;
        store = reopened;
        const repository2 = repo(reopened);
        const resumed = repository2.resume(id);
        expect(resumed.session.id).toBe(id);
        expect(resumed.session.header).toMatchObject({ id, cwd: '/work/x', title: 'T' });
        const added = resumed.session.events.slice(stored.length);
        expect(added.map((e) => e.type)).toEqual(['session/end-seed']);
        expect(serializeAll(resumed.session.events.slice(0, stored.length))).toEqual(stored);
        await resumed.release();
        // Reopening the untouched resumed session adds nothing.
        const again = repository2.resume(id);
        expect(again.session.length).toBe(stored.length + 1);
        await again.release();
        expect(store.get(id)?.eventCount).toBe(stored.length + 1);
        // A new turn continues numbering and seqs.
        const third = repository2.resume(id);
        const w = new AgentLogWriter(third.session);
        w.inboxInsert('two');
        const start = w.turnStart() as SessionEvent<'turn/start'>;
        expect(start.data.turn).toBe(2);
        expect(start.seq).toBe(stored.length + 2);
        await third.release();
        expect(store.readAll(id).map((e) => e.seq)).toEqual(Array.from({ length: stored.length + 3 }, (_, i) => i));
      });

      it('load closes an interrupted turn once (TOOL_OUTCOME_UNKNOWN, step/end, turn/end) and a second load appends nothing', () => {
        const s = new Session({ header: header('crashed'), now: steppingClock() });
        const w = new AgentLogWriter(s);
        w.completedTurn('ok', 3);
        w.inboxInsert('risky');
        w.turnStart();
        w.claim();
        w.stepStart();
        w.user('risky');
        const r = w.stream({ toolCalls: [{ id: 'c9', name: 'bash', args: ['{"command":', '"rm x"}'] }] });
        w.assistantMessage(r);
        const call = w.toolCall('c9', 'bash', '{"command":"rm x"}');
        store.createSession(s.header, s.events);
        const repository = repo();
        const first = repository.load('crashed');
        expect(first.repaired).toBe(3);
        const tail = first.events.slice(s.length);
        expect(tail.map((e) => e.type)).toEqual(['tool/result', 'step/end', 'turn/end']);
        const result = tail[0] as SessionEvent<'tool/result'>;
        expect(result.data.error).toEqual({ name: 'ToolOutcomeUnknownError', code: 'TOOL_OUTCOME_UNKNOWN' });
        expect(result.sourceEventSeqs).toEqual([call.seq]);
        expect((tail[2] as SessionEvent<'turn/end'>).data.reason).toEqual({ kind: 'interrupted' });
        expect(serializeAll(store.readAll('crashed'))).toEqual(serializeAll(first.events));
        const second = repository.load('crashed');
        expect(second.repaired).toBe(0);
        expect(store.get('crashed')?.eventCount).toBe(s.length + 3);
      });

      it('load refuses to repair a session that this process holds live with an open turn', async () => {
        const repository = repo();
        const live: LiveSession = repository.create({ id: 'busy' });
        const w = new AgentLogWriter(live.session);
        w.inboxInsert('go');
        w.turnStart();
        await live.flush();
        expectCode(() => repository.load('busy'), 'SESSION_LIVE');
        expect(store.get('busy')?.eventCount).toBe(2);
        w.turnEnd();
        expect(repository.load('busy').events).toHaveLength(3);
        await live.release();
      });

      it('load of a session owned by another live process returns it unrepaired', () => {
        const s = new Session({ header: header('other'), now: steppingClock() });
        const w = new AgentLogWriter(s);
        w.inboxInsert('go');
        w.turnStart();
        store.createSession(s.header, s.events);
        store.setOwner('other', otherOwner(424242));
        const repository = repo(store, { probe: probeAlive(424242) });
        const loaded = repository.load('other');
        expect(loaded.ownedElsewhere).toBe(true);
        expect(loaded.repaired).toBe(0);
        expect(store.get('other')?.eventCount).toBe(2);
        expectCode(() => repository.resume('other'), 'SESSION_LIVE');
      });
    });
  });
}

/** An owner record naming another process on this host. */
export function otherOwner(pid: number): SessionOwner {
  return { pid, start: 'linux:boot:1', host: hostname(), since: 1, token: `theirs-${pid}` };
}

/** A process probe under which exactly `pid` runs (as the recorded process). */
export function probeAlive(pid: number): ProcessProbe {
  return { liveness: (p) => (p.pid === pid ? 'running' : 'gone'), isPidAlive: (candidate) => candidate === pid, startedAtMs: () => undefined };
}

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** Whether the backend offers raw storage access (evaluated once per suite registration). */
function backendHasRaw(make: () => StoreUnderTest): boolean {
  const probe = make();
  const has = probe.raw !== undefined;
  probe.dispose();
  return has;
}
