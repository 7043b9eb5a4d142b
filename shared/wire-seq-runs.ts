/**
 * Seq runs on the WebSocket wire (browser mode). An assistant message cites every chunk it was
 * streamed from in `sourceEventSeqs`; after a long stream that is one array of 100,000 consecutive
 * seqs (~600 KB of JSON), and decoding it stalled the page on the frame where the answer landed.
 * On the wire, a run of at least {@link SEQ_RUN_MIN} consecutive seqs travels as
 * `{ "seqRun": [first, count] }` and is expanded back on arrival — the events the renderer sees are
 * exactly the logged ones. Only `session/events` pushes are packed (the live stream); the Electron
 * IPC path (structured clone) does not need it.
 */
import type { HostPush } from './api.js';
import type { SessionEvent } from './events.js';

/** The shortest run worth packing. */
export const SEQ_RUN_MIN = 64;

/** A packed run: seqs `first, first + 1, …, first + count - 1`. */
export interface WireSeqRun {
  readonly seqRun: readonly [first: number, count: number];
}

/** `push` for the wire: `session/events` with long consecutive `sourceEventSeqs` packed (a copy; `push` is not changed). */
export function packSeqRuns(push: HostPush): HostPush {
  if (push.kind !== 'session/events' || !push.events.some(packable)) return push;
  return {
    ...push,
    events: push.events.map((event) => (packable(event) ? ({ ...event, sourceEventSeqs: { seqRun: [event.sourceEventSeqs![0]!, event.sourceEventSeqs!.length] } } as unknown as SessionEvent) : event)),
  };
}

/**
 * Expands packed runs in a `session/events` push just parsed from the wire, in place (the object
 * is fresh from `JSON.parse`). A malformed run is left as it is, for the usual checks to report.
 */
export function unpackSeqRuns(push: HostPush): HostPush {
  if (push.kind !== 'session/events' || !Array.isArray(push.events)) return push;
  for (const event of push.events as { sourceEventSeqs?: unknown }[]) {
    const run = (event.sourceEventSeqs as Partial<WireSeqRun> | undefined)?.seqRun;
    if (!Array.isArray(run) || run.length !== 2) continue;
    const [first, count] = run as [unknown, unknown];
    if (!Number.isSafeInteger(first) || !Number.isSafeInteger(count) || (count as number) < 0 || (count as number) > 10_000_000) continue;
    const seqs = new Array<number>(count as number);
    for (let i = 0; i < (count as number); i++) seqs[i] = (first as number) + i;
    event.sourceEventSeqs = seqs;
  }
  return push;
}

function packable(event: SessionEvent): boolean {
  const seqs = event.sourceEventSeqs;
  if (seqs === undefined || seqs.length < SEQ_RUN_MIN) return false;
  const first = seqs[0]!;
  for (let i = 1; i < seqs.length; i++) if (seqs[i] !== first + i) return false;
  return true;
}
