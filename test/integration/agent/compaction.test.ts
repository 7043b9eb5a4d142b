/**
 * Compaction through the real loop, client and store: pressure-triggered, overflow-triggered,
 * failure, and manual; the range never splits a tool call from its result; nothing is deleted
 * from the log; the next request carries the summary and the verbatim tail, and still rebuilds
 * byte for byte from the log.
 */
import { writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventsOfType, type SessionEvent } from '../../../shared/events.js';
import type { Message } from '../../../shared/messages.js';
import { COMPACTION_INSTRUCTION, selectCompactableRange } from '../../../electron/agent/compaction.js';
import { Session } from '../../../electron/session/session.js';
import { createHarness, type Harness } from '../../support/agent-harness.js';
import { httpError, startScriptedLlm, textResponse, toolCallResponse, type RecordedRequest, type ScriptedLlm } from '../../support/scripted-llm/index.js';

let llm: ScriptedLlm;
let harness: Harness | undefined;

beforeAll(async () => {
  llm = await startScriptedLlm();
});
afterAll(async () => {
  await llm.close();
});
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  llm.setHandler(undefined);
});

const of = eventsOfType;
const isSummaryRequest = (r: RecordedRequest) => JSON.stringify(r.body).includes('You are acting as a compaction engine');

/** Answers summary requests with a short summary and everything else from the queue. */
function summarizeWith(summary: string | (() => ReturnType<typeof textResponse> | ReturnType<typeof httpError>)) {
  const queue: Parameters<ScriptedLlm['enqueue']>[number][] = [];
  llm.setHandler((request) => {
    if (isSummaryRequest(request)) return typeof summary === 'string' ? textResponse(summary) : summary();
    const next = queue.shift();
    if (!next) throw new Error('no scripted answer left');
    return next;
  });
  return (...steps: Parameters<ScriptedLlm['enqueue']>) => queue.push(...steps);
}

async function bigToolTurns(h: Harness, turns: number, push: (...s: Parameters<ScriptedLlm['enqueue']>) => void): Promise<void> {
  for (let t = 1; t <= turns; t++) {
    writeFileSync(`${h.workspace}/file${t}.txt`, `${'line of text\n'.repeat(300)}`);
    push(toolCallResponse([{ id: `read-${t}`, name: 'read_file', arguments: JSON.stringify({ path: `file${t}.txt` }) }]), textResponse(`file ${t} read`));
    h.agent.followup(`read file${t}.txt`);
    await h.agent.whenIdle();
  }
}

