/**
 * A test OTLP/HTTP receiver on 127.0.0.1: decodes each `POST /v1/traces` body with the official
 * OpenTelemetry protocol definitions (test/fixtures/otlp-proto, loaded by protobufjs) into plain
 * spans. `mode` makes it answer, stall (never answer) or fail with a status.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import protobuf from 'protobufjs';

const PROTO_DIR = join(import.meta.dirname, '..', '..', 'fixtures', 'otlp-proto');

/** An attribute value as decoded (AnyValue flattened). */
export type DecodedValue = string | number | boolean | DecodedValue[] | undefined;

export interface DecodedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: Record<string, DecodedValue>;
  readonly events: { name: string; attributes: Record<string, DecodedValue> }[];
  readonly links: { traceId: string; spanId: string; attributes: Record<string, DecodedValue> }[];
  readonly status: { code: string; message?: string };
  readonly resource: Record<string, DecodedValue>;
}

export interface Receiver {
  readonly url: string;
  /** Every span received so far, in arrival order. */
  readonly spans: DecodedSpan[];
  /** Content types of the requests received. */
  readonly contentTypes: string[];
  close(): Promise<void>;
}

let requestType: protobuf.Type | undefined;

async function loadRequestType(): Promise<protobuf.Type> {
  if (requestType) return requestType;
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => join(PROTO_DIR, target);
  await root.load('opentelemetry/proto/collector/trace/v1/trace_service.proto', { keepCase: false });
  requestType = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
  return requestType;
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}

function value(v: AnyValue | undefined): DecodedValue {
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue !== undefined) return (v.arrayValue.values ?? []).map(value);
  return undefined;
}

function attributes(list: { key: string; value?: AnyValue }[] | undefined): Record<string, DecodedValue> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, value(a.value)]));
}

const hex = (b: Uint8Array | undefined): string => (b ? Buffer.from(b).toString('hex') : '');
const ms = (n: string | number | undefined): number => Number(BigInt(n ?? 0) / 1_000_000n);

/** Decodes one ExportTraceServiceRequest body. */
export async function decodeTraceRequest(body: Buffer): Promise<DecodedSpan[]> {
  const type = await loadRequestType();
  const message = type.toObject(type.decode(body), { longs: String, enums: String, defaults: false }) as {
    resourceSpans?: { resource?: { attributes?: { key: string; value?: AnyValue }[] }; scopeSpans?: { spans?: Record<string, unknown>[] }[] }[];
  };
  const out: DecodedSpan[] = [];
  for (const rs of message.resourceSpans ?? []) {
    const resource = attributes(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        const span = s as {
          traceId?: Uint8Array;
          spanId?: Uint8Array;
          parentSpanId?: Uint8Array;
          name?: string;
          kind?: string;
          startTimeUnixNano?: string;
          endTimeUnixNano?: string;
          attributes?: { key: string; value?: AnyValue }[];
          events?: { name?: string; attributes?: { key: string; value?: AnyValue }[] }[];
          links?: { traceId?: Uint8Array; spanId?: Uint8Array; attributes?: { key: string; value?: AnyValue }[] }[];
          status?: { code?: string; message?: string };
        };
        out.push({
          traceId: hex(span.traceId),
          spanId: hex(span.spanId),
          parentSpanId: hex(span.parentSpanId),
          name: span.name ?? '',
          kind: span.kind ?? 'SPAN_KIND_UNSPECIFIED',
          startMs: ms(span.startTimeUnixNano),
          endMs: ms(span.endTimeUnixNano),
          attributes: attributes(span.attributes),
          events: (span.events ?? []).map((e) => ({ name: e.name ?? '', attributes: attributes(e.attributes) })),
          links: (span.links ?? []).map((l) => ({ traceId: hex(l.traceId), spanId: hex(l.spanId), attributes: attributes(l.attributes) })),
          status: { code: span.status?.code ?? 'STATUS_CODE_UNSET', ...(span.status?.message ? { message: span.status.message } : {}) },
          resource,
        });
      }
    }
  }
  return out;
}

/** Starts a receiver on 127.0.0.1 (a free port). */
export async function startReceiver(mode: { readonly kind: 'ok' } | { readonly kind: 'stall' } | { readonly kind: 'status'; readonly status: number } = { kind: 'ok' }): Promise<Receiver> {
  const spans: DecodedSpan[] = [];
  const contentTypes: string[] = [];
  const stalled: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      contentTypes.push(String(req.headers['content-type']));
      if (mode.kind === 'stall') {
        stalled.push(res);
        return;
      }
      if (mode.kind === 'status') {
        res.writeHead(mode.status).end();
        return;
      }
      void decodeTraceRequest(Buffer.concat(chunks)).then(
        (decoded) => {
          spans.push(...decoded);
          res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        },
        () => res.writeHead(400).end(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}/v1/traces`,
    spans,
    contentTypes,
    close: () =>
      new Promise((resolve) => {
        for (const res of stalled) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
