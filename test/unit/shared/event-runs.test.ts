import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../shared/events.js';
import { eventTypeLabel, filterEvents, foldChunkRuns, seqQuery, typeCounts } from '../../../shared/event-runs.js';
import { sessionActivity } from '../../../shared/session-activity.js';

let seq = 0;
const ev = (type: string, data: unknown): SessionEvent => ({ seq: seq++, type, time: seq, data }) as unknown as SessionEvent;
const delta = (index: number, text: string, type = 'text-delta') =>
  ev('assistant/chunk', { turn: 1, step: 1, chunk: { type, index, ...(type === 'tool-call-delta' ? { id: 'c', argumentsDelta: text } : { text }) } });

describe('raw event list', () => {
  seq = 0;
  const events = [
    ev('step/start', { turn: 1, step: 1 }),
    ...['{"pa', 'th":', '"a.txt"', '}'].map((t) => delta(0, t, 'tool-call-delta')),
    delta(1, 'only'),
    delta(1, ' two'),
    ev('tool/call', { turn: 1, step: 1, callId: 'c', name: 'read_file', arguments: '{"path":"a.txt"}' }),
  ];

  it('folds runs of 3+ same-block deltas into one item with their text, and keeps short runs as events', () => {
    const items = foldChunkRuns(events);
    expect(items.map((i) => (i.kind === 'run' ? `run ${i.first}-${i.last} ${i.chunkType}` : `event ${i.event.seq}`))).toEqual(['event 0', 'run 1-4 tool-call-delta', 'event 5', 'event 6', 'event 7']);
    const run = items[1]!;
    expect(run.kind === 'run' && run.preview).toBe('{"path":"a.txt"}');
  });

  it('counts, filters by type label and text, and reads #seq queries', () => {
    expect(typeCounts(events)[0]).toEqual({ type: 'assistant/chunk tool-call-delta', count: 4 });
    expect(eventTypeLabel(events[5]!)).toBe('assistant/chunk text-delta');
    expect(filterEvents(events, { types: new Set(['tool/call']) }).map((e) => e.seq)).toEqual([7]);
    expect(filterEvents(events, { text: 'A.TXT' }).map((e) => e.seq)).toEqual([3, 7]);
    expect(seqQuery('#12')).toBe(12);
    expect(seqQuery(' 7 ')).toBe(7);
    expect(seqQuery('TypeError')).toBeUndefined();
  });
});

describe('session activity', () => {
  it('tells running, waiting, crashed and failed sessions apart', () => {
    expect(sessionActivity({ status: 'running', waitingApproval: true })).toBe('waiting-approval');
    expect(sessionActivity({ status: 'running', lastTurn: 'open' })).toBe('running');
    expect(sessionActivity({ status: 'idle', lastTurn: 'open' })).toBe('crashed');
    expect(sessionActivity({ status: 'idle', lastTurn: 'open', ownedElsewhere: true })).toBe('running');
    expect(sessionActivity({ status: 'idle', lastTurn: 'interrupted' })).toBe('crashed');
    expect(sessionActivity({ status: 'idle', lastTurn: 'error' })).toBe('failed');
    expect(sessionActivity({ status: 'idle', lastTurn: 'aborted' })).toBe('idle');
    expect(sessionActivity({ status: 'idle' })).toBe('idle');
  });
});
