/**
 * The model field of the Settings dialog: free text with the preset's suggestions, plus "List
 * models", which asks the host for the endpoint's models and their known context windows (HostApi
 * `listModels`), says where the numbers came from, and shows them as a list to pick from: ↑ ↓ move
 * (also ↓ from the model field), Enter or Space (or a click) puts the model in the field and focus
 * back there. The datalist alone showed them but picking one did not reliably fill the field.
 */
import { useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import type { ModelListing, ProviderPresetView } from '../../../shared/api.js';
import { formatTokens } from '../../../shared/format.js';
import { describeError } from '../../host/host-client.js';
import { focusAfterRender } from '../../keyboard/focus-after-render.js';
import { busyButtonProps } from '../common/busy-button.js';
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
  const inputRef = useRef<HTMLInputElement>(null);
  const listRef = useRef<HTMLUListElement>(null);
  const listed = listing?.models ?? [];
  // The list's cursor (aria-activedescendant); -1: on the model in the field (else the first).
  const [cursor, setCursor] = useState(-1);
  const current = listed.findIndex((m) => m.id === model.trim());
  const at = Math.min(Math.max(cursor < 0 ? current : cursor, 0), Math.max(listed.length - 1, 0));

  useEffect(() => {
    if (document.activeElement === listRef.current) document.getElementById(`settings-model-choice-${at}`)?.scrollIntoView({ block: 'nearest' });
  }, [at]);

  const pick = (id: string): void => {
    onModel(id);
    setCursor(-1);
    inputRef.current?.focus();
  };
  const enterList = (): void => {
    setCursor(-1);
    listRef.current?.focus();
  };
  const onListKey = (e: KeyboardEvent<HTMLUListElement>): void => {
    const last = listed.length - 1;
    const move = (to: number): void => {
      e.preventDefault();
      setCursor(Math.min(Math.max(to, 0), last));
    };
    if (e.key === 'ArrowDown') move(at + 1);
    else if (e.key === 'ArrowUp') move(at - 1);
    else if (e.key === 'Home') move(0);
    else if (e.key === 'End') move(last);
    else if (e.key === 'PageDown') move(at + 5);
    else if (e.key === 'PageUp') move(at - 5);
    else if ((e.key === 'Enter' || e.key === ' ') && listed[at]) {
      // Enter here picks; it must not submit the Settings form.
      e.preventDefault();
      pick(listed[at].id);
    }
  };

  const load = async (): Promise<void> => {
    if (busy) return;
    setBusy(true);
    setError(undefined);
    try {
      onListing(await client.listModels({ provider, ...(baseUrl.trim() ? { baseUrl: baseUrl.trim() } : {}) }));
    } catch (e) {
      onListing(undefined);
      setError(describeError(e));
    } finally {
      setBusy(false);
      // It kept focus while it listed (aria-disabled); should focus have gone anyway, the button takes it back.
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
          ref={inputRef}
          list={listing ? undefined : 'settings-model-choices'}
          value={model}
          onChange={(e) => onModel(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'ArrowDown' && listed.length > 0) {
              e.preventDefault();
              enterList();
            }
          }}
          spellCheck={false}
        />
        <button ref={buttonRef} type="button" data-testid="settings-list-models" {...busyButtonProps(busy, !baseUrl.trim())} onClick={() => void load()}>
          {busy ? 'Listing…' : 'List models'}
        </button>
      </div>
      <datalist id="settings-model-choices">
        {(listing ? [] : choices).map((m) => (
          <option key={m.id} value={m.id}>
            {m.contextWindow ? `${m.id} (${formatTokens(m.contextWindow)} context)` : m.id}
          </option>
        ))}
      </datalist>
      {listing && (
        <span className="hint" data-testid="settings-model-source" id="settings-model-source">
          {listing.models.length} model{listing.models.length === 1 ? '' : 's'} listed; numbers from {listing.source || 'nothing the endpoint published'}.
          {listing.models.length > 0 ? ' Pick one below (↑ ↓, Enter).' : ''}
        </span>
      )}
      {listed.length > 0 && (
        <ul
          ref={listRef}
          className="model-choices"
          role="listbox"
          tabIndex={0}
          aria-label="Listed models"
          aria-describedby="settings-model-source"
          aria-activedescendant={`settings-model-choice-${at}`}
          data-testid="settings-model-list"
          onKeyDown={onListKey}
        >
          {listed.map((m, i) => (
            <li
              key={m.id}
              id={`settings-model-choice-${i}`}
              role="option"
              aria-selected={m.id === model.trim()}
              className={`model-choice${i === at ? ' active' : ''}`}
              data-testid="settings-model-choice"
              data-model={m.id}
              onClick={() => pick(m.id)}
            >
              <span className="mono">{m.id}</span>
              {m.contextWindow ? <span className="muted"> {formatTokens(m.contextWindow)} context</span> : null}
            </li>
          ))}
        </ul>
      )}
      {error && (
        <span className="hint warn" data-testid="settings-model-list-error">
          Could not list models: {error}
        </span>
      )}
    </div>
  );
}
