/**
 * Session log contracts (docs/architecture.md §3; dsh-contracts §1.1, §8.3, §10.10): append validation and
 * freezing (the fast append-path copier agrees with shared/json.ts), seeds, session/end-seed,
 * snapshots, observer containment and re-entrancy.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../shared/events.js';
import { NonJsonValueError, toFrozenJson } from '../../../shared/json.js';
import { Session } from '../../../electron/session/session.js';
import { AgentLogWriter, buildSession, header, serializeAll, steppingClock } from '../../support/store-fixtures.js';

function outcome(fn: () => unknown): { ok: unknown } | { error: string } {
  try {
    return { ok: fn() };
  } catch (error) {
    return { error: error instanceof NonJsonValueError ? `${error.path}|${error.what}|${error.message}` : String(error) };
  }
}

/** A plain, independent oracle for "lossless JSON" (the generator makes no cycles). */
function isLossless(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object': {
      if (value === null) return true;
      if (Array.isArray(value)) return Array.from({ length: value.length }, (_, i) => i in value && isLossless(value[i])).every(Boolean);
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      if (Object.getOwnPropertySymbols(value).length > 0) return false;
      return Object.values(value).every(isLossless);
    }
    default:
      return false;
  }
}

/** `[1, <hole>, 3]` */
function sparse(): unknown[] {
  const a: unknown[] = [1];
  a[2] = 3;
  return a;
}

class Point {
  x = 1;
}

/** JSON values with occasional non-JSON leaves and subtrees. */
const nasty: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<unknown>(undefined, Number.NaN, -0, Number.POSITIVE_INFINITY, 1n, () => 1, Symbol('s'), new Date(0), new Map(), new Point(), new Uint8Array(2), sparse()),
    },
    { weight: 2, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
    { weight: 2, arbitrary: fc.dictionary(fc.string({ maxLength: 4 }), tie('value'), { maxKeys: 4 }) },
  ),
})).value;

