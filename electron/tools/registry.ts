/**
 * Tool registry: the tools a session can call, their model-facing schemas, argument validation and
 * concurrency classification (docs/architecture.md §6).
 *
 * Built-ins are zod-defined (`z.toJSONSchema(schema, {io:'input'})` gives the model-facing JSON
 * Schema, STACK.md §9); foreign tools bring a JSON Schema and are validated with ajv (draft 2020-12).
 * Schemas are emitted in name order so the request header stays byte-stable.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { Ajv as AjvDraft07 } from 'ajv';
import { z } from 'zod';
import type { ApprovalPreview } from '../../shared/approval.js';
import type { ApprovalPolicyName } from '../../shared/events.js';
import type { JsonValue } from '../../shared/json.js';
import type { ToolSchema } from '../../shared/messages.js';
import type { ToolContext, ToolDefinition, ToolOutput, ToolPresentation, ToolRisk } from './tool.js';

/** A tool defined only by a JSON Schema (e.g. from an MCP server); validated with ajv. */
export interface ForeignToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly parameters: { readonly [key: string]: JsonValue };
  readonly risk: ToolRisk;
  readonly presentation?: ToolPresentation;
  readonly timeoutMs?: number;
  /** This tool's own approval policy (e.g. from an MCP server's configuration); absent = the session's. */
  readonly approvalPolicy?: ApprovalPolicyName;
  /** What the approval question says the call does (default: from `risk`). */
  readonly approvalReason?: string;
  isConcurrencySafe?(args: unknown): boolean;
  /** Checks preconditions and describes the change before an approval (see ToolDefinition.preview). */
  preview?(args: unknown, ctx: ToolContext): Promise<ApprovalPreview>;
  execute(args: unknown, ctx: ToolContext): Promise<ToolOutput>;
}

export type ArgsValidation = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string };

