/**
 * The one Markdown renderer of the app (timeline, compare, compaction view, inspectors):
 * GitHub-flavoured Markdown (tables, task lists, strikethrough, autolinks; remark-gfm) with code
 * highlighting (rehype-highlight, only for fenced blocks that name their language). Never renders
 * raw HTML (`skipHtml`); links open outside the app; images are not loaded (a model's text must
 * not make the app fetch anything) but shown as links.
 */
import { memo, useEffect, useState, type ReactNode } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import remarkGfm from 'remark-gfm';

const REMARK_PLUGINS = [remarkGfm];

/**
 * rehype-highlight (7.x) builds its highlighter — registering its ~37 common grammars — every time a
 * processor attaches it, and react-markdown makes a processor per render: every Markdown render paid
 * for it (tens of ms when a streamed answer lands). Built once here and shared; its transformer
 * keeps no per-document state (node_modules/rehype-highlight/lib/index.js).
 */
let sharedHighlight: ReturnType<typeof rehypeHighlight> | undefined;
function rehypeHighlightShared(): ReturnType<typeof rehypeHighlight> {
  return (sharedHighlight ??= rehypeHighlight({ detect: false }));
}
const REHYPE_PLUGINS = [rehypeHighlightShared];

const COMPONENTS: Components = {
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noreferrer noopener">
      {children}
    </a>
  ),
  img: ({ src, alt }) => (
    <a className="md-image" href={typeof src === 'string' ? src : undefined} target="_blank" rel="noreferrer noopener" title="image (not loaded)">
      🖼 {alt || (typeof src === 'string' ? src : 'image')}
    </a>
  ),
  table: ({ children }) => (
    <div className="md-table-wrap">
      <table>{children}</table>
    </div>
  ),
  input: ({ type, checked }) => (type === 'checkbox' ? <input type="checkbox" checked={checked === true} readOnly disabled aria-label={checked ? 'done' : 'not done'} /> : null),
};

export interface MarkdownProps {
  readonly text: string;
  readonly className?: string;
  readonly testId?: string;
}

/** Renders `text` as GitHub-flavoured Markdown. */
export const Markdown = memo(function Markdown({ text, className, testId }: MarkdownProps): ReactNode {
  return (
    <div className={`markdown${className ? ` ${className}` : ''}`} data-testid={testId}>
      <ReactMarkdown skipHtml remarkPlugins={REMARK_PLUGINS} rehypePlugins={REHYPE_PLUGINS} components={COMPONENTS}>
        {text}
      </ReactMarkdown>
    </div>
  );
});

/** A small document that touches every part of the pipeline once: GFM, a table, highlighted code. */
const WARMUP_TEXT = '# warm-up\n\n- [x] **item** with `code` and a https://example.com link\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```ts\nconst x: number = 1;\n```\n';

/**
 * Renders one hidden Markdown document when the browser is first idle, then nothing. The first
 * Markdown render of a page pays for cold parsers and for building the highlighter (~40 ms on a
 * 2-core machine); without this it lands on the frame where the first answer of a session
 * finishes streaming, and shows as a stall there.
 */
export function MarkdownWarmup(): ReactNode {
  const [phase, setPhase] = useState<'waiting' | 'rendering' | 'done'>('waiting');
  useEffect(() => {
    if (phase === 'waiting') {
      const idle = globalThis.requestIdleCallback ?? ((fn: () => void) => setTimeout(fn, 200));
      const handle = idle(() => setPhase('rendering'));
      return () => (globalThis.cancelIdleCallback ?? clearTimeout)(handle as number);
    }
    if (phase === 'rendering') setPhase('done');
    return undefined;
  }, [phase]);
  if (phase !== 'rendering') return null;
  return (
    <div hidden aria-hidden="true">
      <Markdown text={WARMUP_TEXT} />
    </div>
  );
}
