/**
 * Facts about a file's bytes as UTF-8 text: a leading byte-order mark and the byte ranges that are
 * not valid UTF-8 (RFC 3629; an invalid range is a "maximal subpart" as in the WHATWG Encoding
 * Standard's UTF-8 decoder, which is also how Node's `toString('utf8')` turns each into one
 * U+FFFD). The file tools use these facts to say what read_file shows and to keep such bytes
 * exactly as they are on edit (docs/architecture.md §6).
 */
import { isUtf8 } from 'node:buffer';

/** The UTF-8 encoding of U+FEFF, as some editors write at the start of a file. */
export const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** A run of bytes that does not decode as UTF-8 (shown as one U+FFFD). */
export interface InvalidRange {
  /** Byte offset in the file (0-based). */
  readonly offset: number;
  /** Length in bytes (1–3). */
  readonly length: number;
}

export interface Utf8Facts {
  /** The bytes start with EF BB BF. */
  readonly bom: boolean;
  /** Number of invalid ranges in the whole buffer. */
  readonly invalidCount: number;
  /** The first invalid ranges, in order (at most `keep` of them). */
  readonly invalid: readonly InvalidRange[];
}

/** True when `bytes` begin with the UTF-8 byte-order mark. */
export function hasBom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

/**
 * Scans `bytes` as UTF-8.
 * @param keep how many invalid ranges to list (the count is always complete).
 */
export function scanUtf8(bytes: Uint8Array, keep = 20): Utf8Facts {
  const bom = hasBom(bytes);
  if (isUtf8(bytes)) return { bom, invalidCount: 0, invalid: [] };
  const invalid: InvalidRange[] = [];
  let count = 0;
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    const valid = validSequenceLength(bytes, i);
    if (valid > 0) {
      i += valid;
      continue;
    }
    const length = maximalSubpart(bytes, i);
    count++;
    if (invalid.length < keep) invalid.push({ offset: i, length });
    i += length;
  }
  return { bom, invalidCount: count, invalid };
}

/** Length of the well-formed sequence starting at `i` (2–4), or 0 when it is not one (RFC 3629 table 3-7). */
function validSequenceLength(bytes: Uint8Array, i: number): number {
  const b0 = bytes[i]!;
  const cont = (j: number, lo = 0x80, hi = 0xbf) => j < bytes.length && bytes[j]! >= lo && bytes[j]! <= hi;
  if (b0 >= 0xc2 && b0 <= 0xdf) return cont(i + 1) ? 2 : 0;
  if (b0 === 0xe0) return cont(i + 1, 0xa0, 0xbf) && cont(i + 2) ? 3 : 0;
  if ((b0 >= 0xe1 && b0 <= 0xec) || b0 === 0xee || b0 === 0xef) return cont(i + 1) && cont(i + 2) ? 3 : 0;
  if (b0 === 0xed) return cont(i + 1, 0x80, 0x9f) && cont(i + 2) ? 3 : 0;
  if (b0 === 0xf0) return cont(i + 1, 0x90, 0xbf) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  if (b0 >= 0xf1 && b0 <= 0xf3) return cont(i + 1) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  if (b0 === 0xf4) return cont(i + 1, 0x80, 0x8f) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  return 0;
}

/** Bytes of the maximal subpart of an ill-formed sequence at `i` (≥ 1): a valid prefix that is cut short. */
function maximalSubpart(bytes: Uint8Array, i: number): number {
  const b0 = bytes[i]!;
  let need: number;
  let lo = 0x80;
  let hi = 0xbf;
  if (b0 >= 0xc2 && b0 <= 0xdf) need = 1;
  else if (b0 >= 0xe0 && b0 <= 0xef) {
    need = 2;
    if (b0 === 0xe0) lo = 0xa0;
    if (b0 === 0xed) hi = 0x9f;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    need = 3;
    if (b0 === 0xf0) lo = 0x90;
    if (b0 === 0xf4) hi = 0x8f;
  } else return 1;
  let n = 1;
  for (let k = 0; k < need; k++) {
    const j = i + n;
    const b = j < bytes.length ? bytes[j]! : -1;
    const low = k === 0 ? lo : 0x80;
    const high = k === 0 ? hi : 0xbf;
    if (b < low || b > high) break;
    n++;
  }
  return n;
}

/** 1-based line numbers of ascending byte `offsets` in `bytes` (LF-separated), in one pass. */
export function linesOfOffsets(bytes: Uint8Array, offsets: readonly number[]): number[] {
  const out: number[] = [];
  let line = 1;
  let i = 0;
  for (const offset of offsets) {
    for (; i < offset && i < bytes.length; i++) if (bytes[i] === 0x0a) line++;
    out.push(line);
  }
  return out;
}

/** 1-based line number of byte `offset` in `bytes` (LF-separated). */
export function lineOfOffset(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < bytes.length; i++) if (bytes[i] === 0x0a) line++;
  return line;
}

/** `E9` / `C3 28`: the bytes of a range in hex, for messages. */
export function hexBytes(bytes: Uint8Array, range: InvalidRange): string {
  return Array.from(bytes.subarray(range.offset, range.offset + range.length), (b) => b.toString(16).toUpperCase().padStart(2, '0')).join(' ');
}
