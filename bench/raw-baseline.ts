/**
 * The baselines: raw better-sqlite3 on a one-row-per-event table with the store's own connection
 * pragmas, doing only what any event store must do (JSON.stringify on write, JSON.parse on read).
 */
import Database from 'better-sqlite3';
import type { SessionEvent } from '../shared/events.js';
import { CONNECTION_PRAGMAS } from '../electron/store/sql.js';

export function openRaw(file: string): Database.Database {
  const db = new Database(file);
  for (const pragma of CONNECTION_PRAGMAS) db.pragma(pragma);
  db.exec(`CREATE TABLE IF NOT EXISTS events (
    session_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, time ANY NOT NULL, data TEXT NOT NULL,
    surface_op TEXT, source_event_seqs TEXT, PRIMARY KEY (session_id, seq)) STRICT`);
  return db;
}

/** Inserts `events` in the given [start, end) batches, one transaction per batch, one row per event. */
export function rawInsert(db: Database.Database, sessionId: string, events: readonly SessionEvent[], batches: readonly (readonly [number, number])[]): void {
  const insert = db.prepare('INSERT INTO events (session_id, seq, type, time, data, surface_op, source_event_seqs) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const write = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const e = events[i]!;
      insert.run(
        sessionId,
        e.seq,
        e.type,
        e.time,
        JSON.stringify(e.data),
        e.surfaceOp === undefined ? null : JSON.stringify(e.surfaceOp),
        e.sourceEventSeqs === undefined ? null : JSON.stringify(e.sourceEventSeqs),
      );
    }
  });
  for (const [from, to] of batches) write.immediate(from, to);
}

/** Selects every row of a session in seq order and parses it back into event objects. */
export function rawReadAll(db: Database.Database, sessionId: string): SessionEvent[] {
  const rows = db.prepare('SELECT seq, type, time, data, surface_op, source_event_seqs FROM events WHERE session_id = ? ORDER BY seq').all(sessionId) as {
    seq: number;
    type: string;
    time: number;
    data: string;
    surface_op: string | null;
    source_event_seqs: string | null;
  }[];
  return rows.map((r) => {
    const e: Record<string, unknown> = { seq: r.seq, type: r.type, time: r.time, data: JSON.parse(r.data) };
    if (r.surface_op !== null) e['surfaceOp'] = JSON.parse(r.surface_op);
    if (r.source_event_seqs !== null) e['sourceEventSeqs'] = JSON.parse(r.source_event_seqs);
    return e as unknown as SessionEvent;
  });
}
