import { describe, expect, it } from 'vitest';
import { normalizeLegacyEvent } from '../../../electron/session/legacy-events.js';
import type { SessionEvent } from '../../../shared/events.js';
import {
  createTimeline,
  firstUserText,
  foldEvents,
  rowEventSeqs,
  rowIndexOfKey,
  rowIndexOfSeq,
  TAIL_CHARS,
  timelineOf,
  type ApprovalRow,
  type CompactionRow,
  type ElidedRow,
  type EventRow,
  type ReasoningRow,
  type RetryRow,
  type StepRow,
  type TextRow,
  type Timeline,
  type TimelineRow,
  type ToolRow,
  type TurnEndRow,
  type TurnRow,
  type UserRow,
} from '../../../shared/timeline.js';
import { fileDiffs, toolPresentation } from '../../../shared/tool-view.js';
import { dshFixtureNames, readDshFixture } from './dsh-log.js';
import { LogBuilder } from './timeline-events.js';

function ofKind<K extends TimelineRow['kind']>(timeline: Timeline, kind: K): Extract<TimelineRow, { kind: K }>[] {
  return timeline.rows.filter((r): r is Extract<TimelineRow, { kind: K }> => r.kind === kind);
}

/** Folds events in pseudo-random batch sizes (deterministic). */
function foldInBatches(events: readonly SessionEvent[], seed: number): Timeline {
  let timeline = createTimeline();
  let i = 0;
  let x = seed;
  while (i < events.length) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const n = 1 + (x % 7);
    timeline = foldEvents(timeline, events.slice(i, i + n));
    i += n;
  }
  return timeline;
}

