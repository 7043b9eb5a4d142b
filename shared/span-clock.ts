/**
 * Durations measured on a log's own clock (docs/importing.md: "durations come from the source's own clock
 * or are shown as unknown, never negative").
 *
 * Event times are epoch ms stamped by whoever wrote the log. Ours run forward; an imported log's
 * may not (the reference runtime's snapshot corpus stitches times from several recordings, so a
 * turn can end 25 h before it started, or a step span ten days). A span's duration is therefore
 * known only when the clock ran forward over the whole span: no event inside it went back in time.
 * A jump back anywhere inside the span makes its duration unknown, whatever the end-minus-start
 * arithmetic says.
 *
 * A time of 0 or less is no time at all (recordings normalise times they elide to 0): it is skipped,
 * neither a jump back nor a new reading.
 *
 * Usage: call {@link SpanClock.tick} with every event's time in log order, take a
 * {@link SpanClock.mark} when a span opens, and ask {@link SpanClock.since} when it closes. O(1).
 *
 * Pure: no Node, no DOM.
 */

/** Where a span opened: its time and how many backward jumps the clock had made before it. */
export interface SpanMark {
  readonly time: number;
  readonly breaks: number;
}

export class SpanClock {
  private last: number | undefined;
  private breaks = 0;

  /** Notes the time of the next event in log order (a non-finite time counts as a break; ≤ 0 is skipped). */
  tick(time: number): void {
    if (!Number.isFinite(time)) {
      this.breaks++;
      return;
    }
    if (time <= 0) return;
    if (this.last !== undefined && time < this.last) this.breaks++;
    this.last = time;
  }

  /** A mark for a span that opens at `time` (call after {@link tick} for the same event). */
  mark(time: number): SpanMark {
    return { time, breaks: this.breaks };
  }

  /**
   * Milliseconds from `mark` to `time` (call after {@link tick} for the closing event), or undefined
   * when the clock went back inside the span or the difference is not a finite non-negative number.
   */
  since(mark: SpanMark, time: number): number | undefined {
    if (this.breaks !== mark.breaks || mark.time <= 0 || time <= 0) return undefined;
    return spanMs(mark.time, time);
  }
}

/** `end - start` in ms when it is finite and not negative; undefined otherwise (an unknown duration). */
export function spanMs(start: number, end: number): number | undefined {
  const ms = end - start;
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}
