/**
 * Test helper: reads a reference-runtime (DSH) JSONL session log the way the importer lays it out
 * for the renderer — header line skipped, packed `*-chunks` rows expanded to `assistant/chunk`
 * events (member i has seq `seq0 + i` and time `time0 + dt[0..i-1]`), and seqs the file omits
 * filled with `import/elided` placeholders so the log is contiguous. Payloads stay as written
 * (legacy shapes included): the timeline must read them as they come.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionEvent } from '../../../shared/events.js';
import { DSH_SESSION_LOGS } from '../../support/fixtures.js';

export const DSH_FIXTURES = DSH_SESSION_LOGS;

export function dshFixtureNames(): string[] {
  return readdirSync(DSH_FIXTURES)
    .filter((f) => f.endsWith('.jsonl'))
    .sort();
}

interface PackedRow {
  type: 'text-chunks' | 'reasoning-chunks' | 'tool-call-chunks';
  seq0: number;
  time0: number;
  data: { turn: number; step: number; index: number; dt: number[]; texts?: string[]; id?: string; name?: string; args?: string[] };
}

function expand(row: PackedRow): SessionEvent[] {
  const parts = row.type === 'tool-call-chunks' ? (row.data.args ?? []) : (row.data.texts ?? []);
  const out: SessionEvent[] = [];
  let time = row.time0;
  parts.forEach((part, i) => {
    if (i > 0) time += row.data.dt[i - 1] ?? 0;
    const chunk =
      row.type === 'tool-call-chunks'
        ? { type: 'tool-call-delta', index: row.data.index, id: row.data.id, ...(row.data.name === undefined ? {} : { name: row.data.name }), argumentsDelta: part }
        : { type: row.type === 'text-chunks' ? 'text-delta' : 'reasoning-delta', index: row.data.index, text: part };
    out.push({ type: 'assistant/chunk', seq: row.seq0 + i, time, data: { turn: row.data.turn, step: row.data.step, chunk } } as unknown as SessionEvent);
  });
  return out;
}

export function parseDshLog(text: string): { header: Record<string, unknown>; events: SessionEvent[] } {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const header = JSON.parse(lines[0]!) as Record<string, unknown>;
  const events: SessionEvent[] = [];
  for (const line of lines.slice(1)) {
    const value = JSON.parse(line) as Record<string, unknown>;
    const decoded = typeof value['seq0'] === 'number' ? expand(value as unknown as PackedRow) : [value as unknown as SessionEvent];
    for (const event of decoded) {
      while (events.length < event.seq) events.push({ type: 'import/elided', seq: events.length, time: event.time, data: {} });
      events.push(event);
    }
  }
  return { header, events };
}

export function readDshFixture(name: string): { header: Record<string, unknown>; events: SessionEvent[] } {
  return parseDshLog(readFileSync(join(DSH_FIXTURES, name), 'utf8'));
}
