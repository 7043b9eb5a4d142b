/**
 * The per-call tool pipeline (docs/architecture.md §6; reference runtime `prepareExecution` / `finish`):
 *
 *   parse arguments (invalid JSON → INVALID_ARGS, never executed) → find the tool (UNKNOWN_TOOL)
 *   → validate (INVALID_ARGS) → policy (allow / deny / a standing session rule / ask) — before
 *   asking, the tool's `preview` checks the call's preconditions (a failure ends the call, nothing
 *   is asked) and describes the change the person approves → cancellation check
 *   (ABORTED_BEFORE_DISPATCH) → execute with a deadline (TOOL_TIMEOUT) that is enforced even on a
 *   body that ignores its abort signal (after a grace period the call ends without it) → normalise
 *   errors into `isError` results the model sees → remove secret values → truncate oversized output
 *   head + tail with a notice.
 *
 * `prepare` covers everything up to the body and is awaited in model order by the scheduler;
 * the returned `run` executes the body (possibly overlapping other safe calls).
 */
import type { ApprovalPreview } from '../../shared/approval.js';
import { ForklineError } from '../../shared/errors.js';
import type { ApprovalOutcome, ApprovalPolicyName, ToolErrorCode } from '../../shared/events.js';
import type { JsonValue } from '../../shared/json.js';
import { truncateHeadTail } from './output-truncation.js';
import { redactSecrets } from './tool-environment.js';
import type { RegisteredTool, ToolRegistry } from './registry.js';
import type { SpawnFunction } from './process-supervisor.js';
import type { FileReadTracker, ToolContext, ToolOutput } from './tool.js';

/** One tool call as the model produced it. */
export interface ToolCallRequest {
  readonly callId: string;
  readonly name: string;
  /** Raw argument string exactly as streamed. */
  readonly arguments: string;
}

/** The normalised outcome committed as `tool/result`. */
export interface ToolCallResult {
  readonly content: string;
  readonly isError: boolean;
  readonly error?: { readonly name: string; readonly code: string };
  readonly meta?: JsonValue;
}

/** What the scheduler gets back from {@link ToolPipeline.prepare}. */
export type PreparedCall = { readonly kind: 'final'; readonly result: ToolCallResult } | { readonly kind: 'run'; readonly concurrencySafe: boolean; run(): Promise<ToolCallResult> };

export interface ApprovalQuestion {
  readonly callId: string;
  readonly toolName: string;
  readonly arguments: string;
  readonly reason: string;
  /** The change the call would make (from the tool's `preview`), when the tool describes one. */
  readonly preview?: ApprovalPreview;
}

export interface PipelineOptions {
  readonly registry: ToolRegistry;
  readonly cwd: string;
  readonly sessionId: string;
  readonly files: FileReadTracker;
  /** The session's current approval policy for risky tools (`read` tools always run). */
  readonly policy: () => ApprovalPolicyName;
  /** Asks the user; resolves with the decision (the caller logs approval events). Absent → `unavailable`. */
  readonly requestApproval?: (question: ApprovalQuestion, signal: AbortSignal) => Promise<ApprovalOutcome>;
  /** Live output of a running call (bash), for the UI. */
  readonly onOutput?: (callId: string, text: string) => void;
  /** Output above this many UTF-8 bytes is cut to head + tail (default 50,000). */
  readonly outputCapBytes?: number;
  /** Saves a full oversized output and returns where (so the notice can say it is retrievable). */
  readonly spill?: (callId: string, text: string) => string | undefined;
  /** Default tool deadline in ms when a tool declares none (default 600,000). */
  readonly defaultTimeoutMs?: number;
  /** The supervised `spawn` a call's processes go through (see ToolContext.spawn). */
  readonly spawnFor?: (callId: string) => SpawnFunction;
  /**
   * After a call is aborted (cancel or deadline), how long its body may take to stop before the
   * call ends without it (ms, default 5,000). A body that ignores its signal cannot hold a turn.
   */
  readonly abortGraceMs?: number;
  /** True when a standing "allow for this session" rule covers the call (no question is asked). */
  readonly isAllowedByRule?: (toolName: string, args: unknown) => boolean;
  /** Secret values (API keys) replaced in every result before the model or the log sees it. */
  readonly secrets?: () => readonly string[];
  /** How a call's raw argument string is parsed (default {@link parseArguments}; replay tests swap it). */
  readonly parseArguments?: (raw: string) => ArgumentParse;
}

export const ABORTED_BEFORE_DISPATCH_TEXT = 'Tool call aborted before dispatch: the turn was cancelled before this call started. Nothing was executed.';

function errorResult(code: ToolErrorCode, name: string, message: string, meta?: JsonValue): ToolCallResult {
  return { content: `Error: ${message}`, isError: true, error: { name, code }, ...(meta !== undefined ? { meta } : {}) };
}

