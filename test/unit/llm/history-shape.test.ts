/**
 * Issue 20: the serialized history is one any endpoint accepts, from any origin — tool results in
 * call order (whatever order the log holds them in), stray results and unanswered calls still
 * valid, no lone surrogate on the wire, and the dialect the log taught (`request/header.dialect`)
 * applied; plus the rejection table and the log-derived hints.
 */
import { describe, expect, it } from 'vitest';
import type { RequestHeader, SessionEvent } from '../../../shared/events.js';
import type { AssistantBlock, Message } from '../../../shared/messages.js';
import { historyFixFor, requestDialect } from '../../../electron/llm/history-rejection.js';
import { PROVIDER_PRESETS } from '../../../electron/llm/providers.js';
import { MISSING_RESULT_TEXT, orderToolResults, serializeChatRequest, type SerializeOptions } from '../../../electron/llm/request-serializer.js';
import { llmFailure } from '../../../electron/llm/failure.js';
import { coversWireHints, WireHintTracker } from '../../../electron/session/wire-hints.js';
import { strictThinkingViolations } from '../../support/scripted-llm/strict-thinking.js';
import { unknownFieldViolations } from '../../support/scripted-llm/strict-fields.js';

const custom: SerializeOptions = { dialect: PROVIDER_PRESETS.custom.dialect };
const openai: SerializeOptions = { dialect: PROVIDER_PRESETS.openai.dialect };
const header: RequestHeader = { config: { provider: 'custom', model: 'm' } };

const assistant = (id: string, content: AssistantBlock[]): Message => ({ id, role: 'assistant', content, source: { kind: 'model', provider: 'x', model: 'y' } });
const call = (id: string, name = 'Task'): AssistantBlock => ({ type: 'tool-call', id, name, arguments: `{"n":"${id}"}` });
const result = (callId: string, text = `result of ${callId}`): Message => ({
  id: `r-${callId}-${text.length}`,
  role: 'user',
  source: { kind: 'tool', callId },
  content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text }], isError: false }],
});
const user = (text: string): Message => ({ id: `u-${text}`, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } });

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire bodies are checked as plain JSON
const body = (messages: Message[], options = custom, h = header): any => JSON.parse(JSON.stringify(serializeChatRequest({ header: h, messages }, options)));

describe('tool results go out in call order (issue 20 item 3)', () => {
  it('three parallel sub-agent calls answered in another order are sent in call order, right after their message', () => {
    const messages = [
      user('go'),
      assistant('a1', [{ type: 'text', text: 'Three agents.' }, call('t1'), call('t2'), call('t3')]),
      result('t3'),
      result('t1'),
      user('[hook] note'),
      result('t2'),
      assistant('a2', [{ type: 'text', text: 'done' }]),
    ];
    const wire = body(messages);
    expect(wire.messages.map((m: { role: string; tool_call_id?: string; content: string }) => m.tool_call_id ?? `${m.role}:${m.content}`)).toEqual([
      'user:go',
      'assistant:Three agents.',
      't1',
      't2',
      't3',
      'user:[hook] note',
      'assistant:done',
    ]);
    expect(strictThinkingViolations(wire, { requireReasoningContent: false })).toEqual([]);
    // The arrival-order body is what the strict server refuses.
    const arrival = {
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: '', tool_calls: [{ id: 't1' }, { id: 't2' }, { id: 't3' }] },
        { role: 'tool', tool_call_id: 't3' },
        { role: 'tool', tool_call_id: 't1' },
        { role: 'tool', tool_call_id: 't2' },
      ],
    };
    expect(strictThinkingViolations(arrival, { requireReasoningContent: false })[0]).toBe('tool results out of call order at index 2');
  });

  it('an unanswered call gets a result saying so; a stray result becomes a user message naming its call; repeated ids pair in turn', () => {
    const messages = [user('go'), assistant('a1', [call('c1'), call('c2')]), result('c2'), result('zz'), assistant('a2', [call('c1'), call('c1')]), result('c1', 'first'), result('c1', 'second!')];
    const wire = body(messages);
    expect(wire.messages[2]).toEqual({ role: 'tool', tool_call_id: 'c1', content: MISSING_RESULT_TEXT });
    expect(wire.messages[3]).toEqual({ role: 'tool', tool_call_id: 'c2', content: 'result of c2' });
    expect(wire.messages[4]).toEqual({ role: 'user', content: 'Result of tool call zz (its call is not in this history):\nresult of zz' });
    expect(wire.messages.slice(6).map((m: { content: string }) => m.content)).toEqual(['first', 'second!']);
    expect(strictThinkingViolations(wire, { requireReasoningContent: false })).toEqual([]);
    // A history that ends with an unanswered call is closed too.
    const open = body([user('go'), assistant('a1', [call('c9')])]);
    expect(open.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'c9', content: MISSING_RESULT_TEXT });
  });

  it('a history already in order is passed through unchanged (same array: byte-stable prefixes)', () => {
    const messages = [user('go'), assistant('a1', [call('c1'), call('c2')]), result('c1'), result('c2'), assistant('a2', [{ type: 'text', text: 'ok' }])];
    expect(orderToolResults(messages)).toBe(messages);
  });
});

