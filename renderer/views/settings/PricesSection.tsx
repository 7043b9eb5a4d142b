/**
 * Settings → Prices (docs/providers.md "Prices, overrides and budgets"): the person's price overrides per endpoint and model (USD per
 * million tokens), which win over the bundled price list from the next request on. Add, edit and
 * remove; each number is checked before saving and a bad one is named (`input price: "abc" is not
 * a number`, `output price must not be negative`); the host checks them again
 * (`updateSettings({ prices })`). Keyboard: Enter in a field saves the form, Escape cancels an edit.
 */
import { useState, type ReactNode } from 'react';
import type { PriceOverrideSetting } from '../../../shared/api.js';
import { describeError } from '../../host/host-client.js';
import { useApp, useClient } from '../context.js';
import { useOpenSubForm } from './open-sub-forms.js';

/** The form's numeric fields: key, label (named in errors), required. */
const RATE_FIELDS = [
  ['inputMtok', 'input price', true],
  ['outputMtok', 'output price', true],
  ['cacheReadMtok', 'cached input price', false],
  ['reasoningMtok', 'reasoning price', false],
] as const;

type RateKey = (typeof RATE_FIELDS)[number][0];
type Draft = { baseUrl: string; model: string } & Record<RateKey, string>;

const EMPTY: Draft = { baseUrl: '', model: '', inputMtok: '', outputMtok: '', cacheReadMtok: '', reasoningMtok: '' };

/**
 * Checks a draft and builds the override, or says which field is wrong.
 * @returns `{ price }` or `{ error, field }`.
 */
export function parsePriceDraft(d: Draft): { price: PriceOverrideSetting } | { error: string; field: keyof Draft } {
  const model = d.model.trim();
  if (model === '') return { error: 'model: name a model (or * for every model of the endpoint)', field: 'model' };
  const rates: Partial<Record<RateKey, number>> = {};
  for (const [key, label, required] of RATE_FIELDS) {
    const text = d[key].trim();
    if (text === '') {
      if (required) return { error: `${label} is required (USD per million tokens; 0 for a free model)`, field: key };
      continue;
    }
    const n = Number(text);
    if (!Number.isFinite(n) || !/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(text)) return { error: `${label}: "${text}" is not a number (USD per million tokens)`, field: key };
    if (n < 0) return { error: `${label} must not be negative (got ${text})`, field: key };
    rates[key] = n;
  }
  const baseUrl = d.baseUrl.trim().replace(/\/+$/, '');
  return {
    price: {
      ...(baseUrl !== '' ? { baseUrl } : {}),
      model,
      inputMtok: rates.inputMtok!,
      outputMtok: rates.outputMtok!,
      ...(rates.cacheReadMtok !== undefined ? { cacheReadMtok: rates.cacheReadMtok } : {}),
      ...(rates.reasoningMtok !== undefined ? { reasoningMtok: rates.reasoningMtok } : {}),
    },
  };
}

function draftOf(p: PriceOverrideSetting): Draft {
  const s = (n: number | undefined) => (n === undefined ? '' : String(n));
  return { baseUrl: p.baseUrl ?? '', model: p.model, inputMtok: s(p.inputMtok), outputMtok: s(p.outputMtok), cacheReadMtok: s(p.cacheReadMtok), reasoningMtok: s(p.reasoningMtok) };
}

