import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { headPreview, lastLine, tailPreview } from '../../../shared/preview.js';
import { cutHead, cutTail } from '../../../shared/text-cut.js';

const hasLoneSurrogate = (s: string): boolean => /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);

describe('previews', () => {
  it('cuts a head preview at a word boundary', () => {
    expect(headPreview('The quick brown fox jumps over the lazy dog', 20)).toBe('The quick brown fox…');
    expect(headPreview('short', 20)).toBe('short');
  });

  it('starts a tail preview at a word start, never mid-word (the folded thought preview)', () => {
    const text = 'Let me think about the failing test. The assertion compares the rounded value with the expected one';
    const preview = tailPreview(text, 40);
    expect(preview.startsWith('…')).toBe(true);
    const firstWord = preview.slice(1).split(' ')[0]!;
    expect(text.split(' ')).toContain(firstWord);
    expect(preview.length).toBeLessThanOrEqual(40);
  });

  it('never splits a surrogate pair or detaches a combining mark or skin tone', () => {
    expect(cutTail('ab😀cd', 3)).toBe('cd');
    expect(cutHead('ab😀cd', 3)).toBe('ab');
    expect(headPreview('xe\u0301yz', 3)).toBe('x…');
    expect(tailPreview('ab👍🏽', 4)).toBe('…');
    expect(headPreview('😀😀😀😀😀😀', 4)).not.toMatch(/[\ud800-\udbff]…$/);
  });

  it('never produces a lone surrogate, whatever the text and budget', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.integer({ min: 1, max: 50 }), (text, max) => {
        for (const out of [headPreview(text, max), tailPreview(text, max), cutTail(text, max), cutHead(text, max)]) {
          expect(hasLoneSurrogate(out)).toBe(false);
        }
        expect(cutTail(text, max).length).toBeLessThanOrEqual(max);
        expect(headPreview(text, max).length).toBeLessThanOrEqual(max);
        expect(tailPreview(text, max).length).toBeLessThanOrEqual(max);
      }),
    );
  });

  it('finds the last non-blank line', () => {
    expect(lastLine('a\nb\n\n  \n')).toBe('b');
  });
});
