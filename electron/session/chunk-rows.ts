/**
 * Packed chunk rows: runs of consecutive delta `assistant/chunk` events stored as one row
 * (reference runtime `packages/core/session/src/chunk-rows.ts` format, so its JSONL files import):
 *
 *   {type:'text-chunks'|'reasoning-chunks', seq0, time0, data:{turn, step, index, dt[], texts[]}}
 *   {type:'tool-call-chunks', seq0, time0, data:{turn, step, index, dt[], id, name?, args[]}}
 *
 * Member i has seq `seq0 + i` and time `time0 + dt[0] + … + dt[i-1]`. A run is packed only when
 * expanding the row reproduces every member byte for byte (same keys in the same order), so a round
 * trip is always exact.
 */
import type { StreamChunk } from '../../shared/chunks.js';
import type { SessionEvent } from '../../shared/events.js';
import type { JsonValue } from '../../shared/json.js';

export type PackedRowType = 'text-chunks' | 'reasoning-chunks' | 'tool-call-chunks';
export const PACKED_ROW_TYPES: ReadonlySet<string> = new Set<PackedRowType>(['text-chunks', 'reasoning-chunks', 'tool-call-chunks']);

export interface PackedRowData {
  readonly turn: number;
  readonly step: number;
  readonly index: number;
  readonly dt: readonly number[];
  readonly texts?: readonly string[];
  readonly id?: string;
  readonly name?: string;
  readonly args?: readonly string[];
}

export interface PackedRow {
  readonly type: PackedRowType;
  readonly seq0: number;
  readonly time0: number;
  readonly data: PackedRowData;
}

/** Packing bounds (reference runtime: at least 3 members, at most 1024, ≤ 1 MiB of text). */
export const MIN_PACKED_MEMBERS = 3;
export const MAX_PACKED_MEMBERS = 1024;
export const MAX_PACKED_TEXT_BYTES = 1024 * 1024;

/** Thrown for a malformed packed row (bad arrays, lengths or member fields). */
export class PackedRowError extends Error {
  override readonly name = 'PackedRowError';
}

/** Expands a packed row into its member events, in seq order. @throws PackedRowError */
export function expandPackedRow(row: PackedRow): SessionEvent<'assistant/chunk'>[] {
  const { data } = row;
  if (!Number.isSafeInteger(row.seq0) || row.seq0 < 0 || !Number.isFinite(row.time0)) throw new PackedRowError('packed row has a bad seq0/time0');
  if (!data || !Array.isArray(data.dt) || !Number.isSafeInteger(data.turn) || !Number.isSafeInteger(data.step) || !Number.isSafeInteger(data.index)) {
    throw new PackedRowError(`packed row at seq ${row.seq0} is malformed`);
  }
  const parts = row.type === 'tool-call-chunks' ? data.args : data.texts;
  if (!Array.isArray(parts) || parts.length === 0 || data.dt.length !== parts.length - 1) {
    throw new PackedRowError(`packed row at seq ${row.seq0} has mismatched member arrays`);
  }
  if (row.type === 'tool-call-chunks' && typeof data.id !== 'string') throw new PackedRowError(`tool-call row at seq ${row.seq0} has no id`);
  const out: SessionEvent<'assistant/chunk'>[] = [];
  let time = row.time0;
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) {
      const step = data.dt[i - 1];
      if (typeof step !== 'number' || !Number.isFinite(step)) throw new PackedRowError(`packed row at seq ${row.seq0} has a bad dt`);
      time += step;
    }
    const part = parts[i];
    if (typeof part !== 'string') throw new PackedRowError(`packed row at seq ${row.seq0} has a non-string member`);
    let chunk: StreamChunk;
    if (row.type === 'tool-call-chunks') {
      chunk =
        data.name === undefined
          ? { type: 'tool-call-delta', index: data.index, id: data.id!, argumentsDelta: part }
          : { type: 'tool-call-delta', index: data.index, id: data.id!, name: data.name, argumentsDelta: part };
    } else {
      chunk = { type: row.type === 'text-chunks' ? 'text-delta' : 'reasoning-delta', index: data.index, text: part };
    }
    out.push({ type: 'assistant/chunk', seq: row.seq0 + i, time, data: { turn: data.turn, step: data.step, chunk } } as SessionEvent<'assistant/chunk'>);
  }
  return out;
}

const DATA_KEYS = ['turn', 'step', 'chunk'] as const;
const TEXT_KEYS = ['type', 'index', 'text'] as const;
const TOOL_KEYS = ['type', 'index', 'id', 'name', 'argumentsDelta'] as const;
const TOOL_KEYS_NO_NAME = ['type', 'index', 'id', 'argumentsDelta'] as const;

/** True when the own enumerable keys of `value` are exactly `keys`, in that order. */
function hasExactKeys(value: object, keys: readonly string[]): boolean {
  let i = 0;
  for (const key in value) {
    if (key !== keys[i]) return false;
    i++;
  }
  return i === keys.length;
}

/**
 * Whether an event can be a member of a packed run: a delta chunk whose envelope and keys are
 * exactly (and in the order) that {@link expandPackedRow} rebuilds, so expansion is byte-identical.
 */
