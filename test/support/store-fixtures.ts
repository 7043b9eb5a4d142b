/**
 * Test helpers for the session store suites: temp directories, a clock, and {@link AgentLogWriter},
 * which appends events to a real {@link Session} in the order a real agent does (dsh-contracts
 * §2.2–§2.4): inbox splice, turn/start, claim splice, step/start, user/message, request/header,
 * assistant/chunk…, assistant/message (with tool-call blocks), tool/call, tool/result, step/end,
 * turn/end. Nothing here mocks SQLite or the session; it only produces realistic logs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StreamChunk } from '../../shared/chunks.js';
import type { SessionEvent, SessionHeader, TurnEndReason } from '../../shared/events.js';
import type { AssistantBlock, ToolResultMessage } from '../../shared/messages.js';
import { serializeEvent } from '../../electron/session/chunk-rows.js';
import { Session } from '../../electron/session/session.js';

/** A fresh temp directory and its cleanup. */
export function tempDir(prefix = 'forkline-store-'): { readonly dir: string; readonly file: (name: string) => string; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, file: (name) => join(dir, name), dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A deterministic clock: each call advances by `step` ms (or by the next value of `steps`). */
export function steppingClock(start = 1_780_000_000_000, step = 7): () => number {
  let t = start;
  return () => (t += step);
}

export function header(id: string, extra: Partial<SessionHeader> = {}): SessionHeader {
  return { version: 0, id, createdAt: 1_780_000_000_000, ...extra };
}

/** Serialised form of every event: the byte-level identity the stores must keep. */
export function serializeAll(events: readonly SessionEvent[]): string[] {
  return events.map(serializeEvent);
}

export interface StreamSpec {
  /** Reasoning deltas (one chunk each). */
  readonly reasoning?: readonly string[];
  /** Text deltas. */
  readonly text?: readonly string[];
  /** Tool calls, each streamed as argument fragments. */
  readonly toolCalls?: readonly { readonly id: string; readonly name: string; readonly args: readonly string[] }[];
  /** Give every tool-call delta after the first no `name` (like a real OpenAI stream). */
  readonly nameOnFirstDeltaOnly?: boolean;
}

export interface StreamResult {
  readonly chunkSeqs: number[];
  readonly content: AssistantBlock[];
}

/**
 * Appends events to a Session in the order the agent loop does. Each method returns the appended
 * event (or its seq) so tests can assert exact positions.
 */
export class AgentLogWriter {
  turn: number;
  step = 0;
  private messageCounter = 0;

  constructor(readonly session: Session) {
    this.turn = session.lastTurn;
  }

  private nextId(prefix: string): string {
    return `${prefix}-${this.session.id}-${++this.messageCounter}-${this.session.length}`;
  }

  /** `followup` while idle: durable inbox insert before the turn opens. */
  inboxInsert(text: string): SessionEvent {
    return this.session.append({
      type: 'agent/inbox/spliced',
      data: { target: 'next-turn', start: 0, inserted: [{ id: this.nextId('m'), role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } }] },
    });
  }

  turnStart(): SessionEvent {
    this.turn++;
    this.step = 0;
    return this.session.append({ type: 'turn/start', data: { turn: this.turn } });
  }

  /** The claim splice of the next-turn prompt (pure deletion). */
  claim(): SessionEvent {
    return this.session.append({ type: 'agent/inbox/spliced', data: { target: 'next-turn', start: 0, removedCount: 1, inserted: [] } });
  }

  stepStart(): SessionEvent {
    this.step++;
    return this.session.append({ type: 'step/start', data: { turn: this.turn, step: this.step } });
  }

  user(text: string): SessionEvent {
    return this.session.append({
      type: 'user/message',
      data: { id: this.nextId('u'), role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } },
      surfaceOp: 'append',
    });
  }

  requestHeader(reason: 'initial' | 'resume' | 'change' = 'initial'): SessionEvent {
    return this.session.append({
      type: 'request/header',
      data: { reason, header: { config: { provider: 'deepseek', model: 'deepseek-chat' }, system: 'You are a careful coding agent.', tools: [] } },
    });
  }

  private chunk(chunk: StreamChunk): number {
    return this.session.append({ type: 'assistant/chunk', data: { turn: this.turn, step: this.step, chunk } }).seq;
  }

  /** Streams one model response as chunks (block-start, deltas, block-end per block, usage, finish). */
  stream(spec: StreamSpec): StreamResult {
    const seqs: number[] = [];
    const content: AssistantBlock[] = [];
    let index = 0;
    if (spec.reasoning && spec.reasoning.length > 0) {
      seqs.push(this.chunk({ type: 'block-start', index, blockType: 'reasoning' }));
      for (const text of spec.reasoning) seqs.push(this.chunk({ type: 'reasoning-delta', index, text }));
      const block: AssistantBlock = { type: 'reasoning', text: spec.reasoning.join('') };
      seqs.push(this.chunk({ type: 'block-end', index, block }));
      content.push(block);
      index++;
    }
    if (spec.text && spec.text.length > 0) {
      seqs.push(this.chunk({ type: 'block-start', index, blockType: 'text' }));
      for (const text of spec.text) seqs.push(this.chunk({ type: 'text-delta', index, text }));
      const block: AssistantBlock = { type: 'text', text: spec.text.join('') };
      seqs.push(this.chunk({ type: 'block-end', index, block }));
      content.push(block);
      index++;
    }
    for (const call of spec.toolCalls ?? []) {
      seqs.push(this.chunk({ type: 'block-start', index, blockType: 'tool-call' }));
      call.args.forEach((argumentsDelta, i) => {
        const withName = !spec.nameOnFirstDeltaOnly || i === 0;
        seqs.push(this.chunk(withName ? { type: 'tool-call-delta', index, id: call.id, name: call.name, argumentsDelta } : { type: 'tool-call-delta', index, id: call.id, argumentsDelta }));
      });
      const block: AssistantBlock = { type: 'tool-call', id: call.id, name: call.name, arguments: call.args.join('') };
      seqs.push(this.chunk({ type: 'block-end', index, block }));
      content.push(block);
      index++;
    }
    seqs.push(this.chunk({ type: 'usage', usage: { inputTokens: 100 + this.session.length, outputTokens: seqs.length } }));
    seqs.push(this.chunk({ type: 'finish', reason: spec.toolCalls && spec.toolCalls.length > 0 ? { kind: 'tool-calls' } : { kind: 'stop' } }));
    return { chunkSeqs: seqs, content };
  }

  assistantMessage(result: StreamResult): SessionEvent<'assistant/message'> {
    return this.session.append({
      type: 'assistant/message',
      data: {
        turn: this.turn,
        step: this.step,
        message: { id: this.nextId('a'), role: 'assistant', content: result.content, source: { kind: 'model', provider: 'deepseek', model: 'deepseek-chat' } },
        usage: { inputTokens: 100, outputTokens: result.chunkSeqs.length },
      },
      surfaceOp: 'append',
      sourceEventSeqs: result.chunkSeqs,
    });
  }

  toolCall(id: string, name: string, args: string): SessionEvent<'tool/call'> {
    return this.session.append({ type: 'tool/call', data: { turn: this.turn, step: this.step, callId: id, name, arguments: args } });
  }

  toolResult(call: SessionEvent<'tool/call'>, text: string, isError = false): SessionEvent<'tool/result'> {
    const message: ToolResultMessage = {
      id: this.nextId('r'),
      role: 'user',
      source: { kind: 'tool', callId: call.data.callId },
      content: [{ type: 'tool-result', toolCallId: call.data.callId, content: [{ type: 'text', text }], isError }],
    };
    return this.session.append({
      type: 'tool/result',
      data: { turn: this.turn, step: this.step, message, meta: { durationMs: 3 } },
      surfaceOp: 'append',
      sourceEventSeqs: [call.seq],
    });
  }

  stepEnd(): SessionEvent {
    return this.session.append({ type: 'step/end', data: { turn: this.turn, step: this.step } });
  }

  turnEnd(reason: TurnEndReason = { kind: 'completed' }): SessionEvent {
    return this.session.append({ type: 'turn/end', data: { turn: this.turn, reason } });
  }

  /**
   * One whole completed turn: prompt → step 1 (reasoning + a tool call, executed) → step 2 (text
   * answer). `deltas` controls how chunk-heavy it is.
   */
  completedTurn(prompt: string, deltas = 8): void {
    this.inboxInsert(prompt);
    this.turnStart();
    this.claim();
    this.stepStart();
    this.user(prompt);
    this.requestHeader(this.session.requestHeader() ? 'change' : 'initial');
    const callId = `call_${this.turn}_1`;
    const r1 = this.stream({
      reasoning: words(deltas, `think${this.turn}`),
      toolCalls: [{ id: callId, name: 'read_file', args: ['{"pa', 'th":"', `src/${this.turn}.ts"}`] }],
    });
    this.assistantMessage(r1);
    const call = this.toolCall(callId, 'read_file', `{"path":"src/${this.turn}.ts"}`);
    this.toolResult(call, `contents of src/${this.turn}.ts`);
    this.stepEnd();
    this.stepStart();
    const r2 = this.stream({ reasoning: words(Math.max(1, deltas >> 1), 'again'), text: words(deltas, `answer${this.turn}`) });
    this.assistantMessage(r2);
    this.stepEnd();
    this.turnEnd();
  }
}