/** A tool as the pipeline sees it, whatever its origin. */
export interface RegisteredTool {
  readonly name: string;
  readonly schema: ToolSchema;
  readonly risk: ToolRisk;
  readonly presentation: ToolPresentation;
  readonly timeoutMs?: number;
  /** Overrides the session's approval policy for this tool. */
  readonly approvalPolicy?: ApprovalPolicyName;
  /** What the approval question says the call does. */
  readonly approvalReason?: string;
  validate(args: unknown): ArgsValidation;
  /** Exactly `true` only when the call may overlap other safe calls; throws count as false. */
  isConcurrencySafe(args: unknown): boolean;
  /** Present when the tool can check its preconditions and describe its change before an approval. */
  preview?(args: unknown, ctx: ToolContext): Promise<ApprovalPreview>;
  execute(args: unknown, ctx: ToolContext): Promise<ToolOutput>;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export class ToolRegistry {
  private readonly tools = new Map<string, RegisteredTool>();
  private readonly ajv = new Ajv2020({ allErrors: true, strict: false });
  private ajv07: AjvDraft07 | undefined;
  /** Names of the tools added by {@link setForeign} (replaced as a whole). */
  private foreignNames: string[] = [];
  /** Compiled validators by schema text (compiling costs ~10 ms; tool lists are re-applied per request). */
  private readonly validators = new Map<string, ValidateFunction>();

  /** @throws Error on a duplicate or malformed tool name. */
  constructor(builtins: readonly ToolDefinition[] = [], foreign: readonly ForeignToolDefinition[] = []) {
    for (const tool of builtins) this.add(fromZod(tool));
    for (const tool of foreign) this.add(this.fromJsonSchema(tool));
  }

  /**
   * Replaces the tools set by the previous call (MCP servers' tools, which change while a session
   * lives) with `tools`. A tool with a malformed name, a name already taken, or a schema that does
   * not compile is left out; the returned messages say which and why.
   */
  setForeign(tools: readonly ForeignToolDefinition[]): string[] {
    for (const name of this.foreignNames) this.tools.delete(name);
    this.foreignNames = [];
    const problems: string[] = [];
    for (const tool of tools) {
      try {
        this.add(this.fromJsonSchema(tool));
        this.foreignNames.push(tool.name);
      } catch (error) {
        problems.push(error instanceof Error ? error.message : String(error));
      }
    }
    return problems;
  }

  private add(tool: RegisteredTool): void {
    if (!TOOL_NAME.test(tool.name)) throw new Error(`invalid tool name ${JSON.stringify(tool.name)}`);
    if (this.tools.has(tool.name)) throw new Error(`tool ${tool.name} is registered twice`);
    this.tools.set(tool.name, tool);
  }

  get(name: string): RegisteredTool | undefined {
    return this.tools.get(name);
  }

  get names(): string[] {
    return [...this.tools.keys()].sort();
  }

  /** Model-facing schemas in name order (part of the logged request header). */
  schemas(): ToolSchema[] {
    return this.names.map((name) => this.tools.get(name)!.schema);
  }

  /** Fail-closed classification: unknown tools, a missing classifier or a throw → exclusive. */
  isConcurrencySafe(name: string, args: unknown): boolean {
    const tool = this.tools.get(name);
    if (!tool) return false;
    try {
      return tool.isConcurrencySafe(args) === true;
    } catch {
      return false;
    }
  }

  /**
   * Compiles a foreign schema: JSON Schema 2020-12 by default, draft-07 (and the drafts it reads)
   * when `$schema` names an older draft, as MCP servers built on zod-to-json-schema do.
   */
  private compile(schema: { readonly [key: string]: JsonValue }): ValidateFunction {
    const key = JSON.stringify(schema);
    const cached = this.validators.get(key);
    if (cached) return cached;
    const { $schema, ...body } = schema;
    const draft = typeof $schema === 'string' && /draft-0[4-7]/.test($schema);
    const validator = draft ? (this.ajv07 ??= new AjvDraft07({ allErrors: true, strict: false })).compile(body) : this.ajv.compile(body);
    this.validators.set(key, validator);
    return validator;
  }

  private fromJsonSchema(tool: ForeignToolDefinition): RegisteredTool {
    if (!TOOL_NAME.test(tool.name)) throw new Error(`invalid tool name ${JSON.stringify(tool.name)}`);
    let validator: ValidateFunction;
    try {
      validator = this.compile(tool.parameters);
    } catch (error) {
      throw new Error(`tool ${tool.name} has an invalid parameters schema: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    const { $schema: _drop, ...parameters } = tool.parameters;
    void _drop;
    return {
      name: tool.name,
      schema: { name: tool.name, description: tool.description, parameters },
      risk: tool.risk,
      presentation: tool.presentation ?? 'generic',
      ...(tool.timeoutMs !== undefined ? { timeoutMs: tool.timeoutMs } : {}),
      ...(tool.approvalPolicy !== undefined ? { approvalPolicy: tool.approvalPolicy } : {}),
      ...(tool.approvalReason !== undefined ? { approvalReason: tool.approvalReason } : {}),
      validate: (args) => {
        if (validator(args)) return { ok: true, value: args };
        const message = (validator.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`).join('; ');
        return { ok: false, message };
      },
      isConcurrencySafe: (args) => tool.isConcurrencySafe?.(args) === true,
      ...(tool.preview ? { preview: (args: unknown, ctx: ToolContext) => tool.preview!(args, ctx) } : {}),
      execute: (args, ctx) => tool.execute(args, ctx),
    };
  }
}

function fromZod(tool: ToolDefinition): RegisteredTool {
  const json = z.toJSONSchema(tool.parameters, { io: 'input' }) as Record<string, JsonValue>;
  const { $schema: _schema, ...parameters } = json;
  void _schema;
  return {
    name: tool.name,
    schema: { name: tool.name, description: tool.description, parameters },
    risk: tool.risk,
    presentation: tool.presentation,
    ...(tool.timeoutMs !== undefined ? { timeoutMs: tool.timeoutMs } : {}),
    validate: (args) => {
      const parsed = tool.parameters.safeParse(args);
      return parsed.success ? { ok: true, value: parsed.data } : { ok: false, message: z.prettifyError(parsed.error) };
    },
    isConcurrencySafe: (args) => tool.isConcurrencySafe?.(args as never) === true,
    ...(tool.preview ? { preview: (args: unknown, ctx: ToolContext) => tool.preview!(args as never, ctx) } : {}),
    execute: (args, ctx) => tool.execute(args as never, ctx),
  };
}
