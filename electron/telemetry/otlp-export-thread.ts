/**
 * Live OTLP export's sending side on a worker thread (docs/architecture.md §13: live export never
 * slows the agent). The agent's thread only builds span records and posts each batch (a structured
 * clone of plain objects); the worker turns them into the SDK's ReadableSpans, and the SDK's
 * OTLP/HTTP exporter (`@opentelemetry/exporter-trace-otlp-proto`) encodes the protobuf request and
 * talks to the collector there. In a profile of the 1,000-step harness turn the protobuf encoding
 * and the HTTP client were about a third of live export's cost on the agent's thread.
 *
 * The worker's program is {@link otlpExportThread}, evaluated from its source text (as the import
 * writer's, electron/store/threaded-appender.ts), so it runs the same from TypeScript, the CLI
 * bundle and the Electron main bundle; it loads the SDK packages by their resolved paths and
 * converts records with {@link spanFromRecord}, whose source it is also given.
 *
 * When the worker cannot start or load the SDK, the batches it held and every later one go through
 * the SDK exporter on the calling thread instead ({@link sdkSpanSink}): slower, never lost.
 */
import { createRequire } from 'node:module';
import type * as Fs from 'node:fs';
import type * as Os from 'node:os';
import type * as WorkerThreads from 'node:worker_threads';
import { Worker } from 'node:worker_threads';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { SpanRecord } from './session-spans.js';
import { otlpExporter, sdkSpanSink, spanFromRecord, TELEMETRY_SCOPE, tracesUrl, type SpanRecordSink } from './otlp-export.js';

/** What the worker gets at start. */
interface ExportThreadInit {
  readonly exporterModule: string;
  readonly resourcesModule: string;
  readonly url: string;
  readonly timeoutMs: number;
  readonly scope: ReadableSpan['instrumentationScope'];
  readonly resourceAttributes: Record<string, string>;
}

/** Messages to the worker, and its answers. */
type ToThread = { readonly id: number; readonly records: readonly SpanRecord[] } | { readonly shutdown: true };
type FromThread = { readonly id: number; readonly ok: boolean } | { readonly fatal: string } | { readonly shutDown: true };

/**
 * The worker thread's whole program: uses nothing from outside its body but what it is passed
 * (`load` is the worker's `require`; `convert` is {@link spanFromRecord} evaluated in the worker).
 */
function otlpExportThread(load: NodeJS.Require, convert: typeof spanFromRecord): void {
  const { workerData, parentPort } = load('node:worker_threads') as typeof WorkerThreads;
  const port = parentPort!;
  const init = workerData as ExportThreadInit;
  // Export is background work: on Linux this thread runs at nice 10, so on a busy machine the
  // agent's thread gets the core first (setpriority with a thread id sets that thread only,
  // https://man7.org/linux/man-pages/man2/setpriority.2.html NOTES; /proc/thread-self names it).
  try {
    const tid = Number((load('node:fs') as typeof Fs).readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) (load('node:os') as typeof Os).setPriority(tid, 10);
  } catch {
    // Not Linux, or not allowed: the thread keeps the process's priority.
  }
  let exporter: SpanExporter;
  let resource: Resource;
  try {
    const { OTLPTraceExporter } = load(init.exporterModule) as { OTLPTraceExporter: new (config: { url: string; timeoutMillis: number }) => SpanExporter };
    const { resourceFromAttributes } = load(init.resourcesModule) as { resourceFromAttributes: (attributes: Record<string, string>) => Resource };
    exporter = new OTLPTraceExporter({ url: init.url, timeoutMillis: init.timeoutMs });
    resource = resourceFromAttributes(init.resourceAttributes);
  } catch (error) {
    port.postMessage({ fatal: error instanceof Error ? error.message : String(error) } satisfies FromThread);
    return;
  }
  port.on('message', (message: ToThread) => {
    if ('shutdown' in message) {
      void exporter
        .shutdown()
        .catch(() => undefined)
        .then(() => {
          port.postMessage({ shutDown: true } satisfies FromThread);
          port.close();
        });
      return;
    }
    const reply = (ok: boolean): void => port.postMessage({ id: message.id, ok } satisfies FromThread);
    try {
      // ExportResultCode.SUCCESS is 0 (@opentelemetry/core 2).
      exporter.export(
        message.records.map((r) => convert(r, resource, init.scope)),
        (result) => reply(result.code === 0),
      );
    } catch {
      reply(false);
    }
  });
}

