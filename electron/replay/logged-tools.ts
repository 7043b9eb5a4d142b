/**
 * The current build's tools with their bodies answered from the log (a replay without
 * `--live-tools`): same names, descriptions, schemas, risk and concurrency (so the tool list sent
 * and the pipeline's parsing, validation, policy, capping and ordering are this build's), but
 * `execute` returns what the logged call returned. Previews are dropped (they read the workspace,
 * which a replay does not use).
 *
 * A logged error comes back as the error the pipeline turns into the same text and code; a result
 * that nested project instructions were appended to comes back without them (the build appends
 * its own). An imported log's tools that this build does not have are added, answering from the
 * log too, so its calls still run through the pipeline.
 */
import { z } from 'zod';
import { ForklineError } from '../../shared/errors.js';
import type { ToolContext, ToolDefinition, ToolOutput } from '../tools/tool.js';
import type { LoggedResult } from './replay-plan.js';

/** A logged tool error, raised again so the pipeline writes the same `Error: …` text and code. */
class LoggedToolError extends ForklineError {
  constructor(code: string, name: string, message: string) {
    super(code, message);
    this.name = name;
  }
}

/** What the replay decides when a tool body is reached. */
export interface LoggedToolHooks {
  /** The logged result of a call, if any. */
  result(callId: string): LoggedResult | undefined;
  /**
   * Called before a body answers: the replay may cancel the turn (the log's call was cancelled
   * while running) or simulate the crash the log ends with (`crash`: the body never answers).
   */
  beforeAnswer(callId: string, result: LoggedResult | undefined): 'answer' | 'crash';
}

const ABORT_CODES: ReadonlySet<string> = new Set(['ABORTED']);
const NESTED_MARK = '\n\n[Project instructions from ';
const CANCELLED_PREFIX = /^The turn was cancelled while .* was running; it completed, output follows\.\n/;

function waitForAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(new Error('cancelled'));
    signal.addEventListener('abort', () => reject(new Error('cancelled')), { once: true });
  });
}

/** The logged result as a tool body's outcome. */
async function answer(result: LoggedResult, ctx: ToolContext): Promise<ToolOutput> {
  let text = result.text;
  if (result.annotated) {
    const at = text.indexOf(NESTED_MARK);
    if (at >= 0) text = text.slice(0, at);
  }
  const meta = result.meta !== undefined ? { meta: result.meta } : {};
  if (result.error && ABORT_CODES.has(result.error.code)) {
    // Cancelled while running: the replay has cancelled the turn; answer as the body did then.
    const completed = CANCELLED_PREFIX.exec(text);
    if (completed) return { content: text.slice(completed[0].length), ...meta };
    if (text.startsWith('Error: ')) throw new LoggedToolError(result.error.code, result.error.name, text.slice('Error: '.length));
    return waitForAbort(ctx.signal);
  }
  if (result.error && result.isError && text.startsWith('Error: ')) throw new LoggedToolError(result.error.code, result.error.name, text.slice('Error: '.length));
  return { content: text, ...(result.isError ? { isError: true } : {}), ...meta };
}

function loggedExecute(hooks: LoggedToolHooks) {
  return async (_args: unknown, ctx: ToolContext): Promise<ToolOutput> => {
    const result = hooks.result(ctx.callId);
    if (hooks.beforeAnswer(ctx.callId, result) === 'crash') return waitForAbort(ctx.signal);
    if (!result) throw new LoggedToolError('REPLAY_NO_RESULT', 'ReplayError', `the log has no result for call ${ctx.callId}; this build ran a call the recorded session did not`);
    return answer(result, ctx);
  };
}

/**
 * `definitions` with bodies answered from the log, plus (for imported logs) a pass-through tool for
 * each name in `foreignNames` that the build lacks.
 */
export function loggedResultTools(definitions: readonly ToolDefinition[], hooks: LoggedToolHooks, foreignNames: readonly string[] = []): ToolDefinition[] {
  const execute = loggedExecute(hooks);
  const out: ToolDefinition[] = definitions.map((definition) => {
    const { preview: _preview, ...rest } = definition;
    void _preview;
    return { ...rest, execute };
  });
  const known = new Set(definitions.map((d) => d.name));
  for (const name of new Set(foreignNames)) {
    if (known.has(name)) continue;
    out.push({ name, description: `${name} (a tool of the imported log, answered from it)`, parameters: z.looseObject({}), risk: 'read', presentation: 'generic', execute });
  }
  return out;
}

/**
 * `definitions` running for real in the scratch folder `scratchDir`, their output naming the
 * session's folder `sessionCwd` where it names the scratch folder (as the system prompt does), so
 * only what the tools did differs, not where they ran.
 */
export function liveTools(definitions: readonly ToolDefinition[], scratchDir: string, sessionCwd: string | undefined): ToolDefinition[] {
  if (sessionCwd === undefined || sessionCwd === scratchDir) return [...definitions];
  return definitions.map((definition) => ({
    ...definition,
    execute: async (args: unknown, ctx: ToolContext): Promise<ToolOutput> => {
      const output = await definition.execute(args, ctx);
      return { ...output, content: output.content.split(scratchDir).join(sessionCwd) };
    },
  }));
}
