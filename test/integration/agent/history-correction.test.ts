/**
 * Issue 20 item 1, at the loop: a history-shape rejection is corrected once and logged, never
 * retried blindly — real agent, real SQLite, real `openai` client against the scripted server.
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

const missing = (index: number) => httpError(400, { error: { message: `Missing \`reasoning_content\` field in the assistant message at message index ${index}`, type: 'invalid_request_error', param: null, code: 'invalid_request_error' } });

describe('history-shape rejections', () => {
  it('an endpoint that keeps refusing after the correction ends the turn with its message: two requests, one correction, no loop', async () => {
    // A custom endpoint (as-received dialect) that never says it speaks reasoning_content.
    harness = await createHarness({ llm, client: { dialect: undefined } });
    llm.enqueue(toolCallResponse([{ id: 'c1', name: 'list_dir', arguments: '{"path":"."}' }]));
    const before = llm.requests.length;
    llm.setValidator((r) => (r.number > before + 1 && r.body.messages.some((m: { tool_calls?: unknown }) => m.tool_calls) ? missing(2) : undefined));
    harness.agent.followup('list');
    await harness.agent.whenIdle();
    const sent = llm.requests.slice(before);
    expect(sent).toHaveLength(3); // the tool call, the refused request, the corrected one (refused again)
    expect(sent[1]!.body.messages[2].reasoning_content).toBeUndefined();
    expect(sent[2]!.body.messages[2].reasoning_content).toBe('');
    const events = harness.events();
    const warnings = events.filter((e): e is SessionEvent<'llm/warning'> => e.type === 'llm/warning');
    expect(warnings.map((w) => w.data.code)).toEqual(['HISTORY_CORRECTED']);
    expect(warnings[0]!.data.failure).toMatchObject({ code: 'INVALID_REQUEST', status: 400 });
    const end = events.findLast((e): e is SessionEvent<'turn/end'> => e.type === 'turn/end')!;
    expect(end.data.reason).toMatchObject({ kind: 'error', failure: { code: 'INVALID_REQUEST', message: expect.stringContaining('Missing `reasoning_content` field') } });
    // The header of the corrected request carries the dialect; the next turn starts with it.
    expect(events.filter((e): e is SessionEvent<'request/header'> => e.type === 'request/header').at(-1)!.data.header.dialect).toEqual({ reasoningContent: 'tool-calls', reasoningField: 'reasoning_content' });
    llm.setValidator(undefined);
    llm.enqueue(textResponse('ok'));
    harness.agent.followup('again');
    await harness.agent.whenIdle();
    expect(llm.requests.at(-1)!.body.messages[2].reasoning_content).toBe('');
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
