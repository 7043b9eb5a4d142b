/**
 * Test helper: a tiny log writer that assigns seqs and times, for building timelines by hand.
 */
import type { SessionEvent, SessionEventType } from '../../../shared/events.js';

export class LogBuilder {
  readonly events: SessionEvent[] = [];
  time = 1_000;

  add(type: SessionEventType | string, data: unknown, extra: { surfaceOp?: unknown; sourceEventSeqs?: number[]; dt?: number } = {}): number {
    this.time += extra.dt ?? 10;
    const seq = this.events.length;
    const event: Record<string, unknown> = { seq, type, time: this.time, data };
    if (extra.surfaceOp !== undefined) event['surfaceOp'] = extra.surfaceOp;
    if (extra.sourceEventSeqs !== undefined) event['sourceEventSeqs'] = extra.sourceEventSeqs;
    this.events.push(event as unknown as SessionEvent);
    return seq;
  }

  chunk(turn: number, step: number, chunk: unknown, dt = 1): number {
    return this.add('assistant/chunk', { turn, step, chunk }, { dt });
  }

  user(text: string, source: Record<string, unknown> = { kind: 'user' }, extra: { surfaceOp?: unknown; sourceEventSeqs?: number[] } = {}): number {
    return this.add(
      'user/message',
      { id: `m${this.events.length}`, role: 'user', content: [{ type: 'text', text }], source },
      { surfaceOp: extra.surfaceOp ?? 'append', ...(extra.sourceEventSeqs ? { sourceEventSeqs: extra.sourceEventSeqs } : {}) },
    );
  }

  message(turn: number, step: number, content: unknown[], extra: Record<string, unknown> = {}): number {
    return this.add(
      'assistant/message',
      { turn, step, message: { id: `a${this.events.length}`, role: 'assistant', content, source: { kind: 'model', provider: 'test', model: 'm1' } }, ...extra },
      { surfaceOp: 'append' },
    );
  }

  toolCall(turn: number, step: number, callId: string, name: string, args: string): number {
    return this.add('tool/call', { turn, step, callId, name, arguments: args });
  }

  toolResult(turn: number, step: number, callId: string, text: string, extra: { isError?: boolean; error?: { name: string; code: string }; meta?: unknown; callSeq?: number } = {}): number {
    const data: Record<string, unknown> = {
      turn,
      step,
      message: {
        id: `r${this.events.length}`,
        role: 'user',
        source: { kind: 'tool', callId },
        content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text }], isError: extra.isError ?? extra.error !== undefined }],
      },
    };
    if (extra.error) data['error'] = extra.error;
    if (extra.meta !== undefined) data['meta'] = extra.meta;
    return this.add('tool/result', data, { surfaceOp: 'append', ...(extra.callSeq !== undefined ? { sourceEventSeqs: [extra.callSeq] } : {}) });
  }
}
