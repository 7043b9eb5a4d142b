/**
 * Helpers for import tests: the agent-session-log fixtures (test/fixtures/agent-session-logs, with
 * their sources in NOTES.md), counts taken straight from a source file by each format's own rules
 * (independently of the importers), and a check that derived messages form a history a provider
 * accepts (every tool call answered before the conversation moves on).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionEvent } from '../../shared/events.js';
import type { JsonObject, JsonValue } from '../../shared/json.js';
import type { Message } from '../../shared/messages.js';
import { FIXTURES_DIR } from './fixtures.js';

export const AGENT_LOGS = join(FIXTURES_DIR, 'agent-session-logs');

/** Every fixture file as `{folder, file, path}`, sorted. */
export function agentLogFixtures(): { readonly folder: string; readonly file: string; readonly path: string }[] {
  const out: { folder: string; file: string; path: string }[] = [];
  for (const folder of readdirSync(AGENT_LOGS, { withFileTypes: true })) {
    if (!folder.isDirectory()) continue;
    for (const file of readdirSync(join(AGENT_LOGS, folder.name)).sort()) out.push({ folder: folder.name, file, path: join(AGENT_LOGS, folder.name, file) });
  }
  return out.sort((a, b) => a.file.localeCompare(b.file));
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Records of a source file: JSONL lines, the elements of a JSON array, or a pretty-printed JSON document as one record. */
export function sourceRecords(text: string): JsonObject[] {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[')) return (JSON.parse(trimmed) as JsonValue[]).filter(isObject);
  if (/^\{\s*\n/.test(trimmed)) return [JSON.parse(trimmed) as JsonValue].filter(isObject);
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as JsonValue)
    .filter(isObject);
}

/** Call ids a source file pairs with a result, and all call ids it shows. */
export interface SourcePairs {
  readonly calls: readonly string[];
  readonly answered: readonly string[];
}

/** Prefix of the ids {@link sourcePairs} gives calls the source names without one (no id to look up in the log). */
export const NO_ID = '(no id) #';

/** The tool calls and answered calls of a source file, by its own format's rules. */
export function sourcePairs(folder: string, records: readonly JsonObject[]): SourcePairs {
  const calls: string[] = [];
  const answered: string[] = [];
  for (const r of records) {
    if (folder === 'claude-code') {
      const content = isObject(r['message']) ? r['message']['content'] : undefined;
      for (const b of Array.isArray(content) ? content : []) {
        // A call or result without an id (hand-written logs): results answer the open calls in order.
        if (isObject(b) && b['type'] === 'tool_use') calls.push(typeof b['id'] === 'string' ? b['id'] : `${NO_ID}${calls.length}`);
        if (isObject(b) && b['type'] === 'tool_result')
          answered.push(typeof b['tool_use_id'] === 'string' ? b['tool_use_id'] : (calls.find((c) => c.startsWith(NO_ID) && !answered.includes(c)) ?? 'none'));
      }
    } else if (folder === 'codex') {
      const p = isObject(r['payload']) ? r['payload'] : {};
      if (p['type'] === 'function_call' || p['type'] === 'custom_tool_call') calls.push(String(p['call_id']));
      if (p['type'] === 'function_call_output' || p['type'] === 'custom_tool_call_output') answered.push(String(p['call_id']));
    } else if (folder === 'openhands') {
      const tcm = isObject(r['tool_call_metadata']) ? r['tool_call_metadata'] : undefined;
      if (tcm && typeof r['action'] === 'string') calls.push(String(tcm['tool_call_id']));
      if (tcm && typeof r['observation'] === 'string') answered.push(String(tcm['tool_call_id']));
    } else if (folder === 'gemini-cli') {
      // A call and its result are one `toolCalls[]` record of a model message (the document's `messages[]`, or a JSONL line).
      for (const m of Array.isArray(r['messages']) ? r['messages'] : [r]) {
        for (const c of isObject(m) && Array.isArray(m['toolCalls']) ? m['toolCalls'] : []) {
          if (!isObject(c)) continue;
          calls.push(String(c['id']));
          if (c['result'] !== undefined && c['result'] !== null) answered.push(String(c['id']));
        }
      }
    } else {
      const data = isObject(r['data']) ? r['data'] : {};
      if (r['type'] === 'tool/call') calls.push(String(data['callId']));
      if (r['type'] === 'tool/result') {
        const message = isObject(data['message']) ? data['message'] : undefined;
        const source = message && isObject(message['source']) ? message['source'] : undefined;
        answered.push(String(source?.['callId'] ?? data['callId']));
      }
    }
  }
  return { calls, answered: answered.filter((id) => calls.includes(id)) };
}

/**
 * Checks that `messages` is a history an OpenAI-compatible provider accepts: each assistant
 * message's tool calls are all answered by the tool results that immediately follow it, and no tool
 * result answers a call that is not open. Returns the problems (empty when valid).
 */
export function historyProblems(messages: readonly Message[]): string[] {
  const problems: string[] = [];
  let open = new Set<string>();
  for (const [i, m] of messages.entries()) {
    if (m.role === 'assistant') {
      if (open.size > 0) problems.push(`message ${i}: calls ${[...open].join(', ')} were not answered before the next assistant message`);
      open = new Set(m.content.filter((b) => b.type === 'tool-call').map((b) => (b as { id: string }).id));
      continue;
    }
    if (m.source.kind === 'tool') {
      const block = m.content[0];
      const id = block?.type === 'tool-result' ? block.toolCallId : undefined;
      if (id === undefined || !open.delete(id)) problems.push(`message ${i}: result for ${String(id)} answers no open call`);
      continue;
    }
    if (open.size > 0) problems.push(`message ${i}: a user message comes before calls ${[...open].join(', ')} were answered`);
    open = new Set();
  }
  if (open.size > 0) problems.push(`the history ends with calls ${[...open].join(', ')} unanswered`);
  return problems;
}

/** The events the importer wrote that the file does not hold (rebuilt structure, closers of open calls). */
export function isSynthesized(e: SessionEvent): boolean {
  const foreign = (e.data as { foreign?: { synthesized?: boolean; unanswered?: boolean } }).foreign;
  if (foreign?.synthesized === true || foreign?.unanswered === true) return true;
  return e.type === 'tool/result' && e.data.message.id.startsWith('interrupted-tool-result-');
}
