/**
 * The request inspector against the bytes the provider received: a multi-step DeepSeek-dialect
 * session through the real host (SQLite store, agent, `openai` client, scripted server on
 * 127.0.0.1) with tool round trips, a retried HTTP 500, a manual compaction, an overflow that
 * compacts mid-step and retries, and a compaction whose summary request fails. For EVERY request
 * the server saw, the inspector's body — rebuilt from the log alone — equals the received body
 * byte for byte; URL and headers match (key redacted); the response facts, the diff against the
 * previous request and the raw stream are right.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestInspection, RequestSummary } from '../../../shared/api.js';
import { dispatch } from '../../../electron/host/dispatch.js';
import type { HostConnection } from '../../../electron/host/host-connection.js';
import { createRuntime, type Runtime } from '../../../electron/host/runtime.js';
import { httpError, reasoningResponse, startScriptedLlm, textResponse, toolCallResponse, usage, type RecordedRequest, type ScriptedLlm, type ScriptStep } from '../../support/scripted-llm/index.js';

const KEY = 'sk-inspector-secret-7f3a';
let llm: ScriptedLlm;
let dir: string;
let runtime: Runtime;
let connection: HostConnection;
let sessionId: string;
const summaries: ScriptStep[] = [];
const answers: ScriptStep[] = [];

const isSummaryRequest = (r: RecordedRequest): boolean => r.rawBody.includes('You are acting as a compaction engine');

beforeAll(async () => {
  llm = await startScriptedLlm();
  llm.setHandler((request) => {
    const next = isSummaryRequest(request) ? summaries.shift() : answers.shift();
    if (!next) throw new Error(`nothing scripted for request #${request.number}`);
    return next;
  });
  dir = mkdtempSync(join(tmpdir(), 'forkline-inspector-'));
  const workspace = join(dir, 'ws');
  mkdirSync(workspace);
  for (const name of ['a.txt', 'b.txt']) writeFileSync(join(workspace, name), `${name}: ${'a line of text that the model reads\n'.repeat(120)}`);
  runtime = createRuntime({
    dataDir: join(dir, 'data'),
    env: { DEEPSEEK_API_KEY: KEY, FORKLINE_CHECKPOINTS: 'off' },
    overrides: { active: { provider: 'deepseek', baseUrl: llm.baseUrl, model: 'deepseek-v4-flash' }, approvalPolicy: 'allow' },
    writeWindowMs: 5,
  });
  connection = runtime.host.connect(() => undefined);
  sessionId = connection.createSession({ cwd: workspace }).id;

  const turn = async (text: string, steps: ScriptStep[]): Promise<void> => {
    answers.push(...steps);
    connection.followup({ sessionId, text });
    await runtime.host.agentFor(sessionId)!.whenIdle();
    expect(answers, 'every scripted answer was used').toHaveLength(0);
  };
  await turn('read a.txt', [
    toolCallResponse([{ id: 'call-a', name: 'read_file', arguments: '{"path":"a.txt"}' }], { reasoning: 'I should read the file first.', usage: usage(900, 40, { reasoning: 12 }) }),
    reasoningResponse('It is a list of lines.', 'a.txt holds 120 identical lines.', { usage: usage(2_400, 30, { cached: 896 }) }),
  ]);
  await turn('now read b.txt and run a command', [
    httpError(500, { error: { message: 'upstream overloaded' } }),
    toolCallResponse(
      [
        { id: 'call-b', name: 'read_file', arguments: '{"path":"b.txt"}' },
        { id: 'call-c', name: 'bash', arguments: '{"command":"echo ok"}' },
      ],
      { usage: usage(2_500, 50, { cached: 2_368 }) },
    ),
    textResponse('Both done: b.txt read, the command printed ok.', { usage: usage(4_000, 20, { cached: 2_496 }) }),
  ]);
  summaries.push(textResponse('- read a.txt and b.txt (120 lines each)\n- ran `echo ok`'));
  expect((await connection.compactSession({ sessionId })).compacted).toBe(true);
  summaries.push(textResponse('- everything so far: two files read, one command run'));
  await turn('what did you do so far?', [
    httpError(400, { error: { message: "This model's maximum context length is 131072 tokens. However, you requested 140000 tokens.", type: 'invalid_request_error' } }),
    textResponse('I read two files and ran one command.', { usage: usage(300, 12) }),
  ]);
  await turn('read a.txt again', [toolCallResponse([{ id: 'call-d', name: 'read_file', arguments: '{"path":"a.txt"}' }]), textResponse('Same 120 lines.')]);
  summaries.push(httpError(400, { error: { message: 'summary request rejected', type: 'invalid_request_error' } }));
  await expect(connection.compactSession({ sessionId })).rejects.toMatchObject({ code: 'COMPACTION_FAILED' });
  await turn('thanks', [textResponse('You are welcome.')]);
}, 60_000);

afterAll(async () => {
  connection?.dispose();
  await runtime?.close();
  await llm?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('request inspector', () => {
  it('lists every request the server received, in order, with the right kinds', () => {
    const requests = connection.listRequests({ sessionId });
    expect(requests.map((r) => r.label)).toEqual([
      'step 1.1',
      'step 1.2',
      'step 2.1',
      'step 2.1 · attempt 2',
      'step 2.2',
      'compaction summary',
      'step 3.1',
      'compaction summary (turn 3)',
      'step 3.1 · attempt 2',
      'step 4.1',
      'step 4.2',
      'compaction summary',
      'step 5.1',
    ]);
    expect(requests).toHaveLength(llm.requests.length);
    expect(requests.map((r) => r.ref.kind === 'compaction')).toEqual(llm.requests.map(isSummaryRequest));
  });

  it('rebuilds the exact body of every request from the log, byte for byte, with URL and headers (key redacted)', () => {
    const requests = connection.listRequests({ sessionId });
    requests.forEach((summary: RequestSummary, i) => {
      const inspection: RequestInspection = connection.inspectRequest({ sessionId, index: i });
      const received = llm.requests[i]!;
      expect(inspection.wireError, summary.label).toBeUndefined();
      expect(inspection.wire!.body, `${summary.label}: rebuilt body vs received bytes`).toBe(received.rawBody);
      expect(inspection.wire!.bodyBytes).toBe(Buffer.byteLength(received.rawBody));
      expect(inspection.wire!.url).toBe(`${llm.baseUrl}/chat/completions`);
      expect(received.path).toBe('/v1/chat/completions');
      for (const header of inspection.wire!.headers) {
        const sent = received.headers[header.name.toLowerCase()];
        if (header.redacted) {
          expect(sent).toBe(`Bearer ${KEY}`);
          expect(header.value).not.toContain(KEY);
        } else {
          expect(sent, header.name).toBe(header.value);
        }
      }
      expect(JSON.stringify(inspection)).not.toContain(KEY);
      expect(inspection.wire!.curl).toContain('$DEEPSEEK_API_KEY');
      expect(inspection.wire!.curl).toContain(received.rawBody);
    });
  });

  it('shows the response beside each request: finish, usage, timings, failures', () => {
    const requests = connection.listRequests({ sessionId });
    const [s11, s12, s21a, s21b, , sum1, s31a, sum2, , , , sum3] = requests;
    expect(s11!.response).toMatchObject({ finish: 'tool-calls', usage: { inputTokens: 900, outputTokens: 40, reasoningTokens: 12 } });
    expect(s12!.response.usage).toMatchObject({ inputTokens: 2_400 - 896, cacheReadTokens: 896 });
    expect(s21a!.response).toMatchObject({ finish: 'error', failure: { code: 'SERVER', status: 500 } });
    expect(s21b!.response.finish).toBe('tool-calls');
    expect(s31a!.response.failure?.code).toBe('CONTEXT_WINDOW_EXCEEDED');
    expect(sum1!.response.finish).toBe('stop');
    expect(sum2!.response.finish).toBe('stop');
    expect(sum3!.response).toMatchObject({ finish: 'error', failure: { code: 'INVALID_REQUEST' } });
    for (const r of requests) {
      expect(r.sent).toBe(true);
      expect(r.response.durationMs, r.label).toBeGreaterThanOrEqual(0);
      if (r.ref.kind === 'step') expect(r.response.chunkCount, r.label).toBeGreaterThan(0);
    }
    expect(s11!.response.ttftMs).toBeGreaterThanOrEqual(0);
    // By step: the last attempt, or the one asked for.
    expect(connection.inspectRequest({ sessionId, turn: 2, step: 1 }).request.label).toBe('step 2.1 · attempt 2');
    expect(connection.inspectRequest({ sessionId, turn: 2, step: 1, attempt: 1 }).request.label).toBe('step 2.1');
  });

  it('diffs each request against the previous one: appended messages, and whether the cached prefix held', () => {
    const diffOf = (i: number) => connection.inspectRequest({ sessionId, index: i }).diff!;
    expect(connection.inspectRequest({ sessionId, index: 0 }).diff).toBeUndefined();
    const afterTool = diffOf(1);
    expect(afterTool.prefixHeld).toBe(true);
    expect(afterTool.appended.map((m) => m.role)).toEqual(['assistant', 'tool']);
    expect(afterTool.envelopeChanges).toEqual([]);
    // The retry sent the same request again.
    const retry = diffOf(3);
    expect(retry.prefixHeld).toBe(true);
    expect(retry.appended).toEqual([]);
    expect(retry.changed).toEqual([]);
    // After the manual compaction the head of the history is the summary: the prefix broke.
    const afterCompaction = diffOf(6);
    expect(afterCompaction.prefixHeld).toBe(false);
    expect(afterCompaction.prefixBrokenBy).toMatch(/message #1/);
    expect(afterCompaction.changed[0]!.after.preview).toContain('automatically generated checkpoint');
    // A summary request carries the shadowed history plus the instruction, under a lower output cap.
    const summary = diffOf(5);
    expect(summary.envelopeChanges).toContain('max_tokens');
  });

  it('serves the raw stream of a request on demand and validates its params at the boundary', async () => {
    const requests = connection.listRequests({ sessionId });
    const stream = connection.readRequestStream({ sessionId, index: 1 });
    expect(stream.total).toBe(requests[1]!.response.chunkCount);
    expect(stream.events.every((e) => e.type === 'assistant/chunk')).toBe(true);
    expect(stream.events.at(-1)!.data).toMatchObject({ chunk: { type: 'finish' } });
    expect(connection.readRequestStream({ sessionId, index: 5 })).toEqual({ events: [], total: 0 });
    const bad = await dispatch(connection, { id: 1, method: 'inspectRequest', params: { sessionId } });
    expect(bad).toMatchObject({ ok: false, error: { code: 'INVALID_PARAMS' } });
    const missing = await dispatch(connection, { id: 2, method: 'inspectRequest', params: { sessionId, index: 99 } });
    expect(missing).toMatchObject({ ok: false, error: { code: 'REQUEST_NOT_FOUND' } });
    const viaRpc = await dispatch(connection, { id: 3, method: 'inspectRequest', params: { sessionId, turn: 5, step: 1 } });
    expect(viaRpc).toMatchObject({ ok: true, result: { request: { label: 'step 5.1' } } });
  });

  it('rebuilds the same bodies from the stored log after a restart (cold session)', async () => {
    await runtime.host.stopAgent(sessionId);
    const requests = connection.listRequests({ sessionId });
    expect(requests).toHaveLength(llm.requests.length);
    for (let i = 0; i < requests.length; i++) expect(connection.inspectRequest({ sessionId, index: i }).wire!.body).toBe(llm.requests[i]!.rawBody);
  });
});
