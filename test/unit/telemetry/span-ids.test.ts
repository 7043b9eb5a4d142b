import { SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { describe, expect, it } from 'vitest';
import { forklineResource, toReadableSpan } from '../../../electron/telemetry/otlp-export.js';
import { spanIdOf, traceIdOf } from '../../../electron/telemetry/session-spans.js';

describe('derived span ids', () => {
  it('are 16 lowercase hex digits, never all zero, and the same every time', () => {
    for (const seq of [0, 1, 2, 255, 65_535, 2 ** 31, 2 ** 32 - 1, 'session'] as const) {
      const id = spanIdOf('session-a', seq);
      expect(id).toMatch(/^[0-9a-f]{16}$/);
      expect(id).not.toBe('0000000000000000');
      expect(spanIdOf('session-a', seq)).toBe(id);
    }
    expect(traceIdOf('session-a')).toMatch(/^[0-9a-f]{32}$/);
  });

  it('never repeat within a session (200,000 seqs and the session span)', () => {
    const seen = new Set<string>([spanIdOf('s-1', 'session')]);
    for (let seq = 0; seq < 200_000; seq++) seen.add(spanIdOf('s-1', seq));
    expect(seen.size).toBe(200_001);
  });

  it('differ between sessions for the same seq (a fork and its parent share seqs below the fork point)', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 1_000; i++) ids.add(spanIdOf(`session-${i}`, 42));
    expect(ids.size).toBe(1_000);
    // the remembered per-session keys are dropped after 256 sessions; ids stay the same
    expect(spanIdOf('session-0', 42)).toBe(spanIdOf('session-0', 42));
    const before = spanIdOf('session-0', 7);
    for (let i = 0; i < 600; i++) spanIdOf(`other-${i}`, 1);
    expect(spanIdOf('session-0', 7)).toBe(before);
  });
});

describe('spans as the SDK reads them', () => {
  it('carry the API enum values spanFromRecord writes as numbers (it runs on the export thread from its source)', () => {
    expect([SpanKind.INTERNAL, SpanKind.CLIENT, SpanStatusCode.UNSET, SpanStatusCode.OK, SpanStatusCode.ERROR, TraceFlags.SAMPLED, ExportResultCode.SUCCESS]).toEqual([0, 2, 0, 1, 2, 1, 0]);
    const span = toReadableSpan(
      {
        traceId: traceIdOf('s'),
        spanId: spanIdOf('s', 3),
        parentSpanId: spanIdOf('s', 'session'),
        name: 'chat m',
        kind: 'client',
        startMs: 1_500.25,
        endMs: 2_750.5,
        attributes: { a: 1 },
        events: [{ name: 'e', timeMs: 2_000, attributes: {} }],
        links: [],
        status: { code: 'error', message: 'boom' },
      },
      forklineResource(),
    );
    expect(span.kind).toBe(SpanKind.CLIENT);
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'boom' });
    expect(span.spanContext().traceFlags).toBe(TraceFlags.SAMPLED);
    expect(span.startTime).toEqual([1, 500_250_000]);
    expect(span.duration).toEqual([1, 250_250_000]);
    expect(span.events[0]!.time).toEqual([2, 0]);
  });
});
