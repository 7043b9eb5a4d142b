/**
 * The agent's failure handling as a pure decision (electron/agent/failure-decision.ts): each
 * branch and each limit (retries exhausted, compaction at most once, output lowered only when that
 * alone caused the overflow, history corrected once per step and never twice the same way).
 */
import { describe, expect, it } from 'vitest';
import type { LlmFailure } from '../../../shared/chunks.js';
import { afterDecision, decideFailure, INITIAL_FAILURE_STATE, type FailureFacts, type FailureState } from '../../../electron/agent/failure-decision.js';

const overflow = (o: LlmFailure['overflow']): LlmFailure => ({ code: 'CONTEXT_WINDOW_EXCEEDED', message: 'too long', ...(o ? { overflow: o } : {}) });
const missingReasoning: LlmFailure = { code: 'INVALID_REQUEST', status: 400, message: 'Missing `reasoning_content` field in the assistant message at message index 2' };
const unknownField: LlmFailure = { code: 'INVALID_REQUEST', status: 400, message: "messages.2.assistant.reasoning_content: property 'messages.2.assistant.reasoning_content' is unsupported" };
const facts = (failure: LlmFailure, more: Partial<FailureFacts> = {}): FailureFacts => ({
  failure,
  estimatedPromptTokens: 5_000,
  requestedOutputTokens: 8_000,
  dialect: undefined,
  strictEcho: false,
  random: () => 0.5,
  ...more,
});
const state = (more: Partial<FailureState> = {}): FailureState => ({ ...INITIAL_FAILURE_STATE, ...more });

