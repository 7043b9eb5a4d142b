/**
 * `forkline export ID --otlp URL` through the built CLI (issue 26) against a receiver on 127.0.0.1
 * that decodes the protobuf body with the official OTLP definitions: the span tree (session →
 * invoke_agent → chat → execute_tool), the GenAI attribute names, usage with cache and reasoning
 * parts, compaction as a span event, the fork's link to its parent's turn span, ids that repeat
 * across exports, times taken from the log; content only when asked. An endpoint that refuses,
 * stalls or fails: the export says so and exits 1.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../shared/events.js';
import { spanIdOf, traceIdOf } from '../../../electron/telemetry/session-spans.js';
import { forkline } from '../../support/cli-process.js';
import { AgentLogWriter } from '../../support/store-fixtures.js';
import { buildSourceTree, type SourceTree } from '../bundle/bundle-support.js';
import { startReceiver, type DecodedSpan } from './otlp-receiver.js';

let base: string;
let source: SourceTree;
let rootEvents: SessionEvent[];

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'forkline-otlp-'));
  source = await buildSourceTree(base);
  // One more turn whose usage has cache and reasoning parts.
  const live = source.stored.repository.resume(source.root);
  const w = new AgentLogWriter(live.session);
  w.inboxInsert('cached question');
  w.turnStart();
  w.claim();
  w.stepStart();
  w.user('cached question');
  const r = w.stream({ reasoning: ['hm'], text: ['cached answer'] });
  live.session.append({
    type: 'assistant/message',
    data: {
      turn: w.turn,
      step: w.step,
      message: { id: 'a-cached', role: 'assistant', content: r.content, source: { kind: 'model', provider: 'deepseek', model: 'deepseek-chat' } },
      usage: { inputTokens: 900, outputTokens: 40, cacheReadTokens: 800, cacheWriteTokens: 16, reasoningTokens: 12 },
    },
    surfaceOp: 'append',
    sourceEventSeqs: r.chunkSeqs,
  });
  w.stepEnd();
  w.turnEnd();
  await live.release();
  rootEvents = source.stored.repository.load(source.root).events as SessionEvent[];
  await source.stored.close();
}, 60_000);

afterAll(() => rmSync(base, { recursive: true, force: true }));

function byName(spans: readonly DecodedSpan[], prefix: string): DecodedSpan[] {
  return spans.filter((s) => s.name.startsWith(prefix));
}

describe('forkline export --otlp', () => {
  it('sends the span tree with GenAI attributes, events and the fork link, with the same ids every time', async () => {
    const receiver = await startReceiver();
    try {
      const first = await forkline(['export', source.root, '--otlp', receiver.url], { dataDir: source.dataDir });
      expect(first.stderr).toMatch(/exported \d+ spans/);
      expect(first.code).toBe(0);
      expect(receiver.contentTypes[0]).toBe('application/x-protobuf');
      const spans = [...receiver.spans];
      const trace = traceIdOf(source.root);
      expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([trace]));
      for (const s of spans) expect(s.attributes['gen_ai.conversation.id']).toBe(source.root);
      expect(spans[0]!.resource['service.name']).toBe('forkline');

      const [session] = byName(spans, 'session ');
      expect(session!.parentSpanId).toBe('');
      const turns = byName(spans, 'invoke_agent');
      const turnStarts = rootEvents.filter((e) => e.type === 'turn/start');
      expect(turns.length).toBe(turnStarts.length);
      for (const t of turns) {
        expect(t.parentSpanId).toBe(session!.spanId);
        expect(t.attributes['gen_ai.operation.name']).toBe('invoke_agent');
      }
      // Ids and times come from the log: the first turn's span is (root, seq of its turn/start), starting at that event's time.
      const firstTurn = turns.find((t) => t.spanId === spanIdOf(source.root, turnStarts[0]!.seq))!;
      expect(firstTurn.startMs).toBe(turnStarts[0]!.time);
      expect(firstTurn.endMs).toBe(rootEvents.find((e) => e.type === 'turn/end')!.time);

      const chats = byName(spans, 'chat ');
      expect(chats.length).toBe(rootEvents.filter((e) => e.type === 'step/start').length);
      const turnIds = new Set(turns.map((t) => t.spanId));
      for (const c of chats) {
        expect(turnIds.has(c.parentSpanId)).toBe(true);
        expect(c.kind).toBe('SPAN_KIND_CLIENT');
        expect(c.name).toBe('chat deepseek-chat');
        expect(c.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'deepseek', 'gen_ai.request.model': 'deepseek-chat' });
        expect(typeof c.attributes['gen_ai.usage.input_tokens']).toBe('number');
        expect(typeof c.attributes['gen_ai.usage.output_tokens']).toBe('number');
        expect(Array.isArray(c.attributes['gen_ai.response.finish_reasons'])).toBe(true);
        expect(c.attributes['gen_ai.input.messages']).toBeUndefined();
        expect(c.attributes['gen_ai.output.messages']).toBeUndefined();
      }
      expect(chats.map((c) => (c.attributes['gen_ai.response.finish_reasons'] as string[])[0])).toEqual(expect.arrayContaining(['tool_calls', 'stop']));
      const cached = chats.find((c) => c.attributes['gen_ai.usage.cache_read.input_tokens'] !== undefined)!;
      expect(cached.attributes).toMatchObject({
        'gen_ai.usage.input_tokens': 900,
        'gen_ai.usage.output_tokens': 40,
        'gen_ai.usage.cache_read.input_tokens': 800,
        'gen_ai.usage.cache_creation.input_tokens': 16,
        'gen_ai.usage.reasoning.output_tokens': 12,
      });

      const tools = byName(spans, 'execute_tool');
      expect(tools.length).toBe(rootEvents.filter((e) => e.type === 'tool/call').length);
      const chatIds = new Set(chats.map((c) => c.spanId));
      for (const t of tools) {
        expect(chatIds.has(t.parentSpanId)).toBe(true);
        expect(t.name).toBe('execute_tool read_file');
        expect(t.attributes['gen_ai.tool.name']).toBe('read_file');
        expect(t.attributes['gen_ai.tool.call.id']).toMatch(/^call_\d+_1$/);
        expect(t.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
      }
      // The compaction between turns is an event of the session span.
      expect(session!.events.map((e) => e.name)).toContain('forkline.compaction');

      // A fork: its own trace, its session span linked to the parent's turn span it continues.
      const fork = await forkline(['export', source.forks[0]!, '--otlp', receiver.url], { dataDir: source.dataDir });
      expect(fork.code).toBe(0);
      const forkSpans = receiver.spans.slice(spans.length);
      expect(new Set(forkSpans.map((s) => s.traceId))).toEqual(new Set([traceIdOf(source.forks[0]!)]));
      const forkSession = byName(forkSpans, 'session ')[0]!;
      expect(forkSession.links).toEqual([{ traceId: trace, spanId: firstTurn.spanId, attributes: { 'forkline.link': 'forked-from' } }]);
      // Only the fork's own turn is in its trace (the inherited one stays in the parent's).
      expect(byName(forkSpans, 'invoke_agent').length).toBe(1);

      // Exported again: the very same ids.
      const again = await forkline(['export', source.root, '--otlp', receiver.url], { dataDir: source.dataDir });
      expect(again.code).toBe(0);
      const repeat = receiver.spans.slice(spans.length + forkSpans.length);
      expect(repeat.map((s) => `${s.traceId}/${s.spanId}/${s.parentSpanId}`).sort()).toEqual(spans.map((s) => `${s.traceId}/${s.spanId}/${s.parentSpanId}`).sort());
    } finally {
      await receiver.close();
    }
  }, 90_000);

  it('carries message content only with --otlp-content', async () => {
    const receiver = await startReceiver();
    try {
      const run = await forkline(['export', source.root, '--otlp', receiver.url, '--otlp-content'], { dataDir: source.dataDir });
      expect(run.code).toBe(0);
      const chat = byName(receiver.spans, 'chat ').find((c) => c.attributes['gen_ai.output.messages'] !== undefined)!;
      expect(JSON.parse(chat.attributes['gen_ai.output.messages'] as string)[0].role).toBe('assistant');
      expect(JSON.parse(chat.attributes['gen_ai.input.messages'] as string)[0]).toMatchObject({ role: 'user', parts: [{ type: 'text', content: 'prompt 1' }] });
      const tool = byName(receiver.spans, 'execute_tool')[0]!;
      expect(tool.attributes['gen_ai.tool.call.arguments']).toBe('{"path":"src/1.ts"}');
      expect(tool.attributes['gen_ai.tool.call.result']).toBe('contents of src/1.ts');
    } finally {
      await receiver.close();
    }
  }, 60_000);

  it('writes OTLP/JSON to a file', async () => {
    const file = join(base, 'trace.json');
    const run = await forkline(['export', source.root, '--otlp', file], { dataDir: source.dataDir });
    expect(run.code).toBe(0);
    const request = JSON.parse(readFileSync(file, 'utf8')) as { resourceSpans: { scopeSpans: { spans: { traceId: string; name: string }[] }[] }[] };
    const spans = request.resourceSpans[0]!.scopeSpans[0]!.spans;
    expect(spans[0]!.traceId).toBe(traceIdOf(source.root));
    expect(spans.some((s) => s.name === 'invoke_agent forkline')).toBe(true);
  }, 60_000);

  it('says so and exits 1 when the endpoint refuses, stalls or fails', async () => {
    const closed = await startReceiver();
    const url = closed.url;
    await closed.close();
    const refused = await forkline(['export', source.root, '--otlp', url, '--otlp-timeout', '3'], { dataDir: source.dataDir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('OTLP_EXPORT_FAILED');
    expect(refused.stderr).toMatch(/did not take the trace/);

    const stall = await startReceiver({ kind: 'stall' });
    try {
      const stalled = await forkline(['export', source.root, '--otlp', stall.url, '--otlp-timeout', '1'], { dataDir: source.dataDir });
      expect(stalled.code).toBe(1);
      expect(stalled.stderr).toMatch(/did not take the trace: .*time/i);
      expect(stalled.ms).toBeLessThan(20_000);
    } finally {
      await stall.close();
    }

    const failing = await startReceiver({ kind: 'status', status: 400 });
    try {
      const failed = await forkline(['export', source.root, '--otlp', failing.url], { dataDir: source.dataDir });
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain('OTLP_EXPORT_FAILED');
    } finally {
      await failing.close();
    }
  }, 90_000);
});
