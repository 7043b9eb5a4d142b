/**
 * The provider setup card (first run, and whenever a send finds no working provider): pick a
 * provider, give its key (or use a local Ollama, found by asking its model list), then "Connect and
 * test" saves the key, lists the endpoint's models (`listModels`) and sends one real minimal request
 * to the chosen model (`testConnection`). Only a provider that answered can be saved as the active
 * one; saving hands a held send back to AppActions (`providerConfigured`).
 */
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import type { HostResult, ProviderPresetView, SettingsView } from '../../../shared/api.js';
import { describeError } from '../../host/host-client.js';
import { byTestId, focusAfterRender } from '../../keyboard/focus-after-render.js';
import { useApp, useClient } from '../context.js';

type ModelList = HostResult<'listModels'>;
type TestState =
  | { readonly state: 'idle' }
  | { readonly state: 'running' }
  | { readonly state: 'ok'; readonly latencyMs: number; readonly key: string }
  | { readonly state: 'failed'; readonly code: string; readonly message: string };

/** What was tested: a new choice needs a new test. */
const choiceKey = (provider: string, baseUrl: string, model: string): string => `${provider}\n${baseUrl.trim()}\n${model.trim()}`;

/**
 * After a test or a failed save (both buttons were disabled meanwhile): "Use this provider" when the
 * test passed, else "Connect and test" again.
 */
const nextStep = byTestId('setup-save', 'setup-connect');

