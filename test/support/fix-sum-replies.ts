/**
 * Model-keyed scripted replies for fan-out tests on examples/fix-sum (whose sum.js starts a total
 * with `let total;`, so its test fails): a prompt that mentions "fix" reads sum.js, then `fixer`
 * edits it to `let total = 0;` (the fix), a model in `breakers` edits it to `let total = null;`,
 * and any other model writes a notes file; then each says it is done. Any other prompt gets a
 * greeting. Used by the CLI, host and board tests of fan-out so they script the same variants.
 */
import { textResponse, toolCallResponse, type ReplyStep } from './scripted-llm/index.js';

/** A chat message as the scripted server receives it. */
export interface ScriptedMessage {
  readonly role: string;
  readonly content?: unknown;
}

export interface FixSumReplyOptions {
  /** The model that fixes sum.js (default `model-b`). */
  readonly fixer?: string;
  /** Models that change sum.js the wrong way. */
  readonly breakers?: readonly string[];
  /** The notes file the other models write (default `notes.txt`). */
  readonly notesPath?: (model: string) => string;
  /** What the notes file holds (default `I looked at it.\n`). */
  readonly notesText?: string;
  /** The closing answer (default `done (MODEL)`). */
  readonly finalReply?: (model: string) => ReplyStep;
}

/** The reply of `model` to a request whose messages are `messages` (see the module comment). */
export function fixSumReply(model: string, messages: readonly ScriptedMessage[], options: FixSumReplyOptions = {}): ReplyStep {
  const lastUser = messages.findLastIndex((m) => m.role === 'user');
  const userText = JSON.stringify(messages[lastUser]?.content ?? '');
  if (!userText.includes('fix')) return textResponse(`hello from ${model}`);
  const toolsSince = messages.slice(lastUser).filter((m) => m.role === 'tool').length;
  const id = (n: number): string => `call_${model}_${messages.length}_${n}`;
  if (toolsSince === 0) return toolCallResponse([{ id: id(0), name: 'read_file', arguments: '{"path":"sum.js"}' }]);
  if (toolsSince === 1) {
    const edit = (replacement: string): ReplyStep =>
      toolCallResponse([{ id: id(1), name: 'edit_file', arguments: JSON.stringify({ path: 'sum.js', old_string: 'let total;', new_string: replacement }) }]);
    if (model === (options.fixer ?? 'model-b')) return edit('let total = 0;');
    if (options.breakers?.includes(model)) return edit('let total = null;');
    const path = options.notesPath?.(model) ?? 'notes.txt';
    return toolCallResponse([{ id: id(1), name: 'write_file', arguments: JSON.stringify({ path, content: options.notesText ?? 'I looked at it.\n' }) }]);
  }
  return options.finalReply?.(model) ?? textResponse(`done (${model})`);
}
