/** A unified diff of one file (old → new text) with line numbers. */
import { memo, useMemo, type ReactNode } from 'react';
import type { FileDiff } from '../../../shared/tool-view.js';
import { diffLines, diffStat, type DiffLine } from './unified-diff.js';

/** Numbered diff lines as a table (old no, new no, mark, text); shared with the compare view's file diff. */
export const DiffTable = memo(function DiffTable({ lines }: { readonly lines: readonly DiffLine[] }): ReactNode {
  return (
    <table className="diff-table mono" tabIndex={0}>
      <tbody>
        {lines.map((l, i) => (
          <tr key={i} className={`diff-${l.kind}`}>
            <td className="ln">{l.oldNo ?? ''}</td>
            <td className="ln">{l.newNo ?? ''}</td>
            <td className="mark">{l.kind === 'add' ? '+' : l.kind === 'del' ? '−' : l.kind === 'hunk' ? '' : ' '}</td>
            <td className="code">{l.text}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
});

export const DiffView = memo(function DiffView({ diff }: { readonly diff: FileDiff }): ReactNode {
  const lines = useMemo(() => diffLines(diff.path, diff.oldText, diff.newText), [diff]);
  const stat = diffStat(lines);
  return (
    <div className="diff" data-testid="tool-diff" data-path={diff.path}>
      <div className="diff-head mono">
        <span>{diff.path}</span>
        <span className="diff-stat">
          <span className="add">+{stat.added}</span> <span className="del">−{stat.removed}</span>
        </span>
      </div>
      {diff.partial && <div className="muted diff-note">the file is large: showing only the edited text</div>}
      {diff.omitted ? (
        <div className="muted diff-empty">the file is too large to show a diff</div>
      ) : lines.length === 0 ? (
        <div className="muted diff-empty">no changes</div>
      ) : (
        <DiffTable lines={lines} />
      )}
    </div>
  );
});
