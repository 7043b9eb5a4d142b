/**
 * The tool level of a replay (issue 23): every tool call the model asked for, in model order, as
 * the harness took it — the name, the arguments as the harness parsed them (canonical JSON, keys
 * sorted, so spacing and key order do not count), and whether the pipeline refused it before it
 * ran. The logged calls are read with the default parser; the replayed ones with the parser the
 * build under test used, so a change in argument parsing shows here even when every byte sent
 * stays the same.
 */
import type { SessionEvent } from '../../shared/events.js';
import type { ComparedToolCall, ToolDivergence } from '../../shared/replay.js';
import type { ArgumentParse } from '../tools/pipeline.js';

/** Pipeline refusals: the call never ran (docs/architecture.md §6). */
const REFUSALS: ReadonlySet<string> = new Set(['INVALID_ARGS', 'UNKNOWN_TOOL', 'DENIED']);

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = canonical((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

/** The tool calls of `events` from `fromSeq` on, in model order. */
export function comparedToolCalls(events: readonly SessionEvent[], fromSeq: number, parse: (raw: string) => ArgumentParse): ComparedToolCall[] {
  const outcomes = new Map<string, string>();
  for (let seq = fromSeq; seq < events.length; seq++) {
    const e = events[seq]!;
    if (e.type !== 'tool/result') continue;
    const callId = e.data.message.content[0]?.toolCallId;
    const code = e.data.error?.code;
    if (callId !== undefined) outcomes.set(callId, code !== undefined && REFUSALS.has(code) ? `refused:${code}` : 'ran');
  }
  const calls: ComparedToolCall[] = [];
  for (let seq = fromSeq; seq < events.length; seq++) {
    const e = events[seq]!;
    if (e.type !== 'assistant/message' || e.data.interrupted === true) continue;
    for (const block of e.data.message.content) {
      if (block.type !== 'tool-call') continue;
      const parsed = parse(block.arguments);
      calls.push({
        turn: e.data.turn,
        step: e.data.step,
        callId: block.id,
        name: block.name,
        args: parsed.ok ? JSON.stringify(canonical(parsed.value)) : `invalid JSON: ${parsed.message}`,
        outcome: outcomes.get(block.id) ?? 'no result',
      });
    }
  }
  return calls;
}

/** The first call that differs, or undefined when both lists are the same. */
export function firstToolDivergence(logged: readonly ComparedToolCall[], replayed: readonly ComparedToolCall[]): ToolDivergence | undefined {
  const common = Math.min(logged.length, replayed.length);
  for (let index = 0; index < common; index++) {
    const a = logged[index]!;
    const b = replayed[index]!;
    const field = a.name !== b.name ? 'name' : a.args !== b.args ? 'args' : a.outcome !== b.outcome ? 'outcome' : undefined;
    if (field) return { index, logged: a, replayed: b, field };
  }
  if (logged.length > common) return { index: common, logged: logged[common]!, field: 'missing' };
  if (replayed.length > common) return { index: common, replayed: replayed[common]!, field: 'extra' };
  return undefined;
}
