/**
 * Sending spans over OTLP with the OpenTelemetry JS SDK (issue 26): our {@link SpanRecord}s become
 * SDK `ReadableSpan`s with the ids and times the log gives them (a custom IdGenerator could not
 * follow the events), and the SDK's own exporter puts them on the wire:
 * `@opentelemetry/exporter-trace-otlp-proto` (OTLP/HTTP, protobuf; 0.223.1 is the newest line that
 * runs on Node 20 — 0.300+ needs Node 22.15) or, for a file, the SDK's OTLP/JSON serializer
 * (`@opentelemetry/otlp-transformer`), one `ExportTraceServiceRequest` per line as the OTLP file
 * exporter writes it.
 */
import { writeFileSync } from 'node:fs';
import type { HrTime } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { ForklineError } from '../../shared/errors.js';
import type { SpanRecord } from './session-spans.js';

/** The instrumentation scope our spans carry. */
export const TELEMETRY_SCOPE = { name: 'forkline', version: '0.1.0' } as const;

/** The resource of every exported span: `service.name` = `forkline`. */
export function forklineResource(): Resource {
  return resourceFromAttributes({ 'service.name': 'forkline', 'service.version': TELEMETRY_SCOPE.version });
}

/** One record as the SDK's ReadableSpan (ended, with the record's ids and times). */
export function toReadableSpan(record: SpanRecord, resource: Resource): ReadableSpan {
  return spanFromRecord(record, resource, TELEMETRY_SCOPE);
}

/**
 * {@link toReadableSpan}'s body. It refers to nothing outside itself, so the live exporter's
 * worker thread (otlp-export-thread.ts) runs the very same code from its source text: hence the
 * enum values written as numbers (`SpanKind.INTERNAL` 0, `CLIENT` 2; `SpanStatusCode.UNSET` 0, `OK`
 * 1, `ERROR` 2; `TraceFlags.SAMPLED` 1 — @opentelemetry/api 1.9; test/unit/telemetry/span-ids.test.ts
 * checks them against the API) and the times converted inline.
 */
export function spanFromRecord(record: SpanRecord, resource: Resource, scope: ReadableSpan['instrumentationScope']): ReadableSpan {
  const sampled = 1;
  const hrTime = (ms: number): HrTime => {
    const seconds = Math.floor(ms / 1000);
    return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
  };
  const context = { traceId: record.traceId, spanId: record.spanId, traceFlags: sampled };
  return {
    name: record.name,
    kind: record.kind === 'client' ? 2 : 0,
    spanContext: () => context,
    ...(record.parentSpanId !== undefined ? { parentSpanContext: { traceId: record.traceId, spanId: record.parentSpanId, traceFlags: sampled } } : {}),
    startTime: hrTime(record.startMs),
    endTime: hrTime(record.endMs),
    status: {
      code: record.status.code === 'error' ? 2 : record.status.code === 'ok' ? 1 : 0,
      ...(record.status.message !== undefined ? { message: record.status.message } : {}),
    },
    attributes: record.attributes as ReadableSpan['attributes'],
    links: record.links.map((l) => ({ context: { traceId: l.traceId, spanId: l.spanId, traceFlags: sampled }, attributes: l.attributes as ReadableSpan['attributes'] })),
    events: record.events.map((e) => ({ name: e.name, time: hrTime(e.timeMs), attributes: e.attributes as ReadableSpan['attributes'] })),
    duration: hrTime(record.endMs - record.startMs),
    ended: true,
    resource,
    instrumentationScope: scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/**
 * Where the live exporter hands its batches of ended spans: the SDK exporter on this thread
 * ({@link sdkSpanSink}) or on a worker thread (otlp-export-thread.ts).
 */
export interface SpanRecordSink {
  /** Sends one batch; `done(true)` once the collector took it, `done(false)` if not. Never throws. */
  send(records: readonly SpanRecord[], done: (ok: boolean) => void): void;
  /**
   * Optional: the caller is about to send its last batches (it is shutting down, so its own thread is
   * free); a sink that sends on a background thread may send those on the calling thread instead.
   */
  drain?(): void;
  /** Sends nothing more and releases the exporter (and its thread). */
  shutdown(): Promise<void>;
}

/** A sink that converts and sends on the calling thread through `exporter`. */
export function sdkSpanSink(exporter: SpanExporter): SpanRecordSink {
  const resource = forklineResource();
  return {
    send(records, done) {
      try {
        exporter.export(
          records.map((r) => toReadableSpan(r, resource)),
          (result) => done(result.code === ExportResultCode.SUCCESS),
        );
      } catch {
        done(false);
      }
    },
    shutdown: () => exporter.shutdown(),
  };
}

/** True when `target` names an HTTP(S) endpoint rather than a file. */
export function isOtlpUrl(target: string): boolean {
  return /^https?:\/\//i.test(target);
}

/** The traces URL for an endpoint: a bare `http://host:4318` gets OTLP's `/v1/traces` path. */
export function tracesUrl(endpoint: string): string {
  const url = new URL(endpoint);
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/v1/traces';
  return url.toString();
}

/** The SDK's OTLP/HTTP protobuf exporter for `endpoint`. */
export function otlpExporter(endpoint: string, timeoutMs: number): SpanExporter {
  return new OTLPTraceExporter({ url: tracesUrl(endpoint), timeoutMillis: timeoutMs });
}

/**
 * Hands `spans` to `exporter` once and waits for its verdict.
 * @throws ForklineError OTLP_EXPORT_FAILED saying what the endpoint did (refused, timed out, an HTTP status).
 */
export function exportOnce(exporter: SpanExporter, spans: readonly ReadableSpan[], endpoint: string): Promise<void> {
  return new Promise((resolve, reject) => {
    exporter.export([...spans], (result) => {
      if (result.code === ExportResultCode.SUCCESS) resolve();
      else reject(new ForklineError('OTLP_EXPORT_FAILED', `the OTLP endpoint ${endpoint} did not take the trace: ${describeFailure(result.error)}`, { cause: result.error }));
    });
  });
}

function describeFailure(error: Error | undefined): string {
  if (!error) return 'no reason given';
  const code = (error as { code?: string }).code ?? (error.cause as { code?: string } | undefined)?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (/timeout/i.test(error.message) || error.name === 'TimeoutError') return `timed out (${error.message})`;
  return code !== undefined ? `${code}: ${error.message}` : error.message;
}

/**
 * Sends the spans to an OTLP/HTTP endpoint with the SDK exporter and shuts it down.
 * @throws ForklineError OTLP_EXPORT_FAILED
 */
export async function sendOtlp(records: readonly SpanRecord[], endpoint: string, timeoutMs: number): Promise<void> {
  const resource = forklineResource();
  const exporter = otlpExporter(endpoint, timeoutMs);
  try {
    await exportOnce(
      exporter,
      records.map((r) => toReadableSpan(r, resource)),
      endpoint,
    );
  } finally {
    await exporter.shutdown().catch(() => undefined);
  }
}

/** Writes the spans as one OTLP/JSON `ExportTraceServiceRequest` line (the SDK's JSON serializer). */
export function writeOtlpFile(records: readonly SpanRecord[], file: string): void {
  const resource = forklineResource();
  const bytes = JsonTraceSerializer.serializeRequest(records.map((r) => toReadableSpan(r, resource)));
  if (!bytes) throw new ForklineError('OTLP_EXPORT_FAILED', 'the spans could not be serialised');
  writeFileSync(file, `${Buffer.from(bytes).toString('utf8')}\n`);
}
