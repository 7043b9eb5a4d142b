/**
 * MCP tools as Forkline tools (docs/architecture.md §6, §8b): each tool of a ready server becomes a foreign tool
 * (JSON-schema validated by the registry) that runs through the same pipeline as the built-ins —
 * argument validation, approval (the server's or tool's configured policy, else the session's,
 * `ask` by default), deadline (`timeoutMs`), output truncation and ordered commit.
 *
 * Names are namespaced per server as `mcp__<server>__<tool>` (Claude Code's convention), cut to
 * the 64 characters providers accept with a short hash when longer. Results: text content as is;
 * other content (images, audio, embedded resources, links) as one-line placeholders;
 * `structuredContent` as JSON when there is no text; `isError: true` becomes an error result.
 */
import { createHash } from 'node:crypto';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { JsonValue } from '../../shared/json.js';
import type { ForeignToolDefinition } from '../tools/registry.js';
import type { ToolOutput } from '../tools/tool.js';
import { toolApprovalOf } from './mcp-config.js';
import type { McpServerConnection } from './mcp-connection.js';

const MAX_NAME = 64;

/** `mcp__<server>__<tool>`, characters outside `[A-Za-z0-9_-]` replaced by `_`, at most 64 characters. */
export function mcpToolName(server: string, tool: string): string {
  const clean = tool.replace(/[^A-Za-z0-9_-]/g, '_');
  const full = `mcp__${server}__${clean}`;
  if (full.length <= MAX_NAME && clean === tool) return full;
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 6);
  const room = MAX_NAME - `mcp__${server}__`.length - 7;
  return `mcp__${server}__${clean.slice(0, Math.max(1, room))}_${hash}`;
}

/** The Forkline tools of a ready server (none when it is not ready). */
export function toolsOfServer(connection: McpServerConnection): ForeignToolDefinition[] {
  if (connection.state !== 'ready' && !connection.wasReady) return [];
  const { config } = connection;
  return connection.tools.map((tool): ForeignToolDefinition => {
    const approval = toolApprovalOf(config, tool.name);
    return {
      name: mcpToolName(config.name, tool.name),
      description: describeTool(config.name, tool),
      parameters: inputSchemaOf(tool),
      // What an MCP tool does is unknown: it follows the approval policy like a shell command.
      risk: 'exec',
      presentation: 'generic',
      timeoutMs: config.timeoutMs,
      ...(approval !== undefined ? { approvalPolicy: approval } : {}),
      approvalReason: `calls tool "${tool.name}" of MCP server "${config.name}"`,
      execute: async (args, ctx) => {
        // The SDK's own deadline is a backstop: the pipeline's (timeoutMs) fires first.
        const result = await connection.callTool(tool.name, (args ?? {}) as Record<string, unknown>, ctx.signal, config.timeoutMs + 5_000);
        return callResultToOutput(result, config.name, tool.name);
      },
    };
  });
}

function describeTool(server: string, tool: Tool): string {
  const text = (tool.description ?? tool.title ?? tool.annotations?.title ?? '').trim();
  return `${text}${text ? ' ' : ''}(tool "${tool.name}" of MCP server "${server}")`;
}

/** The tool's input schema as a JSON value (an object schema; `{type: 'object'}` when malformed). */
function inputSchemaOf(tool: Tool): { readonly [key: string]: JsonValue } {
  const schema = tool.inputSchema as unknown;
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return { type: 'object' };
  return JSON.parse(JSON.stringify(schema)) as { [key: string]: JsonValue };
}

/** A `tools/call` result → what the model sees (text) and the UI gets (`meta`). */
export function callResultToOutput(result: CallToolResult, server: string, tool: string): ToolOutput {
  const parts: string[] = [];
  const kinds: string[] = [];
  for (const item of result.content ?? []) {
    kinds.push(item.type);
    switch (item.type) {
      case 'text':
        parts.push(item.text);
        break;
      case 'image':
      case 'audio':
        parts.push(`[${item.type} ${item.mimeType}, ${Math.floor((item.data.length * 3) / 4)} bytes — not shown]`);
        break;
      case 'resource': {
        const r = item.resource;
        parts.push('text' in r && typeof r.text === 'string' ? r.text : `[resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ''} — binary, not shown]`);
        break;
      }
      case 'resource_link':
        parts.push(`[resource link ${item.name}: ${item.uri}]`);
        break;
      default:
        parts.push(`[${String((item as { type?: unknown }).type)} content — not shown]`);
    }
  }
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  const content = toWellFormed(parts.join('\n')) || (result.isError ? 'The tool failed without a message.' : '(no output)');
  return { content, isError: result.isError === true, meta: { mcpServer: server, mcpTool: tool, ...(kinds.length > 0 ? { contentTypes: kinds } : {}) } };
}

/** Replaces lone surrogates (a logged string never holds one, docs/architecture.md §6). */
function toWellFormed(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}
