/**
 * A model-visible message as the model got it — user prompts and summaries, assistant text (as
 * Markdown), reasoning (folded), tool calls with their arguments, tool results — used by the
 * request inspector and the compaction view. Tool results are labelled by the call they answer,
 * never as "user" messages.
 */
import { memo, useRef, useState, type ReactNode } from 'react';
import type { ContentBlock, Message } from '../../../shared/messages.js';
import { headPreview } from '../../../shared/preview.js';
import { prettyArgs } from '../../../shared/tool-view.js';
import { focusAfterRender } from '../../keyboard/focus-after-render.js';
import { Markdown } from '../markdown/Markdown.js';

/** What a message is, in words (`You`, `Assistant`, `tool result · read_file`, `compaction summary`, …). */
export function messageLabel(message: Message, toolNames?: ReadonlyMap<string, string>): string {
  if (message.role === 'assistant') return 'Assistant';
  const source = message.source.kind;
  if (source === 'tool') {
    const block = message.content[0];
    const id = block && block.type === 'tool-result' ? block.toolCallId : undefined;
    const name = id !== undefined ? toolNames?.get(id) : undefined;
    return name ? `tool result · ${name}` : 'tool result';
  }
  switch (source) {
    case 'user':
      return 'You';
    case 'steer':
      return 'steering';
    case 'inject':
      return 'injected context';
    case 'compaction':
      return 'compaction summary';
    default:
      return source;
  }
}

/** Tool call ids → tool names, from the assistant messages of a list (for labelling results). */
export function toolNamesOf(messages: readonly Message[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const m of messages) if (m.role === 'assistant') for (const b of m.content) if (b.type === 'tool-call') names.set(b.id, b.name);
  return names;
}

/** Long texts start folded to this many characters. */
const FOLD_CHARS = 1_500;

function FoldedText({ text, markdown }: { readonly text: string; readonly markdown: boolean }): ReactNode {
  const folds = text.length > FOLD_CHARS;
  const [open, setOpen] = useState(!folds);
  const shown = open ? text : headPreview(text, FOLD_CHARS);
  const textRef = useRef<HTMLDivElement>(null);
  const body = markdown ? <Markdown text={shown} /> : <pre className="plain">{shown}</pre>;
  return (
    <>
      {/* A text that was folded can take focus: "show all" goes away and hands focus to the whole text. */}
      {folds ? (
        <div ref={textRef} className="folded-text" data-testid="message-text" tabIndex={-1}>
          {body}
        </div>
      ) : (
        body
      )}
      {!open && (
        <button
          type="button"
          className="link-button"
          data-testid="message-show-all"
          onClick={(e) => {
            setOpen(true);
            focusAfterRender(() => textRef.current, { from: e.currentTarget });
          }}
        >
          show all {text.length.toLocaleString('en-US')} characters
        </button>
      )}
    </>
  );
}

function Block({ block, markdown }: { readonly block: ContentBlock; readonly markdown: boolean }): ReactNode {
  switch (block.type) {
    case 'text':
      return (
        <div className="block block-text">
          <FoldedText text={block.text} markdown={markdown} />
        </div>
      );
    case 'reasoning':
      return (
        <details className="block block-reasoning">
          <summary>reasoning ({block.text.length.toLocaleString('en-US')} chars)</summary>
          <pre className="plain">{block.text}</pre>
        </details>
      );
    case 'tool-call':
      return (
        <div className="block block-tool-call">
          <div className="mono">
            call <b>{block.name}</b> <span className="muted">{block.id}</span>
          </div>
          <pre className="json">{prettyArgs(block.arguments)}</pre>
        </div>
      );
    case 'tool-result':
      return (
        <div className={`block block-tool-result${block.isError ? ' error' : ''}`}>
          {block.isError && <span className="badge badge-bad">error</span>}
          <FoldedText text={block.content.map((c) => c.text).join('')} markdown={false} />
        </div>
      );
    default:
      return <pre className="json">{JSON.stringify(block, null, 2)}</pre>;
  }
}

export interface MessageCardProps {
  readonly message: Message;
  /** Position in the request, when shown as part of one. */
  readonly index?: number;
  readonly toolNames?: ReadonlyMap<string, string>;
  /** Render text as Markdown (default) or as it was sent. */
  readonly markdown?: boolean;
  /** Extra content in the head (e.g. a seq link). */
  readonly aside?: ReactNode;
}

export const MessageCard = memo(function MessageCard({ message, index, toolNames, markdown = true, aside }: MessageCardProps): ReactNode {
  const kind = message.role === 'assistant' ? 'assistant' : message.source.kind === 'tool' ? 'tool' : message.source.kind === 'compaction' ? 'summary' : 'user';
  return (
    <div className={`message-card kind-${kind}`} data-testid="message-card" data-role={message.role} data-source={message.source.kind}>
      <div className="message-card-head">
        {index !== undefined && <span className="mono muted">#{index}</span>}
        <b>{messageLabel(message, toolNames)}</b>
        <span className="spacer" />
        {aside}
      </div>
      {message.content.map((block, i) => (
        <Block key={i} block={block} markdown={markdown} />
      ))}
    </div>
  );
});
