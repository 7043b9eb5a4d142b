/**
 * The one Markdown renderer of the app (timeline, compare, compaction view, inspectors):
 * GitHub-flavoured Markdown (tables, task lists, strikethrough, autolinks; remark-gfm) with code
 * highlighting (rehype-highlight, only for fenced blocks that name their language). Never renders
 * raw HTML (`skipHtml`); links open outside the app; images are not loaded (a model's text must
 * not make the app fetch anything) but shown as links.
 */
import { memo, type ReactNode } from 'react';
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
