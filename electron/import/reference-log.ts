/**
 * Importer for event logs in our own JSONL format and the reference runtime's (DeepSeek Harness
 * uncompressed `session.jsonl`, format version 0; docs/architecture.md §7): a header line, then one event or
 * packed chunk row per line (`electron/session/jsonl.ts` decodes both).
 *
 * What it keeps: every event at its own seq (seq gaps become `import/elided` placeholders; older
 * payload shapes are read through `legacy-events.ts`). Reference-runtime types we do not map are
 * kept whole as `import/foreign` rows (`dsh-vocabulary.ts` says which are model-visible).
 *
 * What it repairs, never inventing what the log does not say: when an event names a turn or step
 * the log never opened (snapshot recordings elide events), the missing `turn/start` / `step/start`
 * is written before it, and a turn left open when the next one starts is closed as `interrupted`
 * with outcome-unknown results for its unanswered calls — the crash-recovery closers (docs/architecture.md §8).
 * Each synthetic event says so (`foreign.synthesized`). Later seqs shift by the number of inserted
 * events, and every seq reference (`sourceEventSeqs`, replace ranges, shadowed seqs, title message
 * seqs) is shifted with them. An event that still breaks the relational invariant is kept as a raw
 * row (model-visible when it was on the surface), so the imported log always passes the same
 * checker as a recorded one.
 */
import { SessionCorruptionError } from '../../shared/errors.js';
import { KNOWN_EVENT_TYPES, SURFACE_EVENT_TYPES, type ForeignFacts, type SessionEvent, type SessionHeader } from '../../shared/events.js';
import type { JsonObject, JsonValue } from '../../shared/json.js';
import type { ImportFormatId } from '../../shared/import-summary.js';
import { checkSeq } from '../session/import-limits.js';
import { decodeEnvelopes, readHeader } from '../session/jsonl.js';
import { normalizeLegacyEvent } from '../session/legacy-events.js';
import { classifyForeignType, DSH_RENAMED_TYPES } from './dsh-vocabulary.js';
import { unansweredCallText } from './conversation-builder.js';
import type { DraftEvent, ImportedLogWriter } from './log-writer.js';
import { RawRowCounter, type HeaderFacts, type RecordImporter } from './record-importer.js';

/** Types that name the open turn and step in their data. */
const STEP_SCOPED: ReadonlySet<string> = new Set(['assistant/chunk', 'assistant/message', 'tool/call', 'llm/retry']);

