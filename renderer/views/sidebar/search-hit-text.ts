/**
 * The words a sidebar search hit shows about where it is: its session's title, the session's
 * folder (the workspace; its last path part, the whole path in the tooltip) and the logged event the
 * match is in ("event 227": the hit opens the session scrolled to it), with a tooltip that says all
 * of it in a sentence. Pure: no DOM.
 */
import type { SearchHit, SessionSummary } from '../../../shared/api.js';
import { displayTitle, folderName } from '../../../shared/session-tree.js';

/** What a hit shows beside its snippet. */
export interface SearchHitPlace {
  /** The session's display title; a short id when the session is not in the list. */
  readonly session: string;
  /** The folder's last path part, e.g. `navfix`; undefined when the session has no folder or is unknown. */
  readonly folder?: string;
  /** `event 227`. */
  readonly event: string;
  /** The whole place in a sentence, for the tooltip (and the long form a screen reader hears). */
  readonly title: string;
}

/** The event a hit is in, as a hit shows it: `event 227` (not a bare `#227`). */
export function hitEventLabel(seq: number): string {
  return `event ${seq}`;
}

/** What that number is, for a tooltip. */
export function hitEventTitle(seq: number): string {
  return `event ${seq} of its log (the event's number, seq); opening the hit scrolls the session to it`;
}

/**
 * Where `hit` is, for its row in the search results.
 * @param summary its session from the sidebar's list, when it is there.
 */
export function searchHitPlace(
  hit: Pick<SearchHit, 'sessionId' | 'seq'>,
  summary: (Pick<SessionSummary, 'id' | 'title'> & Partial<Pick<SessionSummary, 'cwd' | 'parentSession' | 'createdAt'>>) | undefined,
  sessions: readonly SessionSummary[] = [],
): SearchHitPlace {
  const session = summary ? displayTitle(summary, undefined, sessions) : `session ${hit.sessionId.slice(0, 8)}`;
  const cwd = summary?.cwd?.trim();
  const folder = cwd ? folderName(cwd) : undefined;
  const event = hitEventLabel(hit.seq);
  const where = cwd ? `in the session “${session}”, folder ${cwd}` : `in the session “${session}”`;
  return {
    session,
    ...(folder !== undefined ? { folder } : {}),
    event,
    title: `${where} — ${hitEventTitle(hit.seq)}`,
  };
}
