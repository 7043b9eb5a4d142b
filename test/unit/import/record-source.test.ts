/**
 * Streaming record sources: the same records whatever the chunk boundaries (one character at a
 * time included), line numbers, `\r\n`, torn last lines, and JSON arrays with nested brackets and
 * brackets inside strings.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ArrayShapeError, JsonArraySplitter, LineSplitter, type RawRecord } from '../../../electron/import/record-source.js';

function splitLines(text: string, cuts: readonly number[]): RawRecord[] {
  const out: RawRecord[] = [];
  const s = new LineSplitter();
  let at = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    s.push(text.slice(at, cut), (r) => out.push(r));
    at = cut;
  }
  s.push(text.slice(at), (r) => out.push(r));
  s.end((r) => out.push(r));
  return out;
}

function splitArray(text: string, cuts: readonly number[]): { records: RawRecord[]; complete: boolean } {
  const out: RawRecord[] = [];
  const s = new JsonArraySplitter();
  let at = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    s.push(text.slice(at, cut), (r) => out.push(r));
    at = cut;
  }
  s.push(text.slice(at), (r) => out.push(r));
  s.end((r) => out.push(r));
  return { records: out, complete: s.complete };
}

describe('LineSplitter', () => {
  it('gives lines with their numbers, strips \\r, and marks a last line without newline as torn', () => {
    const records = splitLines('{"a":1}\r\n\n{"b":2}\n{"c"', []);
    expect(records).toEqual([
      { text: '{"a":1}', line: 1, torn: false },
      { text: '', line: 2, torn: false },
      { text: '{"b":2}', line: 3, torn: false },
      { text: '{"c"', line: 4, torn: true },
    ]);
  });

  it('keeps every UTF-16 code unit across chunk boundaries: pairs cut in half, lone surrogates, non-Latin text', () => {
    const text = '{"e":"😀 é 中文"}\n{"lone":"\ud800x\udfff"}\n{"pair":"𝄞𝄞𝄞"}\nlast 😀';
    const whole = splitLines(text, []);
    expect(whole.map((r) => r.text)).toEqual(text.split('\n'));
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: text.length }), { maxLength: 12 }), (cuts) => {
        expect(splitLines(text, cuts)).toEqual(whole);
      }),
    );
  });

  it('gives the same records for any chunking', () => {
    const text = '{"x":"a\\nb"}\n{"y":[1,2]}\r\n\n{"z":{}}\nlast';
    const whole = splitLines(text, []);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: text.length }), { maxLength: 12 }), (cuts) => {
        expect(splitLines(text, cuts)).toEqual(whole);
      }),
    );
  });
});

describe('JsonArraySplitter', () => {
  const text = '[\n  {"a": "]}[{\\"", "n": [1, {"b": 2}]},\n  {"c": 3}\n, 7, "s,]"\n]\n';

  it('splits top-level elements (brackets in strings and nested values do not confuse it)', () => {
    const { records, complete } = splitArray(text, []);
    expect(complete).toBe(true);
    expect(records.map((r) => JSON.parse(r.text))).toEqual([{ a: ']}[{"', n: [1, { b: 2 }] }, { c: 3 }, 7, 's,]']);
    expect(records.map((r) => r.line)).toEqual([2, 3, 4, 4]);
  });

  it('gives the same records for any chunking, one character at a time included', () => {
    const whole = splitArray(text, []).records;
    expect(splitArray(text, [...Array(text.length).keys()]).records).toEqual(whole);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: text.length }), { maxLength: 10 }), (cuts) => {
        expect(splitArray(text, cuts).records).toEqual(whole);
      }),
    );
  });

  it('reports an element cut off by the end as torn and the array as not closed', () => {
    const { records, complete } = splitArray('[{"a":1},{"b":', []);
    expect(complete).toBe(false);
    expect(records).toEqual([
      { text: '{"a":1}', line: 1, torn: false },
      { text: '{"b":', line: 1, torn: true },
    ]);
  });

  it('refuses text that is not an array, or text after it', () => {
    expect(() => splitArray('{"a":1}', [])).toThrow(ArrayShapeError);
    expect(() => splitArray('[1]\n[2]', [])).toThrow(/after the end of the JSON array/);
  });
});
