/**
 * SessionWriteBehind timing (docs/architecture.md §7; dsh-contracts §7.3, §10.3 write-behind): one fixed window
 * from the first pending event, events arriving during a write form the next batch, concurrent
 * flushes share one barrier, failures are retained in order and reported. Only time is faked; the
 * writer is a real SqliteSessionStore on a file (wrapped to fail on demand).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SessionEvent } from '../../../shared/events.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { SessionWriteBehind } from '../../../electron/store/write-behind.js';
import { buildSession, header, serializeAll, tempDir } from '../../support/store-fixtures.js';

let tmp: ReturnType<typeof tempDir>;
let store: SqliteSessionStore;
let events: readonly SessionEvent[];
let batches: number[];
let failNext: number;
let writer: SessionWriteBehind;

beforeEach(() => {
  vi.useFakeTimers();
  tmp = tempDir();
  store = new SqliteSessionStore(tmp.file('wb.db'));
  store.createSession(header('wb'), []);
  events = buildSession('wb', 3, 6).events;
  batches = [];
  failNext = 0;
  writer = new SessionWriteBehind(
    (batch) => {
      if (failNext > 0) {
        failNext--;
        throw new Error('write failed (injected)');
      }
      store.append('wb', batch);
      batches.push(batch.length);
    },
    { windowMs: 200 },
  );
});
afterEach(() => {
  writer.dispose();
  vi.useRealTimers();
  store.close();
  tmp.dispose();
});

const stored = () => serializeAll(store.readAll('wb'));

describe('SessionWriteBehind', () => {
  it('coalesces twenty events admitted ten milliseconds apart into one 200 ms batch', async () => {
    for (let i = 0; i < 20; i++) {
      writer.enqueue(events[i]!);
      await vi.advanceTimersByTimeAsync(10);
    }
    // The window started at the first event and was never reset: it fires at 200 ms.
    expect(batches).toEqual([20]);
    expect(stored()).toEqual(serializeAll(events.slice(0, 20)));
    expect(writer.pendingCount).toBe(0);
    expect(writer.writes).toBe(1);
  });

  it('opens a new window for events after a quiescent barrier', async () => {
    writer.enqueue(events[0]!);
    await writer.flush();
    expect(batches).toEqual([1]);
    writer.enqueue(events[1]!);
    writer.enqueue(events[2]!);
    await vi.advanceTimersByTimeAsync(199);
    expect(batches).toEqual([1]);
    await vi.advanceTimersByTimeAsync(1);
    expect(batches).toEqual([1, 2]);
  });

  it('events that arrive during an async write form the next batch, after a fresh window', async () => {
    let release!: () => void;
    const slow = new SessionWriteBehind(
      async (batch) => {
        await new Promise<void>((r) => (release = r));
        store.append('wb', batch);
        batches.push(batch.length);
      },
      { windowMs: 200 },
    );
    slow.enqueue(events[0]!);
    slow.enqueue(events[1]!);
    await vi.advanceTimersByTimeAsync(200);
    slow.enqueue(events[2]!); // during the write
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(batches).toEqual([2]);
    await vi.advanceTimersByTimeAsync(200);
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(batches).toEqual([2, 1]);
    slow.dispose();
  });

  it('concurrent flushes share one barrier that also drains late arrivals', async () => {
    for (const e of events.slice(0, 5)) writer.enqueue(e);
    const a = writer.flush();
    const b = writer.flush();
    expect(b).toBe(a);
    writer.enqueue(events[5]!);
    await Promise.all([a, b]);
    expect(stored()).toEqual(serializeAll(events.slice(0, 6)));
    expect(writer.pendingCount).toBe(0);
    await expect(writer.flush()).resolves.toBeUndefined();
  });

  it('a failed background write keeps its batch in front (order kept), reports once and pauses until the next event', async () => {
    const failures: number[] = [];
    writer.onDidFail((f) => failures.push(f.pending));
    failNext = 1;
    for (const e of events.slice(0, 3)) writer.enqueue(e);
    await vi.advanceTimersByTimeAsync(200);
    expect(failures).toEqual([3]);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(failures).toEqual([3]);
    expect(writer.pendingCount).toBe(3);
    writer.enqueue(events[3]!);
    await vi.advanceTimersByTimeAsync(200);
    expect(batches).toEqual([4]);
    expect(stored()).toEqual(serializeAll(events.slice(0, 4)));
  });

  it('an explicit flush retries a failed background batch at once and surfaces a repeated failure', async () => {
    failNext = 2;
    for (const e of events.slice(0, 3)) writer.enqueue(e);
    await vi.advanceTimersByTimeAsync(200); // background attempt fails
    await expect(writer.flush()).rejects.toThrow(/injected/); // the retry fails too
    expect(writer.pendingCount).toBe(3);
    await writer.flush();
    expect(stored()).toEqual(serializeAll(events.slice(0, 3)));
  });

  it('retains a very large failed batch whole, then writes it in one transaction', async () => {
    failNext = 1;
    for (const e of events) writer.enqueue(e);
    await expect(writer.flush()).rejects.toThrow();
    expect(writer.pendingCount).toBe(events.length);
    await writer.flush();
    expect(batches).toEqual([events.length]);
    expect(stored()).toEqual(serializeAll(events));
  });

  it('close() flushes, then refuses new events', async () => {
    writer.enqueue(events[0]!);
    await writer.close();
    expect(batches).toEqual([1]);
    expect(() => writer.enqueue(events[1]!)).toThrow(expect.objectContaining({ code: 'STORE_CLOSED' }));
  });
});
