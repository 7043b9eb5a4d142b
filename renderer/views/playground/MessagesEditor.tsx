/**
 * The request playground's messages editor (issue 23): the logged request's messages one by one,
 * each under the role the provider receives it with (`user`, `assistant`, `tool` — a tool result is
 * its own `tool` message on the wire), its content in a text box: the text of a user or assistant
 * message, the arguments of a tool call, the output of a tool result, the thinking sent back. What
 * the person edits is what is sent: the edit replaces that block's text in the request's messages
 * and the model client serializes them as for any session request. A message can be removed, and
 * one added at the end ("Add message": `user`, `assistant` or `system`, an empty text that takes
 * focus; a `system` one is sent as a system message where it stands, shared/messages.ts
 * `SYSTEM_ROLE_SOURCE`). Ids, sources and call ids are kept as logged (they are not shown: the
 * provider never sees them).
 */
import { useRef, useState, type ReactNode } from 'react';
import { isSystemRoleMessage, SYSTEM_ROLE_SOURCE, type ContentBlock, type Message } from '../../../shared/messages.js';
import { focusAfterRender } from '../../keyboard/focus-after-render.js';

/** Messages added in this page so far (with the clock, a new message's id never repeats one in the list). */
let addedCount = 0;

/** The roles a message added in the playground can have. */
export type AddedMessageRole = 'user' | 'assistant' | 'system';

/** An empty message with `role` and a fresh id (the id is never sent; it only keeps the list's rows apart). */
export function newPlaygroundMessage(role: AddedMessageRole, id: string): Message {
  const content = [{ type: 'text' as const, text: '' }];
  if (role === 'assistant') return { id, role: 'assistant', content, source: { kind: 'model', provider: 'playground', model: 'written in the playground' } };
  return { id, role: 'user', content, source: role === 'system' ? SYSTEM_ROLE_SOURCE : { kind: 'user' } };
}

const SOURCE_NOTE: Record<string, string> = { user: 'typed by you', steer: 'steering', inject: 'injected context', plugin: 'plugin context', compaction: 'compaction summary' };

/** Rows for a text box: its lines, at least 2, at most 10 (it scrolls past that). */
function rowsFor(text: string): number {
  return Math.min(10, Math.max(2, text.split('\n').length + Math.floor(text.length / 60)));
}

function toolNames(messages: readonly Message[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const m of messages) for (const b of m.content) if (b.type === 'tool-call') names.set(b.id, b.name);
  return names;
}

/** The wire role of one block of a message: a tool result travels as a `tool` message, an added system message as `system`. */
function wireRole(message: Message, block: ContentBlock): string {
  return block.type === 'tool-result' ? 'tool' : isSystemRoleMessage(message) ? 'system' : message.role;
}

function BlockEditor({
  message,
  block,
  index,
  blockIndex,
  names,
  onChange,
}: {
  readonly message: Message;
  readonly block: ContentBlock;
  readonly index: number;
  readonly blockIndex: number;
  readonly names: ReadonlyMap<string, string>;
  readonly onChange: (next: ContentBlock) => void;
}): ReactNode {
  const at = `message ${index + 1}`;
  switch (block.type) {
    case 'text':
      return (
        <textarea
          className="mono playground-text"
          data-testid="playground-message-text"
          aria-label={`${at}: ${wireRole(message, block)} text`}
          spellCheck={false}
          rows={rowsFor(block.text)}
          value={block.text}
          onChange={(e) => onChange({ ...block, text: e.target.value })}
        />
      );
    case 'reasoning':
      return (
        <label className="playground-block">
          <span className="muted">thinking (sent back with this message)</span>
          <textarea
            className="mono playground-text"
            aria-label={`${at}: thinking`}
            spellCheck={false}
            rows={rowsFor(block.text)}
            value={block.text}
            onChange={(e) => onChange({ ...block, text: e.target.value })}
          />
        </label>
      );
    case 'tool-call':
      return (
        <label className="playground-block">
          <span className="muted">
            tool call <b className="mono">{block.name}</b> — arguments (JSON)
          </span>
          <textarea
            className="mono playground-text"
            data-testid="playground-tool-args"
            aria-label={`${at}: arguments of the ${block.name} call`}
            spellCheck={false}
            rows={rowsFor(block.arguments)}
            value={block.arguments}
            onChange={(e) => onChange({ ...block, arguments: e.target.value })}
          />
        </label>
      );
    case 'tool-result': {
      const text = block.content.map((c) => c.text).join('');
      const name = names.get(block.toolCallId);
      return (
        <label className="playground-block" key={blockIndex}>
          <span className="muted">
            result of <b className="mono">{name ?? block.toolCallId}</b>
            {block.isError ? ' (an error)' : ''}
          </span>
          <textarea
            className="mono playground-text"
            data-testid="playground-tool-result"
            aria-label={`${at}: result of the ${name ?? 'tool'} call`}
            spellCheck={false}
            rows={rowsFor(text)}
            value={text}
            onChange={(e) => onChange({ ...block, content: [{ type: 'text', text: e.target.value }] })}
          />
        </label>
      );
    }
  }
}

