/**
 * What a tool is (docs/architecture.md §6): name, description, JSON-schema parameters, `execute(args, ctx)`,
 * optional `isConcurrencySafe(args)`, optional `timeoutMs`, a risk class for the approval policy and
 * a presentation hint for the UI. Built-in tools define their arguments with zod; foreign tools
 * (JSON schema only) are validated with ajv by the registry.
 */
import type { z } from 'zod';
import type { ApprovalPreview } from '../../shared/approval.js';
import { ForklineError } from '../../shared/errors.js';
import type { ToolErrorCode } from '../../shared/events.js';
import type { JsonValue } from '../../shared/json.js';
import type { SpawnFunction } from './process-supervisor.js';

/** How the UI should render a call and its result. */
export type ToolPresentation = 'terminal' | 'diff' | 'read' | 'search' | 'todo' | 'generic';

/**
 * Risk class read by the approval policy: `read` runs without asking; `write` and `exec` follow the
 * session's policy (`ask` by default).
 */
export type ToolRisk = 'read' | 'write' | 'exec';

/** Tracks which files the session has read, and their content hash then (read-before-edit). */
export interface FileReadTracker {
  /** Records that `absPath` was read with the given content hash (sha256 hex of the bytes). */
  recordRead(absPath: string, sha256: string): void;
  /** The hash recorded at the last read or write, if the file was read in this session. */
  lastRead(absPath: string): string | undefined;
}

export interface ToolContext {
  /** Absolute real path of the workspace; every file path is resolved inside it. */
  readonly cwd: string;
  readonly sessionId: string;
  readonly callId: string;
  /** Aborted on cancel or timeout; tools must stop promptly (bash kills its process group). */
  readonly signal: AbortSignal;
  readonly files: FileReadTracker;
  /** Live output (e.g. bash stdout/stderr as it arrives) for the UI; not model-visible. */
  readonly onOutput?: (text: string) => void;
  /**
   * `child_process.spawn` under supervision (process-supervisor.ts): use it for every process a tool
   * starts, so it and its descendants never outlive Forkline and its pid is logged on the call.
   * Absent where no supervisor runs (bare tool tests): fall back to `child_process.spawn`.
   */
  readonly spawn?: SpawnFunction;
}

/** What a tool returns. `content` is the text the model sees; `meta` is for the UI only. */
export interface ToolOutput {
  readonly content: string;
  readonly isError?: boolean;
  readonly meta?: JsonValue;
}

/** A tool failure with a stable code; the pipeline turns it into an `isError` result the model sees. */
export class ToolError extends ForklineError {
  constructor(code: ToolErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'ToolError';
  }
}

/** A tool whose arguments are a zod object schema (built-ins). */
export interface ToolDefinition<S extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly parameters: S;
  readonly risk: ToolRisk;
  readonly presentation: ToolPresentation;
  /** Default time limit in ms; the pipeline aborts the call and reports TOOL_TIMEOUT after it. */
  readonly timeoutMs?: number;
  /** Return exactly `true` only when this call may run in parallel with other safe calls. */
  isConcurrencySafe?(args: z.infer<S>): boolean;
  /**
   * Checks the call's preconditions and describes the change it would make, before an approval
   * is asked (docs/architecture.md §6 "validate, then ask, then show the change"). Must not change anything.
   * @throws ToolError exactly as `execute` would for the same failed precondition; the call then
   *   ends with that error and no approval is asked.
   */
  preview?(args: z.infer<S>, ctx: ToolContext): Promise<ApprovalPreview>;
  execute(args: z.infer<S>, ctx: ToolContext): Promise<ToolOutput>;
}

/** Helper that keeps the argument type inferred from the schema. */
export function defineTool<S extends z.ZodType>(definition: ToolDefinition<S>): ToolDefinition<S> {
  return definition;
}