/** Spans batches sent through a worker thread; see the file comment. */
class ThreadedSpanSink implements SpanRecordSink {
  private worker: Worker | undefined;
  private fallback: SpanRecordSink | undefined;
  private nextId = 0;
  private readonly pending = new Map<number, { readonly records: readonly SpanRecord[]; readonly done: (ok: boolean) => void }>();
  private stopped: Promise<void> | undefined;
  /** Set by {@link drain}: sends from then on go through {@link exitSink}, on the calling thread. */
  private draining = false;
  private exitSink: SpanRecordSink | undefined;

  constructor(
    endpoint: string,
    timeoutMs: number,
    private readonly inThread: () => SpanExporter,
    private readonly onWarning: ((message: string) => void) | undefined,
  ) {
    try {
      const resolve = createRequire(import.meta.url).resolve;
      const init: ExportThreadInit = {
        exporterModule: resolve('@opentelemetry/exporter-trace-otlp-proto'),
        resourcesModule: resolve('@opentelemetry/resources'),
        url: tracesUrl(endpoint),
        timeoutMs,
        scope: TELEMETRY_SCOPE,
        resourceAttributes: { 'service.name': 'forkline', 'service.version': TELEMETRY_SCOPE.version },
      };
      const source = `var __name = (target) => target;\nconst convert = (${spanFromRecord.toString()});\n(${otlpExportThread.toString()})(require, convert);`;
      const worker = new Worker(source, { eval: true, workerData: init });
      worker.unref();
      worker.on('message', (message: FromThread) => this.onMessage(message));
      worker.on('error', (error) => this.useThisThread(error.message));
      worker.on('exit', () => {
        if (this.worker === worker) this.useThisThread('the export thread ended');
      });
      this.worker = worker;
    } catch (error) {
      this.useThisThread(error instanceof Error ? error.message : String(error));
    }
  }

  /** Why the worker is not used (undefined while it is). */
  fallbackReason: string | undefined;

  send(records: readonly SpanRecord[], done: (ok: boolean) => void): void {
    if (this.draining && !this.fallback) {
      this.exitSink ??= sdkSpanSink(this.inThread());
      this.exitSink.send(records, done);
      return;
    }
    if (this.fallback || !this.worker) {
      (this.fallback ?? this.useThisThread('the export thread is gone')).send(records, done);
      return;
    }
    const id = this.nextId++;
    this.pending.set(id, { records, done });
    this.worker.postMessage({ id, records } satisfies ToThread);
  }

  /**
   * Later batches are sent on the calling thread (the live exporter's shutdown: its thread is free,
   * the worker runs at nice 10); batches the worker holds stay there.
   */
  drain(): void {
    this.draining = true;
  }

  shutdown(): Promise<void> {
    this.stopped ??= this.stop();
    return this.stopped;
  }

  private async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) {
      const ended = new Promise<void>((resolve) => {
        worker.once('exit', () => resolve());
        worker.on('message', (message: FromThread) => {
          if ('shutDown' in message) resolve();
        });
      });
      worker.postMessage({ shutdown: true } satisfies ToThread);
      await ended;
      await worker.terminate();
    }
    for (const { done } of this.pending.values()) done(false);
    this.pending.clear();
    await this.fallback?.shutdown();
    await this.exitSink?.shutdown();
  }

  private onMessage(message: FromThread): void {
    if ('fatal' in message) {
      this.useThisThread(message.fatal);
      return;
    }
    if ('id' in message) {
      const entry = this.pending.get(message.id);
      this.pending.delete(message.id);
      entry?.done(message.ok);
    }
  }

  /** Switches to the calling thread for good, resending what the worker held. */
  private useThisThread(why: string): SpanRecordSink {
    if (!this.fallback) {
      this.fallbackReason = why;
      this.fallback = sdkSpanSink(this.inThread());
      (this.onWarning ?? console.warn)(`live OTLP export: spans are encoded and sent on the main thread (the export thread is not available: ${why})`);
      const worker = this.worker;
      this.worker = undefined;
      if (worker) void worker.terminate();
    }
    const held = [...this.pending.values()];
    this.pending.clear();
    for (const { records, done } of held) this.fallback.send(records, done);
    return this.fallback;
  }
}

/**
 * The live exporter's sink for an OTLP/HTTP endpoint: encoding and sending on a worker thread
 * (the SDK's protobuf exporter, `timeoutMs` per request), or on this thread when no worker can
 * run it (said once through `onWarning`, default console.warn). Never throws.
 */
export function threadedOtlpSink(endpoint: string, timeoutMs: number, onWarning?: (message: string) => void): SpanRecordSink & { readonly fallbackReason: string | undefined } {
  return new ThreadedSpanSink(endpoint, timeoutMs, () => otlpExporter(endpoint, timeoutMs), onWarning);
}
