import { describe, expect, it } from 'vitest';
import { HeadTailBuffer } from '../../../electron/tools/builtin/head-tail-buffer.js';

describe('HeadTailBuffer', () => {
  it('keeps everything up to the cap exactly', () => {
    const b = new HeadTailBuffer(10);
    b.push(Buffer.from('01234'));
    b.push(Buffer.from('56789'));
    expect(b.text()).toEqual({ text: '0123456789', totalBytes: 10, omittedBytes: 0 });
  });

  it('keeps head and tail over the cap and counts the omitted bytes', () => {
    const b = new HeadTailBuffer(10);
    for (const piece of ['abc', 'defgh', 'ijklmnop', 'qrstuvwxyz']) b.push(Buffer.from(piece));
    const out = b.text();
    expect(out.totalBytes).toBe(26);
    expect(out.omittedBytes).toBe(16);
    expect(out.text).toBe('abcde\n[... 16 bytes of output omitted (26 bytes in total); showing the first 5 and the last 5 bytes ...]\nvwxyz');
  });

  it('never splits a UTF-8 character at either cut', () => {
    const b = new HeadTailBuffer(8);
    b.push(Buffer.from('aaé€bbbbbbbbbb€é'));
    const out = b.text();
    expect(out.text).not.toContain('\ufffd');
    expect(out.text.startsWith('aaé')).toBe(true);
    // The last 4 bytes are the end of '€' (2 continuation bytes) and 'é': the tail starts at 'é'.
    expect(out.text.endsWith('...]\né')).toBe(true);
    expect(out.omittedBytes).toBe(Buffer.byteLength('aaé€bbbbbbbbbb€é') - Buffer.byteLength('aaé') - Buffer.byteLength('é'));
  });

  it('bounds memory: many small chunks keep only about the cap (plus 64 bytes around each cut)', () => {
    const b = new HeadTailBuffer(1000);
    for (let i = 0; i < 10_000; i++) b.push(Buffer.from(`${i % 10}`.repeat(10)));
    const internals = b as unknown as { tail: Buffer[]; head: Buffer[] };
    const kept = [...internals.head, ...internals.tail].reduce((n, c) => n + c.length, 0);
    expect(kept).toBeLessThanOrEqual(1000 + 2 * 64 + 10);
    expect(b.totalBytes).toBe(100_000);
  });
});
