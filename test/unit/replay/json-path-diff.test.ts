import { describe, expect, it } from 'vitest';
import { differenceDiff, firstJsonDifference } from '../../../electron/replay/json-path-diff.js';

describe('firstJsonDifference', () => {
  it('names the first differing field by path, in the logged value’s key order', () => {
    const a = {
      model: 'm',
      messages: [
        { role: 'system', content: 'abc' },
        { role: 'user', content: 'x' },
      ],
      tools: [1],
    };
    const b = {
      model: 'm',
      messages: [
        { role: 'system', content: 'abd' },
        { role: 'user', content: 'y' },
      ],
      tools: [2],
    };
    expect(firstJsonDifference(a, b)).toEqual({ path: 'messages[0].content', before: 'abc', after: 'abd' });
  });
  it('reports added and removed fields and array elements', () => {
    expect(firstJsonDifference({ a: 1 }, { a: 1, b: 2 })).toEqual({ path: 'b', after: 2 });
    expect(firstJsonDifference({ a: 1, b: 2 }, { a: 1 })).toEqual({ path: 'b', before: 2 });
    expect(firstJsonDifference([1, 2], [1])).toEqual({ path: '[1]', before: 2 });
    expect(firstJsonDifference({ 'x-y': [0] }, { 'x-y': [0, 1] })).toEqual({ path: '["x-y"][1]', after: 1 });
  });
  it('is undefined for equal values and treats a type change as a difference', () => {
    expect(firstJsonDifference({ a: [1, { b: null }] }, { a: [1, { b: null }] })).toBeUndefined();
    expect(firstJsonDifference({ a: '1' }, { a: 1 })).toEqual({ path: 'a', before: '1', after: 1 });
  });
  it('diffs strings as text, line by line', () => {
    const diff = differenceDiff({ path: 'messages[0].content', before: 'one\ntwo\nthree', after: 'one\n2\nthree' });
    expect(diff).toContain('--- logged messages[0].content');
    expect(diff).toContain('-two');
    expect(diff).toContain('+2');
  });
});