describe('decideFailure', () => {
  describe('context overflow', () => {
    it('lowers the output when the prompt alone fits the stated window', () => {
      const d = decideFailure(facts(overflow({ contextWindow: 10_000, promptTokens: 5_000 })), state());
      expect(d).toEqual({ kind: 'lower-output', maxOutputTokens: 10_000 - 5_000 - 200, contextWindow: 10_000, requestedOutputTokens: 8_000 });
    });

    it('uses the requested output the error stated when the header had none', () => {
      const d = decideFailure(facts(overflow({ contextWindow: 10_000, promptTokens: 5_000, requestedOutputTokens: 6_000 }), { requestedOutputTokens: 6_000 }), state());
      expect(d.kind).toBe('lower-output');
    });

    it('compacts instead when the prompt itself does not fit, or the window or the requested output is unknown', () => {
      expect(decideFailure(facts(overflow({ contextWindow: 10_000, promptTokens: 9_900 })), state())).toEqual({ kind: 'compact' });
      expect(decideFailure(facts(overflow(undefined)), state())).toEqual({ kind: 'compact' });
      expect(decideFailure(facts(overflow({ contextWindow: 10_000, promptTokens: 5_000 }), { requestedOutputTokens: undefined }), state())).toEqual({ kind: 'compact' });
      expect(decideFailure(facts(overflow({ contextWindow: 10_000, promptTokens: 5_000 }), { requestedOutputTokens: 0 }), state())).toEqual({ kind: 'compact' });
    });

    it('lowers the output at most once: the next overflow compacts', () => {
      const f = facts(overflow({ contextWindow: 10_000, promptTokens: 5_000 }));
      const first = decideFailure(f, state());
      const next = afterDecision(state(), first);
      expect(next).toEqual({ retries: 1, outputLowered: true, overflowCompacted: false, historyCorrected: false });
      expect(decideFailure(f, next)).toEqual({ kind: 'compact' });
    });

    it('compacts at most once: a further overflow fails with context advice', () => {
      const f = facts(overflow(undefined));
      const next = afterDecision(state(), decideFailure(f, state()));
      expect(next).toEqual({ retries: 1, outputLowered: false, overflowCompacted: true, historyCorrected: false });
      expect(decideFailure(f, next)).toEqual({ kind: 'fail', contextAdvice: true });
    });

    it('is never retried by the retry policy, however few retries were used', () => {
      expect(decideFailure(facts(overflow(undefined)), state({ overflowCompacted: true, outputLowered: true }))).toEqual({ kind: 'fail', contextAdvice: true });
    });
  });

  describe('history shape rejected', () => {
    it('corrects the history with the fix merged into the dialect', () => {
      expect(decideFailure(facts(missingReasoning, { dialect: { reasoningField: 'reasoning_content' } }), state())).toEqual({
        kind: 'correct-history',
        fix: { reasoningContent: 'tool-calls', reasoningField: 'reasoning_content' },
        dialect: { reasoningField: 'reasoning_content', reasoningContent: 'tool-calls' },
      });
    });

    it('corrects a refusal of the field to omit, over the default tool-calls dialect', () => {
      expect(decideFailure(facts(unknownField, { dialect: { reasoningContent: 'tool-calls' } }), state())).toEqual({
        kind: 'correct-history',
        fix: { reasoningContent: 'omit' },
        dialect: { reasoningContent: 'omit' },
      });
    });

    it('corrects at most once per step, even when the next refusal asks for a different fix', () => {
      const first = decideFailure(facts(missingReasoning), state());
      const after = afterDecision(state(), first);
      expect(after).toEqual({ retries: 1, outputLowered: false, overflowCompacted: false, historyCorrected: true });
      const dialect = first.kind === 'correct-history' ? first.dialect : undefined;
      // The corrected request is refused for the opposite reason: not corrected again, and not retryable.
      expect(decideFailure(facts(unknownField, { dialect }), after)).toEqual({ kind: 'fail', contextAdvice: false });
    });

    it('leaves a rejection that is no history shape to the retry policy', () => {
      expect(decideFailure(facts({ code: 'INVALID_REQUEST', status: 400, message: 'temperature must be at most 2' }), state())).toEqual({ kind: 'fail', contextAdvice: false });
    });

    it('corrects once: a header that already carries the fix is not corrected again (the failure is not retryable, so it fails)', () => {
      const first = decideFailure(facts(missingReasoning), state());
      expect(first.kind).toBe('correct-history');
      const dialect = first.kind === 'correct-history' ? first.dialect : undefined;
      expect(decideFailure(facts(missingReasoning, { dialect }), afterDecision(state(), first))).toEqual({ kind: 'fail', contextAdvice: false });
    });

    it('never corrects under a strict dialect, nor for another status', () => {
      expect(decideFailure(facts(missingReasoning, { strictEcho: true }), state())).toEqual({ kind: 'fail', contextAdvice: false });
      expect(decideFailure(facts({ ...missingReasoning, status: 500 }), state())).toEqual({ kind: 'fail', contextAdvice: false });
    });
  });

  describe('other failures', () => {
    it('retries a transient failure after the policy delay, counting every earlier retry of the step', () => {
      const rate: LlmFailure = { code: 'RATE_LIMIT', message: 'slow down' };
      expect(decideFailure(facts(rate), state())).toEqual({ kind: 'retry', delayMs: 500 });
      expect(decideFailure(facts(rate), state({ retries: 2 }))).toEqual({ kind: 'retry', delayMs: 2_000 });
      expect(decideFailure(facts({ ...rate, retryAfterMs: 1_234 }), state())).toEqual({ kind: 'retry', delayMs: 1_234 });
    });

    it('fails once the retries are used up (the policy cap, and the lower TIMEOUT cap)', () => {
      const server: LlmFailure = { code: 'SERVER', message: 'boom' };
      expect(decideFailure(facts(server), state({ retries: 4 })).kind).toBe('retry');
      expect(decideFailure(facts(server), state({ retries: 5 }))).toEqual({ kind: 'fail', contextAdvice: false });
      expect(decideFailure(facts(server, { retryPolicy: { maxRetries: 1 } }), state({ retries: 1 }))).toEqual({ kind: 'fail', contextAdvice: false });
      expect(decideFailure(facts({ code: 'TIMEOUT', message: 'silent' }), state({ retries: 1 }))).toEqual({ kind: 'fail', contextAdvice: false });
    });

    it('fails at once for a failure that is not retryable', () => {
      expect(decideFailure(facts({ code: 'AUTH', status: 401, message: 'bad key' }), state())).toEqual({ kind: 'fail', contextAdvice: false });
    });
  });
});

describe('afterDecision', () => {
  it('counts a retry for every decision but fail, and leaves the state of a fail as it was', () => {
    const s = state({ retries: 3 });
    expect(afterDecision(s, { kind: 'retry', delayMs: 10 })).toEqual({ ...s, retries: 4 });
    expect(afterDecision(s, { kind: 'correct-history', fix: { reasoningContent: 'tool-calls' }, dialect: { reasoningContent: 'tool-calls' } })).toEqual({ ...s, retries: 4, historyCorrected: true });
    expect(afterDecision(s, { kind: 'lower-output', maxOutputTokens: 1, contextWindow: 2, requestedOutputTokens: 3 })).toEqual({ ...s, retries: 4, outputLowered: true });
    expect(afterDecision(s, { kind: 'compact' })).toEqual({ ...s, retries: 4, overflowCompacted: true });
    expect(afterDecision(s, { kind: 'fail', contextAdvice: false })).toBe(s);
  });
});