function isPackable(event: SessionEvent): boolean {
  if (event.type !== 'assistant/chunk' || event.surfaceOp !== undefined || event.sourceEventSeqs !== undefined || event.ignorable) return false;
  const data = event.data;
  if (!hasExactKeys(data, DATA_KEYS) || !Number.isSafeInteger(data.turn) || !Number.isSafeInteger(data.step)) return false;
  const chunk = data.chunk;
  switch (chunk.type) {
    case 'text-delta':
    case 'reasoning-delta':
      return hasExactKeys(chunk, TEXT_KEYS) && typeof chunk.text === 'string' && Number.isSafeInteger(chunk.index);
    case 'tool-call-delta':
      return (
        hasExactKeys(chunk, chunk.name === undefined ? TOOL_KEYS_NO_NAME : TOOL_KEYS) &&
        typeof chunk.argumentsDelta === 'string' &&
        typeof chunk.id === 'string' &&
        (chunk.name === undefined || typeof chunk.name === 'string') &&
        Number.isSafeInteger(chunk.index)
      );
    default:
      return false;
  }
}

/** Whether packable `b` continues the run of packable `a` (same block of the same step, next seq). */
function continuesRun(a: SessionEvent<'assistant/chunk'>, b: SessionEvent<'assistant/chunk'>): boolean {
  if (b.seq !== a.seq + 1 || a.data.turn !== b.data.turn || a.data.step !== b.data.step) return false;
  const x = a.data.chunk;
  const y = b.data.chunk;
  if (x.type !== y.type) return false;
  if (x.type === 'tool-call-delta') {
    const z = y as typeof x;
    return x.index === z.index && x.id === z.id && x.name === z.name;
  }
  return (x as { index: number }).index === (y as { index: number }).index;
}

function packRun(run: readonly SessionEvent<'assistant/chunk'>[]): PackedRow {
  const first = run[0]!;
  const chunk = first.data.chunk;
  const dt: number[] = [];
  for (let i = 1; i < run.length; i++) dt.push(run[i]!.time - run[i - 1]!.time);
  const head = { turn: first.data.turn, step: first.data.step, index: (chunk as { index: number }).index, dt };
  if (chunk.type === 'tool-call-delta') {
    const args = run.map((e) => (e.data.chunk as { argumentsDelta: string }).argumentsDelta);
    const data: PackedRowData = chunk.name === undefined ? { ...head, id: chunk.id, args } : { ...head, id: chunk.id, name: chunk.name, args };
    return { type: 'tool-call-chunks', seq0: first.seq, time0: first.time, data };
  }
  const texts = run.map((e) => (e.data.chunk as { text: string }).text);
  return { type: chunk.type === 'text-delta' ? 'text-chunks' : 'reasoning-chunks', seq0: first.seq, time0: first.time, data: { ...head, texts } };
}

/** Canonical serialisation of an event envelope (key order: type, seq, time, data, ignorable, sourceEventSeqs, surfaceOp). */
export function serializeEvent(event: SessionEvent): string {
  let out = `{"type":${JSON.stringify(event.type)},"seq":${event.seq},"time":${event.time},"data":${JSON.stringify(event.data)}`;
  if (event.ignorable) out += ',"ignorable":true';
  if (event.sourceEventSeqs !== undefined) out += `,"sourceEventSeqs":${JSON.stringify(event.sourceEventSeqs)}`;
  if (event.surfaceOp !== undefined) out += `,"surfaceOp":${JSON.stringify(event.surfaceOp)}`;
  return out + '}';
}

/** Canonical serialisation of a packed row. */
export function serializePackedRow(row: PackedRow): string {
  return `{"type":"${row.type}","seq0":${row.seq0},"time0":${row.time0},"data":${JSON.stringify(row.data)}}`;
}

/**
 * Groups events into rows: packed rows for eligible runs (≥ {@link MIN_PACKED_MEMBERS} consecutive
 * members of one block with canonical keys), plain events otherwise. Order is preserved.
 */
export function packEvents(events: readonly SessionEvent[]): (SessionEvent | PackedRow)[] {
  const out: (SessionEvent | PackedRow)[] = [];
  let i = 0;
  while (i < events.length) {
    if (!isPackable(events[i]!)) {
      out.push(events[i]!);
      i++;
      continue;
    }
    let j = i + 1;
    let bytes = 0;
    while (j < events.length && j - i < MAX_PACKED_MEMBERS && isPackable(events[j]!) && continuesRun(events[j - 1] as SessionEvent<'assistant/chunk'>, events[j] as SessionEvent<'assistant/chunk'>)) {
      // Member times are rebuilt as time0 + dt[0] + …; with fractional times floating-point
      // rounding can make that differ from the stored time, so such a member ends the run.
      const previous = events[j - 1]!.time;
      if (previous + (events[j]!.time - previous) !== events[j]!.time) break;
      const c = (events[j]!.data as { chunk: { text?: string; argumentsDelta?: string } }).chunk;
      bytes += (c.text ?? c.argumentsDelta ?? '').length * 3;
      if (bytes > MAX_PACKED_TEXT_BYTES) break;
      j++;
    }
    if (j - i >= MIN_PACKED_MEMBERS) {
      out.push(packRun(events.slice(i, j) as SessionEvent<'assistant/chunk'>[]));
      i = j;
      continue;
    }
    out.push(events[i]!);
    i++;
  }
  return out;
}

/** True when a parsed JSON line is a packed row. */
export function isPackedRow(value: { readonly type?: JsonValue }): boolean {
  return typeof value.type === 'string' && PACKED_ROW_TYPES.has(value.type);
}
