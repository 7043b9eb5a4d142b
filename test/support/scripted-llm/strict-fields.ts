/**
 * The scripted server's strict-fields mode (`startScriptedLlm({ rejectUnknownFields: true })`,
 * `npm run scripted-llm -- --reject-unknown-fields`): it refuses a message field that is not part of
 * the OpenAI Chat Completions message schema, as servers with a closed schema do (issue 20: the
 * opposite risk of sending `reasoning_content` by default).
 *
 * | request | answer | source |
 * |---|---|---|
 * | a message with a key outside its role's schema (e.g. `reasoning_content` on an assistant message) | 400 `messages.N.ROLE.KEY: property 'messages.N.ROLE.KEY' is unsupported` (`code: wrong_api_format`) | Cerebras, as quoted in Kilo-Org/kilocode#10375 and CherryHQ/cherry-studio#16790 |
 *
 * Known keys per role: https://platform.openai.com/docs/api-reference/chat/create (`messages`).
 */
import { httpError } from './builders.js';
import type { RecordedRequest, RequestValidator } from './server.js';

/** The keys each role's message may carry. */
const KNOWN_KEYS: { readonly [role: string]: readonly string[] } = {
  system: ['role', 'content', 'name'],
  developer: ['role', 'content', 'name'],
  user: ['role', 'content', 'name'],
  assistant: ['role', 'content', 'name', 'tool_calls', 'refusal', 'audio', 'function_call'],
  tool: ['role', 'content', 'tool_call_id'],
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- request bodies are arbitrary JSON
type Body = any;

/** The first-to-last list of unknown message fields in `body`, as the server words them (empty: accepted). */
export function unknownFieldViolations(body: Body): string[] {
  const out: string[] = [];
  const messages: Body[] = Array.isArray(body?.messages) ? body.messages : [];
  messages.forEach((message, index) => {
    if (message === null || typeof message !== 'object') return;
    const role = String(message.role);
    const known = KNOWN_KEYS[role];
    if (known === undefined) return;
    for (const key of Object.keys(message)) {
      if (!known.includes(key)) out.push(`messages.${index}.${role}.${key}: property 'messages.${index}.${role}.${key}' is unsupported`);
    }
  });
  return out;
}

/** The validator of the mode: Cerebras' 400 body for the first unknown field. */
export function unknownFieldsValidator(): RequestValidator {
  return (request: RecordedRequest) => {
    const first = unknownFieldViolations(request.body)[0];
    return first === undefined ? undefined : httpError(400, { message: first, type: 'invalid_request_error', param: 'validation_error', code: 'wrong_api_format' });
  };
}
