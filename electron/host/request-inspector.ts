/**
 * The request inspector's projection: every model request of a session rebuilt from the log alone
 * ("model-visible means logged", docs/architecture.md §3) — the messages from the surface folded up to the
 * request, the envelope from the last `request/header` before it, the endpoint from the last
 * `request/context` — serialised exactly as the client sends it (`wireRequestFromLog`), with the
 * response facts and the answer the log holds, and a diff against the previous step request (a
 * compaction's summary request is a side request and is skipped). Imported logs hold answers but
 * no requests: their steps rebuild the messages only and say why there is no wire request.
 *
 * Compaction summary requests are rebuilt from `compaction/start` (planned range, output cap and
 * instruction; older logs name the range only in `compaction/summary`).
 */
import type { RequestAnswer, RequestInspection, RequestSummary, WireRequestView } from '../../shared/api.js';
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

/** Why a request could not be rebuilt; `messages`: what the log says the model was given, when that much rebuilds. */
class RebuildError extends ForklineError {
  constructor(
    code: string,
    message: string,
    readonly messages: readonly Message[] = [],
  ) {
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
    const surfaceMessages = (): Message[] => {
      const messages: Message[] = [];
      for (const node of surface.nodes) {
        const message = projectEventMessage(events[node]!);
        if (message !== undefined) messages.push(message);
      }
      return messages;
    };
    if (!header) {
      const messages = target.ref.kind === 'step' ? surfaceMessages() : [];
      out.set(
        target.index,
        target.answerOnly
          ? new RebuildError(
              'REQUEST_NOT_RECORDED',
              'the source log recorded the conversation and the answers but not the requests sent to the model (no endpoint, headers, system prompt or tool list), so there is no wire request to show. The Messages tab shows what the model had been given by then, as the log tells it; the Response tab shows its answer.',
              messages,
            )
          : new RebuildError('NO_REQUEST_HEADER', 'no request header was logged before this request', messages),
      );
      continue;
    }
    const notes: string[] = [];
    const effectiveRoute: LoggedRoute = route ?? { provider: header.config.provider, model: header.config.model };
    if (effectiveRoute.baseUrl === undefined) notes.push('The log does not name the endpoint (it predates logging the base URL in request/context).');
    if (target.ref.kind === 'step') {
      out.set(target.index, { request: { header, messages: surfaceMessages() }, route: effectiveRoute, notes });
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
    throw new ForklineError(
      'STEP_NOT_FOUND',
      `turn ${selector.turn} step ${selector.step}${selector.attempt !== undefined ? ` attempt ${selector.attempt}` : ''} made no model request in this session`,
    );
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
/**
 * The request a step's request is compared with: the nearest earlier step request (the previous
 * attempt of the step, the previous step of the turn, else the last one of an earlier turn) —
 * never a compaction's summary request, a side request with other messages — and why that one.
 */
function diffBase(records: readonly RequestRecord[], record: RequestRecord): { previous: RequestRecord; basis: string } | undefined {
  let skipped: RequestRecord | undefined;
  for (let i = record.index - 1; i >= 0; i--) {
    const candidate = records[i]!;
    if (candidate.ref.kind !== 'step') {
      skipped ??= candidate;
      continue;
    }
    const ref = candidate.ref;
    const own = record.ref;
    let basis: string;
    if (own.kind !== 'step') basis = `the last step request before this compaction (${candidate.label})`;
    else if (ref.turn === own.turn && ref.step === own.step) basis = `the previous attempt of this step (${candidate.label})`;
    else if (ref.turn === own.turn) basis = `the previous step of this turn (${candidate.label})`;
    else basis = `the last step of turn ${ref.turn} (${candidate.label}), as this is the turn's first step`;
    if (skipped) basis += `; the ${skipped.label} in between is a side request and is not compared`;
    return { previous: candidate, basis };
  }
  return undefined;
}

/** What the log holds of a request's answer. */
function answerOf(events: readonly SessionEvent[], records: readonly RequestRecord[], record: RequestRecord): RequestAnswer | undefined {
  const ref = record.ref;
  if (ref.kind === 'compaction') {
    const summary = events.find((e, i) => i > record.prefixEnd && e.type === 'compaction/summary' && asString(asObject(e.data)?.['compactionId']) === ref.compactionId);
    const text = asString(asObject(summary?.data)?.['summary']);
    return text !== undefined ? { text, toolCalls: [], from: 'summary' } : undefined;
  }
  // This attempt's events: up to the next attempt of the same step.
  const next = records.find((r) => r.index > record.index && r.ref.kind === 'step' && r.ref.turn === ref.turn && r.ref.step === ref.step);
  const end = next ? next.prefixEnd : events.length;
  for (let seq = record.prefixEnd; seq < end; seq++) {
    const e = events[seq];
    if (!e || e.type !== 'assistant/message') continue;
    const d = asObject(e.data) ?? {};
    if (d['turn'] !== ref.turn || d['step'] !== ref.step) continue;
    const content = asArray(asObject(d['message'])?.['content']).map((p) => asObject(p) ?? {});
    const text = content
      .filter((p) => p['type'] === 'text')
      .map((p) => asString(p['text']) ?? '')
      .join('');
    const reasoning = content
      .filter((p) => p['type'] === 'reasoning')
      .map((p) => asString(p['text']) ?? '')
      .join('');
    const toolCalls = content
      .filter((p) => p['type'] === 'tool-call')
      .map((p) => ({ name: asString(p['name']) ?? '', arguments: typeof p['arguments'] === 'string' ? p['arguments'] : JSON.stringify(p['arguments'] ?? {}) }));
    return { text, ...(reasoning !== '' ? { reasoning } : {}), toolCalls, from: 'message' };
  }
  // No message (a failed or cut attempt): what streamed.
  const { firstChunkSeq, lastChunkSeq } = record.response;
  if (firstChunkSeq === undefined || lastChunkSeq === undefined) return undefined;
  let text = '';
  let reasoning = '';
  for (let seq = firstChunkSeq; seq <= lastChunkSeq; seq++) {
    const e = events[seq];
    if (!e || e.type !== 'assistant/chunk' || e.data.turn !== ref.turn || e.data.step !== ref.step) continue;
    const chunk = asObject(asObject(e.data)?.['chunk']) ?? {};
    if (chunk['type'] === 'text-delta') text += asString(chunk['text']) ?? '';
    else if (chunk['type'] === 'reasoning-delta') reasoning += asString(chunk['text']) ?? '';
  }
  if (text === '' && reasoning === '') return undefined;
  return { text, ...(reasoning !== '' ? { reasoning } : {}), toolCalls: [], from: 'stream' };
}

export function inspectSessionRequest(sessionHeader: SessionHeader, events: readonly SessionEvent[], selector: RequestSelector): RequestInspection {
  const records = requestLog(events);
  const record = selectRecord(records, selector);
  const base = diffBase(records, record);
  const previous = base?.previous;
  const answer = answerOf(events, records, record);
  const rebuilt = rebuild(events, previous ? [previous, record] : [record]);
  const current = rebuilt.get(record.index)!;
  const turn = record.ref.kind === 'step' ? record.ref.turn : (record.ref.turn ?? 0);
  const step = record.ref.kind === 'step' ? record.ref.step : 0;
  const notes: string[] = [];
  if (isImportedSession(sessionHeader) && !record.answerOnly) notes.push('This session was imported: the endpoint and envelope are shown as its log recorded them.');
  if (!record.sent) notes.push('This attempt failed before anything was sent (configuration error); the body is what would have been sent.');
  if (current instanceof RebuildError) {
    return {
      turn,
      step,
      atSeq: record.prefixEnd,
      header: undefined,
      messages: current.messages,
      request: record,
      requestCount: records.length,
      wireError: { code: current.code, message: current.message },
      ...(answer ? { answer } : {}),
      notes,
    };
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
      diff = { ...diffRequestBodies(JSON.parse(prevWire.body), JSON.parse(wire.body)), previous, basis: base!.basis };
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
    ...(answer ? { answer } : {}),
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
