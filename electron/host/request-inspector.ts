/**
 * The request inspector's projection: every model request of a session rebuilt from the log alone
 * ("model-visible means logged", docs/architecture.md §3) — the messages from the surface folded up to the
 * request, the envelope from the last `request/header` before it, the endpoint from the last
 * `request/context` — serialised exactly as the client sends it (`wireRequestFromLog`), with the
 * response facts the log holds and a diff against the session's previous request.
 *
 * Compaction summary requests are rebuilt from `compaction/start` (planned range, output cap and
 * instruction; older logs name the range only in `compaction/summary`).
 */
import type { RequestInspection, RequestSummary, WireRequestView } from '../../shared/api.js';
import { ForklineError } from '../../shared/errors.js';
import { isImportedSession, type RequestHeader, type SessionEvent, type SessionHeader } from '../../shared/events.js';
import { asArray, asNumber, asObject, asString } from '../../shared/event-read.js';
import type { Message } from '../../shared/messages.js';
import { diffRequestBodies } from '../../shared/request-diff.js';
import { findStepRequest, requestLog, type RequestRecord } from '../../shared/request-log.js';
import { COMPACTION_INSTRUCTION, DEFAULT_COMPACTION_CONFIG, summaryRequestMessages } from '../agent/compaction.js';
import type { ModelRequest } from '../llm/model-client.js';
import { curlCommand, wireRequestFromLog, type LoggedRoute } from '../llm/wire-request.js';
import { projectEventMessage } from '../session/project-message.js';
import { Surface } from '../session/surface.js';

/** Which request to inspect: by position, or by step (the last attempt unless `attempt` is given). */
export type RequestSelector = { readonly index: number } | { readonly turn: number; readonly step: number; readonly attempt?: number };

/** A request rebuilt from the log: what the client was handed, and where it went. */
interface RebuiltRequest {
  readonly request: ModelRequest;
  readonly route: LoggedRoute;
  readonly notes: readonly string[];
}

/** Why a request could not be rebuilt. */
class RebuildError extends ForklineError {
  constructor(code: string, message: string) {
    super(code, message);
    this.name = 'RebuildError';
  }
}

/** The session's requests (see shared/request-log.ts). */
export function listRequests(events: readonly SessionEvent[]): RequestSummary[] {
  return requestLog(events);
}

/**
 * Replays the surface once and rebuilds the requests that start at the given records.
 * Results are keyed by record index; a request that cannot be rebuilt maps to its error.
 */
