/**
 * Machine-readable output of `forkline ls --json` and `forkline show --json` (one JSON document on
 * stdout, then a newline). The shapes are documented in the README and stay stable:
 *
 * - `ls --json`: an array of sessions, newest change first — `{id, title?, cwd?, createdAt,
 *   updatedAt, eventCount, parentSession?, seedLength?, origin?}` (times in epoch ms).
 * - `show --json`: `{session: {…as in ls…}, repaired, rows}` where `rows` are the timeline rows
 *   exactly as the app's timeline has them (`shared/timeline-rows.ts`: `kind`, `key`, `seq`, `time`,
 *   and per kind the turn, step, text, tool call and result, usage, …).
 */
import type { SessionHeader } from '../../shared/events.js';
import type { SessionEvent } from '../../shared/events.js';
import { timelineOf, type TimelineRow } from '../../shared/timeline.js';

/** One session as `ls --json` lists it. */
export interface SessionListEntry {
  readonly id: string;
  readonly title?: string;
  readonly cwd?: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly eventCount: number;
  readonly parentSession?: string;
  readonly seedLength?: number;
  readonly origin?: SessionHeader['origin'];
}

/** What a stored session record offers for a list entry. */
export interface ListableRecord {
  readonly header: SessionHeader;
  readonly updatedAt: number;
  readonly eventCount: number;
}

export function sessionListEntry(record: ListableRecord): SessionListEntry {
  const h = record.header;
  return {
    id: h.id,
    ...(h.title !== undefined ? { title: h.title } : {}),
    ...(h.cwd !== undefined ? { cwd: h.cwd } : {}),
    createdAt: h.createdAt,
    updatedAt: record.updatedAt,
    eventCount: record.eventCount,
    ...(h.parentSession !== undefined ? { parentSession: h.parentSession } : {}),
    ...(h.seedLength !== undefined ? { seedLength: h.seedLength } : {}),
    ...(h.origin !== undefined ? { origin: h.origin } : {}),
  };
}

/** `show --json`: the session, how many closing events crash recovery added, and the timeline rows. */
export interface SessionShowJson {
  readonly session: SessionListEntry;
  readonly repaired: number;
  readonly rows: readonly TimelineRow[];
}

export function sessionShowJson(record: ListableRecord, events: readonly SessionEvent[], repaired: number): SessionShowJson {
  return { session: { ...sessionListEntry(record), eventCount: events.length }, repaired, rows: timelineOf(events).rows };
}

/** Serialises a document for stdout (compact; one trailing newline). */
export function jsonLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}
