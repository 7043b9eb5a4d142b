/**
 * Live OTLP export (issue 26): the spans of sessions running here, streamed to a collector while
 * they run. Each live session's appended events go through a {@link SessionSpanBuilder}; ended
 * spans enter one bounded queue, and a timer hands batches to a {@link SpanRecordSink} (the SDK's
 * OTLP exporter, on a worker thread in production: otlp-export-thread.ts), one export in flight at
 * a time — the shape of the SDK's BatchSpanProcessor, with our own ids and times.
 *
 * It never slows or blocks a step: an append only pushes the event onto its watch's pending list
 * (O(1)); the span builders run over the pending events in one pass per
 * {@link LiveTraceOptions.scheduledDelayMs} (or once {@link LiveTraceOptions.maxPendingEvents} are
 * waiting), right before a batch is sent. Building a step's spans inside its appends cost ~50 µs of
 * the agent's thread per step (the builder's code and data cold between the agent's own work: ~6% of
 * a 1 ms harness step), against ~8 µs in one pass (BENCHMARKS.md, eleventh session); nothing awaits
 * the collector. When the queue is full (a slow or absent collector) new spans are
 * dropped and counted; drops and failed exports are reported as warnings at most every
 * {@link WARN_EVERY_MS}, with the running counts.
 */
import type { Event } from '../../shared/event.js';
import type { SessionEvent, SessionHeader } from '../../shared/events.js';
import { toDisposable, type IDisposable } from '../../shared/lifecycle.js';
import type { SpanRecordSink } from './otlp-export.js';
import { forkLinkTarget, SessionSpanBuilder, type SpanRecord } from './session-spans.js';

/** Drop and failure warnings are printed at most this often (ms). */
export const WARN_EVERY_MS = 5_000;

/** What the exporter needs of a live session (electron/session/session.ts `Session`). */
export interface LiveSessionView {
  readonly header: SessionHeader;
  readonly length: number;
  eventsFrom(seq: number): readonly SessionEvent[];
  readonly onDidAppend: Event<SessionEvent>;
}

export interface LiveTraceOptions {
  /** Where batches go: `threadedOtlpSink` in production, `sdkSpanSink(exporter)` to send on this thread. */
  readonly sink: SpanRecordSink;
  /** Spans held at most while waiting (default 2,048, the SDK's BatchSpanProcessor default). */
  readonly maxQueueSize?: number;
  /** Spans per export (default 512). */
  readonly maxBatchSize?: number;
  /** How often pending events become spans and the queue is sent, ms (default 1,000). */
  readonly scheduledDelayMs?: number;
  /** Events waiting for their spans at most; the append that reaches it builds them at once (default 4,096). */
  readonly maxPendingEvents?: number;
  readonly includeContent?: boolean;
  /** Session headers by id, for a fork's link to its parent. */
  readonly lineage?: (id: string) => SessionHeader | undefined;
  /** Where warnings go (default console.warn). */
  readonly onWarning?: (message: string) => void;
  /** Monotonic ms clock (default performance.now). */
  readonly now?: () => number;
}

/** One followed session: its span builder and the events appended since the last pass. */
interface Watch {
  readonly builder: SessionSpanBuilder;
  pending: SessionEvent[];
}

/** Streams live sessions' spans to an OTLP endpoint through a bounded queue. */
export class LiveTraceExporter implements IDisposable {
  private readonly queue: SpanRecord[] = [];
  /** Watches with events waiting for their spans. */
  private readonly waiting = new Set<Watch>();
  private pendingEvents = 0;
  private readonly maxPending: number;
  private readonly maxQueue: number;
  private readonly maxBatch: number;
  private readonly timer: ReturnType<typeof setInterval>;
  private inFlight: Promise<void> | undefined;
  private lastWarning = Number.NEGATIVE_INFINITY;
  private disposed = false;
  /** Spans dropped because the queue was full. */
  dropped = 0;
  /** Spans the collector accepted. */
  exported = 0;
  /** Spans whose export failed (refused, timed out, an error status). */
  failed = 0;

  constructor(private readonly options: LiveTraceOptions) {
    this.maxQueue = options.maxQueueSize ?? 2_048;
    this.maxBatch = options.maxBatchSize ?? 512;
    this.maxPending = options.maxPendingEvents ?? 4_096;
    this.timer = setInterval(() => {
      this.buildPending();
      void this.sendNext();
    }, options.scheduledDelayMs ?? 1_000);
    this.timer.unref();
  }

