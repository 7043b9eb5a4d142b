/**
 * The ▸/▾ button that folds and expands a timeline row. Clicks do not reach the row (which opens
 * the raw event inspector).
 */
import type { ReactNode } from 'react';

export function FoldToggle({ testId, expanded, onToggle, label }: { readonly testId: string; readonly expanded: boolean; readonly onToggle: () => void; readonly label?: string }): ReactNode {
  return (
    <button
      type="button"
      className="toggle"
      data-testid={testId}
      aria-expanded={expanded}
      {...(label ? { 'aria-label': `${expanded ? 'Fold' : 'Expand'} ${label}` } : {})}
      onClick={(e) => {
        e.stopPropagation();
        onToggle();
      }}
    >
      {expanded ? '▾' : '▸'}
    </button>
  );
}