describe('compaction', () => {
  it('compacts under pressure: head replaced by a summary, tail verbatim, nothing deleted, tool pairs intact', async () => {
    harness = await createHarness({ llm, agent: { config: () => ({ provider: 'custom', model: 'scripted-model', contextWindow: 4_000 }) } });
    const push = summarizeWith('- the user had files 1..3 read');
    await bigToolTurns(harness, 4, push);
    const events = harness.events();
    expect(of(events, 'compaction/end').map((e) => e.data.error ?? 'ok')).toEqual(of(events, 'compaction/end').map(() => 'ok'));
    const summary = of(events, 'compaction/summary')[0]!;
    const start = of(events, 'compaction/start').find((e) => e.data.compactionId === summary.data.compactionId)!;
    const replacement = events[summary.seq + 1] as SessionEvent<'user/message'>;
    expect(replacement.type).toBe('user/message');
    expect(replacement.surfaceOp).toEqual({ op: 'replace', start: summary.data.shadowedRange.start, end: summary.data.shadowedRange.end });
    expect(replacement.sourceEventSeqs).toEqual([start.seq, summary.seq, ...summary.data.shadowedSeqs]);
    expect(of(events, 'compaction/end').find((e) => e.data.compactionId === summary.data.compactionId)!.data.error).toBeUndefined();
    // Nothing deleted: every shadowed event is still in the log.
    for (const seq of summary.data.shadowedSeqs) expect(events[seq]!.seq).toBe(seq);
    // The surface starts with the summary and never has a tool result without its call.
    const messages = harness.live.session.deriveMessages();
    expect(messages[0]!.content[0]).toMatchObject({ type: 'text' });
    expect((messages[0]!.content[0] as { text: string }).text).toContain('<compacted-summary>\n- the user had files 1..3 read\n</compacted-summary>');
    assertPaired(messages);
    // The request after the compaction carried the summary, and rebuilds byte-for-byte from the log.
    const after = llm.requests.filter((r) => !isSummaryRequest(r)).at(-1)!;
    expect(after.rawBody).toContain('compacted-summary');
    const prefixEnd = events.findLastIndex((e) => e.type === 'assistant/chunk' && events[e.seq - 1]!.type !== 'assistant/chunk');
    const prefix = new Session({ header: harness.live.session.header, seed: events.slice(0, prefixEnd) });
    expect(JSON.stringify(harness.client.requestBody({ header: prefix.requestHeader()!, messages: prefix.deriveMessages() }))).toBe(after.rawBody);
    // The summariser saw the shadowed messages verbatim plus the instruction, with the logged system prompt.
    const summaryRequest = llm.requests.find(isSummaryRequest)!.body as { messages: { role: string; content: string }[] };
    expect(summaryRequest.messages[0]!.role).toBe('system');
    expect(summaryRequest.messages.at(-1)!.content).toBe(COMPACTION_INSTRUCTION);
    // The store holds the same log (reload works, surface folds the replacement).
    await harness.live.flush();
    const reloaded = new Session({ header: harness.live.session.header, seed: harness.store.readAll(harness.live.session.id) });
    expect(reloaded.deriveMessages()).toEqual(messages);
  });

  it('recovers from CONTEXT_WINDOW_EXCEEDED by compacting and retrying the same step', async () => {
    harness = await createHarness({ llm, agent: { config: () => ({ provider: 'custom', model: 'scripted-model', contextWindow: 1_000_000 }) } });
    const push = summarizeWith('- earlier work summarised');
    await bigToolTurns(harness, 2, push);
    push(
      httpError(400, { error: { message: "This model's maximum context length is 128000 tokens. However, you requested 130000 tokens.", type: 'invalid_request_error' } }),
      textResponse('recovered'),
    );
    harness.agent.followup('continue');
    await harness.agent.whenIdle();
    const events = harness.events();
    const lastTurn = events.filter((e) => e.type === 'turn/start').at(-1)!.seq;
    const tail = events.slice(lastTurn);
    expect(tail.map((e) => e.type)).toContain('compaction/summary');
    expect(of(tail, 'step/start')).toHaveLength(1);
    expect(of(tail, 'turn/end')[0]!.data.reason).toEqual({ kind: 'completed' });
    // The recovery is one more attempt in the same step: logged as a retry without a wait, after a warning.
    expect(of(tail, 'llm/retry').map((e) => [e.data.attempt, e.data.delayMs, e.data.failure.code])).toEqual([[1, 0, 'CONTEXT_WINDOW_EXCEEDED']]);
    expect(of(tail, 'llm/warning').map((e) => e.data.code)).toEqual(['CONTEXT_OVERFLOW_COMPACTED']);
  });

  it('a failed summary closes the bracket with an error, leaves the surface untouched, and the step goes on', async () => {
    harness = await createHarness({ llm, agent: { config: () => ({ provider: 'custom', model: 'scripted-model', contextWindow: 4_000 }) } });
    const push = summarizeWith(() => httpError(400, { error: { message: 'bad summary request' } }));
    await bigToolTurns(harness, 4, push);
    const events = harness.events();
    const ends = of(events, 'compaction/end');
    expect(ends.length).toBeGreaterThan(0);
    expect(ends.every((e) => e.data.error !== undefined)).toBe(true);
    expect(events.some((e) => e.type === 'user/message' && typeof e.surfaceOp === 'object')).toBe(false);
    expect(of(events, 'turn/end').every((e) => e.data.reason.kind === 'completed')).toBe(true);
  });

  it('manual compaction runs from idle as a standalone bracket that consumes no turn number', async () => {
    harness = await createHarness({ llm, agent: { config: () => ({ provider: 'custom', model: 'scripted-model', contextWindow: 1_000_000 }) } });
    const push = summarizeWith('- manual summary');
    await bigToolTurns(harness, 3, push);
    const turnsBefore = harness.live.session.lastTurn;
    const outcome = await harness.agent.compact();
    expect(outcome).toBeDefined();
    const events = harness.events();
    expect(of(events, 'compaction/start').at(-1)!.data.turn).toBeNull();
    expect(harness.live.session.lastTurn).toBe(turnsBefore);
    assertPaired(harness.live.session.deriveMessages());
    push(textResponse('after compaction'));
    harness.agent.followup('next');
    await harness.agent.whenIdle();
    expect(of(harness.events(), 'turn/start').at(-1)!.data.turn).toBe(turnsBefore + 1);
  });

  it('property: the selected range never leaves an unanswered tool call before the cut', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ calls: fc.integer({ min: 0, max: 3 }), size: fc.integer({ min: 1, max: 400 }) }), { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 0, max: 3000 }),
        (steps, retain) => {
          const session = syntheticSession(steps);
          const range = selectCompactableRange(session, retain);
          if (!range) return;
          let open = 0;
          for (const seq of range.shadowedSeqs) {
            const e = session.eventAt(seq)!;
            if (e.type === 'assistant/message') open += e.data.message.content.filter((b) => b.type === 'tool-call').length;
            if (e.type === 'tool/result') open--;
          }
          expect(open).toBe(0);
          expect(range.shadowedSeqs[0]).toBe(session.surface[0]);
        },
      ),
      { numRuns: 200 },
    );
  });
});

