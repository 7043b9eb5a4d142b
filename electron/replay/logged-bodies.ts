/**
 * The exact body of each logged request, rebuilt from the log alone as the request inspector does
 * (electron/host/request-inspector.ts, docs/architecture.md §3 "model-visible means logged"): the
 * messages of the surface folded up to the request, the envelope of the last `request/header`
 * before it, the endpoint of the last `request/context`, serialised by `wireRequestFromLog`.
 * Compaction summary requests are rebuilt from `compaction/start`.
 *
 * Incremental: requests are rebuilt in log order with one pass over the surface (a 1,000-step
 * session is not folded 1,000 times); asking for an earlier one starts the pass again.
 */
import type { RequestHeader, SessionEvent } from '../../shared/events.js';
import type { Message } from '../../shared/messages.js';
import { COMPACTION_INSTRUCTION, DEFAULT_COMPACTION_CONFIG, summaryRequestMessages } from '../agent/compaction.js';
import type { ModelRequest } from '../llm/model-client.js';
import { wireRequestFromLog, type LoggedRoute } from '../llm/wire-request.js';
import { projectEventMessage } from '../session/project-message.js';
import { Surface } from '../session/surface.js';
import type { LoggedAnswer } from './replay-plan.js';

/** A rebuilt body, or why there is none. */
export type LoggedBody = { readonly body: string; readonly header: RequestHeader; readonly messages: readonly Message[] } | { readonly error: string };

/** A rebuilt request before serialising (what `wireRequestFromLog` turns into its body), or why there is none. */
export type LoggedRequest = { readonly request: ModelRequest; readonly route: LoggedRoute } | { readonly error: string };

export class LoggedBodies {
  private surface = new Surface();
  private seq = 0;
  private header: RequestHeader | undefined;
  private route: LoggedRoute | undefined;
  private readonly projected = new Map<number, Message | undefined>();
  private broken: string | undefined;

  constructor(private readonly events: readonly SessionEvent[]) {}

  /** The body of `answer`'s request. Never throws. */
  bodyOf(answer: LoggedAnswer): LoggedBody {
    return LoggedBodies.serialize(this.requestOf(answer));
  }

  /** The body of a request {@link requestOf} rebuilt. Never throws. */
  static serialize(logged: LoggedRequest): LoggedBody {
    if ('error' in logged) return logged;
    const { request, route } = logged;
    try {
      return { body: wireRequestFromLog(request, route).body, header: request.header, messages: request.messages };
    } catch (error) {
      return { error: `the logged request cannot be serialised: ${error instanceof Error ? error.message : String(error)}` };
    }
  }

  /** `answer`'s request (envelope, messages, route) as the log holds it. Never throws. */
  requestOf(answer: LoggedAnswer): LoggedRequest {
    if (answer.synthesized) return { error: 'the log has no request for this answer (an imported log records no wire bodies)' };
    if (answer.prefixEnd < this.seq) this.reset();
    for (; this.seq < answer.prefixEnd && this.seq < this.events.length; this.seq++) {
      const event = this.events[this.seq]!;
      if (event.type === 'request/header') this.header = event.data.header;
      else if (event.type === 'request/context') this.route = { provider: event.data.provider, model: event.data.model, ...(event.data.baseUrl !== undefined ? { baseUrl: event.data.baseUrl } : {}) };
      if (this.broken) continue;
      try {
        this.surface.apply(this.surface.plan(event, (s) => this.events[s]));
      } catch (error) {
        this.broken = `the log's model-visible history is damaged at seq ${event.seq}: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
    if (this.broken) return { error: this.broken };
    if (!this.header) return { error: 'no request header was logged before this request' };
    const route: LoggedRoute = this.route ?? { provider: this.header.config.provider, model: this.header.config.model };
    let request: ModelRequest;
    if (answer.kind === 'step') {
      const messages: Message[] = [];
      for (const node of this.surface.nodes) {
        let message = this.projected.get(node);
        if (message === undefined && !this.projected.has(node)) {
          message = projectEventMessage(this.events[node]!);
          this.projected.set(node, message);
        }
        if (message !== undefined) messages.push(message);
      }
      request = { header: this.header, messages };
    } else {
      const rebuilt = this.compactionRequest(answer, this.header);
      if ('error' in rebuilt) return rebuilt;
      request = rebuilt;
    }
    return { request, route };
  }

  private reset(): void {
    this.surface = new Surface();
    this.seq = 0;
    this.header = undefined;
    this.route = undefined;
    this.broken = undefined;
  }

  private compactionRequest(answer: LoggedAnswer, header: RequestHeader): ModelRequest | { error: string } {
    const start = this.events[answer.prefixEnd];
    if (start?.type !== 'compaction/start') return { error: 'the compaction request has no compaction/start' };
    const data = start.data;
    const shadowed = data.shadowedSeqs ?? [];
    if (shadowed.length === 0) return { error: 'this compaction did not log the range it summarised' };
    if (shadowed.some((s) => s >= answer.prefixEnd || this.events[s] === undefined)) return { error: 'the logged range of this compaction points past its start' };
    const maxTokens = data.maxTokens ?? DEFAULT_COMPACTION_CONFIG.summaryMaxTokens;
    const messages = summaryRequestMessages(
      shadowed.map((s) => this.events[s]!),
      data.instruction ?? COMPACTION_INSTRUCTION,
      data.compactionId,
      data.maxInputTokens !== undefined ? { header, maxInputTokens: data.maxInputTokens } : undefined,
    );
    return { header: { ...header, config: { ...header.config, maxTokens } }, messages };
  }
}
