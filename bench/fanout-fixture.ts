/**
 * What the fan-out benchmarks share (fanout.bench.ts, ui-fanout-board.bench.ts): the scripted
 * replies and a checkpointed base session to fan out from.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Runtime } from '../electron/host/runtime.js';
import { textResponse, toolCallResponse, type ReplyStep } from '../test/support/scripted-llm/index.js';

/** Steps of a branch's turn in the engine benchmark. */
export const STEPS = 50;

/** A chat message as the scripted server receives it. */
export interface Message {
  readonly role: string;
  readonly content?: unknown;
}

/** 49 tool calls after a prompt that says "go", then an answer; anything else is greeted. */
export function instantReply(messages: readonly Message[]): ReplyStep {
  const lastUser = messages.findLastIndex((m) => m.role === 'user');
  if (!JSON.stringify(messages[lastUser]?.content ?? '').includes('go')) return textResponse('hello');
  const tools = messages.slice(lastUser).filter((m) => m.role === 'tool').length;
  if (tools < STEPS - 1) return toolCallResponse([{ id: `call_${messages.length}`, name: 'read_file', arguments: '{"path":"a.txt"}' }]);
  return textResponse('done');
}

/** A session with one finished, checkpointed turn in a fresh folder of `dir`. */
export async function baseSession(runtime: Runtime, dir: string): Promise<string> {
  const folder = join(dir, `project-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`);
  mkdirSync(folder);
  writeFileSync(join(folder, 'a.txt'), 'a small file\n'.repeat(20));
  const connection = runtime.host.connect(() => undefined);
  try {
    const s = await connection.createSession({ cwd: folder });
    connection.followup({ sessionId: s.id, text: 'hello' });
    const agent = runtime.host.agentFor(s.id)!;
    await agent.whenIdle();
    const end = Date.now() + 30_000;
    while (!agent.session.events.some((e) => e.type === 'workspace/checkpoint')) {
      if (Date.now() > end) throw new Error('the base turn was never checkpointed');
      await new Promise((r) => setTimeout(r, 20));
    }
    return s.id;
  } finally {
    connection.dispose();
  }
}
