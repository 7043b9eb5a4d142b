/**
 * The per-model limits of the Settings dialog: context window and max output (tokens) for the
 * chosen endpoint + model. Empty fields mean "use what the endpoint publishes or what Forkline
 * learned"; the placeholders show the published / preset numbers when known.
 */
import type { ReactNode } from 'react';

export interface ModelLimitsFieldsProps {
  readonly contextWindow: string;
  readonly maxOutput: string;
  readonly onContextWindow: (value: string) => void;
  readonly onMaxOutput: (value: string) => void;
  /** Known numbers to show as placeholders. */
  readonly known?: { readonly contextWindow?: number; readonly maxOutput?: number };
}

/** A positive whole number of tokens from a field ('' = unset; undefined = invalid). */
export function parseTokens(value: string): number | '' | undefined {
  const trimmed = value.trim().replace(/[_,\s]/g, '');
  if (trimmed === '') return '';
  const n = Number(trimmed);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

export function ModelLimitsFields({ contextWindow, maxOutput, onContextWindow, onMaxOutput, known }: ModelLimitsFieldsProps): ReactNode {
  const windowInvalid = parseTokens(contextWindow) === undefined;
  const outputInvalid = parseTokens(maxOutput) === undefined;
  return (
    <div className="field">
      <span>Limits for this model (tokens)</span>
      <div className="inline">
        <label className="compact-field">
          <span>Context window</span>
          <input
            data-testid="settings-context-window"
            inputMode="numeric"
            aria-invalid={windowInvalid}
            placeholder={known?.contextWindow !== undefined ? `published: ${known.contextWindow}` : 'unknown (learned)'}
            value={contextWindow}
            onChange={(e) => onContextWindow(e.target.value)}
          />
        </label>
        <label className="compact-field">
          <span>Max output</span>
          <input
            data-testid="settings-max-output"
            inputMode="numeric"
            aria-invalid={outputInvalid}
            placeholder={known?.maxOutput !== undefined ? `published: ${known.maxOutput}` : 'server default'}
            value={maxOutput}
            onChange={(e) => onMaxOutput(e.target.value)}
          />
        </label>
      </div>
      <span className={`hint ${windowInvalid || outputInvalid ? 'warn' : ''}`} data-testid="settings-limits-hint">
        {windowInvalid || outputInvalid
          ? 'Enter a whole number of tokens, or leave the field empty.'
          : 'Empty: use what the endpoint publishes, else what Forkline learns from its errors. Compaction starts at 80 % of the window.'}
      </span>
    </div>
  );
}
