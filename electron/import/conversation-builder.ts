/**
 * ConversationBuilder: turns, steps, messages and tool calls for importers of formats that have no
 * event log of their kind (Claude Code, Codex, OpenHands). Each importer decides where its source
 * starts a turn or a step and what each record says; the builder writes our events in a valid
 * order (docs/architecture.md §3–§4): it opens the turn and step an event needs, answers calls the source never
 * answered (outcome unknown) before their step closes, and stamps every event with the source's own
 * time — never a clock of ours.
 */
import type { TokenUsage } from '../../shared/chunks.js';
import type { ForeignFacts, TurnEndReason } from '../../shared/events.js';
import type { JsonValue } from '../../shared/json.js';
import type { AssistantBlock, TextBlock, ToolSchema, UserMessageSource } from '../../shared/messages.js';
import type { ImportFormatId } from '../../shared/import-summary.js';
import { UNANSWERED_CALL_ERROR, type ImportedLogWriter } from './log-writer.js';
import { RawRowCounter } from './record-importer.js';

/** Text the model sees for a call whose result the imported log does not contain. */
export function unansweredCallText(format: string): string {
  return (
    `No result for this tool call is recorded in the imported ${format} log: it may have run, been refused or been interrupted. ` +
    'Verify its effect before relying on it, or call it again if it is read-only.'
  );
}

interface OpenCall {
  /** Our id: the source's, or `<source id>~<n>` when the source used that id before (see {@link ConversationBuilder.assistantMessage}). */
  readonly callId: string;
  /** The id the source gives it (what its results name). */
  readonly sourceId: string;
  readonly name: string;
  readonly arguments: string;
  toolCallSeq?: number;
  answered: boolean;
}

export class ConversationBuilder {
  /** Records kept raw so far, by type (the summary's warning: {@link rawRowsWarning}). */
  private readonly rawRows = new RawRowCounter();
  private turn = 0;
  private step = 0;
  private turnOpen = false;
  private stepOpen = false;
  /** Calls of the open step, in model order. */
  private calls: OpenCall[] = [];
  /** The open step has an assistant message. */
  private stepAnswered = false;
  private lastTime = 0;
  private messageCounter = 0;
  private readonly notes = new Set<string>();
  /** Every call id this import used (a repeated source id gets a suffix, so each call is answered once). */
  private readonly usedCallIds = new Set<string>();
  private renamedCalls = 0;

  constructor(
    readonly writer: ImportedLogWriter,
    readonly format: ImportFormatId,
    /** Prefix for the message ids this import makes (`<format>:<sessionish>`). */
    private readonly idPrefix: string,
  ) {}

  /** The source's latest time seen (epoch ms); events without a time of their own get it. */
  time(t: number | undefined): number {
    if (t !== undefined && Number.isFinite(t)) this.lastTime = t;
    return this.lastTime;
  }

  get inTurn(): boolean {
    return this.turnOpen;
  }
  get inStep(): boolean {
    return this.stepOpen;
  }
  /** The open step already has the model's answer. */
  get stepHasAssistant(): boolean {
    return this.stepAnswered;
  }
  /** Calls of the open step still without a result. */
  get pendingCalls(): readonly string[] {
    return this.calls.filter((c) => !c.answered).map((c) => c.sourceId);
  }
  isPending(callId: string): boolean {
    return this.calls.some((c) => c.sourceId === callId && !c.answered);
  }
  /** Calls whose source id was used before and got a suffix (for the importer's warning). */
  get renamedCallCount(): number {
    return this.renamedCalls;
  }
  /** Notes for the summary's model-view list (each once). */
  get modelViewNotes(): readonly string[] {
    return [...this.notes];
  }
  noteModelView(note: string): void {
    this.notes.add(note);
  }

  private newId(kind: string): string {
    return `${this.idPrefix}:${kind}:${++this.messageCounter}`;
  }

  startTurn(time: number | undefined, foreign?: ForeignFacts, trigger?: JsonValue): void {
    if (this.turnOpen) this.endTurn(time, { kind: 'completed' });
    this.turn++;
    this.step = 0;
    this.turnOpen = true;
    const data = { turn: this.turn, ...(trigger !== undefined ? { trigger } : {}), ...(foreign ? { foreign } : {}) };
    this.writer.append({ type: 'turn/start', time: this.time(time), data });
  }

  /** Closes the open step (answering its open calls) and the turn. No-op when no turn is open. */
  endTurn(time: number | undefined, reason: TurnEndReason, foreign?: ForeignFacts): void {
    if (!this.turnOpen) return;
    this.endStep(time);
    this.turnOpen = false;
    this.writer.append({ type: 'turn/end', time: this.time(time), data: { turn: this.turn, reason, ...(foreign ? { foreign } : {}) } });
  }