export function PricesSection(): ReactNode {
  const client = useClient();
  const settings = useApp((s) => s.settings);
  const setSettings = useApp((s) => s.setSettings);
  const prices = settings?.prices ?? [];
  /** The row being edited (index), `new` for the add form. */
  const [editing, setEditing] = useState<number | 'new' | undefined>();
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [error, setError] = useState<{ text: string; field?: keyof Draft } | undefined>();
  const [saved, setSaved] = useState(false);
  useOpenSubForm('price', editing === undefined ? undefined : editing === 'new' ? 'the new price row (Save price or Cancel)' : 'the price row being edited (Save price or Cancel)');

  const save = async (list: readonly PriceOverrideSetting[]): Promise<boolean> => {
    try {
      setSettings(await client.updateSettings({ prices: [...list] }));
      setSaved(true);
      return true;
    } catch (e) {
      setError({ text: describeError(e) });
      return false;
    }
  };
  const submit = async (): Promise<void> => {
    const parsed = parsePriceDraft(draft);
    if ('error' in parsed) {
      setError({ text: parsed.error, field: parsed.field });
      document.querySelector<HTMLInputElement>(`[data-testid="price-field-${parsed.field}"]`)?.focus();
      return;
    }
    const list = editing === 'new' || editing === undefined ? [...prices, parsed.price] : prices.map((p, i) => (i === editing ? parsed.price : p));
    if (await save(list)) {
      setEditing(undefined);
      setDraft(EMPTY);
      setError(undefined);
    }
  };
  const open = (which: number | 'new'): void => {
    setEditing(which);
    setDraft(which === 'new' ? { ...EMPTY, baseUrl: settings?.active.baseUrl ?? '', model: settings?.active.model ?? '' } : draftOf(prices[which]!));
    setError(undefined);
    setSaved(false);
  };
  const field = (key: keyof Draft, label: string, placeholder: string): ReactNode => (
    <label className="field price-field">
      <span>{label}</span>
      <input
        data-testid={`price-field-${key}`}
        className="mono"
        value={draft[key]}
        placeholder={placeholder}
        aria-invalid={error?.field === key}
        onChange={(e) => {
          setDraft({ ...draft, [key]: e.target.value });
          setError(undefined);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            void submit();
          } else if (e.key === 'Escape') {
            e.stopPropagation();
            setEditing(undefined);
            setError(undefined);
          }
        }}
      />
    </label>
  );
  return (
    <section className="mcp-section prices-section" data-testid="prices-section" aria-labelledby="prices-heading">
      <h3 id="prices-heading">Prices</h3>
      <div className="muted">
        Your prices (USD per million tokens) win over the bundled price list, from the next request on. No endpoint: the model on any endpoint; model * : every model of the endpoint.
      </div>
      {prices.length === 0 ? (
        <div className="muted" data-testid="prices-empty">
          No price overrides.
        </div>
      ) : (
        <table className="prices-table" data-testid="prices-table">
          <thead>
            <tr>
              <th>endpoint</th>
              <th>model</th>
              <th>input</th>
              <th>cached</th>
              <th>output</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {prices.map((p, i) => (
              <tr key={`${p.baseUrl ?? ''} ${p.model} ${i}`} data-testid="price-row" data-model={p.model}>
                <td className="mono clip" title={p.baseUrl ?? 'any endpoint'}>
                  {p.baseUrl ?? 'any'}
                </td>
                <td className="mono clip" title={p.model}>
                  {p.model}
                </td>
                <td className="mono">${p.inputMtok}</td>
                <td className="mono">{p.cacheReadMtok !== undefined ? `$${p.cacheReadMtok}` : '—'}</td>
                <td className="mono">${p.outputMtok}</td>
                <td>
                  <button type="button" className="small" data-testid="price-edit" aria-label={`Edit the price of ${p.model}`} onClick={() => open(i)}>
                    Edit
                  </button>{' '}
                  <button
                    type="button"
                    className="small danger"
                    data-testid="price-remove"
                    aria-label={`Remove the price of ${p.model}`}
                    onClick={() => {
                      setError(undefined);
                      void save(prices.filter((_, j) => j !== i));
                    }}
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {editing !== undefined && (
        <div className="price-form" data-testid="price-form">
          {field('baseUrl', 'endpoint (base URL, empty: any)', 'https://api.example.com/v1')}
          {field('model', 'model', 'model id or *')}
          {field('inputMtok', 'input $/M', '0.27')}
          {field('outputMtok', 'output $/M', '1.10')}
          {field('cacheReadMtok', 'cached input $/M', 'optional')}
          {field('reasoningMtok', 'reasoning $/M', 'optional')}
        </div>
      )}
      {error && (
        <div className="error-text" role="alert" data-testid="price-error">
          {error.text}
        </div>
      )}
      <div className="dialog-buttons">
        {saved && !editing && <span className="hint ok">Saved.</span>}
        <span className="spacer" />
        {editing !== undefined ? (
          <>
            <button type="button" data-testid="price-cancel" onClick={() => setEditing(undefined)}>
              Cancel
            </button>
            <button type="button" className="primary" data-testid="price-save" onClick={() => void submit()}>
              Save price
            </button>
          </>
        ) : (
          <button type="button" data-testid="price-add" onClick={() => open('new')}>
            Add price
          </button>
        )}
      </div>
    </section>
  );
}
