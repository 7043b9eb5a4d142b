/**
 * Drag-and-drop import for the whole window, and the progress bars of running imports. Dropping
 * one or more files anywhere imports them (any format we read; detected by content); while files
 * are dragged over the window an overlay says what will happen.
 */
import { useEffect, useState, type ReactNode } from 'react';
import { useApp } from '../context.js';
import { useImportFiles } from './use-import-files.js';

function hasFiles(e: DragEvent): boolean {
  return Array.from(e.dataTransfer?.types ?? []).includes('Files');
}

export function ImportDropZone(): ReactNode {
  const importFiles = useImportFiles();
  const [over, setOver] = useState(false);
  useEffect(() => {
    let depth = 0;
    const enter = (e: DragEvent): void => {
      if (!hasFiles(e)) return;
      depth++;
      setOver(true);
    };
    const leave = (e: DragEvent): void => {
      if (!hasFiles(e)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) setOver(false);
    };
    const overHandler = (e: DragEvent): void => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    };
    const drop = (e: DragEvent): void => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth = 0;
      setOver(false);
      const files = Array.from(e.dataTransfer?.files ?? []);
      if (files.length > 0) void importFiles(files);
    };
    window.addEventListener('dragenter', enter);
    window.addEventListener('dragleave', leave);
    window.addEventListener('dragover', overHandler);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragenter', enter);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('dragover', overHandler);
      window.removeEventListener('drop', drop);
    };
  }, [importFiles]);
  return (
    <>
      {over && (
        <div className="drop-overlay" data-testid="import-drop-overlay" aria-hidden="true">
          <div className="drop-overlay-box">Drop to import: Claude Code, Codex, OpenHands, DeepSeek Harness or Forkline session logs</div>
        </div>
      )}
      <ImportProgress />
    </>
  );
}

function ImportProgress(): ReactNode {
  const imports = useApp((s) => s.imports);
  if (imports.length === 0) return null;
  return (
    <div className="import-progress" data-testid="import-progress" role="status" aria-live="polite">
      {imports.map((i) => (
        <div key={i.key} className="import-progress-row">
          <span className="clip">Importing {i.fileName}</span>
          <progress max={1} value={i.fraction} aria-label={`Importing ${i.fileName}`} />
          <span className="muted mono">{Math.round(i.fraction * 100)}%</span>
        </div>
      ))}
    </div>
  );
}
