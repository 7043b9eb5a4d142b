/**
 * A byte sink with bounded memory for command output: keeps everything up to `capBytes`; beyond
 * that, the first half and the last half of the cap, and counts what was dropped in between.
 * Both cuts land on grapheme boundaries (shared/text-cut.ts), so no character — not even an
 * emoji sequence or a letter with combining marks — is split.
 */
import { StringDecoder } from 'node:string_decoder';
import { graphemeBoundaryAtOrAfter, graphemeBoundaryAtOrBefore } from '../../../shared/text-cut.js';

/** What {@link HeadTailBuffer.text} returns. */
export interface CollectedOutput {
  /** The output (UTF-8 decoded; invalid bytes become U+FFFD); when truncated, head + notice line + tail. */
  readonly text: string;
  /** Bytes received in total. */
  readonly totalBytes: number;
  /** Bytes left out of `text` (0 when nothing was dropped). */
  readonly omittedBytes: number;
}

/** Bytes kept beyond each cut to find the grapheme boundary there (a cluster longer than this may be split at a code point). */
const BOUNDARY_LOOKAROUND_BYTES = 64;

export class HeadTailBuffer {
  private readonly headCap: number;
  private readonly tailCap: number;
  private readonly head: Buffer[] = [];
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private total = 0;

  /** @param capBytes most bytes shown (≥ 2); memory stays below about capBytes + 128 + one chunk. */
  constructor(readonly capBytes: number) {
    if (!Number.isInteger(capBytes) || capBytes < 2) throw new RangeError(`capBytes must be an integer ≥ 2, got ${capBytes}`);
    this.headCap = Math.floor(capBytes / 2);
    this.tailCap = capBytes - this.headCap;
  }

  /** Bytes received so far. */
  get totalBytes(): number {
    return this.total;
  }

  push(chunk: Buffer): void {
    const start = this.total;
    this.total += chunk.length;
    // Bytes [0, headCap) are the head; [headCap, headCap + look-around) are also kept with the head
    // to find the grapheme boundary at its cut; every byte from headCap on may belong to the tail.
    const headLimit = this.headCap + BOUNDARY_LOOKAROUND_BYTES;
    if (start < headLimit) {
      const take = Math.min(headLimit - start, chunk.length);
      this.head.push(chunk.subarray(0, take));
    }
    const tailFrom = Math.max(0, this.headCap - start);
    if (tailFrom >= chunk.length) return;
    const rest = chunk.subarray(tailFrom);
    this.tail.push(rest);
    this.tailBytes += rest.length;
    // Drop whole chunks from the front while what remains still covers the tail budget.
    const tailLimit = this.tailCap + BOUNDARY_LOOKAROUND_BYTES;
    while (this.tail.length > 1 && this.tailBytes - this.tail[0]!.length >= tailLimit) {
      this.tailBytes -= this.tail.shift()!.length;
    }
  }

  /**
   * The collected text. Under the cap it is the exact output; over it, the head (cut back to a
   * grapheme boundary), a line `[... N bytes of output omitted (T bytes in total) ...]`, and the
   * tail (starting at a grapheme boundary).
   */
  text(): CollectedOutput {
    const headBuf = Buffer.concat(this.head);
    const tailBuf = Buffer.concat(this.tail);
    if (this.total <= this.capBytes) {
      return { text: Buffer.concat([headBuf.subarray(0, this.headCap), tailBuf]).toString('utf8'), totalBytes: this.total, omittedBytes: 0 };
    }
    const headText = cutDecodedHead(headBuf, this.headCap);
    const tailText = cutDecodedTail(tailBuf, this.tailCap);
    const headUsed = Buffer.byteLength(headText, 'utf8');
    const tailUsed = Buffer.byteLength(tailText, 'utf8');
    const omitted = Math.max(0, this.total - headUsed - tailUsed);
    const sep = headText.endsWith('\n') || headText === '' ? '' : '\n';
    const notice = `${sep}[... ${omitted} bytes of output omitted (${this.total} bytes in total); showing the first ${headUsed} and the last ${tailUsed} bytes ...]\n`;
    return { text: headText + notice + tailText, totalBytes: this.total, omittedBytes: omitted };
  }
}

/**
 * Decodes the first `capBytes` of `bytes` (which may hold a few more, for look-ahead) and cuts
 * back to the last grapheme boundary at or before the cap.
 */
function cutDecodedHead(bytes: Buffer, capBytes: number): string {
  const decoder = new StringDecoder('utf8');
  const within = decoder.write(bytes.subarray(0, capBytes)); // drops an incomplete final character
  const beyond = decoder.write(bytes.subarray(capBytes)); // look-ahead (its own last char may be partial)
  const joined = within + beyond;
  return joined.slice(0, graphemeBoundaryAtOrBefore(joined, within.length));
}

/**
 * Decodes the last `capBytes` of `bytes` (with look-behind before them) and starts the text at the
 * first grapheme boundary at or after the cap.
 */
function cutDecodedTail(bytes: Buffer, capBytes: number): string {
  let start = Math.max(0, bytes.length - capBytes);
  // Start the look-behind on a character start so it decodes cleanly.
  let from = Math.max(0, start - BOUNDARY_LOOKAROUND_BYTES);
  while (from < start && (bytes[from]! & 0xc0) === 0x80) from++;
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
  const before = bytes.subarray(from, start).toString('utf8');
  const after = bytes.subarray(start).toString('utf8');
  const joined = before + after;
  return joined.slice(graphemeBoundaryAtOrAfter(joined, before.length));
}
