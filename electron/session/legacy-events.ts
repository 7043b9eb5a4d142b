/**
 * Read-time conversions for older reference-runtime event shapes (DeepSeek Harness "read-time
 * compatibility"), applied when a foreign log is imported so that stored events always match
 * `shared/events.ts`:
 * - `assistant/message {content, provenance}` → `{message:{id, role, content, source}}`;
 * - `tool/result {callId, content, isError}` → `{message:{…tool-result block}}`;
 * - `user/message` without id/role → id `legacy-message:<sessionId>:<seq>`, role `user`;
 * - `turn/end` reasons `aborted{reason}` / `error{error}` → DESIGN's `aborted{cause}` / `error{failure}`.
 * Anything already in the current shape is returned unchanged (same object).
 */
import type { SessionEvent } from '../../shared/events.js';
import type { JsonObject, JsonValue } from '../../shared/json.js';

export function normalizeLegacyEvent(event: SessionEvent, sessionId: string): SessionEvent {
  const data = event.data as unknown as JsonObject;
  const legacyId = `legacy-message:${sessionId}:${event.seq}`;
  switch (event.type) {
    case 'assistant/message': {
      if ('message' in data) return event;
      const provenance = (data['provenance'] ?? {}) as JsonObject;
      const { content, provenance: _p, ...rest } = data;
      void _p;
      return {
        ...event,
        data: {
          ...rest,
          message: {
            id: legacyId,
            role: 'assistant',
            content: content ?? [],
            source: { kind: 'model', provider: String(provenance['provider'] ?? 'unknown'), model: String(provenance['model'] ?? 'unknown') },
          },
        },
      } as unknown as SessionEvent;
    }
    case 'tool/result': {
      if ('message' in data) return event;
      const { callId, content, isError, ...rest } = data;
      return {
        ...event,
        data: {
          ...rest,
          message: {
            id: legacyId,
            role: 'user',
            source: { kind: 'tool', callId: callId ?? null },
            content: [{ type: 'tool-result', toolCallId: callId ?? null, content: content ?? [], isError: isError === true }],
          },
        },
      } as unknown as SessionEvent;
    }
    case 'user/message': {
      if (typeof data['id'] === 'string' && data['role'] === 'user') return event;
      return { ...event, data: { ...data, id: typeof data['id'] === 'string' ? data['id'] : legacyId, role: 'user' } } as unknown as SessionEvent;
    }
    case 'turn/end': {
      const reason = data['reason'] as JsonObject | undefined;
      if (!reason || typeof reason !== 'object') return event;
      if (reason['kind'] === 'aborted' && !('cause' in reason)) {
        const cause: JsonValue = (reason['reason'] as JsonValue | undefined) ?? { kind: 'legacy' };
        const { reason: _r, ...restReason } = reason;
        void _r;
        return { ...event, data: { ...data, reason: { ...restReason, cause } } } as unknown as SessionEvent;
      }
      if (reason['kind'] === 'error' && !('failure' in reason)) {
        const { error, ...restReason } = reason;
        const failure: JsonValue = (error as JsonValue | undefined) ?? { message: 'unknown error', code: 'UNKNOWN' };
        return { ...event, data: { ...data, reason: { ...restReason, failure } } } as unknown as SessionEvent;
      }
      return event;
    }
    default:
      return event;
  }
}
