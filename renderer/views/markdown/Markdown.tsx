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
const REHYPE_PLUGINS = [[rehypeHighlight, { detect: false }] as [typeof rehypeHighlight, { detect: boolean }]];

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
