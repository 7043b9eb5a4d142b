/**
 * Every model request a session made, found in its log (docs/architecture.md §3 "model-visible means logged"):
 * one record per attempt of a step (retries and overflow re-tries included) and one per compaction
 * summary request, in the order they were sent, with what the log says about each response.
 *
 * How requests are found:
 * - a step attempt starts at the first `assistant/chunk` of its (turn, step) after the previous
 *   attempt's `finish` chunk (a model client always ends an attempt with exactly one `finish`
 *   chunk), after an `llm/retry`, or at the first chunk of the step; the request was built from
 *   the log prefix that ends just before that chunk;
 * - a compaction summary request starts at `compaction/start`; `compaction/summary` /
 *   `compaction/end` carry its outcome (its chunks are not logged);
 * - a step whose `assistant/message` has no chunks before it (an imported log, which holds the
 *   answers but neither streams nor requests) gets one `answerOnly` record at that message, so
 *   the viewer can show what the model was given and what it answered.
 *
 * Timing facts are from event times (epoch ms at append), so they are close to, not exactly, the
 * wire timings: a request is taken to start at the last event logged before its first chunk (plus
 * the announced backoff after an `llm/retry`); time to first token runs to the first content delta.
 *
 * Pure: no Node, no DOM.
 */
import type { LlmFailure, TokenUsage } from './chunks.js';
import type { SessionEvent } from './events.js';
import { asNumber, asObject, asString, readFailure, readUsage } from './event-read.js';

/** Which request: an attempt of a step, or a compaction's summary request. */
export type RequestRef =
  { readonly kind: 'step'; readonly turn: number; readonly step: number; readonly attempt: number } | { readonly kind: 'compaction'; readonly compactionId: string; readonly turn: number | null };

/** What the log says about one request's response. */
export interface RequestResponseFacts {
  /** `stop`, `tool-calls`, `max-tokens`, `error`, `aborted`; absent while streaming or when the log ends first. */
  readonly finish?: string;
  readonly failure?: LlmFailure;
  readonly usage?: TokenUsage;
  /** Epoch ms the request is taken to have started (see the module note). */
  readonly startedAt: number;
  /** First content delta − start, ms. */
  readonly ttftMs?: number;
  /** Last chunk (or compaction outcome) − start, ms. */
  readonly durationMs?: number;
  /** Logged chunks of the response (0 for compaction requests, whose chunks are not logged). */
  readonly chunkCount: number;
  readonly firstChunkSeq?: number;
  readonly lastChunkSeq?: number;
}

/** One request of a session. */
export interface RequestRecord {
  /** 0-based position among the session's requests. */
  readonly index: number;
  readonly ref: RequestRef;
  /** `step 2.1`, `step 2.1 · attempt 2`, `compaction summary`. */
  readonly label: string;
  /**
   * The request was built from the events with seq < `prefixEnd` (its first chunk, or its
   * `compaction/start`).
   */
  readonly prefixEnd: number;
  /** False when the attempt failed before anything was sent (missing key, unsupported effort). */
  readonly sent: boolean;
  /**
   * The log holds the step's answer (`assistant/message`) but not its stream, and so no request
   * either: an imported log. `prefixEnd` is then the message's seq.
   */
  readonly answerOnly?: true;
  readonly response: RequestResponseFacts;
}

/** Failure codes a model client reports before any I/O (nothing reached the wire). */
const UNSENT_CODES: ReadonlySet<string> = new Set(['MISSING_CREDENTIAL', 'UNSUPPORTED_REASONING_EFFORT']);

interface MutableRecord {
  index: number;
  ref: RequestRef;
  label: string;
  prefixEnd: number;
  sent: boolean;
  answerOnly?: true;
  open: boolean;
  sawUsageChunk: boolean;
  response: { -readonly [K in keyof RequestResponseFacts]: RequestResponseFacts[K] };
}

function stepLabel(turn: number, step: number, attempt: number): string {
  return attempt > 1 ? `step ${turn}.${step} · attempt ${attempt}` : `step ${turn}.${step}`;
}

const CONTENT_CHUNKS: ReadonlySet<unknown> = new Set(['text-delta', 'reasoning-delta', 'tool-call-delta']);

