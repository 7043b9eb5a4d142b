/**
 * The raw event inspector's list: events with runs of consecutive streamed chunks folded into one
 * expandable item (a tool call's 45 argument deltas read as one line, not 45), plus the type
 * filter and text / seq search over raw events.
 *
 * Pure: no Node, no DOM.
 */
import type { SessionEvent } from './events.js';
import { asObject, asString } from './event-read.js';
import { headPreview } from './preview.js';

/** Chunks of these types fold into runs when consecutive (same turn, step, block index and type). */
const FOLDABLE: ReadonlySet<string> = new Set(['text-delta', 'reasoning-delta', 'tool-call-delta']);

/** Shortest run that is folded. */
export const MIN_RUN = 3;

export type EventItem =
  | { readonly kind: 'event'; readonly event: SessionEvent }
  | {
      readonly kind: 'run';
      readonly events: readonly SessionEvent[];
      /** The chunk type of every member (`tool-call-delta`, …). */
      readonly chunkType: string;
      readonly first: number;
      readonly last: number;
      /** The members' text joined (deltas or argument fragments), cut for display. */
      readonly preview: string;
    };

/** The label a filter and the list use for an event: its type, with the chunk type for chunks. */
export function eventTypeLabel(event: SessionEvent): string {
  if (event.type !== 'assistant/chunk') return event.type;
  const chunk = asObject(asObject(event.data)?.['chunk']);
  return `assistant/chunk ${asString(chunk?.['type']) ?? '?'}`;
}

function runKey(event: SessionEvent): string | undefined {
  if (event.type !== 'assistant/chunk') return undefined;
  const d = asObject(event.data) ?? {};
  const chunk = asObject(d['chunk']) ?? {};
  const type = asString(chunk['type']);
  if (type === undefined || !FOLDABLE.has(type)) return undefined;
  return `${String(d['turn'])}/${String(d['step'])}/${String(chunk['index'])}/${type}`;
}

function chunkText(event: SessionEvent): string {
  const chunk = asObject(asObject(event.data)?.['chunk']) ?? {};
  return asString(chunk['text']) ?? asString(chunk['argumentsDelta']) ?? '';
}

/** `events` (ascending seqs) with runs of at least {@link MIN_RUN} consecutive same-block deltas folded. */
export function foldChunkRuns(events: readonly SessionEvent[], previewChars = 160): EventItem[] {
  const out: EventItem[] = [];
  let i = 0;
  while (i < events.length) {
    const key = runKey(events[i]!);
    let j = i + 1;
    if (key !== undefined) while (j < events.length && events[j]!.seq === events[j - 1]!.seq + 1 && runKey(events[j]!) === key) j++;
    if (key !== undefined && j - i >= MIN_RUN) {
      const members = events.slice(i, j);
      let text = '';
      for (const e of members) {
        text += chunkText(e);
        if (text.length > previewChars * 2) break;
      }
      out.push({
        kind: 'run',
        events: members,
        chunkType: key.slice(key.lastIndexOf('/') + 1),
        first: members[0]!.seq,
        last: members[members.length - 1]!.seq,
        preview: headPreview(text, previewChars, { oneLine: true }),
      });
      i = j;
    } else {
      out.push({ kind: 'event', event: events[i]! });
      i++;
    }
  }
  return out;
}

/** How many events of each type label `events` holds, most frequent first. */
export function typeCounts(events: readonly SessionEvent[]): { readonly type: string; readonly count: number }[] {
  const counts = new Map<string, number>();
  for (const e of events) {
    const label = eventTypeLabel(e);
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  return [...counts].map(([type, count]) => ({ type, count })).sort((a, b) => b.count - a.count || a.type.localeCompare(b.type));
}

export interface EventQuery {
  /** Type labels to keep (empty or absent: all). */
  readonly types?: ReadonlySet<string>;
  /** Text every kept event's JSON contains (case-insensitive); ignored when blank. */
  readonly text?: string;
}

/** The events matching a query, in order. */
export function filterEvents(events: readonly SessionEvent[], query: EventQuery): SessionEvent[] {
  const needle = query.text?.trim().toLowerCase() ?? '';
  const types = query.types && query.types.size > 0 ? query.types : undefined;
  return events.filter((e) => (!types || types.has(eventTypeLabel(e))) && (needle === '' || JSON.stringify(e).toLowerCase().includes(needle)));
}

/** A search box's text read as a seq (`#123` or `123`), else undefined. */
export function seqQuery(text: string): number | undefined {
  const m = /^#?(\d{1,15})$/.exec(text.trim());
  return m ? Number(m[1]) : undefined;
}