describe('lossless JSON on the append path', () => {
  it('toFrozenJson accepts exactly the lossless values, copying them deep-frozen', () => {
    fc.assert(
      fc.property(nasty, fc.constantFrom(undefined, 'tool/result'), (value, context) => {
        const result = outcome(() => toFrozenJson(value, context));
        if (isLossless(value)) {
          expect('ok' in result).toBe(true);
          const copy = (result as { ok: unknown }).ok;
          expect(JSON.stringify(copy)).toBe(JSON.stringify(value));
          if (copy !== null && typeof copy === 'object') {
            expect(copy).not.toBe(value);
            expect(Object.isFrozen(copy)).toBe(true);
          }
        } else {
          expect('error' in result).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('rejects cycles and symbol keys, copies shared (acyclic) references, never aliases the input', () => {
    const shared = { a: 1 };
    const copy = toFrozenJson({ x: shared, y: shared });
    expect(copy).toEqual({ x: { a: 1 }, y: { a: 1 } });
    expect(copy.x).not.toBe(shared);
    expect(Object.isFrozen(copy.x)).toBe(true);
    expect(Object.isFrozen(shared)).toBe(false);
    const cyclic: Record<string, unknown> = { list: [] };
    (cyclic['list'] as unknown[]).push({ back: cyclic });
    expect(() => toFrozenJson(cyclic, 'x')).toThrow('x: cycle at $.list[0].back is not lossless JSON');
    expect(() => toFrozenJson({ [Symbol('k')]: 1 })).toThrow(/symbol key at \$/);
    expect(() => toFrozenJson(Object.create(null) as object)).not.toThrow();
  });

  it('keeps a "__proto__" key as data', () => {
    const value = JSON.parse('{"__proto__":{"a":1},"b":2}') as object;
    const copy = toFrozenJson(value);
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"a":1},"b":2}');
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    const s = new Session({ header: header('proto'), now: () => 1 });
    const event = s.append({ type: 'session/title', data: { title: 't', source: value } as never });
    expect(JSON.stringify(event.data)).toBe('{"title":"t","source":{"__proto__":{"a":1},"b":2}}');
  });

  it('Session.append reports the path of a bad value inside data and the event type', () => {
    const s = new Session({ header: header('p'), now: () => 5 });
    s.append({ type: 'turn/start', data: { turn: 1 } });
    expect(() => s.append({ type: 'todo/write', data: { todos: [{ content: 'x', status: 'pending', due: new Date(0) }] } as never })).toThrow(
      'todo/write: class instance Date at $.data.todos[0].due is not lossless JSON',
    );
    expect(() => s.append({ type: 'step/start', data: { turn: 1, step: 1 }, sourceEventSeqs: [Number.NaN] } as never)).toThrow(/NaN at \$.sourceEventSeqs\[0\]/);
    expect(s.length).toBe(1);
  });

  it('rejects a clock that returns a non-JSON time', () => {
    for (const bad of [Number.NaN, -0, Number.POSITIVE_INFINITY]) {
      const s = new Session({ header: header('t'), now: () => bad });
      expect(() => s.append({ type: 'session/title', data: { title: 'x' } })).toThrow(expect.objectContaining({ code: 'NON_JSON_DATA' }));
      expect(s.length).toBe(0);
    }
  });

  it('rejects unknown event types', () => {
    const s = new Session({ header: header('u') });
    expect(() => s.append({ type: 'plugin/unknown', data: {} } as never)).toThrow(expect.objectContaining({ code: 'INVALID_EVENT' }));
  });
});

describe('Session seeds and session/end-seed', () => {
  it('requires a contiguous seed from seq 0 and refuses unknown required types, accepting ignorable ones', () => {
    const events = buildSession('seed', 1, 3).events;
    expect(() => new Session({ header: header('s'), seed: [events[0]!, events[2]!] })).toThrow(expect.objectContaining({ code: 'INVALID_EVENT' }));
    expect(() => new Session({ header: header('s'), seed: events.slice(1) })).toThrow(expect.objectContaining({ code: 'INVALID_EVENT' }));
    const unknown = { type: 'x/y', seq: events.length, time: 1, data: {} } as unknown as SessionEvent;
    expect(() => new Session({ header: header('s'), seed: [...events, unknown] })).toThrow(/unknown type x\/y/);
    const ok = new Session({ header: header('s'), seed: [...events, { ...unknown, ignorable: true } as SessionEvent] });
    expect(ok.length).toBe(events.length + 1);
  });

  it('appends session/end-seed once after a non-empty seed, and not again when the seed already ends with it', () => {
    const events = buildSession('es', 1, 3).events;
    const resumed = new Session({ header: header('es'), seed: events, markEndSeed: true, now: () => 1 });
    expect(resumed.firstLiveSeq).toBe(events.length);
    expect(resumed.events.slice(events.length).map((e) => e.type)).toEqual(['session/end-seed']);
    const again = new Session({ header: header('es'), seed: resumed.events, markEndSeed: true });
    expect(again.length).toBe(resumed.length);
    // Only log-only events since the boundary (a fork titled before its first turn): still one boundary.
    const titled = new Session({ header: header('es'), seed: resumed.events, now: () => 2 });
    titled.append({ type: 'session/title', data: { title: 'fork of es' } });
    const resumedAgain = new Session({ header: header('es'), seed: titled.events, markEndSeed: true });
    expect(resumedAgain.length).toBe(titled.length);
    // New history since the boundary (a queued prompt): a new boundary.
    const queued = new Session({ header: header('es'), seed: titled.events });
    new AgentLogWriter(queued).inboxInsert('next');
    expect(new Session({ header: header('es'), seed: queued.events, markEndSeed: true }).events.at(-1)!.type).toBe('session/end-seed');
    expect(new Session({ header: header('es'), seed: [], markEndSeed: true }).length).toBe(0);
    // Turn numbers continue after a seed.
    const w = new AgentLogWriter(again);
    w.inboxInsert('next');
    expect((w.turnStart() as SessionEvent<'turn/start'>).data.turn).toBe(2);
    expect(() => again.append({ type: 'turn/start', data: { turn: 2 } })).toThrow(expect.objectContaining({ code: 'INVARIANT_VIOLATION' }));
  });

  it('a seed is frozen in place and keeps its bytes', () => {
    const events = JSON.parse(JSON.stringify(buildSession('fz', 1, 4).events)) as SessionEvent[];
    const s = new Session({ header: header('fz'), seed: events });
    expect(Object.isFrozen(s.eventAt(5)!.data)).toBe(true);
    expect(serializeAll(s.events)).toEqual(serializeAll(events));
  });
});

describe('Session snapshots and observers', () => {
  it('events is a frozen snapshot that never grows; eventsFrom is a fresh suffix', () => {
    const s = buildSession('snap', 1, 3);
    const held = s.events;
    const n = held.length;
    expect(Object.isFrozen(held)).toBe(true);
    expect(s.events).toBe(held);
    s.append({ type: 'session/title', data: { title: 't' } });
    expect(held).toHaveLength(n);
    expect(s.events).toHaveLength(n + 1);
    expect(s.eventsFrom(n).map((e) => e.type)).toEqual(['session/title']);
  });

  it('contains observer failures and refuses a re-entrant append from an observer', () => {
    const reported: unknown[] = [];
    const s = new Session({ header: header('obs'), now: steppingClock() });
    const original = console.error;
    console.error = (...args: unknown[]) => reported.push(args);
    try {
      const seen: number[] = [];
      let reentrant: unknown;
      s.onDidAppend(() => {
        throw new Error('bad observer');
      });
      s.onDidAppend((e) => {
        seen.push(e.seq);
        if (e.seq === 0) {
          try {
            s.append({ type: 'session/title', data: { title: 'inner' } });
          } catch (error) {
            reentrant = error;
          }
        }
      });
      s.append({ type: 'session/title', data: { title: 'a' } });
      s.append({ type: 'session/title', data: { title: 'b' } });
      expect(seen).toEqual([0, 1]);
      expect((reentrant as { code?: string }).code).toBe('REENTRANT_APPEND');
      expect(s.length).toBe(2);
      expect(reported).toHaveLength(2);
    } finally {
      console.error = original;
    }
  });

  it('enforces the relational invariant live and only reports it for seeds', () => {
    const s = new Session({ header: header('inv'), now: steppingClock() });
    const w = new AgentLogWriter(s);
    w.turnStart();
    w.stepStart();
    const r = w.stream({ toolCalls: [{ id: 'c1', name: 'bash', args: ['{}'] }] });
    w.assistantMessage(r);
    const call = w.toolCall('c1', 'bash', '{}');
    const foreign = { ...call, data: { ...call.data, callId: 'zz' } };
    expect(() => w.toolResult(foreign as never, 'x')).toThrow(/answers zz, which has no pending tool\/call/);
    expect(() => s.append({ type: 'turn/end', data: { turn: 1, reason: { kind: 'completed' } } })).toThrow(/step 1 is still open/);
    const broken = [...s.events, { type: 'turn/start', seq: s.length, time: 1, data: { turn: 7 } } as SessionEvent];
    const seeded = new Session({ header: header('inv'), seed: broken });
    expect(seeded.warnings.length).toBeGreaterThan(0);
    expect(seeded.length).toBe(broken.length);
  });
});
