import { describe, expect, it } from 'vitest';
import { formatBytes } from '../../../shared/format.js';

describe('formatBytes', () => {
  it('says a file size in decimal units, three significant digits', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(1000)).toBe('1.00 KB');
    expect(formatBytes(12_345)).toBe('12.3 KB');
    expect(formatBytes(999_960)).toBe('1.00 MB');
    expect(formatBytes(4_560_000)).toBe('4.56 MB');
    expect(formatBytes(1_200_000_000)).toBe('1.20 GB');
    expect(formatBytes(Number.NaN)).toBe('0 B');
  });
});