describe('timeline over the DSH fixtures', () => {
  const names = dshFixtureNames();

  it('finds the five fixtures', () => {
    expect(names).toEqual([
      'dsh_compaction-recovery.session.jsonl',
      'dsh_cordis-tool-round.session.jsonl',
      'dsh_escalation-rejected.session.jsonl',
      'dsh_fs-edit.session.jsonl',
      'dsh_inline-image-prompt.session.jsonl',
    ]);
  });

  for (const name of names) {
    it(`${name}: folding one by one and in random batches equals folding all at once`, () => {
      const { events } = readDshFixture(name);
      const all = timelineOf(events);
      let one = createTimeline();
      for (const e of events) one = foldEvents(one, [e]);
      expect(one.rows).toEqual(all.rows);
      expect(one.lastSeq).toBe(events.length - 1);
      for (const seed of [1, 7, 42]) expect(foldInBatches(events, seed).rows).toEqual(all.rows);
      // Every event is shown by some row or deliberately row-less (none here).
      for (const e of events) expect(rowIndexOfSeq(all, e.seq), `seq ${e.seq} (${e.type})`).toBeGreaterThanOrEqual(0);
    });

    it(`${name}: legacy payload shapes read the same as their normalised form`, () => {
      const { events } = readDshFixture(name);
      const normalised = events.map((e) => normalizeLegacyEvent(e, 'fixture'));
      // The importer invents ids for id-less user messages; everything else must read the same.
      const withoutIds = (t: Timeline) => t.rows.map((r) => (r.kind === 'user' ? { ...r, messageId: undefined } : r));
      expect(withoutIds(timelineOf(normalised))).toEqual(withoutIds(timelineOf(events)));
    });
  }

  it('compaction-recovery: tool round, failed attempt, compaction with shadowed original', () => {
    const { events } = readDshFixture('dsh_compaction-recovery.session.jsonl');
    const t = timelineOf(events);
    expect(t.rows.map((r) => r.kind)).toEqual(['event', 'turn', 'event', 'user', 'step', 'event', 'event', 'event', 'tool', 'step', 'compaction', 'text', 'turn-end']);
    const [turn] = ofKind(t, 'turn');
    expect(turn).toMatchObject({ turn: 1, steps: 2, ended: true, endLabel: 'completed', durationMs: 116 });
    const [tool] = ofKind(t, 'tool');
    expect(tool).toMatchObject({ name: 'bash', callId: 'call_compaction_marker', state: 'done', resultText: 'alpha\n', callSeq: 14, resultSeq: 15, messageSeq: 13, durationMs: 20, isError: false });
    expect(tool!.parallel).toBeUndefined();
    const steps = ofKind(t, 'step');
    expect(steps[0]).toMatchObject({ step: 1, durationMs: 33, usage: { inputTokens: 24, outputTokens: 6 }, finish: 'tool-calls', attempts: 1 });
    // Step 2: attempt 1 failed with CONTEXT_WINDOW_EXCEEDED, compaction ran, attempt 2 succeeded.
    expect(steps[1]).toMatchObject({ step: 2, attempts: 2, finish: 'stop', durationMs: 20, usage: { inputTokens: 20, outputTokens: 4 } });
    const [compaction] = ofKind(t, 'compaction');
    expect(compaction).toMatchObject({
      state: 'done',
      shadowedSeqs: [4],
      replacementSeq: 21,
      summary: 'The request established a durable compaction premise.',
      shadowedTokenCount: 266,
      model: 'deepseek-official/deepseek-v4-flash',
    });
    expect(compaction!.refSeqs).toEqual([19, 20, 21, 22]);
    const [user] = ofKind(t, 'user');
    expect(user).toMatchObject({ seq: 4, sourceKind: 'user', shadowedBy: 21 });
    expect(rowIndexOfSeq(t, 21)).toBe(t.rows.indexOf(compaction!));
    const [text] = ofKind(t, 'text');
    expect(text).toMatchObject({ text: 'COMPACTION RECOVERED', attempt: 2, streaming: false, messageSeq: 28, chunkRange: { first: 23, last: 25 } });
    const [end] = ofKind(t, 'turn-end');
    expect(end).toMatchObject({ label: 'completed', usage: { inputTokens: 44, outputTokens: 10 } });
    expect(end!.crash).toBeUndefined();
    expect(firstUserText(t)).toMatch(/^Establish a durable compaction premise/);
    expect(t.title).toBe('Establish a durable compaction premise');
  });

  it('escalation-rejected: reasoning and tool arguments rebuilt from packed chunks, approval rejected', () => {
    const { events } = readDshFixture('dsh_escalation-rejected.session.jsonl');
    const t = timelineOf(events);
    const reasoning = ofKind(t, 'reasoning');
    expect(reasoning).toHaveLength(2);
    expect(reasoning[0]!.text).toMatch(/^The user wants me to run a specific command/);
    expect(reasoning[0]!.chunkCount).toBe(50); // block-start, 48 deltas, block-end
    const [tool] = ofKind(t, 'tool');
    expect(tool).toMatchObject({ name: 'bash', state: 'error', isError: true, approval: { id: '15cd5a18-13cf-4b4e-bca2-30937c1cd39a', outcome: 'rejected' } });
    expect(JSON.parse(tool!.arguments)).toMatchObject({ sandbox_permissions: 'danger-full-access' });
    expect(tool!.resultText).toMatch(/rejected escalating/);
    const [approval] = ofKind(t, 'approval');
    expect(approval).toMatchObject<Partial<ApprovalRow>>({ toolName: 'bash', outcome: 'rejected', refSeqs: [158, 159] });
    const texts = ofKind(t, 'text');
    expect(texts.map((r) => r.text)).toEqual(['The user rejected the permission escalation, so this command cannot be run.']);
    const users = ofKind(t, 'user');
    expect(users.map((u) => u.sourceKind)).toEqual(['user', 'plugin']);
    const events2 = ofKind(t, 'event').map((e) => e.type);
    expect(events2).toEqual(['agent/inbox/spliced', 'agent/inbox/spliced', 'session/title', 'request/header', 'request/context']);
  });

  it('fs-edit: read then edit (diff meta) then DONE; step tokens include cache reads and reasoning', () => {
    const { events } = readDshFixture('dsh_fs-edit.session.jsonl');
    const t = timelineOf(events);
    const tools = ofKind(t, 'tool');
    expect(tools.map((r) => [r.name, r.state])).toEqual([
      ['read', 'done'],
      ['edit', 'done'],
    ]);
    expect(toolPresentation(tools[1]!.name, tools[1]!.meta)).toBe('diff');
    expect(fileDiffs(tools[1]!.meta)).toEqual([{ path: 'config.txt', oldText: 'mode=DEBUG\nlevel=info', newText: 'mode=RELEASE\nlevel=info' }]);
    expect(JSON.parse(tools[0]!.arguments)).toEqual({ file_path: 'config.txt' });
    const steps = ofKind(t, 'step');
    expect(steps.map((s) => s.usage)).toEqual([
      { inputTokens: 2900, outputTokens: 91, cacheReadTokens: 0, reasoningTokens: 46 },
      { inputTokens: 241, outputTokens: 98, cacheReadTokens: 2816, reasoningTokens: 18 },
      { inputTokens: 244, outputTokens: 17, cacheReadTokens: 2944, reasoningTokens: 14 },
    ]);
    expect(ofKind(t, 'text').map((r) => r.text)).toEqual(['DONE']);
  });

  it('cordis-tool-round: elided seqs become merged ranges; chunk-only steps stay incomplete', () => {
    const { events } = readDshFixture('dsh_cordis-tool-round.session.jsonl');
    const t = timelineOf(events);
    const elided = ofKind(t, 'elided').map((r: ElidedRow) => [r.fromSeq, r.toSeq]);
    expect(elided).toEqual([
      [6, 86],
      [88, 98],
      [109, 130],
      [132, 155],
      [166, 188],
      [190, 202],
      [213, 234],
      [236, 242],
    ]);
    const [first] = ofKind(t, 'elided');
    expect(rowEventSeqs(t, t.rows.indexOf(first!)).total).toBe(81);
    const done = ofKind(t, 'tool').filter((r) => r.state === 'done');
    expect(done.map((r) => r.name)).toEqual(['cordis_inspect', 'cordis_mount', 'cordis_unmount']);
    // Turns 2 and 3 exist only as chunks at the end of the file.
    const trailing = t.rows.filter((r) => (r.kind === 'text' || r.kind === 'tool' || r.kind === 'step') && r.turn > 1);
    expect(trailing.map((r) => r.kind)).toEqual(['step', 'text', 'step', 'tool', 'step', 'text']);
    expect(trailing.filter((r): r is StepRow => r.kind === 'step').map((r) => [r.turn, r.step, r.implicit])).toEqual([
      [2, 1, true],
      [3, 1, true],
      [3, 2, true],
    ]);
    expect((trailing[1] as TextRow).streaming).toBe(true);
    expect(ofKind(t, 'turn')).toHaveLength(1);
  });
});

