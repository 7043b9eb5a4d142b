/**
 * The model field of the Settings dialog: free text with suggestions, plus "List models", which
 * asks the host for the endpoint's models and their known context windows (HostApi `listModels`)
 * and says where the numbers came from.
 */
import { useRef, useState, type ReactNode } from 'react';
import type { ModelListing, ProviderPresetView } from '../../../shared/api.js';
import { formatTokens } from '../../../shared/format.js';
import { describeError } from '../../host/host-client.js';
import { focusAfterRender } from '../../keyboard/focus-after-render.js';
import { useClient } from '../context.js';

export interface ModelListFieldProps {
  readonly provider: string;
  readonly baseUrl: string;
  readonly model: string;
  readonly preset: ProviderPresetView | undefined;
  readonly onModel: (model: string) => void;
  /** The listing, once loaded (the limits fields show its numbers as placeholders). */
  readonly onListing: (listing: ModelListing | undefined) => void;
  readonly listing: ModelListing | undefined;
}

export function ModelListField({ provider, baseUrl, model, preset, onModel, onListing, listing }: ModelListFieldProps): ReactNode {
  const client = useClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const choices = listing?.models ?? preset?.models.map((m) => ({ id: m.id, ...(m.contextWindow !== undefined ? { contextWindow: m.contextWindow } : {}) })) ?? [];

  const buttonRef = useRef<HTMLButtonElement>(null);

  const load = async (): Promise<void> => {
    setBusy(true);
    setError(undefined);
    try {
      onListing(await client.listModels({ provider, ...(baseUrl.trim() ? { baseUrl: baseUrl.trim() } : {}) }));
    } catch (e) {
      onListing(undefined);
      setError(describeError(e));
    } finally {
      setBusy(false);
      // Disabled while it listed (focus fell to the page): the button takes focus back.
      focusAfterRender(() => buttonRef.current, { from: buttonRef.current });
    }
  };

  return (
    <div className="field">
      <span id="settings-model-label">Model</span>
      <div className="inline">
        <input
          aria-labelledby="settings-model-label"
          data-testid="settings-model"
          className="mono"
          list="settings-model-choices"
          value={model}
          onChange={(e) => onModel(e.target.value)}
          spellCheck={false}
        />
        <button ref={buttonRef} type="button" data-testid="settings-list-models" disabled={busy || !baseUrl.trim()} onClick={() => void load()}>
          {busy ? 'Listing…' : 'List models'}
        </button>
      </div>
      <datalist id="settings-model-choices">
        {choices.map((m) => (
          <option key={m.id} value={m.id}>
            {m.contextWindow ? `${m.id} (${formatTokens(m.contextWindow)} context)` : m.id}
          </option>
        ))}
      </datalist>
      {listing && (
        <span className="hint" data-testid="settings-model-source">
          {listing.models.length} model{listing.models.length === 1 ? '' : 's'} listed; numbers from {listing.source || 'nothing the endpoint published'}.
        </span>
      )}
      {error && (
        <span className="hint warn" data-testid="settings-model-list-error">
          Could not list models: {error}
        </span>
      )}
    </div>
  );
}
