/**
 * ImportedLogWriter: where every importer's events go. It gives each event the next seq, checks it
 * against the same relational invariant and surface rules as a live session (so an imported log
 * is as sound as a recorded one), counts what the import summary reports, and hands events to the
 * store in batches — never the whole log at once (constant memory: one batch, the surface's seq
 * list and the open step's calls).
 *
 * The session row is created with the first batch, when the importer has read the header facts
 * (id, creation time, folder) its format carries near the top; if the import fails the partial
 * session is removed, so an import is all or nothing.
 */
import type { TokenUsage } from '../../shared/chunks.js';
import type { EventInput, ForeignFacts, SessionEvent, SessionEventMap, SessionEventType, SessionHeader, SurfaceOp } from '../../shared/events.js';
import type { ImportTokens } from '../../shared/import-summary.js';
import { InvariantChecker, type InvariantState } from '../session/invariant.js';
import { eventShapeProblem } from '../session/event-shapes.js';
import { checkEventCount } from '../session/import-limits.js';
import { closersFor, OpenStateTracker } from '../session/repair.js';
import { Surface } from '../session/surface.js';

/** Where an import writes (the store, seen through the few calls an import needs). */
export interface ImportSink {
  /** True when a session with this id exists. */
  exists(sessionId: string): boolean;
  /** Creates the session row with its first events (one transaction). */
  create(header: SessionHeader, events: readonly SessionEvent[]): void;
  /**
   * Appends a contiguous batch (one transaction). It may be written later, on another thread: a
   * failure may surface at a later call, at `finish` at the latest.
   */
  append(sessionId: string, events: readonly SessionEvent[]): void;
  /** Returns once every batch is stored. @throws what writing any of them met. */
  finish(): void;
  /** Stored events with `from <= seq < to`. */
  readRange(sessionId: string, from: number, to: number): readonly SessionEvent[];
  setTitle(sessionId: string, title: string): void;
  /** Deletes a partial import. */
  remove(sessionId: string): void;
}

/** An event before it has a seq: what importers produce. Times are the source's own (epoch ms). */
export type DraftEvent<K extends SessionEventType = SessionEventType> = {
  [T in K]: {
    readonly type: T;
    readonly time: number;
    readonly data: SessionEventMap[T];
    readonly surfaceOp?: SurfaceOp;
    readonly sourceEventSeqs?: readonly number[];
    readonly ignorable?: true;
  };
}[K];

/** Counts behind the import summary. */
export interface ImportCounts {
  events: number;
  turns: number;
  steps: number;
  userMessages: number;
  assistantMessages: number;
  toolCalls: number;
  toolResults: number;
  unansweredCalls: number;
  rawRecords: number;
  tokens: { input: number; output: number; cacheRead?: number; cacheWrite?: number; reasoning?: number } | undefined;
}

/** Events per store transaction. */
export const IMPORT_BATCH_EVENTS = 500;

/** A first user prompt of at most this many characters becomes the title of an untitled import. */
const TITLE_CHARS = 60;

/**
 * How closers read when an imported log ends inside a turn: `turn/end{source-ended}`, and results
 * for its open calls that say the source log holds no outcome (not that this app crashed).
 */
export interface SourceEnding {
  readonly resultText: string;
}

/** Marks a synthetic tool result an importer wrote for a call its source never answered. */
export const UNANSWERED_CALL_ERROR = { name: 'ToolOutcomeUnknownError', code: 'TOOL_OUTCOME_UNKNOWN' } as const;

export class ImportedLogWriter {
  private readonly checker = new InvariantChecker();
  private readonly surface = new Surface();
  private readonly open = new OpenStateTracker();
  private batch: SessionEvent[] = [];
  private header: SessionHeader | undefined;
  private seq = 0;
  private firstPrompt: string | undefined;
  private loggedTitle: string | undefined;
  readonly counts: ImportCounts = {
    events: 0,
    turns: 0,
    steps: 0,
    userMessages: 0,
    assistantMessages: 0,
    toolCalls: 0,
    toolResults: 0,
    unansweredCalls: 0,
    rawRecords: 0,
    tokens: undefined,
  };

