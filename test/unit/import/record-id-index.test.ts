/**
 * RecordIdIndex (the Claude Code importer's uuid → surface length index) answers exactly like a
 * Map for every kind of id: canonical UUIDs in the compact table (through several doublings),
 * uppercase/braced UUIDs and arbitrary text in its fallback, replaced values, absent ids that
 * share a UUID's words in another form.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RecordIdIndex } from '../../../electron/import/record-id-index.js';

describe('RecordIdIndex', () => {
  it('agrees with a Map over 20,000 mixed ids, replacements and misses', () => {
    const index = new RecordIdIndex();
    const reference = new Map<string, number>();
    const ids: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const uuid = randomUUID();
      const id = i % 10 === 3 ? uuid.toUpperCase() : i % 10 === 7 ? `{${uuid}}` : i % 10 === 9 ? `msg_${i}` : uuid;
      ids.push(id);
      index.set(id, i);
      reference.set(id, i);
    }
    // Replace every fifth value.
    for (let i = 0; i < ids.length; i += 5) {
      index.set(ids[i]!, i * 2);
      reference.set(ids[i]!, i * 2);
    }
    expect(index.size).toBe(reference.size);
    for (const id of ids) expect(index.get(id)).toBe(reference.get(id));
    // Misses: fresh UUIDs, and the uppercase form of a stored lowercase one (a different id).
    for (let i = 0; i < 1_000; i++) expect(index.get(randomUUID())).toBeUndefined();
    const lower = ids.find((id) => /^[0-9a-f-]{36}$/.test(id))!;
    expect(index.has(lower)).toBe(true);
    expect(index.has(lower.toUpperCase())).toBe(false);
    expect(index.get('')).toBeUndefined();
  });

  it('keeps UUIDs that differ in one word apart, and refuses values it cannot hold', () => {
    const index = new RecordIdIndex();
    const a = '00000000-0000-4000-8000-000000000001';
    const b = '00000000-0000-4000-8000-000000000002';
    const c = '10000000-0000-4000-8000-000000000001';
    index.set(a, 1);
    index.set(b, 2);
    index.set(c, 3);
    expect([index.get(a), index.get(b), index.get(c)]).toEqual([1, 2, 3]);
    expect(() => index.set(a, -1)).toThrow(RangeError);
    expect(() => index.set(a, 2 ** 31)).toThrow(RangeError);
    expect(index.get(a)).toBe(1);
  });
});
