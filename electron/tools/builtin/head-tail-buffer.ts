/**
 * A byte sink with bounded memory for command output: keeps everything up to `capBytes`; beyond
 * that, the first half and the last half of the cap, and counts what was dropped in between.
 */
import { StringDecoder } from 'node:string_decoder';

/** What {@link HeadTailBuffer.text} returns. */
export interface CollectedOutput {
  /** The output (UTF-8 decoded); when truncated, head + notice line + tail. */
  readonly text: string;
  /** Bytes received in total. */
  readonly totalBytes: number;
  /** Bytes left out of `text` (0 when nothing was dropped). */
  readonly omittedBytes: number;
}

export class HeadTailBuffer {
  private readonly headCap: number;
  private readonly tailCap: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private total = 0;

  /** @param capBytes most bytes kept (≥ 2); memory stays below about capBytes + one chunk. */
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
    this.total += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.headCap) {
      const take = Math.min(this.headCap - this.headBytes, rest.length);
      this.head.push(rest.subarray(0, take));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailBytes += rest.length;
    // Drop whole chunks from the front while what remains still covers the tail budget.
    while (this.tail.length > 1 && this.tailBytes - this.tail[0]!.length >= this.tailCap) {
      this.tailBytes -= this.tail.shift()!.length;
    }
  }

  /**
   * The collected text. Under the cap it is the exact output; over it, the head (cut back to a
   * whole UTF-8 character), a line `[... N bytes of output omitted (T bytes in total) ...]`, and the tail
   * (starting at a whole character).
   */
  text(): CollectedOutput {
    const headBuf = Buffer.concat(this.head);
    let tailBuf = Buffer.concat(this.tail);
    if (this.total <= this.capBytes) {
      return { text: Buffer.concat([headBuf, tailBuf]).toString('utf8'), totalBytes: this.total, omittedBytes: 0 };
    }
    tailBuf = tailBuf.subarray(tailBuf.length - this.tailCap);
    let start = 0;
    while (start < 3 && start < tailBuf.length && (tailBuf[start]! & 0xc0) === 0x80) start++;
    tailBuf = tailBuf.subarray(start);
    const headText = new StringDecoder('utf8').write(headBuf); // drops an incomplete final character
    const headUsed = Buffer.byteLength(headText, 'utf8');
    const omitted = this.total - headUsed - tailBuf.length;
    const sep = headText.endsWith('\n') || headText === '' ? '' : '\n';
    const notice = `${sep}[... ${omitted} bytes of output omitted (${this.total} bytes in total); showing the first ${headUsed} and the last ${tailBuf.length} bytes ...]\n`;
    return { text: headText + notice + tailBuf.toString('utf8'), totalBytes: this.total, omittedBytes: omitted };
  }
}
