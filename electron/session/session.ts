/**
 * Session: the append-only, typed event log of one agent session and its projections (docs/architecture.md §3).
 *
 * Pure and synchronous: no I/O, no Node APIs. The clock is passed in. Persistence observes appends
 * through {@link Session.onDidAppend}; the store never calls back into the session.
 */
import { Emitter, type Event } from '../../shared/event.js';
import { SessionError, ForklineError } from '../../shared/errors.js';
import { KNOWN_EVENT_TYPES, type EventInput, type RequestHeader, type SessionEvent, type SessionEventType, type SessionHeader } from '../../shared/events.js';
import { IllFormedTextError, NonJsonValueError, deepFreezeJson, toFrozenJson, type FrozenJsonReport } from '../../shared/json.js';
import type { Message } from '../../shared/messages.js';
import { InvariantChecker, type InvariantState } from './invariant.js';
import { projectEventMessage } from './project-message.js';
import { Surface, type SurfaceReplacement } from './surface.js';

/**
 * How the relational invariant is applied: `enforce` rejects a violating append (tests and
 * development builds; the default), `report` records violations in {@link Session.warnings}
 * (used for imported foreign logs), `off` skips checking.
 */
export type InvariantMode = 'enforce' | 'report' | 'off';

/**
 * What `append` does with a string that holds a lone surrogate (half a UTF-16 surrogate pair, not
 * encodable as UTF-8; a provider that validates UTF-8 would refuse every later request): `reject`
 * throws SessionError ILL_FORMED_TEXT (tests and development: `FORKLINE_INVARIANTS=enforce`);
 * `repair` replaces each one with U+FFFD and records a note in {@link Session.warnings} and through
 * `onNote` (production).
 */
export type IllFormedTextMode = 'reject' | 'repair';

export interface SessionOptions {
  readonly header: SessionHeader;
  /**
   * Events inherited from a store, a fork parent or an import. Must be contiguous from seq 0.
   * Their data is trusted to be JSON (it came from `JSON.parse` or another session) and is frozen
   * in place; envelopes, surface ops and invariants are validated.
   */
  readonly seed?: readonly SessionEvent[];
  /**
   * Append `session/end-seed` after a non-empty seed unless the seed already ends with one
   * (resume, fork). Default false.
   */
  readonly markEndSeed?: boolean;
  /** Epoch-ms clock; defaults to `Date.now`. */
  readonly now?: () => number;
  readonly invariants?: InvariantMode;
  /** Lone surrogates in appended data: `reject` (default) or `repair`. */
  readonly illFormedText?: IllFormedTextMode;
  /** Receives a note for every repaired append (e.g. the process log). */
  readonly onNote?: (note: string) => void;
}

export class Session {
  readonly header: SessionHeader;
  /** Seq of the first event written by this instance (= seed length). */
  readonly firstLiveSeq: number;
  private readonly log: SessionEvent[] = [];
  private readonly surfaceState = new Surface();
  private readonly checker = new InvariantChecker();
  private readonly invariantMode: InvariantMode;
  private readonly illFormedText: IllFormedTextMode;
  private readonly onNote: ((note: string) => void) | undefined;
  private readonly now: () => number;
  private readonly appendEmitter = new Emitter<SessionEvent>();
  private readonly warningList: string[] = [];
  private appending = false;
  private snapshot: readonly SessionEvent[] | undefined;
  private derived: Message[] = [];
  private derivedNodes = 0;
  private derivedGeneration = 0;
  private lastHeaderSeq = -1;

  /** Fires after each committed append; listener failures are contained. */
  readonly onDidAppend: Event<SessionEvent> = this.appendEmitter.event;

  /**
   * @throws SessionError when the seed is not contiguous, names an unknown non-ignorable type, or
   * breaks the surface rules. Relational invariant violations in a seed are recorded in
   * {@link warnings}, never refused (committed history cannot be un-written).
   */
  constructor(options: SessionOptions) {
    this.header = deepFreezeJson({ ...options.header });
    this.now = options.now ?? Date.now;
    this.invariantMode = options.invariants ?? 'enforce';
    this.illFormedText = options.illFormedText ?? 'reject';
    this.onNote = options.onNote;
    for (const event of options.seed ?? []) this.commitSeedEvent(event);
    this.firstLiveSeq = this.log.length;
    if (options.markEndSeed && this.log.length > 0 && needsEndSeed(this.log)) {
      this.append({ type: 'session/end-seed', data: {} });
    }
  }