function SetupForm({ view, onConfigured }: { readonly view: SettingsView; readonly onConfigured: () => void }): ReactNode {
  const client = useClient();
  const setSettings = useApp((s) => s.setSettings);
  const [provider, setProvider] = useState(view.active.provider);
  const [baseUrl, setBaseUrl] = useState(view.active.baseUrl);
  const [model, setModel] = useState(view.active.model);
  const [apiKey, setApiKey] = useState('');
  const [keys, setKeys] = useState(view.keys);
  const [models, setModels] = useState<ModelList | undefined>();
  const [test, setTest] = useState<TestState>({ state: 'idle' });
  const [error, setError] = useState<string | undefined>();
  const [saving, setSaving] = useState(false);
  const [ollama, setOllama] = useState<ModelList | undefined>();
  const preset: ProviderPresetView | undefined = useMemo(() => view.presets.find((p) => p.id === provider), [view.presets, provider]);

  // Look for a local Ollama once (its model list answers only when a server runs).
  useEffect(() => {
    let live = true;
    client.listModels({ provider: 'ollama' }).then(
      (list) => live && list.listedByEndpoint && list.models.length > 0 && setOllama(list),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [client]);

  const choose = (id: string, list?: ModelList): void => {
    setProvider(id);
    const p = view.presets.find((x) => x.id === id);
    setBaseUrl(id === view.active.provider ? view.active.baseUrl : (p?.baseUrl ?? ''));
    setModel(list?.models[0]?.id ?? (id === view.active.provider ? view.active.model : (p?.models[0]?.id ?? '')));
    setModels(list);
    setTest({ state: 'idle' });
    setError(undefined);
  };

  const connect = async (): Promise<void> => {
    setError(undefined);
    setTest({ state: 'running' });
    try {
      if (apiKey.trim()) {
        const next = await client.setApiKey({ provider, apiKey: apiKey.trim() });
        setKeys(next.keys);
        setSettings(next);
        setApiKey('');
      }
      let chosen = model.trim();
      try {
        const list = await client.listModels({ provider, ...(baseUrl.trim() ? { baseUrl: baseUrl.trim() } : {}) });
        setModels(list);
        if (list.models.length > 0 && !list.models.some((m) => m.id === chosen)) chosen = list.models[0]!.id;
        setModel(chosen);
      } catch (e) {
        setModels(undefined);
        // Some servers cannot list models; a typed model can still be tested.
        if (!chosen) throw e;
      }
      if (!chosen) {
        setTest({ state: 'failed', code: 'NO_MODEL', message: 'the endpoint listed no models; type a model id' });
        return;
      }
      const result = await client.testConnection({ provider, model: chosen, ...(baseUrl.trim() ? { baseUrl: baseUrl.trim() } : {}) });
      setTest(result.ok ? { state: 'ok', latencyMs: result.latencyMs, key: choiceKey(provider, baseUrl, chosen) } : { state: 'failed', code: result.code, message: result.message });
    } catch (e) {
      setTest({ state: 'idle' });
      setError(describeError(e));
    } finally {
      focusAfterRender(nextStep);
    }
  };

  const tested = test.state === 'ok' && test.key === choiceKey(provider, baseUrl, model);
  const save = async (): Promise<void> => {
    setSaving(true);
    setError(undefined);
    try {
      const next = await client.updateSettings({ active: { provider, baseUrl: baseUrl.trim(), model: model.trim() } });
      setSettings(next);
      onConfigured();
    } catch (e) {
      setError(describeError(e));
      focusAfterRender(nextStep);
    } finally {
      setSaving(false);
    }
  };

  const hasKey = keys[provider] === true;
  const needsKey = preset?.needsKey ?? false;
  const canConnect = baseUrl.trim() !== '' && (!needsKey || hasKey || apiKey.trim() !== '') && test.state !== 'running';
  return (
    <form
      className="setup-form"
      data-testid="provider-setup-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (tested) void save();
        else if (canConnect) void connect();
      }}
    >
      {ollama && provider !== 'ollama' && (
        <div className="setup-found" data-testid="setup-ollama-found">
          <span>
            A local Ollama answers with {ollama.models.length} model{ollama.models.length === 1 ? '' : 's'} — no key needed.
          </span>
          <button
            type="button"
            className="small"
            data-testid="setup-use-ollama"
            onClick={() => {
              choose('ollama', ollama);
              // This offer goes away once Ollama is chosen; testing it is next.
              focusAfterRender(byTestId('setup-connect'));
            }}
          >
            Use Ollama
          </button>
        </div>
      )}
      <label className="field">
        <span>Provider</span>
        <select data-testid="setup-provider" value={provider} onChange={(e) => choose(e.target.value)}>
          {view.presets.map((p) => (
            <option key={p.id} value={p.id}>
              {p.label}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span>Base URL</span>
        <input
          data-testid="setup-base-url"
          className="mono"
          value={baseUrl}
          placeholder={provider === 'custom' ? 'http://127.0.0.1:8000/v1' : ''}
          onChange={(e) => {
            setBaseUrl(e.target.value);
            setTest({ state: 'idle' });
          }}
          spellCheck={false}
        />
      </label>
      {(needsKey || provider === 'custom') && (
        <label className="field">
          <span>API key{needsKey ? '' : ' (if the server wants one)'}</span>
          <input
            data-testid="setup-api-key"
            type="password"
            autoComplete="off"
            value={apiKey}
            placeholder={hasKey ? 'a key is set — type to replace it' : 'paste a key'}
            onChange={(e) => setApiKey(e.target.value)}
          />
          <span className="hint">
            {hasKey ? 'A key is set for this provider.' : needsKey ? `${preset?.label ?? provider} needs a key.` : ''}
            {preset?.apiKeyEnv ? ` It can also come from $${preset.apiKeyEnv}.` : ''} Keys are never shown again or sent to the page.
          </span>
        </label>
      )}
      <label className="field">
        <span>Model</span>
        <input data-testid="setup-model" className="mono" list="setup-model-choices" value={model} onChange={(e) => setModel(e.target.value)} spellCheck={false} aria-describedby="setup-models-note" />
        <datalist id="setup-model-choices">
          {(models?.models ?? preset?.models ?? []).map((m) => (
            <option key={m.id} value={m.id} />
          ))}
        </datalist>
        <span className="hint" id="setup-models-note" data-testid="setup-models" data-count={models?.models.length ?? 0} data-source={models ? (models.listedByEndpoint ? 'endpoint' : 'preset') : ''}>
          {models
            ? models.models.length > 0
              ? `${models.listedByEndpoint ? 'The endpoint lists' : 'Known models'}: ${models.models
                  .slice(0, 6)
                  .map((m) => m.id)
                  .join(', ')}${models.models.length > 6 ? `, +${models.models.length - 6} more` : ''}`
              : 'The endpoint lists no models.'
            : 'Connect to list the models this endpoint offers.'}
        </span>
      </label>
      <div className="setup-result" aria-live="polite" data-testid="setup-test" data-state={tested ? 'ok' : test.state === 'ok' ? 'stale' : test.state}>
        {test.state === 'running' && <span className="muted">Connecting and sending one test request…</span>}
        {tested && test.state === 'ok' && (
          <span className="ok-text">
            ✓ {model} answered in {test.latencyMs} ms.
          </span>
        )}
        {test.state === 'ok' && !tested && <span className="muted">The choice changed since the test: test again.</span>}
        {test.state === 'failed' && (
          <span className="error-text" role="alert">
            ✕ {test.message} [{test.code}]
          </span>
        )}
        {error && (
          <span className="error-text" role="alert" data-testid="setup-error">
            {error}
          </span>
        )}
      </div>
      <div className="dialog-buttons">
        <span className="spacer" />
        <button type={tested ? 'button' : 'submit'} data-testid="setup-connect" disabled={!canConnect} onClick={tested ? () => void connect() : undefined}>
          {test.state === 'running' ? 'Testing…' : tested ? 'Test again' : 'Connect and test'}
        </button>
        <button type={tested ? 'submit' : 'button'} className="primary" data-testid="setup-save" disabled={!tested || saving} title={tested ? undefined : 'Connect and test first'}>
          Use this provider
        </button>
      </div>
    </form>
  );
}

/** The card: loads the settings if needed, then the form. */
export function ProviderSetup({ onConfigured }: { readonly onConfigured: () => void }): ReactNode {
  const client = useClient();
  const view = useApp((s) => s.settings);
  const setSettings = useApp((s) => s.setSettings);
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    if (view) return;
    let live = true;
    client.getSettings({}).then(
      (v) => live && setSettings(v),
      (e: unknown) => live && setError(describeError(e)),
    );
    return () => {
      live = false;
    };
  }, [client, view, setSettings]);
  if (!view) {
    return error ? (
      <div className="error-text" role="alert">
        Could not load the settings: {error}
      </div>
    ) : (
      <div className="muted">Loading settings…</div>
    );
  }
  return <SetupForm view={view} onConfigured={onConfigured} />;
}