function assertPaired(messages: readonly Message[]): void {
  const open = new Set<string>();
  for (const m of messages) {
    if (m.role === 'assistant') for (const b of m.content) if (b.type === 'tool-call') open.add(b.id);
    if (m.role === 'user' && m.source.kind === 'tool') {
      expect(open.has(m.source.callId)).toBe(true);
      open.delete(m.source.callId);
    }
  }
  expect([...open]).toEqual([]);
}

/** A closed-turn log: per step a user message, an assistant message with N calls, their results. */
function syntheticSession(steps: readonly { calls: number; size: number }[]): Session {
  let t = 0;
  const session = new Session({ header: { version: 0, id: 's', createdAt: 0 }, now: () => ++t });
  steps.forEach((s, i) => {
    const turn = i + 1;
    session.append({ type: 'turn/start', data: { turn } });
    session.append({ type: 'step/start', data: { turn, step: 1 } });
    session.append({ type: 'user/message', data: { id: `u${i}`, role: 'user', content: [{ type: 'text', text: 'x'.repeat(s.size) }], source: { kind: 'user' } }, surfaceOp: 'append' });
    const calls = Array.from({ length: s.calls }, (_, k) => ({ type: 'tool-call' as const, id: `c${i}-${k}`, name: 'read_file', arguments: '{}' }));
    session.append({
      type: 'assistant/message',
      data: { turn, step: 1, message: { id: `a${i}`, role: 'assistant', content: [{ type: 'text', text: 'y'.repeat(s.size) }, ...calls], source: { kind: 'model', provider: 'p', model: 'm' } } },
      surfaceOp: 'append',
      sourceEventSeqs: [],
    });
    for (const call of calls) {
      const c = session.append({ type: 'tool/call', data: { turn, step: 1, callId: call.id, name: 'read_file', arguments: '{}' } });
      session.append({
        type: 'tool/result',
        data: {
          turn,
          step: 1,
          message: {
            id: `r-${call.id}`,
            role: 'user',
            source: { kind: 'tool', callId: call.id },
            content: [{ type: 'tool-result', toolCallId: call.id, content: [{ type: 'text', text: 'z'.repeat(s.size) }], isError: false }],
          },
        },
        surfaceOp: 'append',
        sourceEventSeqs: [c.seq],
      });
    }
    session.append({ type: 'step/end', data: { turn, step: 1 } });
    session.append({ type: 'turn/end', data: { turn, reason: { kind: 'completed' } } });
  });
  return session;
}