describe('no lone surrogate goes on the wire (issue 20 edge)', () => {
  it('replaces every lone surrogate by U+FFFD, in text, results, arguments, reasoning and tool schemas; pairs are kept', () => {
    const wire = JSON.stringify(
      serializeChatRequest(
        {
          header: {
            config: { provider: 'custom', model: 'm' },
            system: 'sys \uD83D',
            tools: [{ name: 't', description: 'd\uDC00', parameters: { type: 'object', properties: { ['k\uD800']: { type: 'string' } } } }],
          },
          messages: [
            user('half \uD83D and whole \uD83D\uDE00'),
            assistant('a', [
              { type: 'reasoning', text: 'r\uDE00', field: 'reasoning_content' },
              { type: 'tool-call', id: 'c', name: 'x', arguments: '{"a":"\uD83D"}' },
            ]),
            result('c', 'out \uDBFF'),
          ],
        },
        custom,
      ),
    );
    expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(wire)).toBe(false);
    expect(wire).toContain('half \uFFFD and whole \uD83D\uDE00');
    expect(wire).toContain('out \uFFFD');
    expect(wire).toContain('"k\uFFFD"');
    expect(Buffer.from(wire, 'utf8').toString('utf8')).toBe(wire);
  });
});

describe('the dialect the log taught (issue 20 item 1)', () => {
  const imported = [user('go'), assistant('a1', [{ type: 'reasoning', text: 'imported thinking' }, call('c1', 'Bash')]), result('c1'), assistant('a2', [call('c2', 'Bash')]), result('c2')];

  it('without hints, imported reasoning is not sent to a custom endpoint; with reasoningContent every tool-call message carries it', () => {
    expect(body(imported).messages.filter((m: { reasoning_content?: string }) => m.reasoning_content !== undefined)).toEqual([]);
    const hinted = body(imported, custom, { ...header, dialect: { reasoningContent: 'tool-calls', reasoningField: 'reasoning_content' } });
    expect(hinted.messages.filter((m: { role: string }) => m.role === 'assistant').map((m: { reasoning_content?: string }) => m.reasoning_content)).toEqual(['imported thinking', '']);
    expect(strictThinkingViolations(hinted, { requireReasoningContent: true })).toEqual([]);
    expect(strictThinkingViolations(body(imported), { requireReasoningContent: true })[0]).toBe('Missing `reasoning_content` field in the assistant message at message index 1');
    // Reasoning of unknown origin goes back in the field the endpoint streams.
    const asReasoning = body(imported, custom, { ...header, dialect: { reasoningField: 'reasoning' } });
    expect(asReasoning.messages[1].reasoning).toBe('imported thinking');
    // A strict dialect never sends them, whatever the hints.
    const strict = body(imported, openai, { ...header, dialect: { reasoningContent: 'tool-calls', reasoningField: 'reasoning_content' } });
    expect(JSON.stringify(strict)).not.toContain('reasoning');
  });

  it('recognises the rejections it can fix, and only those', () => {
    const missing = llmFailure('INVALID_REQUEST', '400 Missing `reasoning_content` field in the assistant message at message index 2', { status: 400 });
    expect(historyFixFor(missing)).toEqual({ reasoningContent: 'tool-calls', reasoningField: 'reasoning_content' });
    expect(historyFixFor(llmFailure('INVALID_REQUEST', '400 The reasoning_content in the thinking mode must be passed back to the API.', { status: 400 }))).toBeDefined();
    expect(historyFixFor(llmFailure('INVALID_REQUEST', '400 model not found', { status: 400 }))).toBeUndefined();
    expect(historyFixFor(llmFailure('SERVER', 'Missing reasoning_content field', { status: 500 }))).toBeUndefined();
  });

  it('derives the hints per route from what this installation recorded: streamed fields and logged corrections', () => {
    let seq = 0;
    const ev = (type: string, data: unknown): SessionEvent => ({ seq: seq++, type, time: 0, data }) as unknown as SessionEvent;
    const msg = (blocks: AssistantBlock[]) => ev('assistant/message', { turn: 1, step: 1, message: assistant(`m${seq}`, blocks) });
    const events: SessionEvent[] = [
      msg([{ type: 'reasoning', text: '', field: 'reasoning_content' }]), // imported (before fromSeq): teaches nothing
      ev('request/context', { provider: 'custom', model: 'm', baseUrl: 'http://a/v1' }),
      msg([{ type: 'reasoning', text: 'x', field: 'reasoning' }]),
      ev('request/context', { provider: 'custom', model: 'm', baseUrl: 'http://b/v1/' }),
      ev('llm/warning', { turn: 1, step: 1, code: 'HISTORY_CORRECTED', message: 'm', dialect: { reasoningContent: 'tool-calls', reasoningField: 'reasoning_content' } }),
    ];
    const source = { length: 0, eventAt: (s: number) => events[s] };
    const tracker = new WireHintTracker(1);
    expect(tracker.hintsFor(source, { provider: 'custom', baseUrl: 'http://a/v1' })).toBeUndefined();
    source.length = events.length;
    expect(tracker.hintsFor(source, { provider: 'custom', baseUrl: 'http://a/v1' })).toEqual({ reasoningField: 'reasoning' });
    expect(tracker.hintsFor(source, { provider: 'custom', baseUrl: 'http://b/v1' })).toEqual({ reasoningContent: 'tool-calls', reasoningField: 'reasoning_content' });
    expect(tracker.hintsFor(source, { provider: 'custom', baseUrl: 'http://c/v1' })).toBeUndefined();
    expect(new WireHintTracker(0).hintsFor(source, { provider: 'custom', baseUrl: 'http://a/v1' })).toEqual({ reasoningField: 'reasoning' });
  });
  it('the default when the log knows nothing: reasoning_content for custom and local presets, not for hosted or strict ones', () => {
    for (const provider of ['custom', 'vllm', 'llamacpp', 'lmstudio', 'ollama', 'some-unknown-name']) expect(requestDialect(provider, undefined)).toEqual({ reasoningContent: 'tool-calls' });
    for (const provider of ['openai', 'openrouter', 'gemini', 'deepseek']) expect(requestDialect(provider, undefined)).toBeUndefined();
    // What the log knows wins; a route known to stream `reasoning` gets no default.
    expect(requestDialect('custom', { reasoningContent: 'omit' })).toEqual({ reasoningContent: 'omit' });
    expect(requestDialect('custom', { reasoningField: 'reasoning' })).toEqual({ reasoningField: 'reasoning' });
    expect(requestDialect('custom', { reasoningField: 'reasoning_content' })).toEqual({ reasoningContent: 'tool-calls', reasoningField: 'reasoning_content' });
    // The default body passes the strict thinking server; "missing" then needs no correction.
    const wire = body(imported, custom, { ...header, dialect: requestDialect('custom', undefined)! });
    expect(strictThinkingViolations(wire)).toEqual([]);
    expect(wire.messages.filter((m: { role: string }) => m.role === 'assistant').map((m: { reasoning_content?: string }) => m.reasoning_content)).toEqual(['imported thinking', '']);
    expect(coversWireHints({ reasoningContent: 'tool-calls' }, { reasoningContent: 'tool-calls', reasoningField: 'reasoning_content' })).toBe(true);
    expect(coversWireHints({ reasoningContent: 'tool-calls' }, { reasoningContent: 'omit' })).toBe(false);
  });

  it('reasoningContent omit: the field is never sent, also under the deepseek dialect and for reasoning that streamed in it', () => {
    const streamed = [
      user('go'),
      assistant('a1', [{ type: 'reasoning', text: 'mine', field: 'reasoning_content' }, call('c1', 'Bash')]),
      result('c1'),
      assistant('a2', [{ type: 'reasoning', text: 'r', field: 'reasoning' }, call('c2', 'Bash')]),
      result('c2'),
    ];
    const omit: RequestHeader = { ...header, dialect: { reasoningContent: 'omit' } };
    const wire = body(streamed, custom, omit);
    expect(JSON.stringify(wire)).not.toContain('reasoning_content');
    expect(wire.messages[3].reasoning).toBe('r');
    expect(unknownFieldViolations(body(imported, custom, omit))).toEqual([]);
    expect(JSON.stringify(body(streamed, { dialect: PROVIDER_PRESETS.deepseek.dialect }, omit))).not.toContain('reasoning_content');
    expect(unknownFieldViolations(body(imported, custom, { ...header, dialect: { reasoningContent: 'tool-calls' } }))[0]).toBe(
      "messages.1.assistant.reasoning_content: property 'messages.1.assistant.reasoning_content' is unsupported",
    );
  });

  it('recognises a refusal of reasoning_content as an unknown field, in the wordings servers use', () => {
    const refusals: [number, string][] = [
      [400, "400 messages.2.assistant.reasoning_content: property 'messages.2.assistant.reasoning_content' is unsupported"], // Cerebras
      [422, `422 {"detail":[{"type":"extra_forbidden","loc":["body","messages",1,"reasoning_content"],"msg":"Extra inputs are not permitted","input":""}]}`], // pydantic extra="forbid"
      [422, '422 {"title":"Unprocessable Entity","status":422,"detail":"validation failed","errors":[{"message":"unexpected property","location":"body.messages[3].reasoning_content"}]}'], // Huma
      [400, "400 Additional properties are not allowed ('reasoning_content' was unexpected) - 'messages.1'"],
      [400, '400 Unrecognized request argument supplied: reasoning_content'],
      [400, '400 Invalid JSON payload received. Unknown name "reasoning_content" at \'messages[1]\': Cannot find field.'],
    ];
    for (const [status, message] of refusals) expect(historyFixFor(llmFailure('INVALID_REQUEST', message, { status })), message).toEqual({ reasoningContent: 'omit' });
    expect(historyFixFor(llmFailure('INVALID_REQUEST', '400 messages[51]: assistant message with tool_calls must include reasoning_content', { status: 400 }))).toEqual({
      reasoningContent: 'tool-calls',
      reasoningField: 'reasoning_content',
    });
    expect(historyFixFor(llmFailure('INVALID_REQUEST', "400 property 'messages.2.assistant.audio' is unsupported", { status: 400 }))).toBeUndefined();
  });

  it("a correction is the endpoint's word: a later streamed reasoning_content does not undo an omit, a later correction does", () => {
    let seq = 0;
    const ev = (type: string, data: unknown): SessionEvent => ({ seq: seq++, type, time: 0, data }) as unknown as SessionEvent;
    const corrected = (dialect: unknown) => ev('llm/warning', { turn: 1, step: 1, code: 'HISTORY_CORRECTED', message: 'm', dialect });
    const events: SessionEvent[] = [
      ev('request/context', { provider: 'custom', model: 'm', baseUrl: 'http://a/v1' }),
      corrected({ reasoningContent: 'omit' }),
      ev('assistant/message', { turn: 1, step: 2, message: assistant('m1', [{ type: 'reasoning', text: '', field: 'reasoning_content' }]) }),
    ];
    const source = { length: events.length, eventAt: (s: number) => events[s] };
    const tracker = new WireHintTracker(0);
    expect(tracker.hintsFor(source, { provider: 'custom', baseUrl: 'http://a/v1' })).toEqual({ reasoningContent: 'omit', reasoningField: 'reasoning_content' });
    events.push(corrected({ reasoningContent: 'tool-calls', reasoningField: 'reasoning_content' }));
    source.length = events.length;
    expect(tracker.hintsFor(source, { provider: 'custom', baseUrl: 'http://a/v1' })).toEqual({ reasoningContent: 'tool-calls', reasoningField: 'reasoning_content' });
  });
});
