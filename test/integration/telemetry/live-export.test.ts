/**
 * Live OTLP export (issue 26): spans of a session as it runs, through the bounded queue and the
 * SDK's OTLP/HTTP exporter to a receiver on 127.0.0.1 (decoded with the official protos). A stalled
 * or absent collector: spans are dropped or fail with a counted warning, appends never wait.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStoredSessions, type StoredSessions } from '../../../electron/cli/stored-sessions.js';
import { LiveTraceExporter } from '../../../electron/telemetry/live-exporter.js';
import { otlpExporter, sdkSpanSink, type SpanRecordSink } from '../../../electron/telemetry/otlp-export.js';
import { threadedOtlpSink } from '../../../electron/telemetry/otlp-export-thread.js';
import { spanIdOf, traceIdOf } from '../../../electron/telemetry/session-spans.js';
import { AgentLogWriter } from '../../support/store-fixtures.js';
import { forkline } from '../../support/cli-process.js';
import { closeScriptedCli, openScriptedCli } from '../../support/scripted-cli.js';
import { textResponse, toolCallResponse } from '../../support/scripted-llm/builders.js';
import { startReceiver, type Receiver } from './otlp-receiver.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function dataFolder(): StoredSessions {
  const dir = mkdtempSync(join(tmpdir(), 'forkline-live-otlp-'));
  const stored = openStoredSessions(dir, {});
  cleanups.push(
    () => rmSync(dir, { recursive: true, force: true }),
    () => stored.close(),
  );
  return stored;
}

/** Polls `done` every 10 ms until it holds or `ms` milliseconds have passed (the caller asserts after). */
async function until(done: () => boolean, ms: number): Promise<void> {
  const deadline = performance.now() + ms;
  while (!done() && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}

async function receiver(mode?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const r = await startReceiver(mode);
  cleanups.push(() => r.close());
  return r;
}

describe('live OTLP export', () => {
  const sinks: [string, (url: string, timeoutMs: number) => SpanRecordSink][] = [
    ['on a worker thread', (url, timeoutMs) => threadedOtlpSink(url, timeoutMs)],
    ['on the calling thread', (url, timeoutMs) => sdkSpanSink(otlpExporter(url, timeoutMs))],
  ];
  it.each(sinks)('streams the turn, step and tool spans of a running session with the ids a one-shot export gives (sent %s)', async (_where, sink) => {
    const r = await receiver();
    const { repository } = dataFolder();
    const live = repository.create({ cwd: '/tmp' });
    const threaded = sink(r.url, 5_000);
    const exporter = new LiveTraceExporter({ sink: threaded, scheduledDelayMs: 50 });
    const watch = exporter.watch(live.session);
    const w = new AgentLogWriter(live.session);
    w.completedTurn('live one', 3);
    await exporter.flush();
    const id = live.session.id;
    const turnStart = live.session.events.find((e) => e.type === 'turn/start')!;
    expect(r.spans.map((s) => s.name).sort()).toEqual(['chat deepseek-chat', 'chat deepseek-chat', 'execute_tool read_file', 'invoke_agent forkline']);
    for (const s of r.spans) expect(s.traceId).toBe(traceIdOf(id));
    const turn = r.spans.find((s) => s.name.startsWith('invoke_agent'))!;
    expect(turn.spanId).toBe(spanIdOf(id, turnStart.seq));
    expect(turn.parentSpanId).toBe(spanIdOf(id, 'session'));
    expect(turn.startMs).toBe(turnStart.time);
    expect(exporter.exported).toBe(4);
    expect(exporter.dropped).toBe(0);
    if ('fallbackReason' in threaded) expect(threaded.fallbackReason).toBeUndefined();
    watch.dispose();
    await exporter.shutdown();
    await live.release();
  });

  it.runIf(process.platform === 'linux')('encodes and sends on a thread at nice 10, below the agent’s thread', async () => {
    const r = await receiver();
    const niceOf = (tid: string): number => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
    const threadsBefore = new Set(readdirSync('/proc/self/task'));
    const sink = threadedOtlpSink(r.url, 5_000);
    const exporter = new LiveTraceExporter({ sink, scheduledDelayMs: 50 });
    const { repository } = dataFolder();
    const live = repository.create({ cwd: '/tmp' });
    const watch = exporter.watch(live.session);
    new AgentLogWriter(live.session).completedTurn('one', 1);
    await exporter.flush(); // the worker has loaded the SDK and sent: its priority is set
    expect(exporter.exported).toBeGreaterThan(0);
    const niceNow = readdirSync('/proc/self/task')
      .filter((tid) => !threadsBefore.has(tid))
      .map(niceOf);
    expect(niceNow).toContain(10);
    expect(niceOf(String(process.pid))).toBe(0); // the main thread keeps its priority
    watch.dispose();
    await exporter.shutdown();
    await live.release();
  });

  it('drops spans with a counted warning when the collector stalls, and never makes an append wait', async () => {
    const r = await receiver({ kind: 'stall' });
    const { repository } = dataFolder();
    const live = repository.create({ cwd: '/tmp' });
    const warnings: string[] = [];
    const exporter = new LiveTraceExporter({ sink: threadedOtlpSink(r.url, 60_000), maxQueueSize: 4, maxBatchSize: 2, scheduledDelayMs: 10, onWarning: (m) => warnings.push(m) });
    const watch = exporter.watch(live.session);
    const w = new AgentLogWriter(live.session);
    const started = performance.now();
    for (let i = 0; i < 20; i++) w.completedTurn(`turn ${i}`, 2);
    const appendMs = performance.now() - started;
    // 20 turns × 4 spans went through a queue of 4 whose only export hangs (their spans are built
    // on the exporter's next pass, every 10 ms here).
    // Deadlines, not counts of ticks: under a loaded CI the worker takes seconds to load the SDK.
    await until(() => exporter.dropped > 60, 30_000);
    expect(exporter.dropped).toBeGreaterThan(60);
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    expect(warnings[0]).toMatch(/live OTLP export: \d+ span\(s\) dropped \(queue of 4 full\)/);
    // One export is in flight (the receiver holds it); no second one starts meanwhile.
    await until(() => r.contentTypes.length > 0, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(r.contentTypes.length).toBe(1);
    // The appends did not wait for the collector (which never answers).
    expect(appendMs).toBeLessThan(5_000);
    watch.dispose();
    await exporter.shutdown(100);
    await live.release();
  });

  it('says how many spans a shutdown could not send; a shutdown sends every batch still queued', async () => {
    // A collector that never answers holds the first batch; the second cannot go before it.
    const stalled = await receiver({ kind: 'stall' });
    const { repository } = dataFolder();
    const live = repository.create({ cwd: '/tmp' });
    const warnings: string[] = [];
    const exporter = new LiveTraceExporter({ sink: threadedOtlpSink(stalled.url, 60_000), maxBatchSize: 2, scheduledDelayMs: 10, onWarning: (m) => warnings.push(m) });
    const watch = exporter.watch(live.session);
    new AgentLogWriter(live.session).completedTurn('held', 2);
    await until(() => stalled.contentTypes.length > 0, 30_000);
    watch.dispose();
    await exporter.shutdown(200);
    expect(exporter.dropped).toBe(2);
    expect(warnings.join('\n')).toMatch(/live OTLP export: 2 span\(s\) not sent at shutdown \(the collector had not taken the earlier ones within 200 ms\)/);
    await live.release();

    // A collector that answers: the batches still queued at shutdown all go out.
    const r = await receiver();
    const second = dataFolder().repository.create({ cwd: '/tmp' });
    const sink = threadedOtlpSink(r.url, 5_000);
    const drained = new LiveTraceExporter({ sink, scheduledDelayMs: 60_000, onWarning: (m) => warnings.push(m) });
    const follow = drained.watch(second.session);
    new AgentLogWriter(second.session).completedTurn('sent at exit', 2);
    follow.dispose();
    await drained.shutdown(30_000);
    expect(r.spans.map((s) => s.name).sort()).toEqual(['chat deepseek-chat', 'chat deepseek-chat', 'execute_tool read_file', 'invoke_agent forkline']);
    expect(drained.exported).toBe(4);
    expect(sink.fallbackReason).toBeUndefined();
    await second.release();
  });

  it('counts failed exports to an absent collector and keeps going', async () => {
    const gone = await startReceiver();
    const url = gone.url;
    await gone.close();
    const { repository } = dataFolder();
    const live = repository.create({ cwd: '/tmp' });
    const warnings: string[] = [];
    const exporter = new LiveTraceExporter({ sink: threadedOtlpSink(url, 2_000), scheduledDelayMs: 20, onWarning: (m) => warnings.push(m) });
    const watch = exporter.watch(live.session);
    new AgentLogWriter(live.session).completedTurn('nobody listens', 2);
    await exporter.flush();
    expect(exporter.failed).toBe(4);
    expect(warnings.join('\n')).toMatch(/4 failed to send/);
    // The session went on: a second turn appends and is queued again.
    new AgentLogWriter(live.session).completedTurn('still nobody', 2);
    await exporter.flush();
    expect(exporter.failed).toBe(8);
    expect(live.session.events.filter((e) => e.type === 'turn/end').length).toBe(2);
    watch.dispose();
    await exporter.shutdown(100);
    await live.release();
  });
});

describe('live OTLP export from the CLI (cli.json otlpEndpoint)', () => {
  it('streams the spans of a `forkline run` turn through the host to the collector', async () => {
    const r = await receiver();
    const setup = await openScriptedCli('forkline-live-otlp-cli');
    cleanups.push(() => closeScriptedCli(setup));
    writeFileSync(join(setup.dataDir, 'cli.json'), JSON.stringify({ otlpEndpoint: r.url }));
    setup.llm.enqueue(toolCallResponse([{ id: 'call_live_1', name: 'list_dir', arguments: '{"path":"."}' }]), textResponse('all listed'));
    const run = await forkline(['run', '--cwd', setup.work, '--base-url', setup.llm.baseUrl, '--model', 'scripted-model', '--approval', 'allow', 'list the folder'], { dataDir: setup.dataDir });
    expect(run.code, run.stderr).toBe(0);
    // The bundle's export thread ran (it loads the SDK by path): no fallback to the main thread.
    expect(run.stderr).not.toMatch(/live OTLP export/);
    const names = r.spans.map((s) => s.name).sort();
    expect(names).toEqual(['chat scripted-model', 'chat scripted-model', 'execute_tool list_dir', 'invoke_agent forkline']);
    const tool = r.spans.find((s) => s.name.startsWith('execute_tool'))!;
    expect(tool.attributes['gen_ai.tool.call.id']).toBe('call_live_1');
    expect(new Set(r.spans.map((s) => s.attributes['gen_ai.conversation.id'])).size).toBe(1);
  }, 60_000);
});
