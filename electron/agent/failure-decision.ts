/**
 * What the agent loop does about a failed model request, as a pure decision (docs/architecture.md
 * §4, §5): `retry | lower-output | compact | correct-history | fail`. The loop (agent.ts `runStep`)
 * gathers the facts, asks {@link decideFailure}, logs what it decided (`llm/warning`, `llm/retry`)
 * and applies it; {@link afterDecision} gives the step's next {@link FailureState}.
 *
 * Limits, all per step: the output cap is lowered at most once and only when the output size alone
 * caused the overflow (the prompt fits the stated window); the history is compacted for an overflow
 * at most once; a history shape (`llm/history-rejection.ts`) is corrected at most once and only when
 * the fix is not already in the header's dialect (so the same correction is never sent twice) and
 * the provider does not echo reasoning strictly; other failures, and a refusal the step already
 * corrected, are retried by the retry policy (`llm/retry-policy.ts`), whose count includes every
 * earlier retry of the step.
 */
import type { LlmFailure } from '../../shared/chunks.js';
import type { WireHints } from '../../shared/events.js';
import { isOutputOnlyOverflow, loweredMaxOutput } from '../llm/context-overflow.js';
import { historyFixFor } from '../llm/history-rejection.js';
import { decideRetry, type RetryPolicy } from '../llm/retry-policy.js';
import { coversWireHints, mergeWireHints } from '../session/wire-hints.js';

/** What a step has already done about failures. Starts as {@link INITIAL_FAILURE_STATE}. */
export interface FailureState {
  /** `llm/retry` events logged in this step so far (of every kind). */
  readonly retries: number;
  /** The output cap was lowered after an output-only overflow. */
  readonly outputLowered: boolean;
  /** Compaction was tried after an overflow (whether or not it compacted anything). */
  readonly overflowCompacted: boolean;
  /** The history's shape was corrected after a rejection (`HISTORY_CORRECTED`). */
  readonly historyCorrected: boolean;
}

/** A step before any failure. */
export const INITIAL_FAILURE_STATE: FailureState = Object.freeze({ retries: 0, outputLowered: false, overflowCompacted: false, historyCorrected: false });

/** The facts of one failed request. */
export interface FailureFacts {
  readonly failure: LlmFailure;
  /** Our estimate of the prompt that was sent (tokens). */
  readonly estimatedPromptTokens: number;
  /** The max output the request asked for (its header's, else what the error stated); undefined when unknown. */
  readonly requestedOutputTokens: number | undefined;
  /** The dialect the failed request's header carried. */
  readonly dialect: WireHints | undefined;
  /** The provider echoes reasoning strictly (its history shape is never corrected). */
  readonly strictEcho: boolean;
  /** Retry tuning (partial: the rest from DEFAULT_RETRY_POLICY). */
  readonly retryPolicy?: Partial<RetryPolicy>;
  /** Jitter source for the retry delay, in [0, 1) (default Math.random). */
  readonly random?: () => number;
}

/** What to do next. */
export type FailureDecision =
  /** Retry the same request after `delayMs` (transient failure). */
  | { readonly kind: 'retry'; readonly delayMs: number }
  /** Retry at once with max output `maxOutputTokens`, no compaction (the prompt fits `contextWindow`, the output did not). */
  | { readonly kind: 'lower-output'; readonly maxOutputTokens: number; readonly contextWindow: number; readonly requestedOutputTokens: number }
  /** Compact the history and retry at once; if nothing could be compacted, fail with context advice. */
  | { readonly kind: 'compact' }
  /**
   * Retry at once with the history in `dialect` (the endpoint refused its shape and said how):
   * `fix` is what the rejection asked for (`historyFixFor`), `dialect` the header's merged with it.
   */
  | { readonly kind: 'correct-history'; readonly fix: WireHints; readonly dialect: WireHints }
  /** End the turn with the failure; `contextAdvice`: it was an overflow, so say what to do. */
  | { readonly kind: 'fail'; readonly contextAdvice: boolean };

/** The decision for `facts` given what the step already did. Pure: same input, same answer (with a fixed `random`). */
export function decideFailure(facts: FailureFacts, state: FailureState): FailureDecision {
  const { failure } = facts;
  if (failure.code === 'CONTEXT_WINDOW_EXCEEDED') {
    const overflow = failure.overflow;
    const requested = facts.requestedOutputTokens;
    if (!state.outputLowered && requested !== undefined && requested > 0 && isOutputOnlyOverflow(overflow, facts.estimatedPromptTokens)) {
      const lowered = loweredMaxOutput(overflow, facts.estimatedPromptTokens);
      // isOutputOnlyOverflow holds only with a known window, so both are defined here.
      if (lowered !== undefined && overflow?.contextWindow !== undefined) {
        return { kind: 'lower-output', maxOutputTokens: lowered, contextWindow: overflow.contextWindow, requestedOutputTokens: requested };
      }
    }
    if (!state.overflowCompacted) return { kind: 'compact' };
    return { kind: 'fail', contextAdvice: true };
  }
  const fix = historyFixFor(failure);
  if (fix !== undefined && !state.historyCorrected && !facts.strictEcho && !coversWireHints(facts.dialect, fix)) {
    // mergeWireHints returns a set whenever one of its two is defined; `fix` is.
    return { kind: 'correct-history', fix, dialect: mergeWireHints(facts.dialect, fix)! };
  }
  const retry = decideRetry(failure, state.retries + 1, facts.retryPolicy, facts.random);
  return retry ? { kind: 'retry', delayMs: retry.delayMs } : { kind: 'fail', contextAdvice: false };
}

/**
 * The step's state once `decision` is applied: every decision but `fail` is one more retry;
 * `lower-output`, `compact` and `correct-history` use up their one chance.
 */
export function afterDecision(state: FailureState, decision: FailureDecision): FailureState {
  switch (decision.kind) {
    case 'fail':
      return state;
    case 'lower-output':
      return { ...state, retries: state.retries + 1, outputLowered: true };
    case 'compact':
      return { ...state, retries: state.retries + 1, overflowCompacted: true };
    case 'correct-history':
      return { ...state, retries: state.retries + 1, historyCorrected: true };
    case 'retry':
      return { ...state, retries: state.retries + 1 };
  }
}
