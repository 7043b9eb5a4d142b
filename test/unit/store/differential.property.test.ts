/**
 * Differential property test (STYLE D6): generated chunk-heavy logs go into the in-memory reference
 * store and into SQLite on a real file in random append batches; both return exactly what went in
 * (byte for byte, every suffix), also after the SQLite store is closed and reopened.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../shared/events.js';
import { Session } from '../../../electron/session/session.js';
import { MemorySessionStore } from '../../../electron/store/memory-session-store.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { rawSqlite } from '../../support/sqlite-store-harness.js';
import { AgentLogWriter, header, serializeAll, tempDir } from '../../support/store-fixtures.js';

interface StepSpec {
  readonly reasoning: string[];
  readonly text: string[];
  readonly calls: { args: string[]; nameOnFirst: boolean }[];
}

const deltaArb = fc.oneof(fc.string({ maxLength: 6 }), fc.string({ unit: 'grapheme', maxLength: 4 }), fc.constantFrom('', ' ', '\n', '"', '\\', '\u0000', '😀'));
const stepArb: fc.Arbitrary<StepSpec> = fc.record({
  reasoning: fc.array(deltaArb, { maxLength: 40 }),
  text: fc.array(deltaArb, { maxLength: 40 }),
  calls: fc.array(fc.record({ args: fc.array(deltaArb, { minLength: 1, maxLength: 12 }), nameOnFirst: fc.boolean() }), { maxLength: 2 }),
});
const logArb = fc.record({
  turns: fc.array(fc.array(stepArb, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
  /** Time steps between events (negative and fractional ones included). */
  dts: fc.array(fc.oneof(fc.integer({ min: -50, max: 2000 }), fc.double({ min: -5, max: 5, noNaN: true, noDefaultInfinity: true })), { minLength: 1, maxLength: 16 }),
  cuts: fc.array(fc.integer({ min: 1, max: 400 }), { maxLength: 12 }),
});

function buildLog(id: string, spec: { readonly turns: StepSpec[][]; readonly dts: number[]; readonly cuts: number[] }): SessionEvent[] {
  let t = 1_780_000_000_000;
  let i = 0;
  const now = () => {
    const dt = spec.dts[i++ % spec.dts.length]!;
    t = Object.is(dt, -0) ? t : t + dt;
    return Object.is(t, -0) ? 0 : t;
  };
  const session = new Session({ header: header(id), now });
  const w = new AgentLogWriter(session);
  spec.turns.forEach((steps, turnIndex) => {
    w.inboxInsert(`task ${turnIndex}`);
    w.turnStart();
    w.claim();
    steps.forEach((step, stepIndex) => {
      w.stepStart();
      if (stepIndex === 0) w.user(`task ${turnIndex}`);
      const calls = step.calls.map((c, k) => ({ id: `call_${turnIndex}_${stepIndex}_${k}`, name: 'edit_file', args: c.args }));
      const r = w.stream({ reasoning: step.reasoning, text: step.text, toolCalls: calls, nameOnFirstDeltaOnly: step.calls[0]?.nameOnFirst ?? false });
      w.assistantMessage(r);
      for (const call of calls) w.toolResult(w.toolCall(call.id, call.name, call.args.join('')), 'done');
      w.stepEnd();
    });
    w.turnEnd();
  });
  return [...session.events];
}

describe('Memory vs SQLite store (differential, fast-check)', () => {
  const tmp = tempDir('forkline-diff-');
  const file = tmp.file('diff.db');
  let sqlite = new SqliteSessionStore(file);
  const memory = new MemorySessionStore(() => 0);
  const raw = rawSqlite(file);
  afterAll(() => {
    raw.close();
    sqlite.close();
    tmp.dispose();
  });

  it('both stores return exactly what went in, including after reopening', () => {
    let run = 0;
    let packedRuns = 0;
    fc.assert(
      fc.property(logArb, (spec) => {
        const id = `d${++run}`;
        const events = buildLog(id, spec);
        // Random append batches (the first one creates the session).
        const cuts = [...new Set(spec.cuts.map((c) => c % events.length))].filter((c) => c > 0).sort((a, b) => a - b);
        const bounds = [0, ...cuts, events.length];
        for (const store of [memory, sqlite]) {
          store.createSession(header(id), events.slice(0, bounds[1]));
          for (let k = 1; k + 1 < bounds.length; k++) store.append(id, events.slice(bounds[k], bounds[k + 1]));
        }
        const expected = serializeAll(events);
        const check = (label: string) => {
          expect(serializeAll(memory.readAll(id)), `memory ${label}`).toEqual(expected);
          expect(serializeAll(sqlite.readAll(id)), `sqlite ${label}`).toEqual(expected);
          for (let from = 0; from <= events.length; from += 1 + (events.length >> 4)) {
            expect(serializeAll(sqlite.readFrom(id, from))).toEqual(serializeAll(memory.readFrom(id, from)));
            const to = Math.min(events.length, from + 7);
            expect(serializeAll(sqlite.readRange(id, from, to))).toEqual(serializeAll(memory.readRange(id, from, to)));
          }
          expect(sqlite.get(id)?.eventCount).toBe(memory.get(id)?.eventCount);
        };
        check('after write');
        if (run % 5 === 0) {
          sqlite.close();
          sqlite = new SqliteSessionStore(file);
          check('after reopen');
        }
        if (raw.rowCount(id) < events.length) packedRuns++;
      }),
      { numRuns: 60 },
    );
    // Reopen once more and compare every session written so far.
    sqlite.close();
    sqlite = new SqliteSessionStore(file);
    for (const record of memory.list()) expect(serializeAll(sqlite.readAll(record.header.id))).toEqual(serializeAll(memory.readAll(record.header.id)));
    // Most generated logs had chunk runs stored as packed rows (fewer rows than events).
    expect(packedRuns).toBeGreaterThan(10);
  });
});
