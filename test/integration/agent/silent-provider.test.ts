/**
 * Issue 20 (item 8 edge): a provider that sends its response headers and then nothing. The attempt
 * ends after the first-byte timeout (much shorter than the 300 s idle timeout), the failure names
 * the silence and its length (`timeoutMs`, and the figure in the message the CLI prints), and the
 * default retry policy gives up after one more attempt — real `openai` client, scripted server on
 * 127.0.0.1, real agent loop and SQLite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LlmFailure } from '../../../shared/chunks.js';
import type { SessionEvent } from '../../../shared/events.js';
import { DEFAULT_FIRST_BYTE_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS } from '../../../electron/llm/providers.js';
import { createHarness } from '../../support/agent-harness.js';
import { frame, framesResponse, startScriptedLlm, textResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';
import { replyFrames } from '../../support/scripted-llm/compile.js';
import { collect, finishOf, scriptedClient, userRequest } from '../llm/helpers.js';

let llm: ScriptedLlm;
beforeAll(async () => {
  llm = await startScriptedLlm();
});
afterAll(async () => {
  await llm.close();
});

describe('silence after the response headers', () => {
  it('the default first-byte timeout is far below the idle timeout', () => {
    expect(DEFAULT_FIRST_BYTE_TIMEOUT_MS * 4).toBeLessThanOrEqual(DEFAULT_IDLE_TIMEOUT_MS);
  });

  it('one attempt: TIMEOUT after firstByteTimeoutMs, not idleTimeoutMs, with the figure logged', async () => {
    llm.enqueue(framesResponse([frame.stall()]));
    const started = Date.now();
    const chunks = await collect(scriptedClient(llm.baseUrl, { idleTimeoutMs: 20_000, firstByteTimeoutMs: 300 }), userRequest());
    const elapsed = Date.now() - started;
    const reason = finishOf(chunks);
    expect(reason.kind).toBe('error');
    const failure = (reason as { failure: LlmFailure }).failure;
    expect(failure).toMatchObject({ code: 'TIMEOUT', timeoutMs: 300, requestId: expect.stringMatching(/^req_scripted_/) });
    expect(failure.message).toContain('sent its response headers and then nothing for 300 ms');
    expect(elapsed).toBeGreaterThanOrEqual(280);
    expect(elapsed).toBeLessThan(5_000);
  });

  it('a body that starts (a keep-alive comment counts) is then held to the idle timeout, not the first-byte one', async () => {
    llm.enqueue(framesResponse([frame.comment('keep-alive'), frame.delay(600), ...replyFrames({ type: 'reply', text: 'late but fine' })]));
    const chunks = await collect(scriptedClient(llm.baseUrl, { idleTimeoutMs: 5_000, firstByteTimeoutMs: 300 }), userRequest());
    expect(finishOf(chunks)).toEqual({ kind: 'stop' });
  });

  it('the agent: two attempts in all, each logged with its timeout, then the turn ends with the reason', async () => {
    const harness = await createHarness({ llm, client: { idleTimeoutMs: 20_000, firstByteTimeoutMs: 300 } });
    try {
      llm.enqueue(framesResponse([frame.stall()]), framesResponse([frame.stall()]), textResponse('never reached'));
      const before = llm.requests.length;
      const started = Date.now();
      harness.agent.followup('hello?');
      await harness.agent.whenIdle();
      const elapsed = Date.now() - started;
      expect(llm.requests.length - before).toBe(2);
      expect(elapsed).toBeLessThan(10_000);
      const retries = harness.events().filter((e): e is SessionEvent<'llm/retry'> => e.type === 'llm/retry');
      expect(retries).toHaveLength(1);
      expect(retries[0]!.data.failure).toMatchObject({ code: 'TIMEOUT', timeoutMs: 300 });
      const end = harness.events().findLast((e): e is SessionEvent<'turn/end'> => e.type === 'turn/end')!;
      expect(end.data.reason).toMatchObject({ kind: 'error', failure: { code: 'TIMEOUT', timeoutMs: 300 } });
    } finally {
      llm.setHandler(undefined);
      await harness.close();
    }
  });
});
