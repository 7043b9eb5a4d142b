/**
 * ThreadedAppender: appends one session's events on a worker thread with its own SQLite
 * connection, so a large import parses and maps its source on the calling thread while the
 * previous batch is written (docs/importing.md: an import of a 100 MB log runs at half the speed of
 * a bare `JSON.parse` of it only when the two overlap on two cores).
 *
 * - The calling thread turns each batch into row values (the same rows the synchronous write path
 *   inserts, with the JSON columns still as values) and posts them; the worker serialises the JSON
 *   columns exactly as the synchronous path does (`JSON.stringify`, `undefined` → NULL) and inserts
 *   each batch in one `BEGIN IMMEDIATE` transaction that first checks the stored next seq, exactly
 *   like `SqliteSessionStore.append`. Posting values costs the calling thread a structured clone
 *   instead of `JSON.stringify` plus posting the text (~10% of its CPU in the import benchmark),
 *   and moves the serialisation onto the worker.
 * - At most {@link MAX_BATCHES_IN_FLIGHT} batches wait at any time (the caller blocks on an
 *   `Atomics.wait` until the worker catches up), so memory stays bounded whatever the log's size.
 * - Only sessions created with deferred search documents may be appended this way: the worker
 *   writes events, never search documents (those are written afterwards, see schema 5).
 * - A write the worker refused (a stale seq, a full disk) is thrown by the first `append` or
 *   `drain` that collects the worker's answer (the same `append`, when the worker is quick);
 *   nothing after it is written.
 * - Batches commit with `synchronous = NORMAL` (no fsync; the database stays consistent) and
 *   `drain` ends with one fsync'ed commit, so what `drain` returned from is durable.
 *
 * The worker's code is {@link appenderThread}, evaluated in the worker from its source text, so it
 * runs the same way from TypeScript (tests, tsx), the CLI bundle and the Electron main bundle
 * without a separate entry file in each build.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { createRequire } from 'node:module';
import type * as WorkerThreads from 'node:worker_threads';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { StoreError } from '../../shared/errors.js';
import type { SessionEvent } from '../../shared/events.js';
import type { BackgroundAppender } from './session-store.js';
import { lastTurnAfter } from './search-text.js';
import { DURABLE_COMMIT_PRAGMA, IMPORT_WRITER_PRAGMAS, SQL } from './sql.js';

/** Batches posted but not yet written, at most (each is one store batch of an import). */
export const MAX_BATCHES_IN_FLIGHT = 2;

/** How long the constructor waits for the worker to open the store (ms). */
const START_TIMEOUT_MS = 10_000;

/** How long the caller waits for the worker to finish one batch before giving up (ms). */
const BATCH_TIMEOUT_MS = 120_000;

/** Values per row in {@link AppendBatch.rows}: seq, last_seq, type, time, data, surface_op, source_event_seqs, ignorable. */
export const ROW_STRIDE = 8;

/**
 * One value of a flat row ({@link ROW_STRIDE} per row): numbers and strings as stored, except the
 * JSON columns data, surface_op and source_event_seqs (row slots 4–6), which hold the value itself
 * (a JSON value, or `undefined` for "no value": stored as NULL) for the worker to serialise.
 */
export type RowValue = string | number | null | undefined | object;

/** One batch as posted to the worker. */
interface AppendBatch {
  readonly sessionId: string;
  /** The stored next seq this batch must start at, and the next seq after it. */
  readonly from: number;
  readonly to: number;
  /** Row values, {@link ROW_STRIDE} per row, flat (see {@link RowValue}). */
  readonly rows: RowValue[];
  readonly lastTurn: string | null;
  /** `updated_at` (epoch ms). */
  readonly now: number;
}

/** What the worker answers per batch (and once, if it cannot start). */
interface AppendReply {
  readonly error?: { readonly message: string; readonly code?: string };
}

/** What the worker gets at start. */
interface AppenderInit {
  readonly file: string;
  readonly sqliteModule: string;
  readonly nativeBinding?: string;
  readonly pragmas: readonly string[];
  readonly durablePragma: string;
  readonly sql: { readonly count: string; readonly insert: string; readonly update: string; readonly lastTurn: string; readonly touch: string };
  readonly port: MessagePort;
  /** Int32 [0] = batches done, [1] = 1 when the worker could not start, [2] = 1 once it has opened the store. */
  readonly state: SharedArrayBuffer;
}

/**
 * The worker thread's whole program. Evaluated from its source text inside the worker, so it must
 * use nothing from outside its own body: modules come through `load` (the worker's `require`,
 * passed in because bundlers rewrite a bare `require` into a helper of their own), and tsx/esbuild
 * may wrap named functions in `__name`, which the prelude defines.
 */
