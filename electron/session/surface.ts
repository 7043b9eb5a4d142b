/**
 * The surface: the ordered list of seqs of the current model-visible events (docs/architecture.md §3).
 *
 * `append` pushes a node; `{op:'replace', start, end}` swaps the inclusive *positional* range
 * between two current nodes for the new event. Every operation is planned (validated) before it is
 * applied, so a rejected event leaves the surface untouched.
 */
import { SessionError } from '../../shared/errors.js';
import { SURFACE_EVENT_TYPES, type SessionEvent } from '../../shared/events.js';
import { jsonEquals, type JsonValue } from '../../shared/json.js';

/** A committed replacement: which event replaced which positional range and which nodes it shadowed. */
export interface SurfaceReplacement {
  readonly seq: number;
  readonly start: number;
  readonly end: number;
  readonly shadowedSeqs: readonly number[];
}

/** A validated, not yet applied surface transition. */
export type SurfacePlan =
  | { readonly kind: 'none' }
  | { readonly kind: 'append'; readonly seq: number }
  | { readonly kind: 'replace'; readonly seq: number; readonly from: number; readonly to: number; readonly shadowed: readonly number[] };

/**
 * Mutable surface state for one session. Positions are indexes into `nodes`. Only a replacement
 * (rare: a compaction, a rewind, a tool-result rewrite) looks positions up, by a linear search —
 * no per-node index is kept, so a surface costs 8 bytes a node (it lives as long as its session,
 * and an import of a long log holds one).
 */
export class Surface {
  private readonly nodeSeqs: number[] = [];
  private readonly replacementList: SurfaceReplacement[] = [];
  private generation = 0;

  /** Current surface node seqs in model order. The array is live; do not mutate. */
  get nodes(): readonly number[] {
    return this.nodeSeqs;
  }
  /** Incremented once per committed replacement; tells tail growth from rewrites. */
  get replaceGeneration(): number {
    return this.generation;
  }
  get replacements(): readonly SurfaceReplacement[] {
    return this.replacementList;
  }
  has(seq: number): boolean {
    return this.nodeSeqs.includes(seq);
  }

  /**
   * Validates `event` against the current surface and the events before it.
   * @param eventAt returns an already committed event by seq (for provenance and rewrite checks).
   * @throws SessionError INVALID_SURFACE_OP / INVALID_PROVENANCE.
   */
  plan(event: SessionEvent, eventAt: (seq: number) => SessionEvent | undefined): SurfacePlan {
    const isSurfaceType = SURFACE_EVENT_TYPES.has(event.type);
    if (!isSurfaceType) {
      if (event.surfaceOp !== undefined || event.sourceEventSeqs !== undefined) {
        // Provenance on log-only events is tolerated only when the event carries no surface op;
        // the reference runtime forbids both, we forbid the surface op and allow citations.
        if (event.surfaceOp !== undefined) {
          throw new SessionError('INVALID_SURFACE_OP', `${event.type} at seq ${event.seq} is log-only and cannot carry a surfaceOp`);
        }
      }
      checkProvenanceShape(event, false);
      return { kind: 'none' };
    }
    if (event.surfaceOp === undefined) {
      throw new SessionError('INVALID_SURFACE_OP', `${event.type} at seq ${event.seq} needs a surfaceOp`);
    }
    checkProvenanceShape(event, event.type === 'assistant/message');
    if (event.surfaceOp === 'append') return { kind: 'append', seq: event.seq };
    const op = event.surfaceOp;
    if (typeof op !== 'object' || op === null || op.op !== 'replace' || !Number.isSafeInteger(op.start) || !Number.isSafeInteger(op.end)) {
      throw new SessionError('INVALID_SURFACE_OP', `${event.type} at seq ${event.seq} has a malformed surfaceOp`);
    }
    const from = this.nodeSeqs.indexOf(op.start);
    const to = this.nodeSeqs.indexOf(op.end);
    if (from < 0 || to < 0) {
      throw new SessionError('INVALID_SURFACE_OP', `replace at seq ${event.seq}: ${from < 0 ? `start ${op.start}` : `end ${op.end}`} is not a current surface node`);
    }
    if (from > to) {
      throw new SessionError('INVALID_SURFACE_OP', `replace at seq ${event.seq}: start ${op.start} comes after end ${op.end} on the surface`);
    }
    const shadowed = this.nodeSeqs.slice(from, to + 1);
    const cited = new Set(event.sourceEventSeqs ?? []);
    const missing = shadowed.filter((s) => !cited.has(s));
    if (missing.length > 0) {
      throw new SessionError('INVALID_PROVENANCE', `replace at seq ${event.seq} must cite every shadowed node; missing ${missing.join(', ')}`);
    }
    if (event.type === 'tool/result') {
      if (shadowed.length !== 1) {
        throw new SessionError('INVALID_SURFACE_OP', `tool-result rewrite at seq ${event.seq} must replace exactly one node`);
      }
      const original = eventAt(shadowed[0]!);
      if (original?.type !== 'tool/result') {
        throw new SessionError('INVALID_SURFACE_OP', `tool-result rewrite at seq ${event.seq} must replace a tool/result`);
      }
      if (!sameExceptContent(original, event as SessionEvent<'tool/result'>)) {
        throw new SessionError('INVALID_SURFACE_OP', `tool-result rewrite at seq ${event.seq} may change only the result content`);
      }
    }
    return { kind: 'replace', seq: event.seq, from, to, shadowed };
  }

  /** Applies a plan returned by {@link plan} for the event that was just committed. */
  apply(plan: SurfacePlan): void {
    if (plan.kind === 'none') return;
    if (plan.kind === 'append') {
      this.nodeSeqs.push(plan.seq);
      return;
    }
    this.nodeSeqs.splice(plan.from, plan.to - plan.from + 1, plan.seq);
    this.generation++;
    const first = plan.shadowed[0]!;
    const last = plan.shadowed[plan.shadowed.length - 1]!;
    this.replacementList.push({ seq: plan.seq, start: first, end: last, shadowedSeqs: plan.shadowed });
  }
}

function checkProvenanceShape(event: SessionEvent, allowEmpty: boolean): void {
  const seqs = event.sourceEventSeqs;
  if (seqs === undefined) return;
  if (!Array.isArray(seqs)) throw new SessionError('INVALID_PROVENANCE', `sourceEventSeqs of seq ${event.seq} must be an array`);
  if (seqs.length === 0 && !allowEmpty) {
    throw new SessionError('INVALID_PROVENANCE', `sourceEventSeqs of ${event.type} at seq ${event.seq} is empty`);
  }
  const seen = new Set<number>();
  for (const s of seqs) {
    if (!Number.isSafeInteger(s) || s < 0 || s >= event.seq || seen.has(s)) {
      throw new SessionError('INVALID_PROVENANCE', `sourceEventSeqs of seq ${event.seq} has an invalid entry ${String(s)}`);
    }
    seen.add(s);
  }
}

function sameExceptContent(a: SessionEvent<'tool/result'>, b: SessionEvent<'tool/result'>): boolean {
  const strip = (e: SessionEvent<'tool/result'>): JsonValue => {
    const block = e.data.message.content[0];
    return {
      turn: e.data.turn,
      step: e.data.step,
      error: e.data.error ?? null,
      meta: e.data.meta ?? null,
      source: e.data.message.source,
      role: e.data.message.role,
      toolCallId: block?.toolCallId ?? null,
      isError: block?.isError ?? null,
      blocks: e.data.message.content.length,
    } as JsonValue;
  };
  return jsonEquals(strip(a), strip(b));
}
