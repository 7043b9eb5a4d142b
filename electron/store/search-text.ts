/**
 * What the full-text index holds for an event (docs/architecture.md §13 full-text search): the text of every
 * model-visible message — typed prompts, steering and compaction summaries, assistant answers
 * with their reasoning and tool calls, and tool output. Chunks are not indexed (their message
 * carries the same text once). Also: how an event changes a session's "last turn" state, which
 * the session list shows without reading events.
 */
import type { SessionEvent } from '../../shared/events.js';
import { asObject, asString, assistantBlocks, joinText, toolResultFacts, turnEndFacts } from '../../shared/event-read.js';
import { cutHead } from '../../shared/text-cut.js';

/** The most characters of one event that are indexed (the head of longer text). */
export const SEARCH_DOC_MAX_CHARS = 200_000;

/** Event types with searchable text. */
export const SEARCHABLE_TYPES: ReadonlySet<string> = new Set(['user/message', 'assistant/message', 'tool/result']);

/** Which part of a session a search hit is in. */
export type SearchDocKind = 'user' | 'assistant' | 'tool' | 'summary';

export interface SearchDoc {
  readonly kind: SearchDocKind;
  readonly text: string;
}

/** The searchable text of `event`, or undefined when it has none. Never throws on odd payloads. */
export function searchableText(event: SessionEvent): SearchDoc | undefined {
  if (!SEARCHABLE_TYPES.has(event.type)) return undefined;
  const data = asObject(event.data) ?? {};
  let kind: SearchDocKind;
  let text: string;
  switch (event.type) {
    case 'user/message': {
      const source = asString(asObject(data['source'])?.['kind']);
      kind = source === 'compaction' ? 'summary' : 'user';
      text = joinText(data['content']);
      break;
    }
    case 'assistant/message': {
      kind = 'assistant';
      const parts: string[] = [];
      for (const block of assistantBlocks(data)) {
        if (block.type === 'tool-call') parts.push(`${block.name ?? ''} ${block.arguments ?? ''}`);
        else parts.push(block.text);
      }
      text = parts.filter((p) => p.trim() !== '').join('\n');
      break;
    }
    default: {
      kind = 'tool';
      const facts = toolResultFacts(data);
      text = facts.errorCode !== undefined ? `${facts.errorCode}\n${facts.text}` : facts.text;
      break;
    }
  }
  if (text.trim() === '') return undefined;
  return { kind, text: cutHead(text, SEARCH_DOC_MAX_CHARS) };
}

/**
 * The session's last-turn state after `events` (appended in order), starting from `current`:
 * `open` after a `turn/start`, the reason kind after a `turn/end` (`completed`, `error`,
 * `interrupted`, …). Unchanged when the events hold neither.
 */
export function lastTurnAfter(current: string | undefined, events: readonly SessionEvent[]): string | undefined {
  let state = current;
  for (const event of events) {
    if (event.type === 'turn/start') state = 'open';
    else if (event.type === 'turn/end') state = turnEndFacts(event.data).kind;
  }
  return state;
}

/** The reason kind of a stored `turn/end` payload, or `open` for a `turn/start` (migration backfill). */
export function lastTurnOfRow(type: string, data: unknown): string {
  return type === 'turn/start' ? 'open' : turnEndFacts(data).kind;
}

/** True when any of `events` can change the last-turn state. */
export function touchesTurns(events: readonly SessionEvent[]): boolean {
  return events.some((e) => e.type === 'turn/start' || e.type === 'turn/end');
}