/** The synthetic result of a call that never started because the turn was cancelled. */
export function abortedBeforeDispatchResult(): ToolCallResult {
  return { content: ABORTED_BEFORE_DISPATCH_TEXT, isError: true, error: { name: 'AbortedBeforeDispatchError', code: 'ABORTED_BEFORE_DISPATCH' } };
}

export class ToolPipeline {
  constructor(private readonly options: PipelineOptions) {}

  /**
   * Parses, validates and applies the policy for one call. Resolves with a final result when the
   * call must not run, else with a `run` function that executes the body.
   */
  async prepare(call: ToolCallRequest, signal: AbortSignal): Promise<PreparedCall> {
    const parsed = (this.options.parseArguments ?? parseArguments)(call.arguments);
    if (!parsed.ok) {
      return final(
        errorResult('INVALID_ARGS', 'ToolArgsError', `the arguments of ${call.name} are not valid JSON (${parsed.message}). Call the tool again with a JSON object that matches its schema.`),
      );
    }
    const tool = this.options.registry.get(call.name);
    if (!tool) {
      return final(errorResult('UNKNOWN_TOOL', 'UnknownToolError', `there is no tool named ${JSON.stringify(call.name)}. Available tools: ${this.options.registry.names.join(', ')}.`));
    }
    const valid = tool.validate(parsed.value);
    if (!valid.ok) {
      return final(errorResult('INVALID_ARGS', 'ToolArgsError', `invalid arguments for ${call.name}: ${valid.message}`));
    }
    if (signal.aborted) return final(abortedBeforeDispatchResult());
    const decision = await this.decide(tool, call, valid.value, signal);
    if (decision !== undefined) return final(this.finishResult(decision));
    if (signal.aborted) return final(abortedBeforeDispatchResult());
    const concurrencySafe = this.options.registry.isConcurrencySafe(call.name, valid.value);
    return { kind: 'run', concurrencySafe, run: async () => this.finishResult(await this.execute(tool, call, valid.value, signal)) };
  }

  /** Applies the approval policy; returns a final result when the call must not run. */
  private async decide(tool: RegisteredTool, call: ToolCallRequest, args: unknown, signal: AbortSignal): Promise<ToolCallResult | undefined> {
    if (tool.risk === 'read' && tool.approvalPolicy === undefined) return undefined;
    const policy = tool.approvalPolicy ?? this.options.policy();
    if (policy === 'allow') return undefined;
    if (policy === 'deny') {
      const what = tool.approvalPolicy !== undefined ? 'this tool' : tool.risk === 'exec' ? 'running commands' : 'changing files';
      return errorResult(
        'DENIED',
        'ToolDeniedError',
        `${call.name} is not allowed: the ${tool.approvalPolicy !== undefined ? "tool's configured" : "session's"} approval policy denies ${what}. Tell the user what you wanted to do instead.`,
      );
    }
    if (this.options.isAllowedByRule?.(call.name, args) === true) return undefined;
    // Validate, then ask, then show the change: a call that would fail is never put to the person.
    let preview: ApprovalPreview | undefined;
    if (tool.preview) {
      try {
        preview = await tool.preview(args, this.context(call, signal));
      } catch (error) {
        return this.normaliseError(call, error, signal);
      }
    }
    const question: ApprovalQuestion = {
      callId: call.callId,
      toolName: call.name,
      arguments: call.arguments,
      reason: tool.approvalReason ?? (tool.risk === 'exec' ? 'runs a shell command in the workspace' : 'changes files in the workspace'),
      ...(preview !== undefined ? { preview } : {}),
    };
    const outcome: ApprovalOutcome = this.options.requestApproval ? await this.options.requestApproval(question, signal) : 'unavailable';
    switch (outcome) {
      case 'allowed-once':
      case 'allowed-session':
        return undefined;
      case 'rejected':
        return errorResult('DENIED', 'ToolDeniedError', `the user rejected this ${call.name} call. Do not retry it unchanged; ask the user how to proceed or take another approach.`);
      case 'cancelled':
        return signal.aborted ? abortedBeforeDispatchResult() : errorResult('DENIED', 'ToolDeniedError', `the approval request for ${call.name} was cancelled.`);
      case 'unavailable':
        return errorResult('DENIED', 'ToolDeniedError', `${call.name} needs the user's approval, but no one can answer here. (To allow it without asking, run with --approval allow.)`);
    }
  }

  /** The context a tool body (or its preview) runs with. */
  private context(call: ToolCallRequest, signal: AbortSignal): ToolContext {
    return {
      cwd: this.options.cwd,
      sessionId: this.options.sessionId,
      callId: call.callId,
      signal,
      files: this.options.files,
      ...(this.options.onOutput ? { onOutput: (text: string) => this.options.onOutput!(call.callId, text) } : {}),
      ...(this.options.spawnFor ? { spawn: this.options.spawnFor(call.callId) } : {}),
    };
  }