/** The requests of a log, in the order they were sent. Never throws on odd payloads. */
export function requestLog(events: readonly SessionEvent[]): RequestRecord[] {
  const records: MutableRecord[] = [];
  const open = new Map<string, MutableRecord>();
  const attempts = new Map<string, number>();
  const compactions = new Map<string, MutableRecord>();
  /** The latest attempt of each (turn, step). */
  const latest = new Map<string, MutableRecord>();
  let previous: SessionEvent | undefined;
  for (const e of events) {
    const d = asObject(e.data) ?? {};
    switch (e.type as string) {
      case 'assistant/chunk': {
        const turn = asNumber(d['turn']) ?? 0;
        const step = asNumber(d['step']) ?? 0;
        const key = `${turn}/${step}`;
        let record = open.get(key);
        if (!record) {
          const attempt = (attempts.get(key) ?? 0) + 1;
          attempts.set(key, attempt);
          let startedAt = previous?.time ?? e.time;
          if (previous?.type === 'llm/retry') startedAt += asNumber(asObject(previous.data)?.['delayMs']) ?? 0;
          record = {
            index: records.length,
            ref: { kind: 'step', turn, step, attempt },
            label: stepLabel(turn, step, attempt),
            prefixEnd: e.seq,
            sent: true,
            open: true,
            sawUsageChunk: false,
            response: { startedAt, chunkCount: 0, firstChunkSeq: e.seq },
          };
          records.push(record);
          open.set(key, record);
          latest.set(key, record);
        }
        const r = record.response;
        r.chunkCount += 1;
        r.lastChunkSeq = e.seq;
        r.durationMs = e.time - r.startedAt;
        const chunk = asObject(d['chunk']) ?? {};
        if (r.ttftMs === undefined && CONTENT_CHUNKS.has(chunk['type'])) r.ttftMs = e.time - r.startedAt;
        if (chunk['type'] === 'usage') {
          const usage = readUsage(chunk['usage']);
          if (usage) {
            r.usage = usage;
            record.sawUsageChunk = true;
          }
        } else if (chunk['type'] === 'finish') {
          const reason = asObject(chunk['reason']);
          const kind = asString(reason?.['kind']) ?? 'stop';
          r.finish = kind;
          if (kind === 'error' || kind === 'aborted') {
            const failure = readFailure(reason?.['failure']) ?? { code: 'UNKNOWN', message: '' };
            r.failure = failure;
            if (r.chunkCount === 1 && UNSENT_CODES.has(failure.code)) record.sent = false;
          }
          open.delete(key);
        }
        break;
      }
      case 'assistant/message': {
        // The usage of a message fills in for a stream that reported none.
        const turn = asNumber(d['turn']) ?? 0;
        const step = asNumber(d['step']) ?? 0;
        const key = `${turn}/${step}`;
        const last = latest.get(key);
        const usage = readUsage(d['usage']);
        if (last && usage && !last.sawUsageChunk) last.response.usage = usage;
        if (!last && asNumber(d['turn']) !== undefined) {
          // An answer without a stream (imported logs): a step the viewer can still show.
          const content = asObject(d['message'])?.['content'];
          const calls = Array.isArray(content) && content.some((part) => asObject(part)?.['type'] === 'tool-call');
          const record: MutableRecord = {
            index: records.length,
            ref: { kind: 'step', turn, step, attempt: 1 },
            label: stepLabel(turn, step, 1),
            prefixEnd: e.seq,
            sent: true,
            answerOnly: true,
            open: false,
            sawUsageChunk: false,
            response: { startedAt: previous?.time ?? e.time, durationMs: e.time - (previous?.time ?? e.time), chunkCount: 0, finish: calls ? 'tool-calls' : 'stop', ...(usage ? { usage } : {}) },
          };
          attempts.set(key, 1);
          records.push(record);
          latest.set(key, record);
        }
        open.delete(key);
        break;
      }
      case 'llm/retry':
      case 'step/end':
        open.delete(`${asNumber(d['turn']) ?? 0}/${asNumber(d['step']) ?? 0}`);
        break;
      case 'compaction/start': {
        const id = asString(d['compactionId']) ?? `seq-${e.seq}`;
        const turn = asNumber(d['turn']) ?? null;
        const record: MutableRecord = {
          index: records.length,
          ref: { kind: 'compaction', compactionId: id, turn },
          label: turn !== null ? `compaction summary (turn ${turn})` : 'compaction summary',
          prefixEnd: e.seq,
          sent: true,
          open: true,
          sawUsageChunk: false,
          response: { startedAt: e.time, chunkCount: 0 },
        };
        records.push(record);
        compactions.set(id, record);
        break;
      }
      case 'compaction/summary': {
        const record = compactions.get(asString(d['compactionId']) ?? '');
        if (record) {
          const usage = readUsage(d['usage']);
          if (usage) record.response.usage = usage;
          record.response.finish = 'stop';
          record.response.durationMs = e.time - record.response.startedAt;
        }
        break;
      }
      case 'compaction/end': {
        const record = compactions.get(asString(d['compactionId']) ?? '');
        if (record) {
          const failure = readFailure(d['failure']);
          if (failure) {
            record.response.finish = 'error';
            record.response.failure = failure;
            if (UNSENT_CODES.has(failure.code)) record.sent = false;
            record.response.durationMs = e.time - record.response.startedAt;
          } else if (record.response.finish === undefined) {
            // Failed after the request answered (rejected summary) or before it was sent.
            record.response.durationMs = e.time - record.response.startedAt;
            if (asString(d['error']) !== undefined && asObject(d)?.['rejectedSummary'] !== undefined) record.response.finish = 'stop';
          }
        }
        break;
      }
      default:
        break;
    }
    previous = e;
  }
  return records.map(({ index, ref, label, prefixEnd, sent, answerOnly, response }) => ({ index, ref, label, prefixEnd, sent, ...(answerOnly ? { answerOnly } : {}), response }));
}

/** The record of a step's attempt (`attempt` undefined: the last one), or undefined. */
export function findStepRequest(records: readonly RequestRecord[], turn: number, step: number, attempt?: number): RequestRecord | undefined {
  let found: RequestRecord | undefined;
  for (const r of records) {
    if (r.ref.kind !== 'step' || r.ref.turn !== turn || r.ref.step !== step) continue;
    if (attempt === undefined || r.ref.attempt === attempt) found = r;
  }
  return found;
}