/** `n` short word-like deltas (unicode included, to exercise byte handling). */
export function words(n: number, seed: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(i % 7 === 3 ? ` ${seed}é✓${i}` : ` ${seed}${i}`);
  return out;
}

/** A session with `turns` completed turns, built with a stepping clock. */
export function buildSession(id: string, turns: number, deltas = 8, extra: Partial<SessionHeader> = {}): Session {
  const session = new Session({ header: header(id, extra), now: steppingClock() });
  const writer = new AgentLogWriter(session);
  for (let t = 0; t < turns; t++) writer.completedTurn(`prompt ${t + 1}`, deltas);
  return session;
}

/**
 * A log that contains every known event type at a position the invariant accepts, plus chunk runs
 * that pack (≥ 3 same-block deltas) and runs that must not (2 deltas, name only on the first
 * tool-call delta, non-canonical key order, negative time steps).
 */
export function everyEventTypeLog(id = 'every'): Session {
  const times = [5_000, 5_010, 4_000, 4_001, 9_007_199_254_740_000];
  let tick = 0;
  const session = new Session({ header: header(id), now: () => times[tick++ % times.length]! + tick });
  const w = new AgentLogWriter(session);
  w.completedTurn('first', 6);
  session.append({ type: 'session/title', data: { title: 'Every type', messageSeqs: [4] } });
  session.append({ type: 'approval/policy', data: { policy: 'ask' } });
  session.append({ type: 'workspace/checkpoint', data: { turn: 1, commit: 'abc123' } });
  session.append({
    type: 'check/result',
    data: {
      purpose: 'check',
      turn: 1,
      command: 'npm test',
      exitCode: 1,
      timedOut: false,
      durationMs: 812,
      passed: false,
      outputTail: 'Tests  1 failed | 2 passed (3)\n',
      counts: { runner: 'vitest', passed: 2, failed: 1 },
    },
  });
  session.append({
    type: 'workspace/apply',
    data: { branch: 'b-1', base: 'abc123', theirs: 'def456', before: 'abc124', applied: false, files: [], conflicts: [{ path: 'a.js', hunks: ['<<<<<<< folder\nx\n=======\ny\n>>>>>>> branch\n'] }] },
  });
  session.append({ type: 'workspace/rewind', data: { from: 'p-1', atSeq: 3, restored: 'abc123', abandoned: 'abc125' } });
  w.inboxInsert('second');
  w.turnStart();
  w.claim();
  w.stepStart();
  w.user('second');
  session.append({ type: 'request/context', data: { provider: 'deepseek', model: 'deepseek-chat', contextWindow: 128_000 } });
  session.append({
    type: 'request/price',
    data: {
      turn: w.turn,
      step: w.step,
      provider: 'deepseek',
      model: 'deepseek-chat',
      quote: { kind: 'known', snapshot: 'genai-prices@0.1.8', source: 'list', priceId: 'deepseek-chat', rates: { inputMtok: 0.27, cacheReadMtok: 0.07, outputMtok: 1.1 } },
      estimatedInputTokens: 1200,
      outputCap: 8192,
      worstCaseUsd: 0.0093352,
    },
  });
  // A failed attempt (chunks only) then a retry in the same step.
  session.append({ type: 'assistant/chunk', data: { turn: w.turn, step: w.step, chunk: { type: 'finish', reason: { kind: 'error', failure: { message: 'busy', code: 'SERVER', status: 503 } } } } });
  session.append({ type: 'llm/retry', data: { turn: w.turn, step: w.step, attempt: 1, delayMs: 500, failure: { message: 'busy', code: 'SERVER', status: 503 } } });
  session.append({
    type: 'llm/warning',
    data: {
      turn: w.turn,
      step: w.step,
      code: 'PROMPT_TRUNCATED',
      message: 'the server counted 2051 prompt tokens for ~15000 sent',
      estimatedPromptTokens: 15_000,
      reportedPromptTokens: 2051,
      contextWindow: 2051,
    },
  });
  // Two deltas only (not packable), then a non-canonical key order run (not packable).
  const seqs: number[] = [];
  seqs.push(session.append({ type: 'assistant/chunk', data: { turn: w.turn, step: w.step, chunk: { type: 'block-start', index: 0, blockType: 'text' } } }).seq);
  seqs.push(session.append({ type: 'assistant/chunk', data: { turn: w.turn, step: w.step, chunk: { type: 'text-delta', index: 0, text: 'ab' } } }).seq);
  seqs.push(session.append({ type: 'assistant/chunk', data: { turn: w.turn, step: w.step, chunk: { type: 'text-delta', index: 0, text: 'cd' } } }).seq);
  for (const text of ['e', 'f', 'g']) {
    seqs.push(session.append({ type: 'assistant/chunk', data: { step: w.step, turn: w.turn, chunk: { index: 0, type: 'text-delta', text } } as never }).seq);
  }
  seqs.push(session.append({ type: 'assistant/chunk', data: { turn: w.turn, step: w.step, chunk: { type: 'block-end', index: 0, block: { type: 'text', text: 'abcdefg' } } } }).seq);
  // A tool call whose name is only on the first delta: the nameless tail still packs.
  const r = w.stream({ toolCalls: [{ id: 'call_w', name: 'write_file', args: ['{"path":', '"a.txt",', '"text":', '"hi"}'] }], nameOnFirstDeltaOnly: true });
  w.assistantMessage({ chunkSeqs: [...seqs, ...r.chunkSeqs], content: [{ type: 'text', text: 'abcdefg' }, ...r.content] });
  session.append({ type: 'approval/asked', data: { id: 'ap1', callId: 'call_w', toolName: 'write_file', reason: 'writes a file' } });
  session.append({ type: 'approval/decided', data: { id: 'ap1', outcome: 'allowed-session' } });
  session.append({ type: 'approval/rule', data: { toolName: 'write_file', approvalId: 'ap1' } });
  const call = w.toolCall('call_w', 'write_file', '{"path":"a.txt","text":"hi"}');
  session.append({ type: 'tool/process', data: { turn: w.turn, step: w.step, callId: 'call_w', pid: 4242, pgid: 4242, start: 'linux:boot:123' } });
  const result = w.toolResult(call, 'x'.repeat(300));
  session.append({ type: 'todo/write', data: { todos: [{ content: 'write a.txt', status: 'completed' }] } });
  session.append({ type: 'instructions/loaded', data: { placement: 'system', files: [{ path: '/w/AGENTS.md', shownPath: 'AGENTS.md', scope: 'project', sha256: 'ab'.repeat(32), bytes: 12 }] } });
  w.stepEnd();
  w.turnEnd({ kind: 'aborted', cause: { kind: 'user' } });
  // Between turns: pruning a tool result, then a compaction transaction.
  session.append({ type: 'compaction/prune', data: { shadowedRange: { start: result.seq, end: result.seq }, shadowedSeqs: [result.seq], shadowedTokenCount: 75 } });
  const pruned = { ...result.data, message: { ...result.data.message, content: [{ ...result.data.message.content[0], content: [{ type: 'text', text: 'x… (pruned)' }] }] } };
  session.append({ type: 'tool/result', data: pruned as never, surfaceOp: { op: 'replace', start: result.seq, end: result.seq }, sourceEventSeqs: [result.seq] });
  const first = session.surface[0]!;
  const second = session.surface[1]!;
  session.append({ type: 'compaction/start', data: { compactionId: 'c1', turn: null } });
  const summary = session.append({
    type: 'compaction/summary',
    data: {
      compactionId: 'c1',
      summary: [{ type: 'text', text: 'summary' }],
      shadowedRange: { start: first, end: second },
      shadowedSeqs: [first, second],
      shadowedTokenCount: 40,
      provider: 'deepseek',
      model: 'deepseek-chat',
    },
  });
  session.append({
    type: 'user/message',
    data: { id: 'compaction-c1', role: 'user', content: [{ type: 'text', text: 'Summary of earlier work.' }], source: { kind: 'compaction', compactionId: 'c1' } },
    surfaceOp: { op: 'replace', start: first, end: second },
    sourceEventSeqs: [summary.seq, first, second],
  });
  session.append({ type: 'compaction/end', data: { compactionId: 'c1', turn: null } });
  session.append({ type: 'import/elided', data: {} });
  session.append({
    type: 'import/foreign',
    data: { format: 'deepseek-harness', type: 'hook/invoked', record: { type: 'hook/invoked', seq: 1, time: 1, data: { point: 'pre-tool' } }, note: 'a reference-runtime log-only event' },
  });
  session.append({ type: 'session/end-seed', data: {} });
  session.append({ type: 'session/takeover', data: { previous: { pid: 4242, host: 'elsewhere', start: 'linux:boot:1', since: 1_790_000_000_000 }, reason: 'exited' } });
  w.completedTurn('third', 3);
  return session;
}

/** Adds an ignorable event of a type this build does not know (only a seed or a store can carry it). */
export function withIgnorableUnknown(events: readonly SessionEvent[]): SessionEvent[] {
  const last = events[events.length - 1]!;
  const unknown = { type: 'plugin/future-thing', seq: events.length, time: last.time + 1, data: { note: 'skip me' }, ignorable: true } as unknown as SessionEvent;
  return [...events, unknown];
}
