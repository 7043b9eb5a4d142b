import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutHead, cutHeadUtf8, cutTail, cutTailUtf8, GRAPHEME_SLACK, shorten, utf8Length } from '../../../shared/text-cut.js';
import { firstLoneSurrogate, isWellFormedText, toWellFormedText } from '../../../shared/well-formed-text.js';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const clusters = (text: string): string[] => [...segmenter.segment(text)].map((s) => s.segment);

/** Text pieces that break naive cuts: astral chars, combining marks, ZWJ sequences, flags, CRLF. */
const piece = fc.constantFrom('a', 'b', ' ', '\n', '\r\n', 'é', 'e\u0301', '🔥', '👍🏽', '👨‍👩‍👧', '🇫🇷', '中', '\u0915\u094d\u0937', 'x\u0308\u0308');
const text = fc.array(piece, { maxLength: 60 }).map((parts) => parts.join(''));

describe('text cuts', () => {
  it('cuts 1,999 a + 🔥 at 2,000 units without leaving half of the emoji', () => {
    const line = `${'a'.repeat(1999)}🔥`;
    const head = cutHead(line, 2000);
    expect(head).toBe('a'.repeat(1999));
    expect(isWellFormedText(head)).toBe(true);
    expect(cutTail(`🔥${'a'.repeat(1999)}`, 2000)).toBe('a'.repeat(1999));
  });

  it('keeps grapheme clusters whole (combining marks, ZWJ families, flags, CR LF)', () => {
    expect(cutHead('ae\u0301', 2)).toBe('a');
    expect(cutHead('x👨‍👩‍👧', 4)).toBe('x');
    expect(cutHead('🇫🇷🇩🇪', 6)).toBe('🇫🇷');
    expect(cutHead('🇫🇷🇩🇪', 3)).toBe('');
    expect(cutHead('a\r\nb', 2)).toBe('a');
    expect(cutTail('a\r\nb', 2)).toBe('b');
    expect(shorten('héllo wörld', 5)).toBe('héll…');
    expect(shorten('ab🔥cd', 4)).toBe('ab…');
  });

  it('cuts an oversized cluster (Zalgo) at a code point instead of dropping the whole budget', () => {
    const zalgo = `z${'\u0301'.repeat(500)}`;
    const head = cutHead(zalgo, 100);
    expect(head.length).toBe(100);
    expect(isWellFormedText(head)).toBe(true);
  });

  it('property: every cut is a well-formed prefix/suffix within budget that never splits a normal cluster', () => {
    fc.assert(
      fc.property(text, fc.nat({ max: 200 }), (s, n) => {
        const head = cutHead(s, n);
        const tail = cutTail(s, n);
        expect(s.startsWith(head) && s.endsWith(tail)).toBe(true);
        expect(head.length).toBeLessThanOrEqual(n);
        expect(tail.length).toBeLessThanOrEqual(n);
        expect(isWellFormedText(head) && isWellFormedText(tail)).toBe(true);
        // The pieces above are all shorter than GRAPHEME_SLACK, so cuts fall between clusters.
        expect(clusters(head)).toEqual(clusters(s).slice(0, clusters(head).length));
        expect(clusters(tail)).toEqual(clusters(s).slice(clusters(s).length - clusters(tail).length));
        const short = shorten(s, Math.max(1, n));
        expect(short.length).toBeLessThanOrEqual(Math.max(1, n));
        expect(isWellFormedText(short)).toBe(true);
      }),
    );
    expect(GRAPHEME_SLACK).toBeGreaterThan(10);
  });

  it('property: UTF-8 budget cuts stay within the byte budget and on cluster boundaries', () => {
    fc.assert(
      fc.property(text, fc.nat({ max: 300 }), (s, bytes) => {
        const head = cutHeadUtf8(s, bytes);
        const tail = cutTailUtf8(s, bytes);
        expect(Buffer.byteLength(head)).toBeLessThanOrEqual(bytes);
        expect(Buffer.byteLength(tail)).toBeLessThanOrEqual(bytes);
        expect(utf8Length(s)).toBe(Buffer.byteLength(s));
        expect(s.startsWith(head) && s.endsWith(tail)).toBe(true);
        expect(clusters(head)).toEqual(clusters(s).slice(0, clusters(head).length));
      }),
    );
  });
});

describe('well-formed text', () => {
  it('finds and repairs lone surrogates, leaving pairs alone', () => {
    expect(isWellFormedText('ok 🔥')).toBe(true);
    expect(isWellFormedText('a\ud83d')).toBe(false);
    expect(isWellFormedText('\udd25b')).toBe(false);
    expect(firstLoneSurrogate('ab\ud83dc')).toBe(2);
    expect(firstLoneSurrogate('🔥')).toBe(-1);
    expect(toWellFormedText('a\ud83d🔥\udd25')).toBe('a\ufffd🔥\ufffd');
  });
});