describe('timeline rules', () => {
  it("shows the message that opens a step above the step's header, folded at once or event by event", () => {
    const log = new LogBuilder();
    log.add('turn/start', { turn: 1 });
    const stepSeq = log.add('step/start', { turn: 1, step: 1 });
    log.add('agent/inbox/spliced', { start: 0, deleteCount: 1, items: [] });
    const userSeq = log.user('what did you change?');
    log.add('request/header', { reason: 'initial', header: { config: { provider: 'p', model: 'm' } } });
    log.chunk(1, 1, { type: 'text-delta', index: 0, text: 'one line' });
    log.message(1, 1, [{ type: 'text', text: 'one line' }]);
    log.add('step/end', { turn: 1, step: 1 });
    // A second message spliced in after the step showed its answer stays where it was logged.
    log.add('step/start', { turn: 1, step: 2 });
    log.chunk(1, 2, { type: 'text-delta', index: 0, text: 'more' });
    const lateSeq = log.user('and a test?');
    const whole = timelineOf(log.events);
    let live = createTimeline();
    for (const event of log.events) live = foldEvents(live, [event]);
    for (const t of [whole, live]) {
      expect(t.rows.map((r) => r.kind)).toEqual(['turn', 'user', 'event', 'step', 'event', 'text', 'step', 'text', 'user']);
      expect(t.rows[rowIndexOfSeq(t, stepSeq)]).toMatchObject({ kind: 'step', step: 1 });
      expect(t.rows[rowIndexOfSeq(t, userSeq)]).toMatchObject({ kind: 'user', text: 'what did you change?' });
      expect(t.rows[rowIndexOfSeq(t, lateSeq)]).toMatchObject({ kind: 'user', text: 'and a test?' });
      expect(rowIndexOfKey(t, `step:${stepSeq}`)).toBe(3);
      expect(t.rows[3]).toMatchObject({ kind: 'step', step: 1, open: false });
    }
  });

  it('streams text and reasoning from deltas, then commits the message text', () => {
    const log = new LogBuilder();
    log.add('turn/start', { turn: 1 });
    log.add('step/start', { turn: 1, step: 1 });
    log.user('hi');
    log.chunk(1, 1, { type: 'block-start', index: 0, blockType: 'reasoning' });
    log.chunk(1, 1, { type: 'reasoning-delta', index: 0, text: 'let me ' });
    log.chunk(1, 1, { type: 'reasoning-delta', index: 0, text: 'think' });
    log.chunk(1, 1, { type: 'text-delta', index: 1, text: 'Hel' });
    let t = timelineOf(log.events);
    const streamingText = ofKind(t, 'text')[0]!;
    expect(streamingText).toMatchObject({ text: 'Hel', streaming: true, index: 1 });
    expect(ofKind(t, 'reasoning')[0]).toMatchObject({ text: 'let me think', tail: 'let me think', streaming: true, chunkCount: 3 });
    const before = t;
    log.chunk(1, 1, { type: 'text-delta', index: 1, text: 'lo' });
    t = foldEvents(t, log.events.slice(-1));
    expect(ofKind(t, 'text')[0]!.text).toBe('Hello');
    // Untouched rows keep their identity; the changed row is a new object.
    expect(t.rows[0]).toBe(before.rows[0]);
    expect(ofKind(t, 'reasoning')[0]).toBe(ofKind(before, 'reasoning')[0]);
    expect(ofKind(t, 'text')[0]).not.toBe(streamingText);
    expect(ofKind(before, 'text')[0]!.text).toBe('Hel');
    log.chunk(1, 1, { type: 'usage', usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 7, reasoningTokens: 2 } });
    log.chunk(1, 1, { type: 'finish', reason: { kind: 'stop' } });
    log.message(
      1,
      1,
      [
        { type: 'reasoning', text: 'let me think' },
        { type: 'text', text: 'Hello!' },
      ],
      { usage: { inputTokens: 10, outputTokens: 6 } },
    );
    log.add('step/end', { turn: 1, step: 1 }, { dt: 100 });
    log.add('turn/end', { turn: 1, reason: { kind: 'completed' } });
    t = foldEvents(t, log.events.slice(t.lastSeq + 1));
    expect(ofKind(t, 'text')[0]).toMatchObject({ text: 'Hello!', streaming: false, messageSeq: 10, interrupted: false, partial: false });
    expect(ofKind(t, 'reasoning')[0]).toMatchObject({ streaming: false, messageSeq: 10 });
    const step = ofKind(t, 'step')[0]!;
    expect(step).toMatchObject({ open: false, usage: { inputTokens: 10, outputTokens: 6 }, chunkCount: 7, finish: 'stop' });
    expect(step.durationMs).toBe(step.endTime! - step.time);
    expect(step.ttftMs).toBe(11); // the user message 10 ms, then the first chunk 1 ms later
    expect(ofKind(t, 'turn-end')[0]).toMatchObject({ label: 'completed', usage: { inputTokens: 10, outputTokens: 6 } });
  });

  it('keeps only the last TAIL_CHARS characters in tail', () => {
    const log = new LogBuilder();
    log.add('step/start', { turn: 1, step: 1 });
    for (let i = 0; i < 100; i++) log.chunk(1, 1, { type: 'reasoning-delta', index: 0, text: `${i % 10}`.repeat(7) });
    const row = ofKind(timelineOf(log.events), 'reasoning')[0]!;
    expect(row.text).toHaveLength(700);
    expect(row.tail).toHaveLength(TAIL_CHARS);
    expect(row.text.endsWith(row.tail)).toBe(true);
  });

  it('marks an interrupted message and a chunk-only partial', () => {
    const log = new LogBuilder();
    log.add('turn/start', { turn: 1 });
    log.add('step/start', { turn: 1, step: 1 });
    log.chunk(1, 1, { type: 'text-delta', index: 0, text: 'partial ans' });
    log.message(1, 1, [{ type: 'text', text: 'partial ans' }], { interrupted: true });
    log.add('step/end', { turn: 1, step: 1 });
    log.add('turn/end', { turn: 1, reason: { kind: 'aborted', cause: { kind: 'user' } } });
    log.add('turn/start', { turn: 2 });
    log.add('step/start', { turn: 2, step: 1 });
    log.chunk(2, 1, { type: 'reasoning-delta', index: 0, text: 'half a thought' });
    log.add('step/end', { turn: 2, step: 1 });
    log.add('turn/end', { turn: 2, reason: { kind: 'interrupted' } });
    const t = timelineOf(log.events);
    expect(ofKind(t, 'text')[0]).toMatchObject({ interrupted: true, partial: false, streaming: false });
    expect(ofKind(t, 'reasoning')[0]).toMatchObject({ partial: true, streaming: false });
    const ends = ofKind(t, 'turn-end');
    expect(ends.map((e) => e.label)).toEqual(['aborted (user)', 'interrupted']);
    expect(ends.map((e) => e.crash)).toEqual([undefined, 'interrupted']);
  });

  it('gives crash badges to synthetic results: TOOL_NOT_STARTED and TOOL_OUTCOME_UNKNOWN', () => {
    const log = new LogBuilder();
    log.add('turn/start', { turn: 1 });
    log.add('step/start', { turn: 1, step: 1 });
    log.user('do two things');
    log.chunk(1, 1, { type: 'tool-call-delta', index: 0, id: 'call_a', name: 'bash', argumentsDelta: '{"command":"ls"}' });
    log.chunk(1, 1, { type: 'tool-call-delta', index: 1, id: 'call_b', name: 'write_file', argumentsDelta: '{"path":"x.txt",' });
    log.chunk(1, 1, { type: 'tool-call-delta', index: 1, id: 'call_b', argumentsDelta: '"content":"x"}' });
    log.message(1, 1, [
      { type: 'tool-call', id: 'call_a', name: 'bash', arguments: '{"command":"ls"}' },
      { type: 'tool-call', id: 'call_b', name: 'write_file', arguments: '{"path":"x.txt","content":"x"}' },
    ]);
    const callB = log.toolCall(1, 1, 'call_b', 'write_file', '{"path":"x.txt","content":"x"}');
    // Crash recovery closers:
    log.toolResult(1, 1, 'call_a', 'never started', { error: { name: 'ToolNotStartedError', code: 'TOOL_NOT_STARTED' } });
    log.toolResult(1, 1, 'call_b', 'outcome unknown', { error: { name: 'ToolOutcomeUnknownError', code: 'TOOL_OUTCOME_UNKNOWN' }, callSeq: callB });
    log.add('step/end', { turn: 1, step: 1 });
    log.add('turn/end', { turn: 1, reason: { kind: 'interrupted' } });
    const t = timelineOf(log.events);
    const tools = ofKind(t, 'tool');
    expect(tools.map((r) => [r.callId, r.crash, r.state, r.errorCode])).toEqual([
      ['call_a', 'not-started', 'error', 'TOOL_NOT_STARTED'],
      ['call_b', 'outcome-unknown', 'error', 'TOOL_OUTCOME_UNKNOWN'],
    ]);
    expect(tools[0]!.durationMs).toBeUndefined();
    expect(tools[0]!.chunkCount).toBe(1);
    expect(tools[1]!.chunkCount).toBe(2);
    expect(tools[1]!.arguments).toBe('{"path":"x.txt","content":"x"}');
    expect(ofKind(t, 'turn-end')[0]!.crash).toBe('interrupted');
  });

  it('detects parallel calls: overlapping [call, result] intervals of one step', () => {
    const log = new LogBuilder();
    log.add('turn/start', { turn: 1 });
    log.add('step/start', { turn: 1, step: 1 });
    log.message(
      1,
      1,
      ['a', 'b', 'c', 'd', 'e'].map((id) => ({ type: 'tool-call', id, name: 'read_file', arguments: `{"path":"${id}"}` })),
    );
    log.toolCall(1, 1, 'a', 'read_file', '{}');
    log.toolCall(1, 1, 'b', 'read_file', '{}');
    let t = timelineOf(log.events);
    // Both running: open intervals overlap.
    expect(
      ofKind(t, 'tool')
        .slice(0, 2)
        .map((r) => r.parallel?.size),
    ).toEqual([2, 2]);
    log.toolResult(1, 1, 'a', 'A');
    log.toolResult(1, 1, 'b', 'B');
    log.toolCall(1, 1, 'c', 'bash', '{}'); // exclusive barrier: runs alone
    log.toolResult(1, 1, 'c', 'C');
    log.toolCall(1, 1, 'd', 'read_file', '{}');
    log.toolCall(1, 1, 'e', 'read_file', '{}');
    log.toolResult(1, 1, 'd', 'D');
    t = foldEvents(t, log.events.slice(t.lastSeq + 1));
    const [a, b, c, d, e] = ofKind(t, 'tool');
    expect(a!.parallel).toEqual({ group: a!.callSeq, size: 2, lane: 0, lanes: 2 });
    expect(b!.parallel).toEqual({ group: a!.callSeq, size: 2, lane: 1, lanes: 2 });
    expect(c!.parallel).toBeUndefined();
    expect(d!.parallel).toMatchObject({ group: d!.callSeq, size: 2, lane: 0 });
    expect(e!.parallel).toMatchObject({ group: d!.callSeq, size: 2, lane: 1 });
    expect(e!.state).toBe('running');
  });

  it('keeps failed attempts, retry rows and the retried attempt apart', () => {
    const log = new LogBuilder();
    log.add('turn/start', { turn: 1 });
    log.add('step/start', { turn: 1, step: 1 });
    log.chunk(1, 1, { type: 'text-delta', index: 0, text: 'Hel' });
    log.chunk(1, 1, { type: 'finish', reason: { kind: 'error', failure: { code: 'SERVER', message: '502 bad gateway', status: 502 } } });
    log.add('llm/retry', { turn: 1, step: 1, attempt: 1, delayMs: 500, failure: { code: 'SERVER', message: '502 bad gateway', status: 502 } });
    log.chunk(1, 1, { type: 'text-delta', index: 0, text: 'Hello' });
    log.chunk(1, 1, { type: 'finish', reason: { kind: 'stop' } });
    log.message(1, 1, [{ type: 'text', text: 'Hello' }]);
    log.add('step/end', { turn: 1, step: 1 });
    log.add('turn/end', { turn: 1, reason: { kind: 'completed' } });
    const t = timelineOf(log.events);
    const texts = ofKind(t, 'text');
    expect(texts.map((r) => [r.attempt, r.text, r.failed?.code, r.messageSeq])).toEqual([
      [1, 'Hel', 'SERVER', undefined],
      [2, 'Hello', undefined, 7],
    ]);
    const [retry] = ofKind(t, 'retry');
    expect(retry).toMatchObject<Partial<RetryRow>>({ attempt: 1, delayMs: 500, failure: { code: 'SERVER', message: '502 bad gateway', status: 502 } });
    expect(ofKind(t, 'step')[0]).toMatchObject<Partial<StepRow>>({ attempts: 2, finish: 'stop' });
  });

  it('badges a call a standing session rule let through without asking, and only such calls', () => {
    const log = new LogBuilder();
    log.add('turn/start', { turn: 1 });
    log.add('step/start', { turn: 1, step: 1 });
    log.toolCall(1, 1, 'a', 'bash', JSON.stringify({ command: 'ls -la' }));
    log.add('approval/asked', { id: 'ap-1', callId: 'a', toolName: 'bash', reason: 'runs a shell command' });
    log.add('approval/decided', { id: 'ap-1', outcome: 'allowed-session' });
    log.add('approval/rule', { toolName: 'bash', commandPrefix: 'ls', approvalId: 'ap-1' });
    log.toolResult(1, 1, 'a', 'file.txt');
    log.toolCall(1, 1, 'b', 'bash', JSON.stringify({ command: 'ls src' }));
    log.toolResult(1, 1, 'b', 'main.ts');
    // Not covered by the rule (another command), refused before it ran, or arguments that are not JSON.
    log.toolCall(1, 1, 'c', 'bash', JSON.stringify({ command: 'rm -rf build' }));
    log.toolResult(1, 1, 'c', 'removed');
    log.toolCall(1, 1, 'd', 'bash', JSON.stringify({ command: 'ls' }));
    log.toolResult(1, 1, 'd', 'the user rejected this call', { error: { name: 'ToolDeniedError', code: 'DENIED' } });
    log.toolCall(1, 1, 'e', 'bash', '{"command": "ls');
    log.toolResult(1, 1, 'e', 'not valid JSON', { error: { name: 'ToolArgsError', code: 'INVALID_ARGS' } });
    const t = timelineOf(log.events);
    const byCall = new Map(ofKind(t, 'tool').map((r) => [r.callId, r]));
    expect(byCall.get('a')).toMatchObject({ approval: { id: 'ap-1', outcome: 'allowed-session' } });
    expect(byCall.get('a')!.allowedByRule).toBeUndefined();
    expect(byCall.get('b')!.allowedByRule).toBe('bash commands starting with `ls`');
    expect(['c', 'd', 'e'].map((id) => byCall.get(id)!.allowedByRule)).toEqual([undefined, undefined, undefined]);
    // The rule keeps its log row.
    expect(t.rows.some((r) => r.kind === 'event' && r.type === 'approval/rule')).toBe(true);
  });

  it('folds back-to-back retries of one step that fail the same way into one row', () => {
    const log = new LogBuilder();
    log.add('turn/start', { turn: 1 });
    log.add('step/start', { turn: 1, step: 1 });
    const refused = { code: 'TRANSPORT', message: 'connect ECONNREFUSED 127.0.0.1:37475' };
    const retrySeqs: number[] = [];
    for (let attempt = 1; attempt <= 5; attempt++) {
      // Each attempt is priced before it is sent (a log-event row, hidden unless "log events" is on).
      log.add('request/price', { turn: 1, step: 1, quote: { kind: 'unknown', reason: 'no price' } });
      log.chunk(1, 1, { type: 'finish', reason: { kind: 'error', failure: refused } });
      retrySeqs.push(log.events.length);
      log.add('llm/retry', { turn: 1, step: 1, attempt, delayMs: attempt * 1000, failure: refused });
    }
    // A different failure starts its own row; so does the same failure after streamed text.
    log.chunk(1, 1, { type: 'finish', reason: { kind: 'error', failure: { code: 'SERVER', message: '502', status: 502 } } });
    log.add('llm/retry', { turn: 1, step: 1, attempt: 6, delayMs: 500, failure: { code: 'SERVER', message: '502', status: 502 } });
    log.chunk(1, 1, { type: 'text-delta', index: 0, text: 'Hel' });
    log.chunk(1, 1, { type: 'finish', reason: { kind: 'error', failure: refused } });
    log.add('llm/retry', { turn: 1, step: 1, attempt: 7, delayMs: 500, failure: refused });
    const t = timelineOf(log.events);
    const retries = ofKind(t, 'retry');
    expect(retries.map((r) => [r.firstAttempt, r.attempt, r.failure.code, r.delayMs])).toEqual([
      [1, 5, 'TRANSPORT', 5000],
      [6, 6, 'SERVER', 500],
      [7, 7, 'TRANSPORT', 500],
    ]);
    expect(retries[0]!.refSeqs).toEqual(retrySeqs);
    // While nothing but failures came, the step has no time to first token; the streamed text later gives it one.
    expect(ofKind(timelineOf(log.events.slice(0, retrySeqs.at(-1)! + 1)), 'step')[0]!.ttftMs).toBeUndefined();
    expect(ofKind(t, 'step')[0]!.ttftMs).toBeGreaterThan(0);
    // Every folded retry event opens the one row in the raw inspector.
    const rowIdx = t.rows.indexOf(retries[0]!);
    for (const seq of retrySeqs) expect(rowIndexOfSeq(t, seq)).toBe(rowIdx);
    // Folding the events one at a time gives the same rows.
    let inc = timelineOf([]);
    for (const event of log.events) inc = foldEvents(inc, [event]);
    expect(ofKind(inc, 'retry').map((r) => [r.firstAttempt, r.attempt, r.refSeqs.length])).toEqual([
      [1, 5, 5],
      [6, 6, 1],
      [7, 7, 1],
    ]);
  });

  it('labels every turn end reason, in both payload shapes', () => {
    const reasons: [unknown, string][] = [
      [{ kind: 'completed' }, 'completed'],
      [{ kind: 'max-tokens' }, 'max-tokens'],
      [{ kind: 'blocked' }, 'blocked'],
      [{ kind: 'aborted', cause: { kind: 'user' } }, 'aborted (user)'],
      [{ kind: 'aborted', cause: { kind: 'hook', reason: 'policy' } }, 'aborted (hook: policy)'],
      [{ kind: 'aborted', reason: { kind: 'disposed' } }, 'aborted (disposed)'],
      [{ kind: 'error', failure: { code: 'RATE_LIMIT', message: 'slow down' } }, 'error RATE_LIMIT'],
      [{ kind: 'error', error: { code: 'AUTH', message: 'bad key' } }, 'error AUTH'],
      [{ kind: 'interrupted' }, 'interrupted'],
    ];
    const log = new LogBuilder();
    reasons.forEach(([reason], i) => {
      log.add('turn/start', { turn: i + 1 });
      log.add('turn/end', { turn: i + 1, reason });
    });
    const t = timelineOf(log.events);
    expect(ofKind(t, 'turn-end').map((r: TurnEndRow) => r.label)).toEqual(reasons.map(([, label]) => label));
    expect(ofKind(t, 'turn').map((r: TurnRow) => [r.ended, r.steps])).toEqual(reasons.map(() => [true, 0]));
    expect(ofKind(t, 'turn-end')[6]!.end.failure).toEqual({ code: 'RATE_LIMIT', message: 'slow down' });
  });

  it('marks max-tokens dropped tool calls', () => {
    const log = new LogBuilder();
    log.add('step/start', { turn: 1, step: 1 });
    log.chunk(1, 1, { type: 'text-delta', index: 0, text: 'I will' });
    log.chunk(1, 1, { type: 'tool-call-delta', index: 1, id: 'c1', name: 'bash', argumentsDelta: '{"comm' });
    log.chunk(1, 1, { type: 'finish', reason: { kind: 'max-tokens' } });
    log.message(1, 1, [{ type: 'text', text: 'I will' }]);
    const t = timelineOf(log.events);
    expect(ofKind(t, 'tool')[0]).toMatchObject({ state: 'dropped', arguments: '{"comm' });
    expect(ofKind(t, 'step')[0]!.finish).toBe('max-tokens');
  });

  it('shows user message sources and plugin labels', () => {
    const log = new LogBuilder();
    log.user('typed');
    log.user('go left', { kind: 'steer' });
    log.user('context', { kind: 'inject' });
    log.user('runtime', { kind: 'plugin', plugin: 'sys', form: 'snapshot' });
    const users = ofKind(timelineOf(log.events), 'user');
    expect(users.map((u: UserRow) => [u.sourceKind, u.sourceLabel])).toEqual([
      ['user', undefined],
      ['steer', undefined],
      ['inject', undefined],
      ['plugin', 'sys · snapshot'],
    ]);
  });

  it('shows which project instruction files are in force, tolerating damaged entries', () => {
    const log = new LogBuilder();
    log.add('instructions/loaded', {
      placement: 'system',
      files: [
        { path: '/p/AGENTS.md', shownPath: '../AGENTS.md', scope: 'project', sha256: 'aa', bytes: 10 },
        { path: '/p/ws/AGENTS.md', shownPath: 'AGENTS.md', scope: 'project', sha256: 'bb', bytes: 40_000, truncated: true },
        { shownPath: 'no path: dropped' },
      ],
    });
    log.add('instructions/loaded', { placement: 'tool-result', callId: 'c9', files: [{ path: '/p/ws/sub/CLAUDE.md', shownPath: 'sub/CLAUDE.md', scope: 'nested', sha256: 'cc' }] });
    log.add('instructions/loaded', { placement: 'system', files: [] });
    const rows = ofKind(timelineOf(log.events), 'instructions');
    expect(rows.map((r) => [r.placement, r.callId, r.files.map((f) => `${f.scope}:${f.shownPath}${f.truncated ? ':cut' : ''}`)])).toEqual([
      ['system', undefined, ['project:../AGENTS.md', 'project:AGENTS.md:cut']],
      ['tool-result', 'c9', ['nested:sub/CLAUDE.md']],
      ['system', undefined, []],
    ]);
  });

  it('end-seed marks a boundary and makes an unmatched compaction stale', () => {
    const log = new LogBuilder();
    log.add('compaction/start', { compactionId: 'c1', turn: null });
    log.add('session/end-seed', {});
    const t = timelineOf(log.events);
    expect(ofKind(t, 'compaction')[0]!.state).toBe('stale');
    expect(t.rows.map((r) => r.kind)).toEqual(['compaction', 'end-seed']);
  });

  it('failed compaction keeps the surface: nothing is shadowed', () => {
    const log = new LogBuilder();
    log.user('original');
    log.add('compaction/start', { compactionId: 'c2', turn: null });
    log.add('compaction/end', { compactionId: 'c2', turn: null, error: 'summary too long' });
    const t = timelineOf(log.events);
    expect(ofKind(t, 'compaction')[0]).toMatchObject<Partial<CompactionRow>>({ state: 'failed', error: 'summary too long' });
    expect(ofKind(t, 'user')[0]!.shadowedBy).toBeUndefined();
  });

  it('pruning rewrites of a tool result mark the tool row', () => {
    const log = new LogBuilder();
    log.add('step/start', { turn: 1, step: 1 });
    log.message(1, 1, [{ type: 'tool-call', id: 'c', name: 'read_file', arguments: '{}' }]);
    const call = log.toolCall(1, 1, 'c', 'read_file', '{}');
    const result = log.toolResult(1, 1, 'c', 'x'.repeat(100), { callSeq: call });
    log.add('compaction/prune', { shadowedRange: { start: result, end: result }, shadowedSeqs: [result], shadowedTokenCount: 25 });
    const pruned = log.add(
      'tool/result',
      {
        turn: 1,
        step: 1,
        message: { id: 'p', role: 'user', source: { kind: 'tool', callId: 'c' }, content: [{ type: 'tool-result', toolCallId: 'c', content: [{ type: 'text', text: 'x…' }], isError: false }] },
      },
      { surfaceOp: { op: 'replace', start: result, end: result }, sourceEventSeqs: [result] },
    );
    const t = timelineOf(log.events);
    const tool = ofKind(t, 'tool')[0]!;
    expect(tool).toMatchObject<Partial<ToolRow>>({ prunedBy: pruned, shadowedBy: pruned, resultText: 'x'.repeat(100) });
    expect(ofKind(t, 'event').map((e: EventRow) => e.type)).toEqual(['compaction/prune']);
    expect(rowIndexOfSeq(t, pruned)).toBe(t.rows.indexOf(tool));
  });

  it('inspector lookups: rowEventSeqs lists a row and its chunks; rowIndexOfKey finds rows', () => {
    const log = new LogBuilder();
    log.add('step/start', { turn: 1, step: 1 });
    log.chunk(1, 1, { type: 'reasoning-delta', index: 0, text: 'a' });
    log.chunk(1, 1, { type: 'text-delta', index: 1, text: 'b' });
    log.chunk(1, 1, { type: 'reasoning-delta', index: 0, text: 'c' });
    log.message(1, 1, [
      { type: 'reasoning', text: 'ac' },
      { type: 'text', text: 'b' },
    ]);
    const t = timelineOf(log.events);
    const reasoning = ofKind(t, 'reasoning')[0] as ReasoningRow;
    const idx = rowIndexOfKey(t, reasoning.key);
    expect(idx).toBe(t.rows.indexOf(reasoning));
    expect(rowEventSeqs(t, idx)).toEqual({ seqs: [1, 3, 4], total: 3 });
    expect(rowEventSeqs(t, idx, 2)).toEqual({ seqs: [1, 3], total: 3 });
    expect(rowIndexOfSeq(t, 2)).toBe(t.rows.indexOf(ofKind(t, 'text')[0]!));
    expect(rowIndexOfSeq(t, 99)).toBe(-1);
  });

  it('ignores duplicates, returns the same value when nothing changed, and refuses stale values', () => {
    const log = new LogBuilder();
    log.add('turn/start', { turn: 1 });
    log.add('step/start', { turn: 1, step: 1 });
    const t1 = timelineOf(log.events);
    expect(foldEvents(t1, log.events)).toBe(t1);
    expect(foldEvents(t1, [])).toBe(t1);
    log.add('step/end', { turn: 1, step: 1 });
    const t2 = foldEvents(t1, log.events);
    expect(t2.lastSeq).toBe(2);
    expect(() => foldEvents(t1, log.events)).toThrow(/latest/);
    expect(t1.rows).toHaveLength(2);
    expect(t1.rows[1]).toMatchObject({ open: true });
  });

  it('never throws on damaged payloads', () => {
    const log = new LogBuilder();
    for (const type of [
      'turn/start',
      'turn/end',
      'step/start',
      'step/end',
      'user/message',
      'assistant/chunk',
      'assistant/message',
      'tool/call',
      'tool/result',
      'llm/retry',
      'approval/asked',
      'approval/decided',
      'compaction/start',
      'compaction/summary',
      'compaction/end',
      'request/header',
      'x/unknown',
    ]) {
      log.add(type, null);
      log.add(type, { chunk: 5, message: 'x', content: 7, reason: 3 });
    }
    const t = timelineOf(log.events);
    expect(t.lastSeq).toBe(log.events.length - 1);
  });

  it('folds 100,000 streamed reasoning chunks incrementally (128 per batch)', () => {
    const log = new LogBuilder();
    log.add('turn/start', { turn: 1 });
    log.add('step/start', { turn: 1, step: 1 });
    log.chunk(1, 1, { type: 'block-start', index: 0, blockType: 'reasoning' });
    const N = 100_000;
    for (let i = 0; i < N; i++) log.chunk(1, 1, { type: 'reasoning-delta', index: 0, text: `w${i % 10} ` }, 0);
    let t = createTimeline();
    t = foldEvents(t, log.events.slice(0, 3));
    let worst = 0;
    const started = performance.now();
    for (let i = 3; i < log.events.length; i += 128) {
      const s = performance.now();
      t = foldEvents(t, log.events.slice(i, i + 128));
      worst = Math.max(worst, performance.now() - s);
    }
    const total = performance.now() - started;
    console.log(`timeline: folded ${N} reasoning chunks in ${Math.ceil(N / 128)} batches: total ${total.toFixed(1)} ms, worst batch ${worst.toFixed(2)} ms`);
    const [row] = ofKind(t, 'reasoning');
    expect(row!.chunkCount).toBe(N + 1);
    expect(row!.text).toHaveLength(N * 3);
    expect(t.rows).toHaveLength(3);
    expect(ofKind(t, 'step')[0]!.chunkCount).toBe(N + 1);
  });
});

