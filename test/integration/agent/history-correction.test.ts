/**
 * Issue 20 item 1, at the loop: a custom endpoint gets `reasoning_content` on tool-call messages by
 * default; a history-shape rejection is corrected once and logged, never retried blindly — real
 * agent, real SQLite, real `openai` client against the scripted server. (The strict-fields server:
 * test/integration/agent/unknown-field-correction.test.ts.)
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../shared/events.js';
import { createHarness, type Harness } from '../../support/agent-harness.js';
import { httpError, startScriptedLlm, textResponse, toolCallResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';

let llm: ScriptedLlm;
let harness: Harness | undefined;
beforeAll(async () => {
  llm = await startScriptedLlm();
});
afterEach(async () => {
  llm.setValidator(undefined);
  await harness?.close();
  harness = undefined;
});
afterAll(async () => {
  await llm.close();
});

const missing = (index: number) =>
  httpError(400, {
    error: { message: `Missing \`reasoning_content\` field in the assistant message at message index ${index}`, type: 'invalid_request_error', param: null, code: 'invalid_request_error' },
  });

describe('history-shape rejections', () => {
  it('a custom endpoint the log knows nothing about gets reasoning_content "" on tool-call messages from the first request: no 400', async () => {
    harness = await createHarness({ llm, client: { dialect: undefined } });
    llm.enqueue(toolCallResponse([{ id: 'c1', name: 'list_dir', arguments: '{"path":"."}' }]), textResponse('done'));
    const before = llm.requests.length;
    const rejectedBefore = llm.rejected.length;
    llm.setValidator((r) =>
      r.body.messages.some((m: { tool_calls?: unknown; reasoning_content?: unknown }) => m.tool_calls !== undefined && typeof m.reasoning_content !== 'string') ? missing(2) : undefined,
    );
    harness.agent.followup('list');
    await harness.agent.whenIdle();
    expect(llm.rejected.length).toBe(rejectedBefore);
    const sent = llm.requests.slice(before);
    expect(sent).toHaveLength(2);
    expect(sent[1]!.body.messages[2].reasoning_content).toBe('');
    const events = harness.events();
    expect(events.some((e) => e.type === 'llm/warning')).toBe(false);
    // The default is logged: the request is rebuildable from the log.
    expect(events.filter((e): e is SessionEvent<'request/header'> => e.type === 'request/header').at(-1)!.data.header.dialect).toEqual({ reasoningContent: 'tool-calls' });
  });

  it('an endpoint that says "missing" while reasoning_content is already sent is not "corrected": the turn ends with its message', async () => {
    harness = await createHarness({ llm, client: { dialect: undefined } });
    llm.enqueue(toolCallResponse([{ id: 'c1', name: 'list_dir', arguments: '{"path":"."}' }]));
    const before = llm.requests.length;
    llm.setValidator((r) => (r.number > before + 1 && r.body.messages.some((m: { tool_calls?: unknown }) => m.tool_calls) ? missing(2) : undefined));
    harness.agent.followup('list');
    await harness.agent.whenIdle();
    const sent = llm.requests.slice(before);
    expect(sent).toHaveLength(2); // the tool call, the refused request: nothing to correct, no blind retry
    expect(sent[1]!.body.messages[2].reasoning_content).toBe('');
    const events = harness.events();
    expect(events.some((e) => e.type === 'llm/warning')).toBe(false);
    const end = events.findLast((e): e is SessionEvent<'turn/end'> => e.type === 'turn/end')!;
    expect(end.data.reason).toMatchObject({ kind: 'error', failure: { code: 'INVALID_REQUEST', message: expect.stringContaining('Missing `reasoning_content` field') } });
  });

  it('an endpoint that refuses reasoning_content and then its absence: one correction per step, then the turn ends (no loop)', async () => {
    harness = await createHarness({ llm, client: { dialect: undefined } });
    llm.enqueue(toolCallResponse([{ id: 'c1', name: 'list_dir', arguments: '{"path":"."}' }]));
    const before = llm.requests.length;
    const unsupported = (index: number) =>
      httpError(400, {
        message: `messages.${index}.assistant.reasoning_content: property 'messages.${index}.assistant.reasoning_content' is unsupported`,
        type: 'invalid_request_error',
        param: 'validation_error',
        code: 'wrong_api_format',
      });
    llm.setValidator((r) => {
      if (r.number <= before + 1) return undefined;
      const call = r.body.messages.findIndex((m: { tool_calls?: unknown }) => m.tool_calls);
      if (call < 0) return undefined;
      return typeof r.body.messages[call].reasoning_content === 'string' ? unsupported(call) : missing(call);
    });
    harness.agent.followup('list');
    await harness.agent.whenIdle();
    const sent = llm.requests.slice(before);
    expect(sent).toHaveLength(3); // the tool call, the refused default, the corrected request (refused the other way)
    expect(sent[1]!.body.messages[2].reasoning_content).toBe('');
    expect(sent[2]!.body.messages[2]).not.toHaveProperty('reasoning_content');
    const events = harness.events();
    const warnings = events.filter((e): e is SessionEvent<'llm/warning'> => e.type === 'llm/warning');
    expect(warnings.map((w) => w.data.code)).toEqual(['HISTORY_CORRECTED']);
    expect(warnings[0]!.data.dialect).toEqual({ reasoningContent: 'omit' });
    expect(warnings[0]!.data.failure).toMatchObject({ code: 'INVALID_REQUEST', status: 400 });
    const end = events.findLast((e): e is SessionEvent<'turn/end'> => e.type === 'turn/end')!;
    expect(end.data.reason).toMatchObject({ kind: 'error', failure: { code: 'INVALID_REQUEST', message: expect.stringContaining('Missing `reasoning_content` field') } });
  });

  it('other 400s are not "corrected": the turn ends at once', async () => {
    harness = await createHarness({ llm, client: { dialect: undefined } });
    llm.enqueue(httpError(400, { error: { message: 'Model not found', type: 'invalid_request_error' } }));
    const before = llm.requests.length;
    harness.agent.followup('hi');
    await harness.agent.whenIdle();
    expect(llm.requests.length - before).toBe(1);
    expect(harness.events().some((e) => e.type === 'llm/warning')).toBe(false);
  });
});
