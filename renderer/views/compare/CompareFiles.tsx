/**
 * The compare view's file section: which files differ between the two branches' latest workspace
 * checkpoints, and the unified diff per file (A's side as −, B's as +), or why there is none.
 */
import { memo, useMemo, type ReactNode } from 'react';
import type { CompareResult } from '../../../shared/api.js';
import { DiffTable } from '../timeline/DiffView.js';
import { parseCompareDiff, type PatchFile } from './patch-files.js';

const STATUS_LABEL: Record<string, string> = { A: 'only in B', D: 'only in A', M: 'differs', R: 'renamed', C: 'copied', T: 'type changed' };

function statusLabel(status: string): string {
  return STATUS_LABEL[status.charAt(0)] ?? status;
}

/** One file's diff as a numbered table (also the board's per-branch diff). */
export const PatchFileView = memo(function PatchFileView({ file }: { readonly file: PatchFile }): ReactNode {
  return (
    <div className="diff" data-testid="compare-diff" data-path={file.path}>
      <div className="diff-head mono">
        <span>{file.path}</span>
        <span className="diff-stat">
          <span className="add">+{file.added}</span> <span className="del">−{file.removed}</span>
        </span>
      </div>
      {file.binary ? (
        <div className="muted diff-empty">binary file differs</div>
      ) : file.lines.length === 0 ? (
        <div className="muted diff-empty">no text changes (mode or empty file)</div>
      ) : (
        <DiffTable lines={file.lines} />
      )}
    </div>
  );
});

export function CompareFiles({ result, titleA, titleB }: { readonly result: CompareResult; readonly titleA: string; readonly titleB: string }): ReactNode {
  const parsed = useMemo(() => parseCompareDiff(result.diff), [result.diff]);
  const { files, diffNote } = result;
  return (
    <section className="compare-section" data-testid="compare-files" data-count={files.length}>
      <div className="compare-section-title">
        Files
        <span className="muted">
          {files.length === 0 ? '' : `${files.length} ${files.length === 1 ? 'file differs' : 'files differ'} · `}
          <span className="del">− A</span> {titleA} · <span className="add">+ B</span> {titleB}
        </span>
      </div>
      {diffNote !== undefined && (
        <div className="banner info compare-note" data-testid="compare-diff-note">
          {diffNote}
        </div>
      )}
      {files.length === 0 && diffNote === undefined && (
        <div className="compare-state" data-testid="compare-files-empty">
          Both branches end with the same files.
        </div>
      )}
      {files.length > 0 && (
        <ul className="compare-file-list">
          {files.map((f) => (
            <li key={`${f.status}:${f.path}`} className="compare-file" data-testid="compare-file" data-status={f.status} data-path={f.path}>
              <span className={`file-status status-${f.status.charAt(0)}`} title={statusLabel(f.status)}>
                {f.status}
              </span>
              <span className="mono clip">{f.path}</span>
              <span className="muted">{statusLabel(f.status)}</span>
            </li>
          ))}
        </ul>
      )}
      {parsed.ok ? (
        <>
          {parsed.files.map((file) => (
            <PatchFileView key={file.path} file={file} />
          ))}
          {parsed.truncated && (
            <div className="compare-state" data-testid="compare-diff-truncated">
              The diff was cut short; the files after the last complete one are listed above but not shown.
            </div>
          )}
        </>
      ) : (
        <pre className="plain" data-testid="compare-diff-raw" tabIndex={0}>
          {parsed.raw}
        </pre>
      )}
    </section>
  );
}
