/**
 * Tool-call scheduler for one step (docs/architecture.md §6; reference runtime `tool-calls.ts`):
 *
 * - calls start in model order; each start is reported (`onStart` — the loop logs `tool/call` and
 *   flushes, so the call is durable before its body runs) and prepared (policy, approval) one at a
 *   time, in model order;
 * - a call runs in parallel only when `isConcurrencySafe(call)` is exactly `true`; a rolling pool
 *   (cap `maxParallel`, default 10) fills with consecutive safe calls; any other call is an
 *   exclusive barrier that starts after everything before it committed, and nothing after it starts
 *   until it committed;
 * - results are committed (`onResult`) strictly in model order, even when a later call finishes first;
 * - on abort: no new call starts, started bodies are drained and committed in order, and every
 *   unstarted call gets `onAbortedBeforeDispatch` (the loop logs a synthetic call + result pair);
 * - on an internal failure (a hook throws): no new call starts, started bodies are drained, then the
 *   first failure is rethrown; `uncommitted` on the error lists the calls left without a result so
 *   the caller can close them.
 */
import type { PreparedCall, ToolCallRequest, ToolCallResult } from './pipeline.js';
import { abortedBeforeDispatchResult } from './pipeline.js';

export interface SchedulerHooks {
  /** A call is starting (model order). Awaited before the call is prepared. */
  onStart(call: ToolCallRequest, index: number): void | Promise<void>;
  /** Parse / validate / policy for one call (model order, one at a time). */
  prepare(call: ToolCallRequest, index: number): Promise<PreparedCall>;
  /** Classifies a call before it starts (`true` = may join a parallel group). */
  isConcurrencySafe(call: ToolCallRequest): boolean;
  /** Commits a result (model order). */
  onResult(call: ToolCallRequest, index: number, result: ToolCallResult): void;
  /** A call that never started because the step was aborted. */
  onAbortedBeforeDispatch(call: ToolCallRequest, index: number, result: ToolCallResult): void;
}

export interface SchedulerOptions {
  readonly signal: AbortSignal;
  /** Pool cap for concurrency-safe calls (positive integer; 1 = fully serial). Default 10. */
  readonly maxParallel?: number;
}

/** Thrown after draining when a hook failed; names the calls that got no committed result. */
export class SchedulerFailure extends Error {
  override readonly name = 'SchedulerFailure';
  constructor(
    readonly uncommitted: readonly { readonly call: ToolCallRequest; readonly index: number; readonly started: boolean }[],
    options: { cause: unknown },
  ) {
    super(`tool scheduling failed: ${options.cause instanceof Error ? options.cause.message : String(options.cause)}`, options);
  }
}

/** Runs the calls of one step. Resolves when every call has a committed result. */
export async function runToolCalls(calls: readonly ToolCallRequest[], hooks: SchedulerHooks, options: SchedulerOptions): Promise<void> {
  const maxParallel = options.maxParallel ?? 10;
  if (!Number.isSafeInteger(maxParallel) || maxParallel < 1) throw new RangeError(`maxParallel must be a positive integer, got ${maxParallel}`);
  const { signal } = options;
  const results: (ToolCallResult | undefined)[] = new Array<ToolCallResult | undefined>(calls.length).fill(undefined);
  let committed = 0;
  let next = 0;
  let failure: { error: unknown } | undefined;

  const commitReady = () => {
    while (committed < calls.length && results[committed] !== undefined) {
      const index = committed++;
      hooks.onResult(calls[index]!, index, results[index]!);
    }
  };

  /**
   * Starts and prepares one call (awaited: ordered); returns its running body, boxed so that
   * awaiting the launch does not also await the body.
   */
  const launch = async (index: number): Promise<{ body: Promise<void> }> => {
    const call = calls[index]!;
    await hooks.onStart(call, index);
    const prepared: PreparedCall = await hooks.prepare(call, index);
    const body = (async () => {
      results[index] = prepared.kind === 'final' ? prepared.result : await prepared.run();
      commitReady();
    })();
    return { body };
  };

  const inFlight = new Set<Promise<void>>();
  const track = (body: Promise<void>) => {
    const tracked: Promise<void> = body
      .catch((error: unknown) => {
        failure ??= { error };
      })
      .finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  };
  const drain = async () => {
    while (inFlight.size > 0) await Promise.all([...inFlight]);
  };

  try {
    while (next < calls.length && !signal.aborted && !failure) {
      if (!hooks.isConcurrencySafe(calls[next]!)) {
        await drain();
        if (signal.aborted || failure) break;
        const index = next++;
        track((await launch(index)).body);
        await drain();
        continue;
      }
      while (inFlight.size >= maxParallel) await Promise.race([...inFlight]);
      if (signal.aborted || failure) break;
      const index = next++;
      track((await launch(index)).body);
    }
  } catch (error) {
    failure ??= { error };
  }
  await drain();
  if (failure) {
    const uncommitted = [];
    for (let index = committed; index < calls.length; index++) uncommitted.push({ call: calls[index]!, index, started: index < next });
    throw new SchedulerFailure(uncommitted, { cause: failure.error });
  }
  // Abort: started calls are drained and committed above; unstarted ones get their synthetic pair.
  for (let index = next; index < calls.length; index++) {
    const result = abortedBeforeDispatchResult();
    results[index] = result;
    hooks.onAbortedBeforeDispatch(calls[index]!, index, result);
    committed = index + 1;
  }
}