  get id(): string {
    return this.header.id;
  }
  /** Number of events = the seq the next append gets. */
  get length(): number {
    return this.log.length;
  }
  /** A frozen snapshot of the log; it never grows after later appends. */
  get events(): readonly SessionEvent[] {
    this.snapshot ??= Object.freeze(this.log.slice());
    return this.snapshot;
  }
  /** Events from `fromSeq` (inclusive) to the end, as a fresh array. */
  eventsFrom(fromSeq: number): SessionEvent[] {
    return this.log.slice(Math.max(0, fromSeq));
  }
  eventAt(seq: number): SessionEvent | undefined {
    return this.log[seq];
  }
  get lastEvent(): SessionEvent | undefined {
    return this.log[this.log.length - 1];
  }
  /** Invariant violations recorded in `report` mode (seed and live). */
  get warnings(): readonly string[] {
    return this.warningList;
  }
  /** What is open right now (turn, step, pending calls). */
  get state(): InvariantState {
    return this.checker;
  }
  /** Current surface node seqs in model order. */
  get surface(): readonly number[] {
    return this.surfaceState.nodes;
  }
  get replaceGeneration(): number {
    return this.surfaceState.replaceGeneration;
  }
  get replacements(): readonly SurfaceReplacement[] {
    return this.surfaceState.replacements;
  }

  /**
   * Appends one event synchronously: validates and deep-freezes `data` (rejecting non-JSON values
   * and naming the event type), checks the surface op, provenance and invariant, commits with the
   * next seq and the clock's time, then notifies observers.
   * Strings holding a lone surrogate are refused or repaired per {@link IllFormedTextMode}.
   * @throws SessionError (NON_JSON_DATA, ILL_FORMED_TEXT, INVALID_EVENT, INVALID_SURFACE_OP,
   *   INVALID_PROVENANCE, INVARIANT_VIOLATION, REENTRANT_APPEND); nothing is committed when it throws.
   */
  append<K extends SessionEventType>(input: EventInput<K>): SessionEvent<K> {
    if (this.appending) {
      throw new SessionError('REENTRANT_APPEND', `append of ${input.type} from inside an append observer of session ${this.id}`);
    }
    if (!KNOWN_EVENT_TYPES.has(input.type)) {
      throw new SessionError('INVALID_EVENT', `unknown event type ${String(input.type)}`);
    }
    let event: SessionEvent;
    const report: FrozenJsonReport | undefined = this.illFormedText === 'repair' ? { repaired: [] } : undefined;
    try {
      // The envelope is built directly (its own fields are ours or checked here); only the
      // caller-owned parts are validated and copied.
      const time = this.now();
      if (!Number.isFinite(time) || Object.is(time, -0)) throw new NonJsonValueError('$.time', String(Object.is(time, -0) ? '-0' : time), input.type);
      const envelope: Record<string, unknown> = { seq: this.log.length, type: input.type, time, data: toFrozenJson(input.data, input.type, ['data'], this.illFormedText, report) };
      if (input.surfaceOp !== undefined) envelope['surfaceOp'] = toFrozenJson(input.surfaceOp, input.type, ['surfaceOp']);
      if (input.sourceEventSeqs !== undefined) envelope['sourceEventSeqs'] = toFrozenJson(input.sourceEventSeqs, input.type, ['sourceEventSeqs']);
      event = Object.freeze(envelope) as unknown as SessionEvent;
    } catch (error) {
      if (error instanceof NonJsonValueError) {
        throw new SessionError('NON_JSON_DATA', error.message, { cause: error });
      }
      if (error instanceof IllFormedTextError) {
        throw new SessionError('ILL_FORMED_TEXT', error.message, { cause: error });
      }
      throw error;
    }
    this.commit(event, 'enforce-live');
    if (report !== undefined && report.repaired.length > 0) {
      const note = `seq ${event.seq} ${event.type}: replaced lone surrogates with U+FFFD at ${report.repaired.join(', ')}`;
      this.warningList.push(note);
      try {
        this.onNote?.(note);
      } catch {
        // A failing note sink must not undo a committed append.
      }
    }
    this.appending = true;
    try {
      this.appendEmitter.fire(event);
    } finally {
      this.appending = false;
    }
    return event as SessionEvent<K>;
  }

