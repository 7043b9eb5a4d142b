/**
 * The request dialect of an endpoint, derived from the log (docs/architecture.md §5 "the wire teaches the
 * dialect"; docs/providers.md "A history any endpoint accepts"): which field the endpoint streams reasoning in, and whether it wants
 * `reasoning_content` back on every assistant message with tool calls. Resume, fork and a
 * continued import derive the same facts from the same events, so they send the history a single
 * run would have sent.
 *
 * What teaches a route (provider + base URL, as the `request/context` in force names it):
 * - an `assistant/message` recorded on it whose reasoning block came in `reasoning_content` (the
 *   stream translator logs an empty block when the field arrived empty) → `reasoningContent:
 *   'tool-calls'`, `reasoningField: 'reasoning_content'`; one in `reasoning` → `reasoningField:
 *   'reasoning'`;
 * - an `llm/warning{HISTORY_CORRECTED, dialect}` (the endpoint rejected a history shape and told us
 *   which) → its `dialect`. What a rejection taught about `reasoning_content` (`'tool-calls'` or
 *   `'omit'`) is the endpoint's own word: a later streamed field does not override it, only a later
 *   correction does.
 * Only events from `fromSeq` on teach (the ones this installation recorded): an imported log's
 * events never say what *our* endpoint wants.
 *
 * Incremental: each call scans only the events appended since the last one, so the per-step cost
 * does not grow with the log. Pure: no I/O.
 */
import type { SessionEvent, WireHints } from '../../shared/events.js';

/** An endpoint as `request/context` names it. */
export interface WireRoute {
  readonly provider: string;
  readonly baseUrl?: string;
}

/** The part of a session the tracker reads. */
export interface EventSource {
  readonly length: number;
  eventAt(seq: number): SessionEvent | undefined;
}

/** The route key of a route: provider and base URL without trailing slashes. */
export function routeKey(route: WireRoute): string {
  return `${route.provider}\n${(route.baseUrl ?? '').replace(/\/+$/, '')}`;
}

/** Merges two hint sets (facts accumulate; a later fact about the same field wins). */
export function mergeWireHints(a: WireHints | undefined, b: WireHints | undefined): WireHints | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const reasoningContent = b.reasoningContent ?? a.reasoningContent;
  const reasoningField = b.reasoningField ?? a.reasoningField;
  return { ...(reasoningContent !== undefined ? { reasoningContent } : {}), ...(reasoningField !== undefined ? { reasoningField } : {}) };
}

/**
 * True when every fact of `wanted` is already in force under `known` (a correction would not change
 * the wire). `reasoningField: 'reasoning_content'` is in force under `reasoningContent: 'tool-calls'`
 * with no field known: reasoning of unknown origin then goes in `reasoning_content` already.
 */
export function coversWireHints(known: WireHints | undefined, wanted: WireHints): boolean {
  if (wanted.reasoningContent !== undefined && known?.reasoningContent !== wanted.reasoningContent) return false;
  if (wanted.reasoningField !== undefined && known?.reasoningField !== wanted.reasoningField) {
    const implied = wanted.reasoningField === 'reasoning_content' && known?.reasoningField === undefined && known?.reasoningContent === 'tool-calls';
    if (!implied) return false;
  }
  return true;
}

/** What one event teaches about the route in force, if anything. */
export function hintsOfEvent(event: SessionEvent): WireHints | undefined {
  if (event.type === 'assistant/message') {
    let out: WireHints | undefined;
    for (const block of event.data.message.content) {
      if (block.type !== 'reasoning' || block.field === undefined) continue;
      out = mergeWireHints(out, block.field === 'reasoning_content' ? { reasoningContent: 'tool-calls', reasoningField: 'reasoning_content' } : { reasoningField: 'reasoning' });
    }
    return out;
  }
  if (event.type === 'llm/warning' && event.data.code === 'HISTORY_CORRECTED') return event.data.dialect;
  return undefined;
}

/** Accumulates, per route, what the log taught. Create one per live session (per agent). */
export class WireHintTracker {
  private scanned = 0;
  private route = '';
  private readonly byRoute = new Map<string, WireHints>();
  /** Routes whose `reasoningContent` a rejection taught (a streamed field no longer changes it). */
  private readonly corrected = new Set<string>();

  /** @param fromSeq first seq whose events may teach (this installation's first event). */
  constructor(private readonly fromSeq = 0) {}

  /** The hints known for `route` after every event of `source` (undefined: nothing known). */
  hintsFor(source: EventSource, route: WireRoute): WireHints | undefined {
    for (; this.scanned < source.length; this.scanned++) {
      const event = source.eventAt(this.scanned);
      if (event === undefined) continue;
      if (event.type === 'request/context') {
        this.route = routeKey(event.data);
        continue;
      }
      if (event.seq < this.fromSeq) continue;
      let taught = hintsOfEvent(event);
      if (taught?.reasoningContent !== undefined) {
        if (event.type === 'llm/warning') this.corrected.add(this.route);
        else if (this.corrected.has(this.route)) taught = taught.reasoningField !== undefined ? { reasoningField: taught.reasoningField } : undefined;
      }
      if (taught !== undefined) {
        const merged = mergeWireHints(this.byRoute.get(this.route), taught);
        if (merged !== undefined) this.byRoute.set(this.route, merged);
      }
    }
    return this.byRoute.get(routeKey(route));
  }
}