/** At most this many repairs are described one by one in the warnings; the rest are counted. */
const LISTED_REPAIRS = 10;

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class ReferenceLogImporter implements RecordImporter {
  readonly tolerateDamagedTail = true;
  readonly warnings: string[] = [];
  private readonly notes = new Set<string>();
  private header: SessionHeader | undefined;
  /** Next source seq expected. */
  private expected = 0;
  /** Seq shift breakpoints: source seqs ≥ `from` map to `seq + delta`. */
  private readonly shifts: { readonly from: number; readonly delta: number }[] = [];
  private delta = 0;
  private repairs = 0;
  private demoted = 0;
  private readonly gaps: string[] = [];
  /** Placeholders written for seq gaps so far (capped by the import limits). */
  private elided = 0;
  private lastTime = 0;
  private readonly foreignTypes = new RawRowCounter();

  constructor(
    readonly format: Extract<ImportFormatId, 'forkline' | 'deepseek-harness'>,
    private readonly writer: ImportedLogWriter,
    private readonly fallbackId: string,
  ) {}

  get modelViewNotes(): readonly string[] {
    return [...this.notes];
  }

  closesTurn(value: JsonValue): boolean {
    return isObject(value) && value['type'] === 'turn/end';
  }

  facts(): HeaderFacts {
    const h = this.header;
    if (!h) return {};
    return {
      id: h.id,
      createdAt: h.createdAt,
      ...(h.cwd !== undefined ? { cwd: h.cwd } : {}),
      ...(h.title !== undefined ? { title: h.title } : {}),
      ...(h.parentSession !== undefined ? { parentSession: h.parentSession } : {}),
      ...(h.seedLength !== undefined ? { seedLength: h.seedLength } : {}),
      formatVersion: String(h.version),
    };
  }

  record(value: JsonValue, line: number): void {
    if (!isObject(value)) throw new SessionCorruptionError(this.header?.id ?? '(file)', undefined, `line ${line} is not a JSON object`, { line });
    if (!this.header) {
      if (value['type'] !== 'session') throw new SessionCorruptionError('(file)', undefined, `line ${line}: the first line is not a session header`, { line });
      this.header = readHeader(value, this.fallbackId, this.warnings);
      return;
    }
    let envelopes: SessionEvent[];
    try {
      envelopes = decodeEnvelopes(value);
    } catch (error) {
      throw new SessionCorruptionError(this.header.id, this.expected, `line ${line} is damaged (${error instanceof Error ? error.message : String(error)})`, { cause: error, line });
    }
    for (const envelope of envelopes) this.event(envelope, value, line);
  }

  private event(raw: SessionEvent, line: JsonObject, lineNo: number): void {
    const id = this.header!.id;
    if (raw.seq < this.expected) {
      throw new SessionCorruptionError(id, raw.seq, `line ${lineNo} repeats seq ${raw.seq} (expected ${this.expected})`, { line: lineNo });
    }
    // Checked before the gap is filled: a file cannot make us write placeholders for seqs it does not hold.
    const gap = checkSeq(this.expected, raw.seq, this.elided);
    if (gap > 0) {
      this.elided += gap;
      this.gaps.push(`${this.expected}–${raw.seq - 1}`);
      this.warnings.push(`seqs ${this.expected}–${raw.seq - 1} are missing from the file (before line ${lineNo}); kept as import/elided placeholders`);
      for (; this.expected < raw.seq; this.expected++) this.writer.append({ type: 'import/elided', time: raw.time, data: {} });
    }
    this.expected = raw.seq + 1;
    if (raw.time > 0) this.lastTime = raw.time;
    const time = raw.time;
    const type = DSH_RENAMED_TYPES[raw.type] ?? raw.type;
    const record: JsonValue = line['seq0'] !== undefined ? (raw as unknown as JsonValue) : line;

    if (!KNOWN_EVENT_TYPES.has(type) || type === 'import/elided') {
      if (type === 'import/elided' && this.format === 'forkline') {
        this.writer.append({ type: 'import/elided', time, data: {} });
        return;
      }
      const kept = classifyForeignType(type, raw.surfaceOp !== undefined);
      this.foreignTypes.note(type);
      if (kept.kind === 'model-visible')
        this.notes.add(`${type} events (from seq ${this.mapSeq(raw.seq)}) changed what the source's model saw and are kept as raw rows; continue only from a turn before them`);
      this.writer.append({
        type: 'import/foreign',
        time,
        data: { format: this.format, type: raw.type, record, ...(kept.kind === 'model-visible' ? { modelVisible: true as const } : {}), note: kept.note },
      });
      return;
    }

    const event = this.remap(this.textOnly(normalizeLegacyEvent(this.olderTurnEnd({ ...raw, type } as SessionEvent), id)));
    const draft = toDraft(event);
    this.repairStructure(draft, lineNo);
    const violation = this.writer.violation(draft);
    if (violation === undefined) {
      this.writer.append(draft);
      return;
    }
    this.demote(draft, record, violation);
  }

  /**
   * An older `turn/end` shape records only `{error}` (no turn, no reason): it closes the open turn
   * with that error. The original payload is kept in `foreign`.
   */
  private olderTurnEnd(event: SessionEvent): SessionEvent {
    if (event.type !== 'turn/end') return event;
    const d = event.data as unknown as Record<string, JsonValue>;
    if (d['reason'] !== undefined || d['error'] === undefined) return event;
    const error = d['error'];
    const failure = isObject(error)
      ? { code: typeof error['code'] === 'string' ? error['code'] : 'UNKNOWN', message: typeof error['message'] === 'string' ? error['message'] : '' }
      : { code: 'UNKNOWN', message: String(error) };
    const turn = typeof d['turn'] === 'number' ? d['turn'] : this.writer.state.openTurn;
    return { ...event, data: { turn, reason: { kind: 'error', failure }, foreign: { format: this.format, original: d as JsonObject } } } as unknown as SessionEvent;
  }

  /**
   * A message whose content holds parts we cannot send back (images, files): the message keeps its
   * text and stays in the conversation; the other parts are kept in its `source.foreign` facts
   * (user messages) or the event's `foreign` facts (tool results), and the summary notes that they
   * are not replayed — as the Claude Code and Codex importers do. Without this the whole message
   * would be out of place, and the session could not be continued.
   */
  private textOnly(event: SessionEvent): SessionEvent {
    if (event.type === 'agent/inbox/spliced') {
      // Queued messages (the prompt before its turn claims it) carry the same parts.
      const d = event.data as unknown as JsonObject;
      if (!Array.isArray(d['inserted'])) return event;
      let changed = false;
      const inserted = d['inserted'].map((entry) => {
        if (!isObject(entry)) return entry;
        const adapted = this.textOnly({ ...event, type: 'user/message', data: entry } as unknown as SessionEvent);
        changed ||= adapted.data !== (entry as unknown);
        return adapted.data as unknown as JsonValue;
      });
      return changed ? ({ ...event, data: { ...d, inserted } } as unknown as SessionEvent) : event;
    }
    if (event.type !== 'user/message' && event.type !== 'tool/result') return event;
    const split = (content: unknown): { text: JsonValue[]; other: JsonValue[] } | undefined => {
      if (!Array.isArray(content)) return undefined;
      const text: JsonValue[] = [];
      const other: JsonValue[] = [];
      for (const part of content as JsonValue[]) (isObject(part) && part['type'] === 'text' && typeof part['text'] === 'string' ? text : other).push(part);
      return other.length > 0 ? { text, other } : undefined;
    };
    const kinds = (parts: readonly JsonValue[]): string => [...new Set(parts.map((p) => (isObject(p) && typeof p['type'] === 'string' ? p['type'] : 'non-text')))].join(', ');
    if (event.type === 'user/message') {
      const d = event.data as unknown as JsonObject;
      const parts = split(d['content']);
      if (!parts) return event;
      this.notes.add(`${kinds(parts.other)} parts of messages are not replayed when continuing (the text is; the parts are kept in the event's foreign facts)`);
      const foreign = { format: this.format, parts: parts.other };
      const data = isObject(d['source']) ? { ...d, content: parts.text, source: { ...d['source'], foreign } } : { ...d, content: parts.text, foreign };
      return { ...event, data } as unknown as SessionEvent;
    }
    const d = event.data as unknown as JsonObject;
    const message = isObject(d['message']) ? d['message'] : undefined;
    const blocks = message && Array.isArray(message['content']) ? message['content'] : undefined;
    if (!message || !blocks) return event;
    const dropped: JsonValue[] = [];
    const content = blocks.map((b) => {
      const parts = isObject(b) ? split(b['content']) : undefined;
      if (!isObject(b) || !parts) return b;
      dropped.push(...parts.other);
      return { ...b, content: parts.text };
    });
    if (dropped.length === 0) return event;
    this.notes.add(`${kinds(dropped)} parts of tool results are not replayed when continuing (the text is; the parts are kept in the event's foreign facts)`);
    const foreign = isObject(d['foreign']) ? d['foreign'] : {};
    return { ...event, data: { ...d, message: { ...message, content }, foreign: { format: this.format, ...foreign, parts: dropped } } } as unknown as SessionEvent;
  }

  /** Keeps an event that breaks the invariant as a raw row. */
  private demote(draft: DraftEvent, record: JsonValue, violation: string): void {
    const modelVisible = SURFACE_EVENT_TYPES.has(draft.type) && draft.surfaceOp !== undefined;
    this.demoted++;
    if (this.demoted <= LISTED_REPAIRS) this.warnings.push(`kept ${draft.type} at seq ${this.writer.nextSeq} as a raw row: ${violation}`);
    if (modelVisible) this.notes.add(`a ${draft.type} at seq ${this.writer.nextSeq} could not be placed in the conversation (${violation}); the model view from there on differs from the source's`);
    this.writer.append({
      type: 'import/foreign',
      time: draft.time,
      data: { format: this.format, type: draft.type, record, ...(modelVisible ? { modelVisible: true as const } : {}), note: `out of place in the log: ${violation}` },
    });
  }

  /** Source seq → our seq (shifted by the synthetic events written before it). */
  private mapSeq(seq: number): number {
    let delta = 0;
    for (let i = this.shifts.length - 1; i >= 0; i--) {
      if (this.shifts[i]!.from <= seq) {
        delta = this.shifts[i]!.delta;
        break;
      }
    }
    return seq + delta;
  }

  /** Shifts every seq reference of an event by the synthetic events written so far. */
  private remap(event: SessionEvent): SessionEvent {
    if (this.delta === 0) return event;
    const m = (s: number): number => (typeof s === 'number' ? this.mapSeq(s) : s);
    let out = event as unknown as Record<string, unknown>;
    if (Array.isArray(event.sourceEventSeqs)) out = { ...out, sourceEventSeqs: event.sourceEventSeqs.map(m) };
    const op = event.surfaceOp;
    if (typeof op === 'object' && op !== null) out = { ...out, surfaceOp: { ...op, start: m(op.start), end: m(op.end) } };
    const d = event.data as unknown as Record<string, unknown>;
    const data: Record<string, unknown> = { ...d };
    let changed = false;
    if (Array.isArray(d['shadowedSeqs'])) {
      data['shadowedSeqs'] = (d['shadowedSeqs'] as number[]).map(m);
      changed = true;
    }
    const range = d['shadowedRange'];
    if (isObject(range as JsonValue)) {
      const r = range as { start: number; end: number };
      data['shadowedRange'] = { ...r, start: m(r.start), end: m(r.end) };
      changed = true;
    }
    if (event.type === 'session/title' && Array.isArray(d['messageSeqs'])) {
      data['messageSeqs'] = (d['messageSeqs'] as number[]).map(m);
      changed = true;
    }
    if (changed) out = { ...out, data };
    return out as unknown as SessionEvent;
  }

  /** Writes a synthetic event before the current source event (shifting later seqs). */
  private synth(draft: DraftEvent, why: string): void {
    this.repairs++;
    if (this.repairs <= LISTED_REPAIRS) this.warnings.push(`wrote a ${draft.type} before seq ${this.writer.nextSeq}: ${why}`);
    this.writer.append(draft);
    this.delta++;
    this.shifts.push({ from: this.expected - 1, delta: this.delta });
  }

  private marks(why: string): ForeignFacts {
    return { format: this.format, synthesized: true, reason: why };
  }

  private closeStep(time: number, why: string): void {
    const before = this.writer.nextSeq;
    this.writer.closeOpenStep(time, this.marks(why));
    const written = this.writer.nextSeq - before;
    if (written > 0) {
      this.repairs += written;
      if (this.repairs <= LISTED_REPAIRS) this.warnings.push(`closed step ${this.writer.state.lastStep} of turn ${this.writer.state.openTurn} before seq ${before}: ${why}`);
      this.delta += written;
      this.shifts.push({ from: this.expected - 1, delta: this.delta });
    }
  }

  private closeTurn(time: number, why: string): void {
    const before = this.writer.nextSeq;
    const turn = this.writer.state.openTurn;
    this.writer.closeOpenTurn(time, this.marks(why));
    const written = this.writer.nextSeq - before;
    if (written > 0) {
      this.repairs += written;
      if (this.repairs <= LISTED_REPAIRS) this.warnings.push(`closed turn ${turn} as interrupted before seq ${before}: ${why}`);
      this.delta += written;
      this.shifts.push({ from: this.expected - 1, delta: this.delta });
    }
  }

  private openTurn(turn: number, time: number, why: string): void {
    this.synth({ type: 'turn/start', time, data: { turn, foreign: this.marks(why) } }, why);
  }

  private openStep(turn: number, step: number, time: number, why: string): void {
    this.synth({ type: 'step/start', time, data: { turn, step, foreign: this.marks(why) } }, why);
  }

  /** Writes the turn/step structure the event needs when the log left it out. */
  private repairStructure(draft: DraftEvent, lineNo: number): void {
    const st = this.writer.state;
    const time = draft.time;
    const d = draft.data as unknown as Record<string, unknown>;
    const t = typeof d['turn'] === 'number' ? d['turn'] : undefined;
    const s = typeof d['step'] === 'number' ? d['step'] : undefined;
    switch (draft.type) {
      case 'turn/start':
        if (st.openTurn !== undefined) this.closeTurn(time, `turn ${String(t)} starts at line ${lineNo} while turn ${st.openTurn} never ended`);
        return;
      case 'turn/end':
        if (st.openTurn !== undefined && st.openTurn === t && st.openStep !== undefined) this.closeStep(time, `turn ${t} ends at line ${lineNo} with step ${st.openStep} still open`);
        return;
      case 'step/start':
        if (st.openTurn !== undefined && st.openTurn === t && st.openStep !== undefined) this.closeStep(time, `step ${String(s)} starts at line ${lineNo} with step ${st.openStep} still open`);
        else if (st.openTurn === undefined && t === st.lastTurn + 1) this.openTurn(t, time, `step ${String(s)} of turn ${t} (line ${lineNo}) comes without a turn/start`);
        return;
      case 'user/message':
        // A prompt between turns (recordings that elide the turn's start) opens the next turn.
        if (draft.surfaceOp === 'append' && st.openTurn === undefined) this.openTurn(st.lastTurn + 1, time, `a user message (line ${lineNo}) comes outside any turn`);
        return;
      default:
        break;
    }
    const stepScoped = STEP_SCOPED.has(draft.type) || (draft.type === 'tool/result' && draft.surfaceOp === 'append');
    if (!stepScoped || t === undefined || s === undefined) return;
    if (st.openTurn === undefined) {
      if (t === st.lastTurn + 1 && s === 1) {
        this.openTurn(t, time, `${draft.type} of turn ${t} (line ${lineNo}) comes without a turn/start`);
        this.openStep(t, 1, time, `${draft.type} of turn ${t} step 1 (line ${lineNo}) comes without a step/start`);
      }
      return;
    }
    if (st.openTurn === t) {
      if (st.openStep === s || s !== st.lastStep + 1) return;
      if (st.openStep !== undefined) this.closeStep(time, `${draft.type} of step ${s} (line ${lineNo}) comes while step ${st.openStep} is open`);
      this.openStep(t, s, time, `${draft.type} of step ${s} of turn ${t} (line ${lineNo}) comes without a step/start`);
      return;
    }
    if (t === st.openTurn + 1 && s === 1) {
      this.closeTurn(time, `${draft.type} of turn ${t} (line ${lineNo}) comes while turn ${st.openTurn} never ended`);
      this.openTurn(t, time, `${draft.type} of turn ${t} (line ${lineNo}) comes without a turn/start`);
      this.openStep(t, 1, time, `${draft.type} of turn ${t} step 1 (line ${lineNo}) comes without a step/start`);
    }
  }

  finish(): void {
    if (!this.header) throw new SessionCorruptionError('(file)', undefined, 'the file has no session header line', { line: 1 });
    const before = this.writer.nextSeq;
    // A Forkline log that ends inside a turn is closed exactly as crash recovery closes it (one
    // recovery path, docs/architecture.md §8); other formats' closers say they were synthesized here.
    // The reference runtime's log simply stops there: the turn ends with the source, and its open calls
    // say the log holds no outcome (no crash of ours).
    if (this.format === 'forkline') this.writer.closeOpenTurn(this.lastTime);
    else this.writer.closeOpenTurn(this.lastTime, this.marks('the log ends inside this turn'), { resultText: unansweredCallText(this.format) });
    if (this.writer.nextSeq > before) {
      const as = this.format === 'forkline' ? 'interrupted' : 'ending with the source log';
      this.warnings.push(`the log ends inside turn ${this.writer.state.lastTurn}; closed it as ${as} (${this.writer.nextSeq - before} closing events)`);
    }
    if (this.repairs > LISTED_REPAIRS) this.warnings.push(`${this.repairs} structure events were written in all (turns and steps the log names but never opened or closed)`);
    if (this.demoted > LISTED_REPAIRS) this.warnings.push(`${this.demoted} out-of-place events were kept as raw rows in all`);
    const raw = this.foreignTypes.warning();
    if (raw !== undefined) {
      this.warnings.push(raw);
    }
  }
}

function toDraft(event: SessionEvent): DraftEvent {
  const draft: Record<string, unknown> = { type: event.type, time: event.time, data: event.data };
  if (event.surfaceOp !== undefined) draft['surfaceOp'] = event.surfaceOp;
  if (event.sourceEventSeqs !== undefined) draft['sourceEventSeqs'] = event.sourceEventSeqs;
  if (event.ignorable) draft['ignorable'] = true;
  return draft as unknown as DraftEvent;
}