function rebuild(events: readonly SessionEvent[], records: readonly RequestRecord[]): Map<number, RebuiltRequest | RebuildError> {
  const out = new Map<number, RebuiltRequest | RebuildError>();
  const targets = [...records].sort((a, b) => a.prefixEnd - b.prefixEnd);
  const surface = new Surface();
  let header: RequestHeader | undefined;
  let route: LoggedRoute | undefined;
  let broken: RebuildError | undefined;
  let seq = 0;
  for (const target of targets) {
    for (; seq < target.prefixEnd && seq < events.length; seq++) {
      const event = events[seq]!;
      if (event.type === 'request/header') header = event.data.header;
      else if (event.type === 'request/context') route = { provider: event.data.provider, model: event.data.model, ...(event.data.baseUrl !== undefined ? { baseUrl: event.data.baseUrl } : {}) };
      if (broken) continue;
      try {
        surface.apply(surface.plan(event, (s) => events[s]));
      } catch (error) {
        broken = new RebuildError('SURFACE_DAMAGED', `the log's model-visible history is damaged at seq ${event.seq}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (broken) {
      out.set(target.index, broken);
      continue;
    }
    if (!header) {
      out.set(target.index, new RebuildError('NO_REQUEST_HEADER', 'no request header was logged before this request'));
      continue;
    }
    const notes: string[] = [];
    const effectiveRoute: LoggedRoute = route ?? { provider: header.config.provider, model: header.config.model };
    if (effectiveRoute.baseUrl === undefined) notes.push('The log does not name the endpoint (it predates logging the base URL in request/context).');
    if (target.ref.kind === 'step') {
      const messages: Message[] = [];
      for (const node of surface.nodes) {
        const message = projectEventMessage(events[node]!);
        if (message !== undefined) messages.push(message);
      }
      out.set(target.index, { request: { header, messages }, route: effectiveRoute, notes });
    } else {
      out.set(target.index, rebuildCompaction(events, target, header, effectiveRoute, notes));
    }
  }
  return out;
}

function rebuildCompaction(events: readonly SessionEvent[], target: RequestRecord, header: RequestHeader, route: LoggedRoute, notes: string[]): RebuiltRequest | RebuildError {
  const start = asObject(events[target.prefixEnd]?.data) ?? {};
  const id = target.ref.kind === 'compaction' ? target.ref.compactionId : '';
  let shadowed = asArray(start['shadowedSeqs']).filter((s): s is number => typeof s === 'number');
  let maxTokens = asNumber(start['maxTokens']);
  if (shadowed.length === 0) {
    // Older logs name the range only when the summary succeeded.
    const summary = events.find((e, i) => i > target.prefixEnd && e.type === 'compaction/summary' && asString(asObject(e.data)?.['compactionId']) === id);
    const data = asObject(summary?.data) ?? {};
    shadowed = asArray(data['shadowedSeqs']).filter((s): s is number => typeof s === 'number');
    maxTokens ??= asNumber(data['maxTokens']);
  }
  if (shadowed.length === 0) return new RebuildError('NOT_REBUILDABLE', 'this compaction did not log the range it summarised (the log predates it), so its request cannot be rebuilt');
  if (shadowed.some((s) => s >= target.prefixEnd || events[s] === undefined)) return new RebuildError('NOT_REBUILDABLE', 'the logged range of this compaction points past its start');
  let instruction = asString(start['instruction']);
  if (instruction === undefined) {
    instruction = COMPACTION_INSTRUCTION;
    notes.push('The build that wrote this log did not log the compaction instruction; this build’s instruction text is assumed.');
  }
  if (maxTokens === undefined) {
    maxTokens = DEFAULT_COMPACTION_CONFIG.summaryMaxTokens;
    notes.push(`The summary’s output cap was not logged; the default (${maxTokens}) is assumed.`);
  }
  const maxInputTokens = asNumber(start['maxInputTokens']);
  const messages = summaryRequestMessages(
    shadowed.map((s) => events[s]!),
    instruction,
    id,
    maxInputTokens !== undefined ? { header, maxInputTokens } : undefined,
  );
  return { request: { header: { ...header, config: { ...header.config, maxTokens } }, messages }, route, notes };
}

function selectRecord(records: readonly RequestRecord[], selector: RequestSelector): RequestRecord {
  if ('index' in selector) {
    const record = records[selector.index];
    if (!record) throw new ForklineError('REQUEST_NOT_FOUND', `request #${selector.index} is not in this session (it made ${records.length})`);
    return record;
  }
  const record = findStepRequest(records, selector.turn, selector.step, selector.attempt);
  if (!record) {
    throw new ForklineError('STEP_NOT_FOUND', `turn ${selector.turn} step ${selector.step}${selector.attempt !== undefined ? ` attempt ${selector.attempt}` : ''} made no model request in this session`);
  }
  return record;
}

function wireView(rebuilt: RebuiltRequest): WireRequestView {
  const wire = wireRequestFromLog(rebuilt.request, rebuilt.route);
  return { ...wire, curl: curlCommand(wire, rebuilt.request.header.config.provider || rebuilt.route.provider) };
}

/**
 * Rebuilds one request with its wire form, response facts and the diff against the previous
 * request of the session.
 * @throws ForklineError REQUEST_NOT_FOUND / STEP_NOT_FOUND when there is no such request.
 */
export function inspectSessionRequest(sessionHeader: SessionHeader, events: readonly SessionEvent[], selector: RequestSelector): RequestInspection {
  const records = requestLog(events);
  const record = selectRecord(records, selector);
  const previous = record.index > 0 ? records[record.index - 1] : undefined;
  const rebuilt = rebuild(events, previous ? [previous, record] : [record]);
  const current = rebuilt.get(record.index)!;
  const turn = record.ref.kind === 'step' ? record.ref.turn : (record.ref.turn ?? 0);
  const step = record.ref.kind === 'step' ? record.ref.step : 0;
  const notes: string[] = [];
  if (isImportedSession(sessionHeader)) notes.push('This session was imported: the endpoint and envelope are shown as its log recorded them.');
  if (!record.sent) notes.push('This attempt failed before anything was sent (configuration error); the body is what would have been sent.');
  if (current instanceof RebuildError) {
    return { turn, step, atSeq: record.prefixEnd, header: undefined, messages: [], request: record, requestCount: records.length, wireError: { code: current.code, message: current.message }, notes };
  }
  notes.push(...current.notes);
  let wire: WireRequestView | undefined;
  let wireError: { code: string; message: string } | undefined;
  try {
    wire = wireView(current);
  } catch (error) {
    wireError = { code: ForklineError.isInstance(error) ? error.code : 'SERIALIZE_FAILED', message: error instanceof Error ? error.message : String(error) };
  }
  let diff: RequestInspection['diff'];
  const before = previous ? rebuilt.get(previous.index) : undefined;
  if (wire && previous && before && !(before instanceof RebuildError)) {
    try {
      const prevWire = wireRequestFromLog(before.request, before.route);
      diff = { ...diffRequestBodies(JSON.parse(prevWire.body), JSON.parse(wire.body)), previous };
    } catch {
      diff = undefined;
    }
  }
  return {
    turn,
    step,
    atSeq: record.prefixEnd,
    header: current.request.header,
    messages: current.request.messages,
    request: record,
    requestCount: records.length,
    ...(wire ? { wire } : {}),
    ...(wireError ? { wireError } : {}),
    ...(diff ? { diff } : {}),
    notes,
  };
}

/**
 * The logged chunks of request `index`'s response (its raw stream), at most `limit`.
 * @throws ForklineError REQUEST_NOT_FOUND.
 */
export function requestStream(events: readonly SessionEvent[], index: number, limit = 2_000): { events: SessionEvent[]; total: number } {
  const records = requestLog(events);
  const record = selectRecord(records, { index });
  const { firstChunkSeq, lastChunkSeq } = record.response;
  if (record.ref.kind !== 'step' || firstChunkSeq === undefined || lastChunkSeq === undefined) return { events: [], total: 0 };
  const { turn, step } = record.ref;
  const out: SessionEvent[] = [];
  let total = 0;
  for (let seq = firstChunkSeq; seq <= lastChunkSeq; seq++) {
    const event = events[seq];
    if (!event || event.type !== 'assistant/chunk' || event.data.turn !== turn || event.data.step !== step) continue;
    total++;
    if (out.length < limit) out.push(event);
  }
  return { events: out, total };
}