  startStep(time: number | undefined): void {
    if (!this.turnOpen) this.startTurn(time);
    if (this.stepOpen) this.endStep(time);
    this.step++;
    this.stepOpen = true;
    this.stepAnswered = false;
    this.calls = [];
    this.writer.append({ type: 'step/start', time: this.time(time), data: { turn: this.turn, step: this.step } });
  }

  /** Closes the open step; calls the source never answered get an outcome-unknown result first. */
  endStep(time: number | undefined): void {
    if (!this.stepOpen) return;
    const t = this.time(time);
    for (const call of this.calls) {
      if (call.answered) continue;
      this.writeResult(t, call, [{ type: 'text', text: unansweredCallText(this.format) }], true, undefined, { format: this.format, unanswered: true }, UNANSWERED_CALL_ERROR);
    }
    this.stepOpen = false;
    this.calls = [];
    this.writer.append({ type: 'step/end', time: t, data: { turn: this.turn, step: this.step } });
  }

  /**
   * A user-role message the model saw. Opens a turn and a step when none is open; when the open
   * step already has the model's answer, it goes into a new step of the same turn (steering,
   * hook feedback, injected context).
   */
  userMessage(time: number | undefined, content: readonly TextBlock[], source: UserMessageSource): void {
    if (!this.stepOpen || this.stepAnswered) this.startStep(time);
    this.writer.append({
      type: 'user/message',
      time: this.time(time),
      data: { id: this.newId('user'), role: 'user', content, source },
      surfaceOp: 'append',
    });
  }

  /**
   * The model's answer for the open step (a new step when this one already has one). Its tool
   * calls become pending; `toolCall` logs each as it starts.
   */
  assistantMessage(time: number | undefined, content: readonly AssistantBlock[], source: { provider: string; model: string }, usage?: TokenUsage, foreign?: ForeignFacts): void {
    if (!this.stepOpen || this.stepAnswered) this.startStep(time);
    this.stepAnswered = true;
    // A source may give two calls the same id (Codex `call_id`s repeat): each gets an id of its own
    // (`<id>~2`, …), else one result would answer both and a provider would refuse the history.
    // Results naming the source id answer its calls in order.
    content = content.map((block) => {
      if (block.type !== 'tool-call') return block;
      let id = block.id;
      for (let n = 2; this.usedCallIds.has(id); n++) id = `${block.id}~${n}`;
      this.usedCallIds.add(id);
      this.calls.push({ callId: id, sourceId: block.id, name: block.name, arguments: block.arguments, answered: false });
      if (id === block.id) return block;
      this.renamedCalls++;
      return { ...block, id };
    });
    this.writer.append({
      type: 'assistant/message',
      time: this.time(time),
      data: {
        turn: this.turn,
        step: this.step,
        message: { id: this.newId('assistant'), role: 'assistant', content, source: { kind: 'model', provider: source.provider, model: source.model } },
        ...(usage ? { usage } : {}),
        ...(foreign ? { foreign } : {}),
      },
      surfaceOp: 'append',
    });
  }

  /** Logs that a call of the open step's assistant message started. Returns false for an unknown call. */
  toolCall(time: number | undefined, callId: string, foreign?: ForeignFacts): boolean {
    const call = this.calls.find((c) => c.sourceId === callId && c.toolCallSeq === undefined);
    if (!call) return false;
    const event = this.writer.append({
      type: 'tool/call',
      time: this.time(time),
      data: { turn: this.turn, step: this.step, callId: call.callId, name: call.name, arguments: call.arguments, ...(foreign ? { foreign } : {}) },
    });
    call.toolCallSeq = event.seq;
    return true;
  }

  /**
   * A result the source recorded for a call of the open step. Returns false when no such call is
   * pending (the importer keeps the record raw instead).
   */
  toolResult(time: number | undefined, callId: string, content: readonly TextBlock[], isError: boolean, meta?: JsonValue, foreign?: ForeignFacts): boolean {
    const call = this.calls.find((c) => c.sourceId === callId && !c.answered);
    if (!call || !this.stepOpen) return false;
    this.writeResult(this.time(time), call, content, isError, meta, foreign, undefined);
    return true;
  }

  private writeResult(
    time: number,
    call: OpenCall,
    content: readonly TextBlock[],
    isError: boolean,
    meta: JsonValue | undefined,
    foreign: ForeignFacts | undefined,
    error: { readonly name: string; readonly code: string } | undefined,
  ): void {
    if (call.toolCallSeq === undefined) {
      // The source shows the result but not a start of its own: the call started no later than this.
      const started = this.writer.append({ type: 'tool/call', time, data: { turn: this.turn, step: this.step, callId: call.callId, name: call.name, arguments: call.arguments } });
      call.toolCallSeq = started.seq;
    }
    call.answered = true;
    this.writer.append({
      type: 'tool/result',
      time,
      data: {
        turn: this.turn,
        step: this.step,
        message: {
          id: this.newId('tool-result'),
          role: 'user',
          source: { kind: 'tool', callId: call.callId },
          content: [{ type: 'tool-result', toolCallId: call.callId, content, isError }],
        },
        ...(error ? { error } : {}),
        ...(meta !== undefined ? { meta } : {}),
        ...(foreign ? { foreign } : {}),
      },
      surfaceOp: 'append',
      sourceEventSeqs: [call.toolCallSeq],
    });
  }