function appenderThread(load: NodeJS.Require): void {
  const { workerData } = load('node:worker_threads') as typeof WorkerThreads;
  const init = workerData as AppenderInit;
  const state = new Int32Array(init.state);
  const describe = (error: unknown): AppendReply['error'] => {
    const e = error as { message?: unknown; code?: unknown };
    return { message: typeof e?.message === 'string' ? e.message : String(error), ...(typeof e?.code === 'string' ? { code: e.code } : {}) };
  };
  const answer = (reply: AppendReply): void => {
    init.port.postMessage(reply);
    Atomics.add(state, 0, 1);
    Atomics.notify(state, 0);
  };
  let db: BetterSqlite3.Database;
  try {
    const Database = load(init.sqliteModule) as typeof BetterSqlite3;
    db = new Database(init.file, init.nativeBinding !== undefined ? { nativeBinding: init.nativeBinding } : {});
    for (const pragma of init.pragmas) db.pragma(pragma);
  } catch (error) {
    init.port.postMessage({ error: describe(error) });
    Atomics.store(state, 1, 1);
    Atomics.notify(state, 0);
    Atomics.notify(state, 2);
    init.port.close();
    return;
  }
  // Ready: the caller's constructor waits for this (or for the failure flag) before returning.
  Atomics.store(state, 2, 1);
  Atomics.notify(state, 2);
  const count = db.prepare(init.sql.count);
  const insert = db.prepare(init.sql.insert);
  const update = db.prepare(init.sql.update);
  const setLastTurn = db.prepare(init.sql.lastTurn);
  const write = db.transaction((batch: AppendBatch) => {
    const row = count.get(batch.sessionId) as { event_count: number; search_pending_from: number | null } | undefined;
    if (!row) throw Object.assign(new Error(`session ${batch.sessionId} does not exist`), { code: 'SESSION_NOT_FOUND' });
    if (row.event_count !== batch.from) {
      throw Object.assign(new Error(`append to ${batch.sessionId} starts at seq ${batch.from} but the store's next seq is ${row.event_count}`), { code: 'STALE_APPEND' });
    }
    if (row.search_pending_from === null) throw new Error(`session ${batch.sessionId} indexes as it is written; it cannot be appended on a thread`);
    const r = batch.rows;
    // The JSON columns as the synchronous write path serialises them (forEachEventRow).
    for (let i = 0; i < r.length; i += 8) {
      const surfaceOp = r[i + 5];
      const sourceEventSeqs = r[i + 6];
      insert.run(
        batch.sessionId,
        r[i],
        r[i + 1],
        r[i + 2],
        r[i + 3],
        JSON.stringify(r[i + 4]),
        surfaceOp === undefined ? null : JSON.stringify(surfaceOp),
        sourceEventSeqs === undefined ? null : JSON.stringify(sourceEventSeqs),
        r[i + 7],
      );
    }
    update.run(batch.to, batch.now, batch.sessionId);
    if (batch.lastTurn !== null) setLastTurn.run(batch.lastTurn, batch.sessionId);
  });
  const touch = db.prepare(init.sql.touch);
  init.port.on('message', (message: AppendBatch | { close: true } | { durable: true; sessionId: string; now: number }) => {
    if ('close' in message) {
      init.port.close(); // 'close' below closes the connection
      return;
    }
    try {
      if ('durable' in message) {
        // One fsync'ed commit makes every earlier commit of this connection durable (WAL).
        db.pragma(init.durablePragma);
        touch.run(message.now, message.sessionId);
      } else write.immediate(message);
      answer({});
    } catch (error) {
      answer({ error: describe(error) });
    }
  });
  // The caller closed its end (after asking to stop, or without asking): nothing more will come.
  init.port.on('close', () => {
    if (db.open) db.close();
  });
}

/** Turns events into the flat row values of the `events` table (see {@link ROW_STRIDE} and {@link RowValue}). */
export type RowEncoder = (events: readonly SessionEvent[]) => RowValue[];

export class ThreadedAppender implements BackgroundAppender {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly state = new Int32Array(new SharedArrayBuffer(12));
  private posted = 0;
  private failure: Error | undefined;
  private closed = false;
  /** The worker did not finish a batch in time (it is terminated, not asked to stop). */
  private stuck = false;