  /**
   * Follows a live session from its current end, or from `fromSeq` (the events since then are
   * exported first: a watch asked for before the exporter was loaded); disposing stops following
   * it (spans still open are sent as unfinished).
   */
  watch(session: LiveSessionView, fromSeq?: number): IDisposable {
    const start = Math.min(fromSeq ?? session.length, session.length);
    const header = session.header;
    const prefix = header.parentSession !== undefined ? session.eventsFrom(0).slice(0, header.seedLength ?? 0) : [];
    const forkedFrom = this.options.lineage ? forkLinkTarget(header, prefix, this.options.lineage) : undefined;
    const builder = new SessionSpanBuilder({ header, includeContent: this.options.includeContent === true, firstOwnSeq: start, sessionSpan: false, ...(forkedFrom ? { forkedFrom } : {}) });
    // The route in force so far (the last request header), without exporting what an earlier run did.
    const before = session.eventsFrom(0).slice(0, start);
    const lastHeader = before.findLast((e) => e.type === 'request/header');
    if (lastHeader) builder.add(lastHeader);
    for (const event of session.eventsFrom(start)) for (const span of builder.add(event)) this.enqueue(span);
    const watch: Watch = { builder, pending: [] };
    const subscription = session.onDidAppend((event) => {
      if (this.disposed) return;
      if (watch.pending.push(event) === 1) this.waiting.add(watch);
      if (++this.pendingEvents >= this.maxPending) this.buildPending();
    });
    return toDisposable(() => {
      subscription.dispose();
      this.build(watch);
      this.waiting.delete(watch);
      for (const span of builder.finish()) this.enqueue(span);
    });
  }

  /** Feeds every watch's pending events to its span builder, in append order per session. */
  private buildPending(): void {
    for (const watch of this.waiting) this.build(watch);
    this.waiting.clear();
  }

  private build(watch: Watch): void {
    const events = watch.pending;
    if (events.length === 0) return;
    watch.pending = [];
    this.pendingEvents -= events.length;
    for (const event of events) for (const span of watch.builder.add(event)) this.enqueue(span);
  }

  private enqueue(span: SpanRecord): void {
    if (this.disposed) return;
    if (this.queue.length >= this.maxQueue) {
      this.dropped++;
      this.warn();
      return;
    }
    this.queue.push(span);
    if (this.queue.length >= this.maxBatch) void this.sendNext();
  }

  private warn(): void {
    const now = this.options.now ? this.options.now() : performance.now();
    if (now - this.lastWarning < WARN_EVERY_MS) return;
    this.lastWarning = now;
    (this.options.onWarning ?? console.warn)(
      `live OTLP export: ${this.dropped} span(s) dropped (queue of ${this.maxQueue} full), ${this.failed} failed to send, ${this.exported} sent; the collector is slow or absent — sessions go on unaffected`,
    );
  }

  /** Sends the next batch unless one is in flight. */
  private sendNext(): Promise<void> {
    if (this.inFlight || this.queue.length === 0) return this.inFlight ?? Promise.resolve();
    const batch = this.queue.splice(0, this.maxBatch);
    this.inFlight = new Promise<void>((resolve) => {
      this.options.sink.send(batch, (ok) => {
        if (ok) this.exported += batch.length;
        else {
          this.failed += batch.length;
          this.warn();
        }
        resolve();
      });
    }).finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  /** Builds the spans of every pending event and sends everything queued now (tests, shutdown). */
  async flush(): Promise<void> {
    this.buildPending();
    while (this.queue.length > 0 || this.inFlight) {
      await (this.inFlight ?? this.sendNext());
    }
  }

  /**
   * Flushes for at most `timeoutMs`, then stops and shuts the exporter down (waiting at most as
   * long again for an export a stalled collector holds). Spans still queued are counted as dropped.
   */
  async shutdown(timeoutMs = 2_000): Promise<void> {
    clearInterval(this.timer);
    const wait = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, timeoutMs).unref());
    // The last batches go out on this thread, which has nothing else to do now: the export thread
    // runs at nice 10, and on a busy machine it could miss the deadline (spans lost at exit).
    this.options.sink.drain?.();
    await Promise.race([this.flush(), wait()]);
    this.disposed = true;
    const left = this.queue.splice(0).length;
    this.dropped += left;
    if (left > 0) {
      (this.options.onWarning ?? console.warn)(`live OTLP export: ${left} span(s) not sent at shutdown (the collector had not taken the earlier ones within ${timeoutMs} ms)`);
    }
    await Promise.race([this.options.sink.shutdown().catch(() => undefined), wait()]);
  }

  dispose(): void {
    void this.shutdown(0);
  }
}