  /** The request envelope the source recorded (system prompt, tools, model): log-only, inside a turn. */
  requestHeader(time: number | undefined, header: { provider: string; model: string; reasoningEffort?: string; system?: string; tools?: readonly ToolSchema[] }, reason: 'initial' | 'change'): void {
    if (!this.turnOpen) return;
    const config = { provider: header.provider, model: header.model, ...(header.reasoningEffort !== undefined ? { reasoningEffort: header.reasoningEffort } : {}) };
    this.writer.append({
      type: 'request/header',
      time: this.time(time),
      data: {
        reason,
        header: { config, ...(header.system !== undefined && header.system !== '' ? { system: header.system } : {}), ...(header.tools && header.tools.length > 0 ? { tools: header.tools } : {}) },
      },
    });
  }

  /** `kept as raw rows: …` for the import summary, or undefined when none was. */
  rawRowsWarning(): string | undefined {
    return this.rawRows.warning();
  }

  /** A record kept whole as a raw row (log-only; `modelVisible` when it changed what the source's model saw). */
  foreign(time: number | undefined, type: string, record: JsonValue, options: { modelVisible?: boolean; note?: string } = {}): void {
    this.rawRows.note(type);
    this.writer.append({
      type: 'import/foreign',
      time: this.time(time),
      data: { format: this.format, type, record, ...(options.modelVisible ? { modelVisible: true as const } : {}), ...(options.note ? { note: options.note } : {}) },
    });
  }

  /**
   * A compaction the source recorded: what the model saw so far is replaced by `summary` (nothing
   * is deleted from the log; the originals stay visible as shadowed). Writes the transaction
   * `compaction/start` → `compaction/summary` → replacement `user/message` → `compaction/end`.
   */
  compaction(time: number | undefined, compactionId: string, summary: string, rawOutput?: JsonValue): void {
    const t = this.time(time);
    const turn = this.turnOpen ? this.turn : null;
    if (this.stepOpen) this.endStep(t);
    const nodes = this.writer.surfaceNodes.slice();
    this.writer.append({ type: 'compaction/start', time: t, data: { compactionId, turn } });
    if (nodes.length === 0) {
      this.writer.append({ type: 'compaction/end', time: t, data: { compactionId, turn, error: 'nothing was visible to the model before this compaction' } });
      if (summary !== '') this.userMessage(t, [{ type: 'text', text: summary }], { kind: 'plugin', plugin: this.format, form: 'compaction-summary' });
      return;
    }
    this.writer.append({
      type: 'compaction/summary',
      time: t,
      data: {
        compactionId,
        summary: [{ type: 'text', text: summary }],
        shadowedRange: { start: nodes[0]!, end: nodes[nodes.length - 1]! },
        shadowedSeqs: nodes,
        shadowedTokenCount: 0,
        provider: this.format,
        model: 'unknown',
        ...(rawOutput !== undefined ? { rawOutput } : {}),
      },
    });
    this.writer.append({
      type: 'user/message',
      time: t,
      data: { id: this.newId('compaction'), role: 'user', content: [{ type: 'text', text: summary }], source: { kind: 'compaction', compactionId } },
      surfaceOp: { op: 'replace', start: nodes[0]!, end: nodes[nodes.length - 1]! },
      sourceEventSeqs: nodes,
    });
    this.writer.append({ type: 'compaction/end', time: t, data: { compactionId, turn } });
  }

  /**
   * The source's conversation went back: what the model sees from now on is the history up to
   * `keepNodes` surface nodes; the later ones were abandoned (a rewind or an edited prompt).
   * `message` — the prompt that starts the new branch — replaces the abandoned nodes, citing them,
   * so the abandoned messages stay in the log and show as shadowed. Opens a new turn.
   */
  branch(time: number | undefined, keepNodes: number, content: readonly TextBlock[], source: UserMessageSource, foreign?: ForeignFacts): void {
    const nodes = this.writer.surfaceNodes;
    if (keepNodes >= nodes.length) {
      this.startTurn(time, foreign);
      this.userMessage(time, content, source);
      return;
    }
    this.startTurn(time, foreign);
    this.startStep(time);
    const abandoned = nodes.slice(keepNodes);
    this.writer.append({
      type: 'user/message',
      time: this.time(time),
      data: { id: this.newId('user'), role: 'user', content, source },
      surfaceOp: { op: 'replace', start: abandoned[0]!, end: abandoned[abandoned.length - 1]! },
      sourceEventSeqs: abandoned,
    });
  }

  /** Closes whatever is open at the end of the source (a turn still open ends with it: `source-ended`). */
  finish(time: number | undefined): void {
    this.endTurn(time, { kind: 'source-ended' });
  }
}