  /** Appends several events in order (each validated as by {@link append}). */
  appendAll(inputs: readonly EventInput[]): SessionEvent[] {
    return inputs.map((input) => this.append(input));
  }

  private commitSeedEvent(raw: SessionEvent): void {
    if (raw.seq !== this.log.length) {
      throw new SessionError('INVALID_EVENT', `seed event at index ${this.log.length} has seq ${String(raw.seq)}`);
    }
    if (typeof raw.type !== 'string' || (!KNOWN_EVENT_TYPES.has(raw.type) && raw.ignorable !== true)) {
      throw new SessionError('INVALID_EVENT', `seed event ${raw.seq} has unknown type ${String(raw.type)}`);
    }
    if (!Number.isFinite(raw.time)) throw new SessionError('INVALID_EVENT', `seed event ${raw.seq} has no time`);
    this.commit(deepFreezeJson(raw), 'seed');
  }

  private commit(event: SessionEvent, origin: 'seed' | 'enforce-live'): void {
    const plan = this.surfaceState.plan(event, (seq) => this.log[seq]);
    // Committed history is never refused for a relational violation (it cannot be un-written):
    // seeds are checked in report mode; live appends follow the configured mode.
    const mode: InvariantMode = origin === 'seed' && this.invariantMode === 'enforce' ? 'report' : this.invariantMode;
    if (mode === 'enforce') {
      this.checker.validate(event);
      this.checker.commit(event);
    } else if (mode === 'report') {
      const violation = this.checker.violation(event);
      if (violation !== undefined) this.warningList.push(violation);
      this.checker.force(event);
    } else {
      this.checker.force(event);
    }
    this.log.push(event);
    this.snapshot = undefined;
    this.surfaceState.apply(plan);
    if (event.type === 'request/header') this.lastHeaderSeq = event.seq;
  }

  /**
   * Folds the current surface into provider messages. Deterministic; incremental for appends
   * (only new surface nodes are projected) and rebuilt after a replacement. Returns a fresh array
   * each call; the message objects are shared and frozen.
   */
  deriveMessages(): Message[] {
    const nodes = this.surfaceState.nodes;
    if (this.derivedGeneration !== this.surfaceState.replaceGeneration) {
      this.derived = [];
      this.derivedNodes = 0;
      this.derivedGeneration = this.surfaceState.replaceGeneration;
    }
    for (; this.derivedNodes < nodes.length; this.derivedNodes++) {
      const message = projectEventMessage(this.log[nodes[this.derivedNodes]!]!);
      if (message !== undefined) this.derived.push(message);
    }
    return this.derived.slice();
  }

  /** The latest logged request header (the request envelope), if any. */
  requestHeader(): RequestHeader | undefined {
    if (this.lastHeaderSeq < 0) return undefined;
    return (this.log[this.lastHeaderSeq] as SessionEvent<'request/header'>).data.header;
  }

  /** Highest turn number started in this log (0 when none). */
  get lastTurn(): number {
    return this.checker.lastTurn;
  }

  dispose(): void {
    this.appendEmitter.dispose();
  }
}

/** True when `error` is one of the session's typed errors. */
export function isSessionError(error: unknown): error is SessionError {
  return ForklineError.isInstance(error) && error.name === 'SessionError';
}

/**
 * Log-only events that do not start new history: a resume right after them continues the run
 * an earlier `session/end-seed` already marks (e.g. a fork titled or given a policy before its
 * first turn), so no second boundary is written.
 */
const BOUNDARY_NEUTRAL_TYPES: ReadonlySet<string> = new Set(['session/title', 'approval/policy', 'approval/rule', 'request/header', 'request/context', 'session/takeover', 'instructions/loaded']);

/** Whether a resume must mark where the loaded history ends: anything but neutral events since the last boundary. */
function needsEndSeed(log: readonly SessionEvent[]): boolean {
  for (let i = log.length - 1; i >= 0; i--) {
    const type = log[i]!.type as string;
    if (type === 'session/end-seed') return false;
    if (!BOUNDARY_NEUTRAL_TYPES.has(type)) return true;
  }
  return true;
}
