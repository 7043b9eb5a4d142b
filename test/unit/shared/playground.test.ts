/**
 * The request playground's edit checks (shared/playground.ts): what the editor shows inline and the
 * host refuses with, the editor's starting texts, and which typed prompt "Fork with this prompt" uses.
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../shared/messages.js';
import { checkPlaygroundEdit, editedPrompt, playgroundEditOf } from '../../../shared/playground.js';

const messages: Message[] = [
  { id: 'u1', role: 'user', content: [{ type: 'text', text: 'Read a.txt.' }], source: { kind: 'user' } },
  { id: 'a1', role: 'assistant', content: [{ type: 'tool-call', id: 'c1', name: 'read_file', arguments: '{"path":"a.txt"}' }], source: { kind: 'model', provider: 'custom', model: 'm' } },
  { id: 't1', role: 'user', content: [{ type: 'tool-result', toolCallId: 'c1', content: [{ type: 'text', text: 'alpha' }], isError: false }], source: { kind: 'tool', callId: 'c1' } },
  { id: 'u2', role: 'user', content: [{ type: 'text', text: 'Say it louder.' }], source: { kind: 'user' } },
];
const tools = [{ name: 'read_file', description: 'Reads a file', parameters: { type: 'object' } }];

describe('playground edits', () => {
  it('the logged request round-trips through the editor texts unchanged', () => {
    const edit = playgroundEditOf({ system: 'You are terse.', messages, tools, config: { temperature: 0.3, maxTokens: 100 } });
    expect(JSON.parse(edit.params)).toEqual({ temperature: 0.3, maxTokens: 100 });
    const checked = checkPlaygroundEdit(edit);
    expect(checked).toEqual({ ok: true, value: { system: 'You are terse.', messages, tools, params: { temperature: 0.3, maxTokens: 100 } } });
  });

  it('reports each failing field with its path', () => {
    const bad = checkPlaygroundEdit({
      messages: JSON.stringify([{ ...messages[0], content: [{ type: 'image', url: 'x' }] }]),
      tools: JSON.stringify([tools[0], tools[0]]),
      params: '{"maxTokens": 0.5}',
    });
    expect(bad).toEqual({
      ok: false,
      errors: [
        { field: 'messages', message: 'messages[0].content[0].type: must be "text", "reasoning", "tool-call" or "tool-result" (got "image")' },
        { field: 'tools', message: 'tools[1].name: "read_file" is offered twice' },
        { field: 'params', message: 'maxTokens: must be a whole number from 1 to 1,000,000' },
      ],
    });
    expect(checkPlaygroundEdit({ messages: '[]', tools: '[]', params: '{}' })).toMatchObject({ ok: false, errors: [{ field: 'messages', message: 'needs at least one message' }] });
    const toolCallInUser = JSON.stringify([{ ...messages[0], content: [{ type: 'tool-call', id: 'c', name: 'x', arguments: '{}' }] }]);
    expect(checkPlaygroundEdit({ messages: toolCallInUser, tools: '[]', params: '{}' })).toMatchObject({
      ok: false,
      errors: [{ message: 'messages[0].content[0]: a tool call belongs in an assistant message' }],
    });
  });

  it('"Fork with this prompt" takes the first typed prompt whose text changed, never a tool result', () => {
    expect(editedPrompt(messages, messages)).toBeUndefined();
    const edited = messages.map((m) => (m.id === 'u2' ? { ...m, content: [{ type: 'text' as const, text: 'Say it quieter.' }] } : m)) as Message[];
    expect(editedPrompt(messages, edited)).toEqual({ messageId: 'u2', text: 'Say it quieter.' });
    const toolChanged = messages.map((m) =>
      m.id === 't1' ? { ...m, content: [{ type: 'tool-result' as const, toolCallId: 'c1', content: [{ type: 'text' as const, text: 'beta' }], isError: false }] } : m,
    ) as Message[];
    expect(editedPrompt(messages, toolChanged)).toBeUndefined();
    const blank = messages.map((m) => (m.id === 'u1' ? { ...m, content: [{ type: 'text' as const, text: '  ' }] } : m)) as Message[];
    expect(editedPrompt(messages, blank)).toBeUndefined();
  });
});