describe('timeline: cancelled streams', () => {
  it("an interrupted message takes over the aborted attempt's rows (no duplicate, not marked failed)", () => {
    const log = new LogBuilder();
    log.add('turn/start', { turn: 1 });
    log.add('step/start', { turn: 1, step: 1 });
    log.user('write something long');
    const first = log.chunk(1, 1, { type: 'block-start', index: 0, blockType: 'text' });
    log.chunk(1, 1, { type: 'text-delta', index: 0, text: 'This ans' });
    log.chunk(1, 1, { type: 'text-delta', index: 0, text: 'wer' });
    const last = log.chunk(1, 1, { type: 'finish', reason: { kind: 'aborted', failure: { code: 'ABORTED', message: 'aborted' } } });
    log.add(
      'assistant/message',
      { turn: 1, step: 1, message: { id: 'a1', role: 'assistant', content: [{ type: 'text', text: 'This answer' }], source: { kind: 'model', provider: 'p', model: 'm' } }, interrupted: true },
      { surfaceOp: 'append', sourceEventSeqs: Array.from({ length: last - first + 1 }, (_, i) => first + i) },
    );
    log.add('step/end', { turn: 1, step: 1 });
    log.add('turn/end', { turn: 1, reason: { kind: 'aborted', cause: { kind: 'user' } } });
    const t = timelineOf(log.events);
    const texts = ofKind(t, 'text');
    expect(texts).toHaveLength(1);
    expect(texts[0]).toMatchObject({ text: 'This answer', interrupted: true, streaming: false });
    expect(texts[0]!.failed).toBeUndefined();
  });
});