  /** Removes secret values from a result's text (content and error messages alike). */
  private finishResult(result: ToolCallResult): ToolCallResult {
    const secrets = this.options.secrets?.() ?? [];
    if (secrets.length === 0) return result;
    const content = redactSecrets(result.content, secrets);
    return content === result.content ? result : { ...result, content };
  }

  private async execute(tool: RegisteredTool, call: ToolCallRequest, args: unknown, outer: AbortSignal): Promise<ToolCallResult> {
    if (outer.aborted) return abortedBeforeDispatchResult();
    const timeoutMs = tool.timeoutMs ?? this.options.defaultTimeoutMs ?? 600_000;
    const graceMs = this.options.abortGraceMs ?? 5000;
    const controller = new AbortController();
    let timedOut = false;
    let abandon: () => void = () => undefined;
    const abandoned = new Promise<'abandoned'>((resolve) => {
      abandon = () => resolve('abandoned');
    });
    let graceTimer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      graceTimer ??= setTimeout(abandon, graceMs);
    };
    controller.signal.addEventListener('abort', onAbort, { once: true });
    const onOuterAbort = () => controller.abort(outer.reason);
    outer.addEventListener('abort', onOuterAbort, { once: true });
    const timer = setTimeout(() => {
      if (controller.signal.aborted) return; // cancelled first: that is the reason
      timedOut = true;
      controller.abort(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    let settled: { ok: ToolOutput } | { error: unknown } | 'abandoned';
    try {
      const body = tool.execute(args, this.context(call, controller.signal)).then(
        (ok) => ({ ok }),
        (error: unknown) => ({ error }),
      );
      settled = await Promise.race([body, abandoned]);
    } finally {
      clearTimeout(timer);
      if (graceTimer !== undefined) clearTimeout(graceTimer);
      outer.removeEventListener('abort', onOuterAbort);
      controller.signal.removeEventListener('abort', onAbort);
    }
    if (settled === 'abandoned') {
      const why = timedOut ? `did not finish within ${timeoutMs} ms` : 'was cancelled';
      return errorResult(
        timedOut ? 'TOOL_TIMEOUT' : 'ABORTED',
        timedOut ? 'ToolTimeoutError' : 'AbortedError',
        `${call.name} ${why} and did not stop within ${graceMs} ms of being asked to; the call was ended without its result (its work may be incomplete).`,
      );
    }
    if ('error' in settled) {
      const error = settled.error;
      if (timedOut && !(ForklineError.isInstance(error) && error.code === 'TOOL_TIMEOUT')) {
        return errorResult('TOOL_TIMEOUT', 'ToolTimeoutError', `${call.name} did not finish within ${timeoutMs} ms and was stopped.`);
      }
      return this.normaliseError(call, error, outer);
    }
    const output = settled.ok;
    if (timedOut) {
      return errorResult('TOOL_TIMEOUT', 'ToolTimeoutError', `${call.name} did not finish within ${timeoutMs} ms and was stopped.`);
    }
    const content = this.cap(call.callId, output.content);
    if (outer.aborted && output.isError !== true) {
      // A body that finished after cancel: its success must not be trusted as a normal result.
      return {
        content: `The turn was cancelled while ${call.name} was running; it completed, output follows.\n${content}`,
        isError: true,
        error: { name: 'AbortedError', code: 'ABORTED' },
        ...(output.meta !== undefined ? { meta: output.meta } : {}),
      };
    }
    return { content, isError: output.isError === true, ...(output.meta !== undefined ? { meta: output.meta } : {}) };
  }

  private normaliseError(call: ToolCallRequest, error: unknown, outer: AbortSignal): ToolCallResult {
    if (ForklineError.isInstance(error)) {
      return { content: `Error: ${this.cap(call.callId, error.message)}`, isError: true, error: { name: error.name, code: error.code } };
    }
    if (outer.aborted) return errorResult('ABORTED', 'AbortedError', `${call.name} was cancelled while running.`);
    const message = error instanceof Error ? error.message : String(error);
    return errorResult('TOOL_ERROR', error instanceof Error ? error.name : 'Error', message);
  }

  private cap(callId: string, text: string): string {
    const capBytes = this.options.outputCapBytes ?? 50_000;
    if (Buffer.byteLength(text, 'utf8') <= capBytes) return text;
    const where = this.options.spill?.(callId, text);
    return truncateHeadTail(text, capBytes, where);
  }
}

function final(result: ToolCallResult): PreparedCall {
  return { kind: 'final', result };
}

/** A parsed argument string: the value, or why it is not JSON. */
export type ArgumentParse = { ok: true; value: unknown } | { ok: false; message: string };

/** `''` → `{}`; otherwise JSON.parse; the raw string stays what is logged. */
export function parseArguments(raw: string): ArgumentParse {
  if (raw.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw) as unknown };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}
