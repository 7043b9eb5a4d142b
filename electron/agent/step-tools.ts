/**
 * The tool part of one step (docs/architecture.md §4, §6): logs `tool/call` as each call starts (and flushes, so
 * the call is durable before its body runs), runs calls through the pipeline and the scheduler, and
 * logs `tool/result`s in model order. Calls that never started because of a cancel get synthetic
 * `ABORTED_BEFORE_DISPATCH` pairs; if the scheduler itself fails, every call left without a result
 * gets an outcome-unknown one, so the log never holds an unanswered call.
 */
import { errorChain } from '../../shared/errors.js';
import type { ApprovalPolicyName } from '../../shared/events.js';
import type { JsonValue } from '../../shared/json.js';
import type { ToolCallBlock, ToolResultMessage } from '../../shared/messages.js';
import type { Session } from '../session/session.js';
import { parseArguments, ToolPipeline, type ArgumentParse, type ToolCallRequest, type ToolCallResult } from '../tools/pipeline.js';
import type { ProcessSupervisor } from '../tools/process-supervisor.js';
import type { ToolRegistry } from '../tools/registry.js';
import { runToolCalls, SchedulerFailure } from '../tools/scheduler.js';
import type { FileReadTracker } from '../tools/tool.js';
import type { ApprovalGate } from './approval-gate.js';

/** What the tool part of a step needs from its agent. */
export interface StepToolsContext {
  readonly session: Session;
  readonly tools: ToolRegistry;
  readonly cwd: string;
  readonly files: FileReadTracker;
  readonly approvalPolicy: () => ApprovalPolicyName;
  readonly approvals: ApprovalGate;
  readonly flush: () => Promise<void>;
  readonly newId: () => string;
  readonly onToolOutput?: (output: { readonly turn: number; readonly step: number; readonly callId: string; readonly text: string }) => void;
  readonly spill?: (callId: string, text: string) => string | undefined;
  readonly maxParallelToolCalls?: number;
  /** Supervises the processes tools start; each one is logged as `tool/process` on its call. */
  readonly supervisor?: ProcessSupervisor;
  /** Secret values removed from every tool result. */
  readonly secrets?: () => readonly string[];
  /**
   * Text to append to a call's result just before it is logged (nested project instructions); may
   * log events of its own first. Called in commit (model) order.
   */
  readonly annotateResult?: (call: ToolCallRequest, result: ToolCallResult) => string | undefined;
  /** Tool output above this many UTF-8 bytes is cut (the pipeline's default when absent). */
  readonly outputCapBytes?: number;
  /** How raw argument strings are parsed (the pipeline's default when absent). */
  readonly parseArguments?: (raw: string) => ArgumentParse;
}

/** Runs the tool calls of one step; resolves when every call has a logged result. */
export async function runStepTools(
  ctx: StepToolsContext,
  at: { readonly turn: number; readonly step: number; readonly blocks: readonly ToolCallBlock[]; readonly signal: AbortSignal },
): Promise<void> {
  const { session } = ctx;
  const { turn, step, blocks, signal } = at;
  const calls: ToolCallRequest[] = blocks.map((b) => ({ callId: b.id, name: b.name, arguments: b.arguments }));
  const callSeqs = new Map<number, number>();
  const pipeline = new ToolPipeline({
    registry: ctx.tools,
    cwd: ctx.cwd,
    sessionId: session.id,
    files: ctx.files,
    policy: ctx.approvalPolicy,
    requestApproval: (question, approvalSignal) => ctx.approvals.ask(question, approvalSignal),
    isAllowedByRule: (toolName, args) => ctx.approvals.isAllowedByRule(toolName, args),
    ...(ctx.secrets ? { secrets: ctx.secrets } : {}),
    ...(ctx.outputCapBytes !== undefined ? { outputCapBytes: ctx.outputCapBytes } : {}),
    ...(ctx.parseArguments ? { parseArguments: ctx.parseArguments } : {}),
    ...(ctx.onToolOutput ? { onOutput: (callId: string, text: string) => ctx.onToolOutput!({ turn, step, callId, text }) } : {}),
    ...(ctx.spill ? { spill: ctx.spill } : {}),
    ...(ctx.supervisor
      ? {
          spawnFor: (callId: string) =>
            ctx.supervisor!.spawnFunction((p) => {
              session.append({
                type: 'tool/process',
                data: { turn, step, callId, pid: p.pid, ...(p.pgid !== undefined ? { pgid: p.pgid } : {}), ...(p.start !== undefined ? { start: p.start } : {}) },
              });
            }),
        }
      : {}),
  });
  const logCall = (call: ToolCallRequest, index: number) => {
    const event = session.append({ type: 'tool/call', data: { turn, step, callId: call.callId, name: call.name, arguments: call.arguments } });
    callSeqs.set(index, event.seq);
  };
  const logResult = (call: ToolCallRequest, index: number, result: ToolCallResult) => {
    const annotation = ctx.annotateResult?.(call, result);
    const text = annotation === undefined ? result.content : `${result.content}\n\n${annotation}`;
    const message: ToolResultMessage = {
      id: ctx.newId(),
      role: 'user',
      source: { kind: 'tool', callId: call.callId },
      content: [{ type: 'tool-result', toolCallId: call.callId, content: [{ type: 'text', text }], isError: result.isError }],
    };
    const seq = callSeqs.get(index);
    session.append({
      type: 'tool/result',
      data: { turn, step, message, ...(result.error ? { error: result.error } : {}), ...(result.meta !== undefined ? { meta: result.meta } : {}) },
      ...(seq !== undefined ? { sourceEventSeqs: [seq] } : {}),
      surfaceOp: 'append',
    });
    if (call.name === 'todo_write' && !result.isError) {
      const todos = (result.meta as { todos?: JsonValue } | undefined)?.todos;
      if (Array.isArray(todos)) session.append({ type: 'todo/write', data: { todos: todos as never } });
    }
  };
  try {
    await runToolCalls(
      calls,
      {
        onStart: async (call, index) => {
          logCall(call, index);
          await ctx.flush();
        },
        prepare: (call) => pipeline.prepare(call, signal),
        isConcurrencySafe: (call) => {
          const parsed = (ctx.parseArguments ?? parseArguments)(call.arguments);
          return parsed.ok && ctx.tools.isConcurrencySafe(call.name, parsed.value);
        },
        onResult: logResult,
        onAbortedBeforeDispatch: (call, index, result) => {
          logCall(call, index);
          logResult(call, index, result);
        },
      },
      { signal, ...(ctx.maxParallelToolCalls !== undefined ? { maxParallel: ctx.maxParallelToolCalls } : {}) },
    );
  } catch (error) {
    if (error instanceof SchedulerFailure) {
      // Never leave a call without a result: the provider would reject every later request.
      for (const { call, index, started } of error.uncommitted) {
        if (!started) logCall(call, index);
        logResult(call, index, {
          content: `Error: an internal failure interrupted this call (${errorChain(error.cause)}). Its outcome is unknown; verify the current state before repeating it.`,
          isError: true,
          error: { name: 'ToolOutcomeUnknownError', code: 'TOOL_OUTCOME_UNKNOWN' },
        });
      }
    }
    throw error;
  }
}
