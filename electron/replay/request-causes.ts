/**
 * Why a replayed request differs from the logged one, in words (issue 23: "a change of the build, of
 * its configuration or of the project's instructions (AGENTS.md) that changes what would be sent is
 * a divergence, and says which"). Compares the two envelopes (`request/header`) field by field and
 * the system prompt's instruction files (`instructions/loaded{system}`: path and hash), and names
 * the first differing wire message when the envelopes agree.
 */
import type { InstructionFileRef, RequestHeader } from '../../shared/events.js';
import { jsonEquals, type JsonValue } from '../../shared/json.js';
import { asArray, asObject } from '../../shared/event-read.js';

const short = (hash: string): string => hash.slice(0, 12);

function instructionChanges(before: readonly InstructionFileRef[], after: readonly InstructionFileRef[]): string[] {
  const out: string[] = [];
  const old = new Map(before.map((f) => [f.path, f]));
  const now = new Map(after.map((f) => [f.path, f]));
  for (const f of after) {
    const was = old.get(f.path);
    if (!was) out.push(`project instructions added: ${f.shownPath}`);
    else if (was.sha256 !== f.sha256) out.push(`project instructions changed: ${f.shownPath} (sha256 ${short(was.sha256)} → ${short(f.sha256)})`);
  }
  for (const f of before) if (!now.has(f.path)) out.push(`project instructions removed: ${f.shownPath}`);
  return out;
}

function toolChanges(before: RequestHeader['tools'], after: RequestHeader['tools']): string | undefined {
  const a = new Map((before ?? []).map((t) => [t.name, t]));
  const b = new Map((after ?? []).map((t) => [t.name, t]));
  const parts: string[] = [];
  for (const name of b.keys()) if (!a.has(name)) parts.push(`+ ${name}`);
  for (const name of a.keys()) if (!b.has(name)) parts.push(`− ${name}`);
  for (const [name, tool] of b) {
    const was = a.get(name);
    if (was && !jsonEquals(was as unknown as JsonValue, tool as unknown as JsonValue)) parts.push(`~ ${name}`);
  }
  if (parts.length === 0 && !jsonEquals((before ?? []) as unknown as JsonValue, (after ?? []) as unknown as JsonValue)) parts.push('order');
  return parts.length > 0 ? `the tool list changed (this build's tools or MCP configuration): ${parts.join(', ')}` : undefined;
}

/** What the replay knows about one side of a request. */
export interface RequestSide {
  readonly header: RequestHeader;
  /** The system prompt's instruction files in force (from the last `instructions/loaded{system}`). */
  readonly instructions: readonly InstructionFileRef[];
}

/** The causes of a difference between a logged and a replayed request; never empty. */
export function divergenceCauses(logged: RequestSide, replayed: RequestSide, wire: { readonly path: string; readonly logged: unknown; readonly replayed: unknown }): string[] {
  const causes: string[] = [];
  if ((logged.header.system ?? '') !== (replayed.header.system ?? '')) {
    const changed = instructionChanges(logged.instructions, replayed.instructions);
    if (changed.length > 0) causes.push(...changed);
    else causes.push('the system prompt changed (this build renders it differently; its instruction files are unchanged)');
  }
  const tools = toolChanges(logged.header.tools, replayed.header.tools);
  if (tools) causes.push(tools);
  if (!jsonEquals(logged.header.config as unknown as JsonValue, replayed.header.config as unknown as JsonValue)) {
    causes.push(`the request configuration changed: ${JSON.stringify(logged.header.config)} → ${JSON.stringify(replayed.header.config)}`);
  }
  if (!jsonEquals((logged.header.dialect ?? null) as unknown as JsonValue, (replayed.header.dialect ?? null) as unknown as JsonValue)) causes.push('the history dialect sent to the endpoint changed');
  const at = /^messages\[(\d+)\]/.exec(wire.path);
  if (causes.length === 0 && at) {
    const index = Number(at[1]);
    const message = (asArray(asObject(wire.replayed)?.['messages'])[index] ?? asArray(asObject(wire.logged)?.['messages'])[index]) as Record<string, unknown> | undefined;
    const role = typeof message?.['role'] === 'string' ? message['role'] : '?';
    const what = role === 'tool' ? `the result of tool call ${String(message?.['tool_call_id'])} (the tool's output, its formatting or truncation)` : `a ${role} message`;
    causes.push(`the history differs at message ${index}: ${what}`);
  }
  if (causes.length === 0) causes.push('the request serializer changed (the same envelope and messages are sent as different bytes)');
  return causes;
}
