/**
 * Projection of one surface event to the provider message it contributes (reference runtime
 * `deriveEventMessage`). Pure.
 */
import type { SessionEvent } from '../../shared/events.js';
import type { Message } from '../../shared/messages.js';

/**
 * `user/message` → the stored message verbatim; `assistant/message` → its message unless the
 * content is empty (a content-less anchor only carries usage); `tool/result` → its tool-result
 * message; everything else → nothing.
 */
export function projectEventMessage(event: SessionEvent): Message | undefined {
  switch (event.type) {
    case 'user/message':
      return event.data;
    case 'assistant/message':
      return event.data.message.content.length === 0 ? undefined : event.data.message;
    case 'tool/result':
      return event.data.message;
    default:
      return undefined;
  }
}
