/**
 * Agent loop against the scripted OpenAI-compatible server, with the real client, store, registry
 * and pipeline (issue: "The agent loop, the tool pipeline … Done when: loop tests").
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventsOfType, type SessionEvent } from '../../../shared/events.js';
import { Session } from '../../../electron/session/session.js';
import { timelineOf } from '../../../shared/timeline.js';
import { barrierTool, createHarness, gateTool, waitFor, waitTool, type Harness } from '../../support/agent-harness.js';
import { framesResponse, frame, httpError, reply, startScriptedLlm, textResponse, toolCallResponse, usage, wireChunk, type ScriptedLlm } from '../../support/scripted-llm/index.js';

let llm: ScriptedLlm;
let harness: Harness | undefined;

beforeAll(async () => {
  llm = await startScriptedLlm();
});
afterAll(async () => {
  await llm.close();
});
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  llm.setHandler(undefined);
});

const of = eventsOfType;

describe('agent loop', () => {
  it('runs a simple turn in the exact event order', async () => {
    llm.enqueue(textResponse('Hello there.', { usage: usage(20, 3, { cached: 8 }) }));
    harness = await createHarness({ llm });
    const { agent } = harness;
    const statuses: string[] = [];
    agent.onDidChangeStatus((s) => statuses.push(s));
    agent.followup('hi');
    expect(agent.status).toBe('running');
    await agent.whenIdle();
    const types = harness.types().filter((t) => t !== 'assistant/chunk');
    expect(types).toEqual(['agent/inbox/spliced', 'turn/start', 'agent/inbox/spliced', 'step/start', 'user/message', 'request/header', 'request/context', 'assistant/message', 'step/end', 'turn/end']);
    const events = harness.events();
    const message = of(events, 'assistant/message')[0]!;
    expect(message.data.message.content).toEqual([{ type: 'text', text: 'Hello there.' }]);
    expect(message.data.usage).toEqual({ inputTokens: 12, outputTokens: 3, cacheReadTokens: 8 });
    expect(message.sourceEventSeqs).toEqual(of(events, 'assistant/chunk').map((e) => e.seq));
    expect(of(events, 'turn/end')[0]!.data.reason).toEqual({ kind: 'completed' });
    expect(statuses).toEqual(['running', 'idle']);
    expect(harness.live.session.deriveMessages().map((m) => m.role)).toEqual(['user', 'assistant']);
    // Durable: the store holds exactly the live log.
    await harness.live.flush();
    expect(harness.store.readAll(harness.live.session.id)).toEqual(events);
  });

  it('round-trips a tool call and sends the result back paired by id', async () => {
    harness = await createHarness({ llm });
    const { writeFileSync } = await import('node:fs');
    writeFileSync(`${harness.workspace}/a.txt`, 'alpha\n');
    llm.enqueue(toolCallResponse([{ id: 'call_1', name: 'read_file', arguments: '{"path":"a.txt"}' }], { split: 3 }), textResponse('It says alpha.'));
    const before = llm.requests.length;
    harness.agent.followup('what is in a.txt?');
    await harness.agent.whenIdle();
    const events = harness.events();
    const call = of(events, 'tool/call')[0]!;
    const result = of(events, 'tool/result')[0]!;
    expect(call.data).toMatchObject({ turn: 1, step: 1, callId: 'call_1', name: 'read_file', arguments: '{"path":"a.txt"}' });
    expect(result.sourceEventSeqs).toEqual([call.seq]);
    expect(result.data.message.content[0].isError).toBe(false);
    expect(result.data.message.content[0].content[0]!.text).toContain('alpha');
    expect(of(events, 'step/start')).toHaveLength(2);
    const second = llm.requests[before + 1]!.body as { messages: { role: string; tool_call_id?: string; content: string }[] };
    const toolMessage = second.messages.find((m) => m.role === 'tool')!;
    expect(toolMessage.tool_call_id).toBe('call_1');
    expect(toolMessage.content).toContain('alpha');
  });

  it('commits parallel results in model order while a later call finishes first', async () => {
    const log: string[] = [];
    harness = await createHarness({ llm, tools: [waitTool(log)] });
    llm.enqueue(
      toolCallResponse(
        [
          { id: 'slow', name: 'wait', arguments: '{"ms":150,"label":"slow"}' },
          { id: 'fast', name: 'wait', arguments: '{"ms":5,"label":"fast"}' },
        ],
        { interleave: true },
      ),
      textResponse('done'),
    );
    harness.agent.followup('go');
    await harness.agent.whenIdle();
    expect(log).toEqual(['start slow', 'start fast', 'end fast', 'end slow']);
    const seq = harness
      .events()
      .filter((e) => e.type === 'tool/call' || e.type === 'tool/result')
      .map((e) => `${e.type === 'tool/call' ? 'call' : 'result'} ${e.type === 'tool/call' ? e.data.callId : (e as SessionEvent<'tool/result'>).data.message.content[0].toolCallId}`);
    expect(seq).toEqual(['call slow', 'call fast', 'result slow', 'result fast']);
  });

  it('treats a non-concurrency-safe call as an exclusive barrier between parallel groups', async () => {
    const log: string[] = [];
    harness = await createHarness({ llm, tools: [waitTool(log), barrierTool(log)] });
    llm.enqueue(
      toolCallResponse([
        { id: 'a', name: 'wait', arguments: '{"ms":40,"label":"a"}' },
        { id: 'b', name: 'wait', arguments: '{"ms":10,"label":"b"}' },
        { id: 'x', name: 'barrier', arguments: '{"label":"x"}' },
        { id: 'c', name: 'wait', arguments: '{"ms":20,"label":"c"}' },
        { id: 'd', name: 'wait', arguments: '{"ms":5,"label":"d"}' },
      ]),
      textResponse('done'),
    );
    harness.agent.followup('go');
    await harness.agent.whenIdle();
    // The order the schedule fixes, not the machine's timing (which wait of a group ends first, or
    // whether a loaded machine lets one end before the other's durability barrier is through): the
    // barrier runs alone, after both of its group and before either of the next.
    const at = (entry: string): number => {
      const i = log.indexOf(entry);
      expect(i, `${entry} in ${JSON.stringify(log)}`).toBeGreaterThanOrEqual(0);
      return i;
    };
    expect(log).toHaveLength(9);
    expect(at('barrier x')).toBeGreaterThan(Math.max(at('end a'), at('end b')));
    expect(Math.min(at('start c'), at('start d'))).toBeGreaterThan(at('barrier x'));
    expect(at('end c')).toBeGreaterThan(at('start c'));
    expect(at('end d')).toBeGreaterThan(at('start d'));
    const order = harness
      .events()
      .filter((e) => e.type === 'tool/call' || e.type === 'tool/result')
      .map((e) => (e.type === 'tool/call' ? `call ${e.data.callId}` : `result ${(e as SessionEvent<'tool/result'>).data.message.content[0].toolCallId}`));
    expect(order).toEqual(['call a', 'call b', 'result a', 'result b', 'call x', 'result x', 'call c', 'call d', 'result c', 'result d']);
  });

  it('enters steering at the next step boundary and shows it in the next request', async () => {
    const gate = gateTool();
    harness = await createHarness({ llm, tools: [gate.tool] });
    llm.enqueue(toolCallResponse([{ id: 'g', name: 'gate', arguments: '{}' }]), textResponse('steered answer'));
    const before = llm.requests.length;
    harness.agent.followup('start');
    await gate.started;
    harness.agent.steer('also mention the weather');
    gate.release();
    await harness.agent.whenIdle();
    const events = harness.events();
    const steps = of(events, 'step/start');
    const steering = of(events, 'user/message').find((m) => m.data.source.kind === 'steer')!;
    expect(steps).toHaveLength(2);
    expect(steering.seq).toBeGreaterThan(steps[1]!.seq);
    expect(of(events, 'turn/start')).toHaveLength(1);
    const second = llm.requests[before + 1]!.body as { messages: { role: string; content: string }[] };
    expect(second.messages.at(-1)).toEqual({ role: 'user', content: 'also mention the weather' });
  });

  it('inject() does not wake an idle agent; the context joins the next turn', async () => {
    harness = await createHarness({ llm });
    harness.agent.inject('the user prefers tabs');
    expect(harness.agent.status).toBe('idle');
    await new Promise((r) => setTimeout(r, 30));
    expect(harness.types()).toEqual(['agent/inbox/spliced']);
    llm.enqueue(textResponse('ok'));
    const before = llm.requests.length;
    harness.agent.followup('format the file');
    await harness.agent.whenIdle();
    const body = llm.requests[before]!.body as { messages: { role: string; content: string }[] };
    expect(body.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['format the file', 'the user prefers tabs']);
  });

  it('cancel mid-stream keeps the streamed prefix as an interrupted message and ends the turn aborted', async () => {
    harness = await createHarness({ llm });
    llm.enqueue(reply({ text: 'partial answer that keeps going and going', split: 4, frameDelayMs: 40 }));
    harness.agent.followup('long answer please');
    await waitFor(() => harness!.events().some((e) => e.type === 'assistant/chunk' && e.data.chunk.type === 'text-delta'));
    harness.agent.cancel({ kind: 'user' });
    await harness.agent.whenIdle();
    const events = harness.events();
    const message = of(events, 'assistant/message')[0]!;
    expect(message.data.interrupted).toBe(true);
    const text = message.data.message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    expect(text.length).toBeGreaterThan(0);
    expect('partial answer that keeps going and going'.startsWith(text)).toBe(true);
    expect(of(events, 'turn/end')[0]!.data.reason).toEqual({ kind: 'aborted', cause: { kind: 'user' } });
    expect(events.at(-2)!.type).toBe('step/end');
    // The interrupted prefix is model-visible for the next request.
    expect(harness.live.session.deriveMessages().at(-1)!.role).toBe('assistant');
  });

  it('cancel mid-tool drains the running call and closes unstarted calls with ABORTED_BEFORE_DISPATCH', async () => {
    const log: string[] = [];
    const gate = gateTool();
    harness = await createHarness({ llm, tools: [gate.tool, waitTool(log), barrierTool(log)] });
    llm.enqueue(
      toolCallResponse([
        { id: 'g', name: 'gate', arguments: '{}' },
        { id: 'w', name: 'wait', arguments: '{"ms":1,"label":"never"}' },
      ]),
    );
    harness.agent.followup('go');
    await gate.started;
    harness.agent.cancel({ kind: 'user' });
    await harness.agent.whenIdle();
    const events = harness.events();
    const results = of(events, 'tool/result');
    expect(results.map((r) => r.data.error?.code)).toEqual(['ABORTED', 'ABORTED_BEFORE_DISPATCH']);
    expect(of(events, 'tool/call').map((c) => c.data.callId)).toEqual(['g', 'w']);
    expect(log).toEqual([]);
    expect(of(events, 'turn/end')[0]!.data.reason).toEqual({ kind: 'aborted', cause: { kind: 'user' } });
    // Every assistant tool call has a result: the next request would be valid.
    const messages = harness.live.session.deriveMessages();
    const callIds = messages.flatMap((m) => (m.role === 'assistant' ? m.content.filter((b) => b.type === 'tool-call').map((b) => (b as { id: string }).id) : []));
    const resultIds = messages.flatMap((m) => (m.role === 'user' && m.source.kind === 'tool' ? [m.source.callId] : []));
    expect(resultIds).toEqual(callIds);
  });

  it('a length finish in the middle of a tool call executes nothing and ends the turn max-tokens', async () => {
    const log: string[] = [];
    harness = await createHarness({ llm, tools: [waitTool(log)] });
    llm.enqueue(
      framesResponse([
        frame.data(wireChunk({ role: 'assistant', content: 'Let me wait.' })),
        frame.data(wireChunk({ tool_calls: [{ index: 0, id: 'w1', type: 'function', function: { name: 'wait', arguments: '{"ms":1,' } }] })),
        frame.data(wireChunk({}, { finishReason: 'length' })),
        frame.done(),
      ]),
    );
    harness.agent.followup('wait please');
    await harness.agent.whenIdle();
    const events = harness.events();
    expect(log).toEqual([]);
    expect(of(events, 'tool/call')).toHaveLength(0);
    const message = of(events, 'assistant/message')[0]!;
    expect(message.data.message.content).toEqual([{ type: 'text', text: 'Let me wait.' }]);
    expect(of(events, 'turn/end')[0]!.data.reason).toEqual({ kind: 'max-tokens' });
  });

  it('retries a failed request inside the same step, logging llm/retry before the wait', async () => {
    harness = await createHarness({ llm });
    llm.enqueue(httpError(500, { error: { message: 'upstream hiccup' } }), textResponse('second time lucky'));
    harness.agent.followup('hi');
    await harness.agent.whenIdle();
    const events = harness.events();
    expect(of(events, 'turn/start')).toHaveLength(1);
    expect(of(events, 'step/start')).toHaveLength(1);
    const retry = of(events, 'llm/retry')[0]!;
    expect(retry.data).toMatchObject({ turn: 1, step: 1, attempt: 1, failure: { code: 'SERVER', status: 500 } });
    const failedFinish = of(events, 'assistant/chunk').find((e) => e.data.chunk.type === 'finish' && e.data.chunk.reason.kind === 'error')!;
    expect(failedFinish.seq).toBeLessThan(retry.seq);
    const message = of(events, 'assistant/message')[0]!;
    expect(message.sourceEventSeqs!.every((s) => s > retry.seq)).toBe(true);
    expect(of(events, 'turn/end')[0]!.data.reason).toEqual({ kind: 'completed' });
  });

  it("the timeline shows a step's back-to-back failed attempts as one retry row, with no time to first token until a token came", async () => {
    harness = await createHarness({ llm });
    const down = { error: { message: 'upstream hiccup' } };
    llm.enqueue(httpError(502, down), httpError(502, down), httpError(502, down), textResponse('fourth time lucky'));
    harness.agent.followup('hi');
    await harness.agent.whenIdle();
    const events = harness.events();
    expect(of(events, 'llm/retry')).toHaveLength(3);
    const rows = timelineOf(events).rows;
    const retries = rows.filter((r) => r.kind === 'retry');
    expect(retries.map((r) => [r.firstAttempt, r.attempt, r.failure.code])).toEqual([[1, 3, 'SERVER']]);
    const lastRetry = of(events, 'llm/retry').at(-1)!.seq;
    const before = timelineOf(events.slice(0, lastRetry + 1)).rows.find((r) => r.kind === 'step');
    expect(before).toMatchObject({ kind: 'step', attempts: 3 });
    expect(before?.kind === 'step' ? before.ttftMs : 'no step').toBeUndefined();
    expect(of(events, 'turn/end')[0]!.data.reason).toEqual({ kind: 'completed' });
  });

  it('ends the turn with error and a structured failure when retries cannot help', async () => {
    harness = await createHarness({ llm });
    llm.enqueue(httpError(401, { error: { message: 'invalid api key' } }));
    harness.agent.followup('hi');
    await harness.agent.whenIdle();
    const end = of(harness.events(), 'turn/end')[0]!;
    expect(end.data.reason).toMatchObject({ kind: 'error', failure: { code: 'AUTH', status: 401 } });
    expect(of(harness.events(), 'step/end')).toHaveLength(1);
  });

  it('closes a zero-step turn when the pre-step decision enters nothing, and blocked on reject', async () => {
    let decision: 'empty' | 'reject' = 'empty';
    harness = await createHarness({
      llm,
      agent: { preStep: () => (decision === 'empty' ? { kind: 'enter', messages: [] } : { kind: 'reject', reason: 'policy' }) },
    });
    const requestsBefore = llm.requests.length;
    harness.agent.followup('nothing to do');
    await harness.agent.whenIdle();
    expect(harness.types()).toEqual(['agent/inbox/spliced', 'turn/start', 'agent/inbox/spliced', 'turn/end']);
    expect(of(harness.events(), 'turn/end')[0]!.data.reason).toEqual({ kind: 'completed' });
    decision = 'reject';
    harness.agent.followup('blocked one');
    await harness.agent.whenIdle();
    expect(of(harness.events(), 'turn/end')[1]!.data).toEqual({ turn: 2, reason: { kind: 'blocked' } });
    // Neither turn reached the model.
    expect(llm.requests.length).toBe(requestsBefore);
  });

  it('rebuilds every request of a multi-step session from the log prefix, byte for byte', async () => {
    const log: string[] = [];
    harness = await createHarness({ llm, tools: [waitTool(log)] });
    const before = llm.requests.length;
    llm.enqueue(
      reply({ reasoning: 'I should wait.', toolCalls: [{ id: 'w1', name: 'wait', arguments: '{"ms":1,"label":"one"}' }] }),
      httpError(503, { error: { message: 'busy' } }),
      reply({
        toolCalls: [
          { id: 'w2', name: 'wait', arguments: '{"ms":1,"label":"two"}' },
          { id: 'w3', name: 'wait', arguments: '{"ms":1,"label":"three"}' },
        ],
      }),
      reply({ reasoning: 'done now', text: 'All waited.' }),
      textResponse('second turn answer'),
    );
    harness.agent.followup('wait a few times');
    await harness.agent.whenIdle();
    harness.agent.followup('and again');
    await harness.agent.whenIdle();
    const events = harness.events();
    const sent = llm.requests.slice(before);
    expect(sent).toHaveLength(5);
    // Each request's log prefix ends just before the first chunk of its attempt.
    const attemptStarts: number[] = [];
    for (const e of events) {
      if (e.type !== 'assistant/chunk') continue;
      const prev = events[e.seq - 1]!;
      if (prev.type !== 'assistant/chunk') attemptStarts.push(e.seq);
    }
    expect(attemptStarts).toHaveLength(5);
    attemptStarts.forEach((seq, i) => {
      const prefix = new Session({ header: harness!.live.session.header, seed: events.slice(0, seq) });
      const rebuilt = JSON.stringify(harness!.client.requestBody({ header: prefix.requestHeader()!, messages: prefix.deriveMessages() }));
      expect(rebuilt).toBe(sent[i]!.rawBody);
    });
    // The first header, then one change: a custom endpoint gets reasoning_content on tool-call
    // messages by default (logged, issue 20); the first reply streamed reasoning_content, so the
    // dialect in force also names the field; reasoning_content is echoed.
    const headers = of(events, 'request/header');
    expect(headers.map((e) => e.data.reason)).toEqual(['initial', 'change']);
    expect(headers[0]!.data.header.dialect).toEqual({ reasoningContent: 'tool-calls' });
    expect(headers[1]!.data.header.dialect).toEqual({ reasoningContent: 'tool-calls', reasoningField: 'reasoning_content' });
    const third = sent[2]!.body as { messages: { role: string; reasoning_content?: string }[] };
    expect(third.messages.find((m) => m.role === 'assistant')!.reasoning_content).toBe('I should wait.');
  });
});
