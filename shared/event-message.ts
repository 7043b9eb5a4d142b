/**
 * The model-visible message an event carries, read loosely (for views that render the originals a
 * compaction replaced): `user/message` → the message; `assistant/message` → its message unless
 * empty; `tool/result` → its tool-result message; anything else → undefined.
 *
 * Pure: no Node, no DOM.
 */
import type { SessionEvent } from './events.js';
import { asArray, asObject } from './event-read.js';
import type { Message } from './messages.js';

export function eventMessage(event: SessionEvent): Message | undefined {
  const d = asObject(event.data);
  if (!d) return undefined;
  switch (event.type) {
    case 'user/message':
      return asArray(d['content']).length > 0 ? (d as unknown as Message) : undefined;
    case 'assistant/message': {
      const message = asObject(d['message']);
      return message && asArray(message['content']).length > 0 ? (message as unknown as Message) : undefined;
    }
    case 'tool/result': {
      const message = asObject(d['message']);
      return message && asArray(message['content']).length > 0 ? (message as unknown as Message) : undefined;
    }
    default:
      return undefined;
  }
}