/** The messages after the system prompt, each editable; `onChange` gets the whole edited list. */
export function MessagesEditor({ messages, onChange }: { readonly messages: readonly Message[]; readonly onChange: (next: readonly Message[]) => void }): ReactNode {
  const names = toolNames(messages);
  const setBlock = (index: number, blockIndex: number, next: ContentBlock): void => {
    onChange(messages.map((m, i) => (i === index ? ({ ...m, content: m.content.map((b, j) => (j === blockIndex ? next : b)) } as Message) : m)));
  };
  const [addRole, setAddRole] = useState<AddedMessageRole>('user');
  const list = useRef<HTMLOListElement>(null);
  const add = (from: Element): void => {
    // Not crypto.randomUUID: browser mode may be served where the page is not a secure context.
    const id = `playground-added-${Date.now().toString(36)}-${++addedCount}`;
    onChange([...messages, newPlaygroundMessage(addRole, id)]);
    // The new message's text box takes focus, once it is rendered.
    focusAfterRender(() => list.current?.querySelector<HTMLElement>(`[data-message-id="${CSS.escape(id)}"] textarea`), { from });
  };
  return (
    <>
      <ol ref={list} className="playground-messages" data-testid="playground-messages" aria-label="Messages as the provider receives them, after the system prompt">
        {messages.map((m, i) => {
          const roles = [...new Set(m.content.map((b) => wireRole(m, b)))];
          return (
            <li key={m.id} className="playground-message" data-testid="playground-message" data-message-id={m.id} data-role={roles.join(' ')}>
              <div className="playground-message-head">
                <b className="mono" data-testid="playground-message-role">
                  {roles.length > 0 ? roles.join(' + ') : m.role}
                </b>
                {m.role === 'user' && roles.includes('user') && <span className="muted">{SOURCE_NOTE[m.source.kind] ?? m.source.kind}</span>}
                <span className="spacer" />
                <button
                  type="button"
                  className="link-button"
                  data-testid="playground-message-remove"
                  aria-label={`Remove message ${i + 1} (${roles.join(' + ') || m.role})`}
                  onClick={() => onChange(messages.filter((_, j) => j !== i))}
                >
                  remove
                </button>
              </div>
              {m.content.map((b, j) => (
                <BlockEditor key={j} message={m} block={b} index={i} blockIndex={j} names={names} onChange={(next) => setBlock(i, j, next)} />
              ))}
            </li>
          );
        })}
      </ol>
      <div className="playground-add-message" data-testid="playground-add-message">
        <select data-testid="playground-add-role" aria-label="Role of the message to add" value={addRole} onChange={(e) => setAddRole(e.target.value as AddedMessageRole)}>
          <option value="user">user</option>
          <option value="assistant">assistant</option>
          <option value="system">system</option>
        </select>
        <button type="button" className="small" data-testid="playground-add-button" onClick={(e) => add(e.currentTarget)}>
          Add message
        </button>
      </div>
    </>
  );
}