  /**
   * Starts the worker (it opens `file` itself) and waits until it has. `nextSeq` is the session's
   * stored next seq.
   * @param encode builds the rows exactly as the synchronous write path would.
   * @throws StoreError WRITE_FAILED when the worker cannot open the store (nothing was posted).
   */
  constructor(
    file: string,
    private readonly sessionId: string,
    private nextSeq: number,
    private readonly encode: RowEncoder,
    private readonly now: () => number,
    nativeBinding?: string,
  ) {
    const channel = new MessageChannel();
    this.port = channel.port1;
    const init: AppenderInit = {
      file,
      sqliteModule: createRequire(import.meta.url).resolve('better-sqlite3'),
      ...(nativeBinding !== undefined ? { nativeBinding } : {}),
      pragmas: IMPORT_WRITER_PRAGMAS,
      durablePragma: DURABLE_COMMIT_PRAGMA,
      sql: { count: SQL.sessionEventCount, insert: SQL.insertEvent, update: SQL.updateEventCount, lastTurn: SQL.setLastTurn, touch: SQL.touchSession },
      port: channel.port2,
      state: this.state.buffer as SharedArrayBuffer,
    };
    this.worker = new Worker(`var __name = (target) => target;\n(${appenderThread.toString()})(require);`, { eval: true, workerData: init, transferList: [channel.port2] });
    // The worker never keeps the process alive; `drain` is what waits for it.
    this.worker.unref();
    this.stopped = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    // Started means started: wait (tens of ms) until it has opened the store, so a store it cannot
    // open is refused here — before any batch is posted — and the caller can write another way.
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (Atomics.load(this.state, 2) === 0 && Atomics.load(this.state, 1) === 0 && Date.now() < deadline) Atomics.wait(this.state, 2, 0, 100);
    if (Atomics.load(this.state, 2) === 0) {
      this.collectReplies();
      const why = this.failure?.message ?? `it did not start in ${START_TIMEOUT_MS / 1000} s`;
      void this.worker.terminate();
      this.closed = true;
      this.port.close();
      throw new StoreError('WRITE_FAILED', `the import's writer thread could not open ${file}: ${why}`);
    }
  }

  /** Settles when the worker thread has ended (after {@link close}, or if it could not start). */
  readonly stopped: Promise<void>;

  /**
   * Posts `events` (contiguous from the session's next seq) to be written; blocks while
   * {@link MAX_BATCHES_IN_FLIGHT} batches are waiting.
   * @throws StoreError STALE_APPEND for a gap; whatever the worker met writing an earlier batch.
   */
  append(events: readonly SessionEvent[]): void {
    this.throwIfFailed();
    if (this.closed) throw new StoreError('STORE_CLOSED', 'this threaded appender is closed');
    if (events.length === 0) return;
    events.forEach((event, i) => {
      if (event.seq !== this.nextSeq + i) throw new StoreError('STALE_APPEND', `append to ${this.sessionId} has a gap: seq ${event.seq} where ${this.nextSeq + i} was next`);
    });
    const batch: AppendBatch = {
      sessionId: this.sessionId,
      from: this.nextSeq,
      to: this.nextSeq + events.length,
      rows: this.encode(events),
      lastTurn: lastTurnAfter(undefined, events) ?? null,
      now: this.now(),
    };
    this.port.postMessage(batch);
    this.posted++;
    this.nextSeq = batch.to;
    this.waitFor(this.posted - MAX_BATCHES_IN_FLIGHT);
    this.throwIfFailed();
  }

  /**
   * Waits until every posted batch is written and durable (batches commit without an fsync; this
   * ends with one that has it). @throws what the worker met.
   */
  drain(): void {
    this.throwIfFailed();
    if (this.posted > this.durableUpTo) {
      this.port.postMessage({ durable: true, sessionId: this.sessionId, now: this.now() });
      this.posted++;
      this.durableUpTo = this.posted;
    }
    this.waitFor(this.posted);
    this.throwIfFailed();
  }
  /** Batches (counted as posted) covered by the last durable commit. */
  private durableUpTo = 0;

  /** Waits for the posted batches (their errors are dropped) and stops the worker. Idempotent. */
  close(): void {
    if (this.closed) return;
    try {
      this.waitFor(this.posted);
    } catch {
      // the worker is gone or stuck: terminate below
    }
    this.closed = true;
    if (this.stuck || Atomics.load(this.state, 1) === 1) void this.worker.terminate();
    else this.port.postMessage({ close: true });
    this.port.close();
  }

  private waitFor(target: number): void {
    const started = Date.now();
    for (;;) {
      const done = Atomics.load(this.state, 0);
      this.collectReplies();
      if (done >= target || Atomics.load(this.state, 1) === 1 || this.failure) return;
      if (Date.now() - started > BATCH_TIMEOUT_MS) {
        this.stuck = true;
        this.failure = new StoreError('WRITE_FAILED', `the writer thread of ${this.sessionId} did not finish a batch in ${BATCH_TIMEOUT_MS / 1000} s`);
        return;
      }
      Atomics.wait(this.state, 0, done, 1_000);
    }
  }

  private collectReplies(): void {
    for (let reply = receiveMessageOnPort(this.port); reply; reply = receiveMessageOnPort(this.port)) {
      const error = (reply.message as AppendReply).error;
      if (error && !this.failure) this.failure = toStoreError(error);
    }
  }

  private throwIfFailed(): void {
    this.collectReplies();
    if (!this.failure && Atomics.load(this.state, 1) === 1) this.failure = new StoreError('WRITE_FAILED', 'the writer thread could not open the store');
    if (this.failure) throw this.failure;
  }
}

function toStoreError(error: NonNullable<AppendReply['error']>): Error {
  if (error.code === 'STALE_APPEND' || error.code === 'SESSION_NOT_FOUND') return new StoreError(error.code, error.message);
  return new StoreError('WRITE_FAILED', error.message);
}