  /**
   * @param headerFor builds the session header when the first batch is written (the importer's
   *   facts so far); called once.
   */
  constructor(
    private readonly sink: ImportSink,
    private readonly headerFor: () => SessionHeader,
  ) {}

  /** The seq the next event gets. */
  get nextSeq(): number {
    return this.seq;
  }

  /** Open turn, step and pending calls right now. */
  get state(): InvariantState & { readonly lastStep: number } {
    return this.checker;
  }

  /** Current surface node seqs in model order (live array; do not mutate). */
  get surfaceNodes(): readonly number[] {
    return this.surface.nodes;
  }

  /** The session id, once the session row exists. */
  get sessionId(): string | undefined {
    return this.header?.id;
  }

  /** The first person-typed prompt (title fallback). */
  get titleCandidate(): string | undefined {
    return this.loggedTitle ?? this.firstPrompt;
  }

  /** An event already written by this import. */
  eventAt(seq: number): SessionEvent | undefined {
    if (seq < 0 || seq >= this.seq) return undefined;
    const first = this.batch[0];
    if (first && seq >= first.seq) return this.batch[seq - first.seq];
    if (!this.header) return undefined;
    return this.sink.readRange(this.header.id, seq, seq + 1)[0];
  }

  /** Why `draft` would be refused as the next event (payload shape, invariant or surface rule), or undefined. */
  violation(draft: DraftEvent): string | undefined {
    const event = this.envelope(draft);
    // A file may put any JSON in any field; what every reader relies on is checked first (docs/security.md).
    const shape = eventShapeProblem(event);
    if (shape !== undefined) return shape;
    try {
      this.surface.plan(event, (s) => this.eventAt(s));
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
    return this.checker.violation(event);
  }

  /**
   * Writes `draft` as the next event.
   * @throws SessionError when it breaks the invariant or a surface rule (nothing is written);
   *   ImportLimitError (`maxEvents`) when the session would hold more events than an import may.
   */
  append<K extends SessionEventType>(draft: DraftEvent<K>): SessionEvent<K> {
    checkEventCount(this.seq + 1);
    const event = this.envelope(draft as DraftEvent);
    const plan = this.surface.plan(event, (s) => this.eventAt(s));
    this.checker.validate(event);
    this.checker.commit(event);
    this.surface.apply(plan);
    this.open.note(event);
    this.seq++;
    this.count(event);
    this.batch.push(event);
    if (this.batch.length >= IMPORT_BATCH_EVENTS) this.flush();
    return event as SessionEvent<K>;
  }

  /**
   * Closes a log that ends inside a turn, the way crash recovery does (docs/architecture.md §8): an
   * outcome-unknown result per unanswered call, `step/end`, `turn/end{interrupted}`, all stamped
   * with `time` (the source's last time). Returns how many events it wrote.
   */
  closeOpenTurn(time: number, mark?: ForeignFacts, ending?: SourceEnding): number {
    return this.writeClosers(closersFor(this.open.state, this.seq), time, mark, ending);
  }

  /** Like {@link closeOpenTurn} but stops before `turn/end` (the turn stays open). */
  closeOpenStep(time: number, mark?: ForeignFacts): number {
    return this.writeClosers(
      closersFor(this.open.state, this.seq).filter((c) => c.type !== 'turn/end'),
      time,
      mark,
    );
  }

  /**
   * Writes closers; `mark` (e.g. `{format, synthesized: true}`) goes on their `step/end` and
   * `turn/end`; `ending` makes them say the source log ends here (not that the app crashed).
   */
  private writeClosers(closers: readonly EventInput[], time: number, mark: ForeignFacts | undefined, ending?: SourceEnding): number {
    for (const closer of closers) {
      let out: EventInput = mark && (closer.type === 'step/end' || closer.type === 'turn/end') ? ({ ...closer, data: { ...closer.data, foreign: mark } } as EventInput) : closer;
      if (ending && out.type === 'turn/end') out = { ...out, data: { ...out.data, reason: { kind: 'source-ended' } } };
      if (ending && out.type === 'tool/result') {
        const message = out.data.message;
        const [block] = message.content;
        out = { ...out, data: { ...out.data, message: { ...message, content: [{ ...block, content: [{ type: 'text', text: ending.resultText }] }] } } };
      }
      this.append({ ...out, time } as DraftEvent);
    }
    return closers.length;
  }

  /** Writes the pending batch (creating the session row first if needed). */
  flush(): void {
    if (this.batch.length === 0 && this.header) return;
    const batch = this.batch;
    this.batch = [];
    if (!this.header) {
      this.header = this.headerFor();
      this.sink.create(this.header, batch);
    } else {
      this.sink.append(this.header.id, batch);
    }
  }

  /** Flushes, sets a title for an untitled session, and returns the final header. */
  finish(): SessionHeader {
    this.flush();
    this.sink.finish();
    const header = this.header!;
    if (header.title === undefined && this.titleCandidate !== undefined) {
      this.sink.setTitle(header.id, this.titleCandidate);
      this.header = { ...header, title: this.titleCandidate };
    }
    return this.header!;
  }

  /** Removes whatever this import wrote (after a failure). */
  discard(): void {
    this.batch = [];
    if (this.header) {
      try {
        this.sink.remove(this.header.id);
      } catch {
        // The session may already be gone.
      }
    }
  }

  private envelope(draft: DraftEvent): SessionEvent {
    const event: Record<string, unknown> = { seq: this.seq, type: draft.type, time: draft.time, data: draft.data };
    if (draft.ignorable) event['ignorable'] = true;
    if (draft.surfaceOp !== undefined) event['surfaceOp'] = draft.surfaceOp;
    if (draft.sourceEventSeqs !== undefined) event['sourceEventSeqs'] = draft.sourceEventSeqs;
    return event as unknown as SessionEvent;
  }

  private count(event: SessionEvent): void {
    const c = this.counts;
    c.events++;
    switch (event.type) {
      case 'turn/start':
        c.turns++;
        break;
      case 'step/start':
        c.steps++;
        break;
      case 'user/message': {
        const kind = event.data.source?.kind;
        if (kind !== 'compaction') c.userMessages++;
        if (kind === 'user' && this.firstPrompt === undefined && event.surfaceOp === 'append') {
          const line = (Array.isArray(event.data.content) ? event.data.content : [])
            .map((b) => (b.type === 'text' ? b.text : ''))
            .join('')
            .trim()
            .split('\n')[0]!
            .trim();
          if (line !== '') this.firstPrompt = line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 3)}…` : line;
        }
        break;
      }
      case 'assistant/message':
        c.assistantMessages++;
        addTokens(c, event.data.usage);
        break;
      case 'tool/call':
        c.toolCalls++;
        break;
      case 'tool/result':
        if (event.surfaceOp !== 'append') break;
        if (event.data.foreign?.['unanswered'] === true || isRecoveryCloser(event)) c.unansweredCalls++;
        else c.toolResults++;
        break;
      case 'session/title':
        if (typeof event.data.title === 'string' && event.data.title.trim() !== '') this.loggedTitle = event.data.title;
        break;
      case 'import/foreign':
        c.rawRecords++;
        break;
      default:
        break;
    }
  }
}

function isRecoveryCloser(event: SessionEvent<'tool/result'>): boolean {
  const code = event.data.error?.code;
  return (code === 'TOOL_OUTCOME_UNKNOWN' || code === 'TOOL_NOT_STARTED') && event.data.message.id.startsWith('interrupted-tool-result-');
}

function addTokens(c: ImportCounts, usage: TokenUsage | undefined): void {
  if (!usage || typeof usage.inputTokens !== 'number' || typeof usage.outputTokens !== 'number') return;
  const t = (c.tokens ??= { input: 0, output: 0 });
  t.input += usage.inputTokens;
  t.output += usage.outputTokens;
  if (typeof usage.cacheReadTokens === 'number') t.cacheRead = (t.cacheRead ?? 0) + usage.cacheReadTokens;
  if (typeof usage.cacheWriteTokens === 'number') t.cacheWrite = (t.cacheWrite ?? 0) + usage.cacheWriteTokens;
  if (typeof usage.reasoningTokens === 'number') t.reasoning = (t.reasoning ?? 0) + usage.reasoningTokens;
}

/** Token totals as the summary reports them. */
export function summaryTokens(counts: ImportCounts): ImportTokens | undefined {
  return counts.tokens;
}
